package dynskin

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
	"gallop/solver/ssdr"
)

// tubeModel returns a capsule-like cylinder of rings×around vertices along
// y, length 4, radius 0.5, with two bones along its axis.
func tubeModel(t testing.TB, rings, around int) (*Model, []mgl64.Vec3) {
	t.Helper()
	rest, tris, w, segs := tubeMesh(rings, around)
	m, err := NewModel(rest, tris, w, segs)
	if err != nil {
		t.Fatal(err)
	}
	return m, rest
}

// tubeMesh returns tubeModel's mesh: rest positions, triangles, skin
// weights and bone segments.
func tubeMesh(rings, around int) ([]mgl64.Vec3, [][3]int, [][]ssdr.Influence, []Segment) {
	var rest []mgl64.Vec3
	var tris [][3]int
	var w [][]ssdr.Influence
	for r := 0; r < rings; r++ {
		y := 4 * float64(r) / float64(rings-1)
		for a := 0; a < around; a++ {
			th := 2 * math.Pi * float64(a) / float64(around)
			rest = append(rest, mgl64.Vec3{0.5 * math.Cos(th), y, 0.5 * math.Sin(th)})
			u := y / 4
			w = append(w, []ssdr.Influence{{Bone: 0, Weight: 1 - u}, {Bone: 1, Weight: u}})
		}
	}
	for r := 0; r+1 < rings; r++ {
		for a := 0; a < around; a++ {
			i, j := r*around+a, r*around+(a+1)%around
			tris = append(tris, [3]int{i, j, i + around}, [3]int{j, j + around, i + around})
		}
	}
	segs := []Segment{{A: mgl64.Vec3{0, 0, 0}, B: mgl64.Vec3{0, 2, 0}}, {A: mgl64.Vec3{0, 2, 0}, B: mgl64.Vec3{0, 4, 0}}}
	return rest, tris, w, segs
}

// stillGoal returns a goal of two frames at positions x with bone
// segments segs, at fps frames per second.
func stillGoal(x []mgl64.Vec3, segs []Segment, fps float64) *Goal {
	return &Goal{FPS: fps, Positions: [][]mgl64.Vec3{x, x}, Bones: [][]Segment{segs, segs}}
}

// forcesByStep returns vertex i's five forces in s's state, with the
// goal g0 (moving to g1 over the step) and bone segments segs: stepped
// with one parameter alone at its largest, πₖ, and no external force, the
// vertex moves by πₖh²Fₖ from x + h·v.
func forcesByStep(t *testing.T, s *Sim, i int, g0, g1 []mgl64.Vec3, segs []Segment) (f [nParams]mgl64.Vec3) {
	t.Helper()
	s.g0, s.g1, s.u, s.un = s.m.toSlots(g0), s.m.toSlots(g1), 0, 1
	for b, seg := range segs {
		s.segs[b] = seg.prepare()
	}
	i = int(s.m.at[i])
	x, v := mgl64.Vec3(s.cur.n[i].x), mgl64.Vec3(s.cur.n[i].v)
	var r ringSums
	q := s.cur.q[i]
	if s.m.inv[i] > 0 {
		s.m.ringSums(&r, i, s.cur.n)
		q, _ = rotation.Refine(q, &r.a, 0, 1)
	}
	p := make([]Material, s.m.n)
	for k := range nParams {
		var unit Material
		unit.Set(k, upper[k])
		for j := range p {
			p[j] = unit
		}
		if err := s.SetParams(p); err != nil {
			t.Fatal(err)
		}
		var b [3][4]float64
		s.groupSpokes(&b, i/4)
		s.stepVertex(i, &r, q, [3]float64{b[0][i%4], b[1][i%4], b[2][i%4]}, false)
		f[k] = mgl64.Vec3(s.nxt.n[i].x).Sub(x.Add(v.Mul(s.h))).Mul(1 / (upper[k] * s.h * s.h))
	}
	return f
}
