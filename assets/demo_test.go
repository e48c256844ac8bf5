package assets

import (
	"math"
	"testing"
)

func TestDemoBarMatchesPaperSize(t *testing.T) {
	m := DemoBar()
	if m.NumVertices() != 132 || m.NumTriangles() != 260 {
		t.Fatalf("bar has %d vertices / %d triangles, want 132 / 260 (Sumner et al. 2005, Table 1)", m.NumVertices(), m.NumTriangles())
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	// Closed surface: every edge is shared by exactly two triangles, with
	// opposite orientations.
	edges := map[[2]int]int{}
	for _, tr := range m.Triangles {
		for k := 0; k < 3; k++ {
			edges[[2]int{tr[k], tr[(k+1)%3]}]++
		}
	}
	for e, n := range edges {
		if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v is not a manifold edge with opposite twin", e)
		}
	}
	// Outward orientation: positive signed volume.
	vol := 0.0
	for _, tr := range m.Triangles {
		a, b, c := m.Positions[tr[0]], m.Positions[tr[1]], m.Positions[tr[2]]
		vol += a.Dot(b.Cross(c)) / 6
	}
	// A prism over a regular 10-gon: area (n/2)·r²·sin(2π/n).
	want := demoBarSegments / 2.0 * demoBarRadius * demoBarRadius * math.Sin(2*math.Pi/demoBarSegments) * demoBarLength
	if math.Abs(vol-want)/want > 1e-9 {
		t.Fatalf("signed volume %v, want about +%v", vol, want)
	}
}

func TestDemoBarBendKeepsLength(t *testing.T) {
	straight := DemoBarBent(0)
	bent := DemoBarBent(DemoBendAngle)
	n := len(straight)
	// Centre line length from cap centre to cap centre through ring centres.
	centreLen := func(p []Vec3) float64 {
		prev := p[n-2]
		l := 0.0
		for r := 1; r < demoBarRings; r++ {
			var c Vec3
			for k := 0; k < demoBarSegments; k++ {
				c = c.Add(p[r*demoBarSegments+k])
			}
			c = c.Mul(1.0 / demoBarSegments)
			l += c.Sub(prev).Len()
			prev = c
		}
		return l
	}
	ls, lb := centreLen(straight), centreLen(bent)
	if math.Abs(ls-demoBarLength) > 1e-9 {
		t.Fatalf("straight bar length %v, want %v", ls, demoBarLength)
	}
	if math.Abs(lb-ls)/ls > 0.02 {
		t.Fatalf("bent bar centre line %v vs straight %v: more than 2%% apart", lb, ls)
	}
	// The tip turned by the bend angle: last ring's tangent.
	tip, prevRing := bent[n-1], Vec3{}
	for k := 0; k < demoBarSegments; k++ {
		prevRing = prevRing.Add(bent[(demoBarRings-2)*demoBarSegments+k])
	}
	prevRing = prevRing.Mul(1.0 / demoBarSegments)
	d := tip.Sub(prevRing)
	if got := math.Atan2(d[1], d[0]); math.Abs(got-DemoBendAngle) > 0.1 {
		t.Fatalf("tip direction %v rad, want about %v", got, DemoBendAngle)
	}
}

func TestDemoSceneValid(t *testing.T) {
	s := DemoScene()
	if len(s.Objects) != 1 {
		t.Fatalf("%d objects", len(s.Objects))
	}
	if err := s.Objects[0].Validate(); err != nil {
		t.Fatal(err)
	}
	if s.Objects[0].NumFrames() != 60 {
		t.Fatalf("demo clip has %d frames", s.Objects[0].NumFrames())
	}
}
