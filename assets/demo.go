package assets

import "math"

// Demo bar dimensions: the cylindrical bar of Sumner et al. 2005, Figure 5
// (Table 1: 132 vertices, 260 triangles), lying along +x from the origin.
const (
	demoBarRings    = 13  // rings of vertices along the bar
	demoBarSegments = 10  // vertices around each ring
	demoBarLength   = 6.0 // model units
	demoBarRadius   = 0.5
	// DemoBendAngle is the total bend, in radians, of the bent example.
	DemoBendAngle = math.Pi / 2
)

// DemoBar returns the straight cylindrical bar (13 rings of 10 vertices
// plus a centre vertex on each cap: 132 vertices, 260 triangles) with groups
// "side", "cap0" (x = 0) and "cap1" (x = length).
func DemoBar() *Mesh {
	m := &Mesh{Name: "bar"}
	m.Positions = DemoBarBent(0)
	ring := func(r, k int) int { return r*demoBarSegments + k%demoBarSegments }
	var side, cap0, cap1 []int
	for r := 0; r+1 < demoBarRings; r++ {
		for k := 0; k < demoBarSegments; k++ {
			a, b := ring(r, k), ring(r, k+1)
			c, d := ring(r+1, k+1), ring(r+1, k)
			side = append(side, len(m.Triangles), len(m.Triangles)+1)
			m.Triangles = append(m.Triangles, [3]int{a, b, c}, [3]int{a, c, d})
		}
	}
	c0 := demoBarRings * demoBarSegments
	c1 := c0 + 1
	last := demoBarRings - 1
	for k := 0; k < demoBarSegments; k++ {
		cap0 = append(cap0, len(m.Triangles))
		m.Triangles = append(m.Triangles, [3]int{c0, ring(0, k+1), ring(0, k)})
		cap1 = append(cap1, len(m.Triangles))
		m.Triangles = append(m.Triangles, [3]int{c1, ring(last, k), ring(last, k+1)})
	}
	m.Groups = []Group{{Name: "side", Triangles: side}, {Name: "cap0", Triangles: cap0}, {Name: "cap1", Triangles: cap1}}
	return m
}

// DemoBarBent returns the vertex positions of the demo bar bent smoothly in
// the x-y plane by a total angle (radians; 0 gives the straight bar). The
// bend is concentrated in the middle of the bar: the centre line's tangent
// turns by angle·smoothstep(s/length) at arc length s, so the centre line
// keeps its length and each ring stays perpendicular to it. The first ring
// stays in place.
func DemoBarBent(angle float64) []Vec3 {
	n := demoBarRings*demoBarSegments + 2
	p := make([]Vec3, n)
	ds := demoBarLength / float64(demoBarRings-1)
	// Integrate the centre line with fine steps between rings.
	const sub = 64
	var cx, cy, s float64
	turn := func(s float64) float64 {
		t := s / demoBarLength
		return angle * t * t * (3 - 2*t)
	}
	var centres [demoBarRings][2]float64
	for r := 0; r < demoBarRings; r++ {
		if r > 0 {
			for i := 0; i < sub; i++ {
				phi := turn(s + (float64(i)+0.5)*ds/sub)
				cx += math.Cos(phi) * ds / sub
				cy += math.Sin(phi) * ds / sub
			}
			s += ds
		}
		centres[r] = [2]float64{cx, cy}
		phi := turn(s)
		// Ring frame: tangent (cos φ, sin φ, 0), normal (-sin φ, cos φ, 0), binormal z.
		for k := 0; k < demoBarSegments; k++ {
			a := 2 * math.Pi * float64(k) / demoBarSegments
			u, w := demoBarRadius*math.Cos(a), demoBarRadius*math.Sin(a)
			p[r*demoBarSegments+k] = Vec3{cx - u*math.Sin(phi), cy + u*math.Cos(phi), w}
		}
	}
	p[n-2] = Vec3{centres[0][0], centres[0][1], 0}
	p[n-1] = Vec3{centres[demoBarRings-1][0], centres[demoBarRings-1][1], 0}
	return p
}

// DemoScene returns the scene Gallop opens with no file: the bar with a clip
// that bends it from straight to the bent example pose and back (2 s at
// 30 fps), lifted so it stands above the ground grid.
func DemoScene() *Scene {
	bar := DemoBar()
	lift := func(p []Vec3) []Vec3 {
		for i := range p {
			p[i][1] += 1
		}
		return p
	}
	lift(bar.Positions)
	const frames = 60
	clip := &Clip{Name: "bend", FPS: DefaultFPS, Frames: make([][]Vec3, frames)}
	for i := range clip.Frames {
		t := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/frames)
		clip.Frames[i] = lift(DemoBarBent(t * DemoBendAngle))
	}
	return &Scene{Objects: []*Object{{Name: "bar", Mesh: bar, Clip: clip}}}
}
