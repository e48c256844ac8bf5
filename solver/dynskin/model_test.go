package dynskin

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
	"gallop/solver/ssdr"
)

// fan returns vertex 0 at the origin with a ring of 4 neighbours in the
// xz plane (4 triangles), one bone along y from (0,−1,0) to (0,1,0).
func fan(t *testing.T) (*Model, []mgl64.Vec3) {
	t.Helper()
	rest := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {-1, 0, 0}, {0, 0, -1}}
	tris := [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 1}}
	w := make([][]ssdr.Influence, len(rest))
	for i := range w {
		w[i] = []ssdr.Influence{{Bone: 0, Weight: 1}}
	}
	seg := []Segment{{A: mgl64.Vec3{0.5, -1, 0}, B: mgl64.Vec3{0.5, 1, 0}}}
	m, err := NewModel(rest, tris, w, seg)
	if err != nil {
		t.Fatal(err)
	}
	return m, rest
}

func near(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }

// TestForcesByHand checks each force of vertex 0 of a fan against values
// computed by hand.
func TestForcesByHand(t *testing.T) {
	m, rest := fan(t)
	h := 0.1
	st := State{X: append([]mgl64.Vec3(nil), rest...), V: make([]mgl64.Vec3, 5), Q: make([]mgl64.Quat, 5)}
	for i := range st.Q {
		st.Q[i] = mgl64.QuatIdent()
	}
	// Vertex 0 moved up by 0.2, its neighbours still: the ring's best
	// rotation is still the identity (A's antisymmetric part is zero), so
	// c = mean xⱼ − mean e⁰ = 0 and L = (0 − (0,0.2,0))/h².
	st.X[0] = mgl64.Vec3{0, 0.2, 0}
	st.V[0] = mgl64.Vec3{1, 0, 0}
	st.V[1] = mgl64.Vec3{2, 0, 0}
	s, err := NewSim(m, make([]Material, m.n), stillGoal(rest, m.segs0, 1/h), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The goal x̂ = (0.1, 0, 0) moving at v̂ = (0, 0, 3).
	g0 := append([]mgl64.Vec3(nil), rest...)
	g0[0] = mgl64.Vec3{0.1, 0, 0}
	g1 := append([]mgl64.Vec3(nil), g0...)
	g1[0] = g0[0].Add(mgl64.Vec3{0, 0, 3}.Mul(h))
	f := func() [nParams]mgl64.Vec3 {
		s.SetState(0, st)
		return forcesByStep(t, s, 0, g0, g1, m.segs0)
	}
	got := f()
	want := [nParams]mgl64.Vec3{
		{0.1 / (h * h), -0.2 / (h * h), 0}, // G = (x̂ − x)/h²
		{0, -0.2 / (h * h), 0},             // L
		{0, 0, 0},                          // B: the spoke (0.5 from the bone) keeps its length
		{(0.5 - 1) / h, 0, 0},              // D: mean ring velocity (2+0+0+0)/4 = 0.5
		{-1 / h, 0, 3 / h},                 // K = (v̂ − v)/h
	}
	for k := range got {
		if !near(got[k], want[k], 1e-9) {
			t.Errorf("%s force %v, want %v", ParamNames[k], got[k], want[k])
		}
	}
	// The spoke: vertex 0 pushed towards the bone to 0.3 from it (rest
	// 0.5): B = (0.5/0.3 − 1)·(−0.3, 0, 0)/h² = (−0.2, 0, 0)/h², pushing
	// it back out. Beyond the segment's end (y = 3) it hangs from the end
	// point (0.5, 1, 0): d = (−0.5, 2, 0).
	st.X[0] = mgl64.Vec3{0.2, 0, 0}
	if got, w := f()[2], (mgl64.Vec3{-0.2, 0, 0}).Mul(1/(h*h)); !near(got, w, 1e-9) {
		t.Errorf("spoke force %v, want %v", got, w)
	}
	st.X[0] = mgl64.Vec3{0, 3, 0}
	d := mgl64.Vec3{-0.5, 2, 0}
	if got, w := f()[2], d.Mul((0.5/d.Len()-1)/(h*h)); !near(got, w, 1e-9) {
		t.Errorf("spoke force beyond the end %v, want %v", got, w)
	}
}

// TestRigidMotionNoForces: a rigid motion of mesh and goal together leaves
// the surface and spoke forces zero (to 1e-12 of the diagonal, as
// displacements h²·F), the rings' rotations as Start finds them.
func TestRigidMotionNoForces(t *testing.T) {
	m, rest := tubeModel(t, 8, 9)
	rng := rand.New(rand.NewPCG(1, 1))
	h := 1.0 / 30
	for trial := 0; trial < 20; trial++ {
		r := rotation.Exp(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		tr := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		mv := func(p mgl64.Vec3) mgl64.Vec3 { return r.Mul3x1(p).Add(tr) }
		x := make([]mgl64.Vec3, m.n)
		for i, p := range rest {
			x[i] = mv(p)
		}
		segs := make([]Segment, len(m.segs0))
		for b, s := range m.segs0 {
			segs[b] = Segment{A: mv(s.A), B: mv(s.B)}
		}
		s, err := NewSim(m, make([]Material, m.n), stillGoal(x, segs, 1/h), Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(0)
		worst := 0.0
		for i := range rest {
			f := forcesByStep(t, s, i, x, x, segs)
			worst = max(worst, f[1].Len()*h*h, f[2].Len()*h*h)
		}
		if worst > 1e-12*m.diag {
			t.Fatalf("trial %d: surface or spoke force %g (as a displacement) under a rigid motion", trial, worst)
		}
	}
}

// TestRingRotationTracksPolar: one step of Refine per simulation step
// keeps each ring's rotation within δ²/10 of its polar rotation, δ the
// largest turn of a polar rotation in one step, over a swinging goal
// simulated for 60 frames.
func TestRingRotationTracksPolar(t *testing.T) {
	m, rest := tubeModel(t, 8, 9)
	g := swayGoal(m, rest, 60)
	p := Uniform(m.n, Material{Alpha: 0.2, Beta: 0.6, Gamma: 0.3, Lambda: 0.1, Kappa: 0.1})
	s, err := NewSim(m, p, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0)
	angle := func(a, b mgl64.Quat) float64 {
		return 2 * math.Asin(min(1, a.Mul(b.Inverse()).V.Len()))
	}
	want := make([]mgl64.Quat, m.n)
	copy(want, s.cur.q)
	worst, delta := 0.0, 0.0
	for f := 0; f+1 < g.NumFrames(); f++ {
		// The polar rotations of the state the step starts from.
		for i := range want {
			var r ringSums
			m.ringSums(&r, i, s.cur.n)
			rot, _ := rotation.Polar(r.a)
			q := mgl64.Mat4ToQuat(rot.Mat4()).Normalize()
			delta = max(delta, angle(q, want[i]))
			want[i] = q
		}
		if err := s.Advance(f + 1); err != nil {
			t.Fatal(err)
		}
		for i, q := range s.cur.q {
			worst = max(worst, angle(q, want[i]))
		}
	}
	t.Logf("largest turn in a step δ = %.2g, largest distance from the polar rotation %.2g (δ² = %.2g)", delta, worst, delta*delta)
	if worst > delta*delta/10 {
		t.Errorf("a ring's rotation strayed %g from its polar rotation, δ = %g", worst, delta)
	}
}

// TestConstantVelocityGoal: started on a goal translating at constant
// velocity, with its velocity, the mesh stays on it for any parameters.
func TestConstantVelocityGoal(t *testing.T) {
	m, rest := tubeModel(t, 8, 9)
	rng := rand.New(rand.NewPCG(2, 2))
	u := mgl64.Vec3{0.7, -0.3, 1.1}
	fps := 30.0
	frames := 60
	g := &Goal{FPS: fps}
	for f := 0; f < frames; f++ {
		off := u.Mul(float64(f) / fps)
		pos := make([]mgl64.Vec3, m.n)
		for i, p := range rest {
			pos[i] = p.Add(off)
		}
		g.Positions = append(g.Positions, pos)
		g.Bones = append(g.Bones, []Segment{{A: m.segs0[0].A.Add(off), B: m.segs0[0].B.Add(off)}, {A: m.segs0[1].A.Add(off), B: m.segs0[1].B.Add(off)}})
	}
	for trial := 0; trial < 5; trial++ {
		p := make([]Material, m.n)
		for i := range p {
			for k := 0; k < nParams; k++ {
				p[i].Set(k, rng.Float64()*upper[k])
			}
		}
		for _, sub := range []int{1, 3} {
			out, err := Simulate(m, p, g, Options{Substeps: sub})
			if err != nil {
				t.Fatal(err)
			}
			worst := 0.0
			for f := range out {
				for i := range out[f] {
					worst = max(worst, out[f][i].Sub(g.Positions[f][i]).Len())
				}
			}
			if worst > 1e-9*m.diag {
				t.Errorf("trial %d, %d substeps: the mesh left its goal by %g", trial, sub, worst)
			}
		}
	}
}

// TestStabilityRandom: 10,000 steps with random parameters in range (and
// the largest of every one) and a goal jittering randomly stay finite and
// within half a diagonal of the goal.
func TestStabilityRandom(t *testing.T) {
	m, rest := tubeModel(t, 8, 8)
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 8; trial++ {
		p := make([]Material, m.n)
		for i := range p {
			for k := 0; k < nParams; k++ {
				p[i].Set(k, rng.Float64()*upper[k])
			}
			if trial == 0 {
				p[i] = Material{Alpha: 1, Beta: 1, Gamma: 1, Lambda: 0.5, Kappa: 1}
			}
		}
		// The goal: at rest, then 10,000 frames of random translations
		// and turns of the whole goal about rest.
		g := stillGoal(rest, m.segs0, 30)
		for range 10000 {
			off := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(0.05)
			r := rotation.Exp(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(0.02))
			mv := func(q mgl64.Vec3) mgl64.Vec3 { return r.Mul3x1(q).Add(off) }
			x := make([]mgl64.Vec3, m.n)
			for i := range x {
				x[i] = mv(rest[i])
			}
			g.Positions = append(g.Positions, x)
			g.Bones = append(g.Bones, []Segment{{A: mv(m.segs0[0].A), B: mv(m.segs0[0].B)}, {A: mv(m.segs0[1].A), B: mv(m.segs0[1].B)}})
		}
		s, err := NewSim(m, p, g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s.Start(0) // at rest: the first two frames are
		worst := 0.0
		for f := 1; f < g.NumFrames(); f++ {
			if err := s.Advance(f); err != nil {
				t.Fatalf("trial %d, step %d: %v", trial, f-1, err)
			}
			for i, x := range s.Positions() {
				worst = max(worst, x.Sub(g.Positions[f][i]).Len())
			}
		}
		if !(worst < 0.5*m.diag) {
			t.Errorf("trial %d: a vertex went %g from its goal (diagonal %g)", trial, worst, m.diag)
		}
	}
}

// TestParamsRefused: parameters out of range are refused naming the
// vertex.
func TestParamsRefused(t *testing.T) {
	m, rest := fan(t)
	p := []Material{Puppet, Puppet, {Alpha: 1, Lambda: 0.6}, Puppet, Puppet}
	_, err := NewSim(m, p, stillGoal(rest, m.segs0, 30), Options{})
	if err == nil || !strings.Contains(err.Error(), "vertex 2: lambda = 0.6 is outside [0, 0.5]") {
		t.Errorf("λ = 0.6: %v", err)
	}
	p[2] = Material{Beta: 1.5}
	if err := CheckParams(p, 5); err == nil || !strings.Contains(err.Error(), "vertex 2: beta = 1.5") {
		t.Errorf("β = 1.5: %v", err)
	}
	p[2] = Material{Gamma: math.NaN()}
	if err := CheckParams(p, 5); err == nil || !strings.Contains(err.Error(), "vertex 2: gamma") {
		t.Errorf("γ = NaN: %v", err)
	}
}

// TestBadTriangleRefused: a triangle with a vertex index outside the mesh
// is refused naming the triangle and the index.
func TestBadTriangleRefused(t *testing.T) {
	rest := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}
	w := [][]ssdr.Influence{{{Bone: 0, Weight: 1}}, {{Bone: 0, Weight: 1}}, {{Bone: 0, Weight: 1}}}
	seg := []Segment{{A: mgl64.Vec3{0, -1, 0}, B: mgl64.Vec3{0, 1, 0}}}
	for v, tri := range map[int][3]int{3: {0, 1, 3}, -1: {2, -1, 0}} {
		_, err := NewModel(rest, [][3]int{{0, 1, 2}, tri}, w, seg)
		want := fmt.Sprintf("triangle 1: vertex index %d out of range [0, 3)", v)
		if err == nil || err.Error() != want {
			t.Errorf("triangle %v: %v, want %q", tri, err, want)
		}
	}
}

// TestUndampedModeOscillates: the paper's model with α = 1 alone swings
// about a goal that stops (period six steps, never damped); κ damps it.
func TestUndampedModeOscillates(t *testing.T) {
	m, rest := tubeModel(t, 4, 6)
	run := func(mat Material) float64 {
		p := Uniform(m.n, mat)
		g := &Goal{FPS: 30}
		for f := 0; f < 100; f++ {
			y := math.Min(float64(f), 10) * 0.05 // moves, then stops at frame 10
			pos := make([]mgl64.Vec3, m.n)
			for i, q := range rest {
				pos[i] = q.Add(mgl64.Vec3{0, y, 0})
			}
			g.Positions = append(g.Positions, pos)
			g.Bones = append(g.Bones, m.segs0)
		}
		out, err := Simulate(m, p, g, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return out[99][0].Sub(g.Positions[99][0]).Len()
	}
	if e := run(Puppet); e < 0.01 {
		t.Errorf("α = 1 alone: %g from the goal 90 frames after it stopped; the paper's model should still swing", e)
	}
	if e := run(Material{Alpha: 1, Kappa: 0.5}); e > 1e-6 {
		t.Errorf("with κ = 0.5: %g from the goal 90 frames after it stopped", e)
	}
}

// TestBlowUpStops: a vertex driven more than BlowUpFactor diagonals from
// its goal (here by an absurd gravity) stops the simulation with an error
// naming the frame and vertex; a NaN goal is refused before it starts.
func TestBlowUpStops(t *testing.T) {
	m, rest := tubeModel(t, 4, 6)
	p := Uniform(m.n, Puppet)
	g := &Goal{FPS: 30}
	for f := 0; f < 10; f++ {
		g.Positions = append(g.Positions, rest)
		g.Bones = append(g.Bones, m.segs0)
	}
	_, err := Simulate(m, p, g, Options{Gravity: mgl64.Vec3{0, -1e9, 0}})
	var bu *BlowUpError
	if !errors.As(err, &bu) || bu.Frame != 1 || !strings.Contains(err.Error(), "frame 1, vertex 0") {
		t.Errorf("gravity 1e9: %v", err)
	}
	bad := append([]mgl64.Vec3(nil), rest...)
	bad[3] = mgl64.Vec3{math.NaN(), 0, 0}
	g.Positions[4] = bad
	if _, err := Simulate(m, p, g, Options{}); err == nil || !strings.Contains(err.Error(), "goal frame 4, vertex 3: non-finite") {
		t.Errorf("NaN goal: %v", err)
	}
}

// swayGoal returns a goal of the model swinging sideways and stopping.
func swayGoal(m *Model, rest []mgl64.Vec3, frames int) *Goal {
	g := &Goal{FPS: 30}
	for f := 0; f < frames; f++ {
		x := 0.3 * math.Sin(float64(min(f, frames/2))*0.3)
		off := mgl64.Vec3{x, 0, 0}
		pos := make([]mgl64.Vec3, m.n)
		for i, q := range rest {
			pos[i] = q.Add(off.Mul(q[1] / 4)) // the top moves, the base stays
		}
		g.Positions = append(g.Positions, pos)
		segs := make([]Segment, len(m.segs0))
		for b, s := range m.segs0 {
			segs[b] = Segment{A: s.A.Add(off.Mul(s.A[1] / 4)), B: s.B.Add(off.Mul(s.B[1] / 4))}
		}
		g.Bones = append(g.Bones, segs)
	}
	return g
}

// TestFitRecoversItsExample: fitting an example made by the model itself
// with known parameters lowers the error far below the puppet's, and the
// reported RMSE is the one Simulate gives with the parameters returned.
func TestFitRecoversItsExample(t *testing.T) {
	m, rest := tubeModel(t, 8, 8)
	g := swayGoal(m, rest, 40)
	truth := Uniform(m.n, Material{Alpha: 0.3, Beta: 0.5, Gamma: 0.2, Lambda: 0.1, Kappa: 0.3})
	example, res := fitExample(t, m, g, truth)
	sim, err := Simulate(m, res.Params, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := RMSE(sim, example); math.Abs(got-res.RMSE) > 1e-9*got {
		t.Errorf("FitResult.RMSE %g, Simulate gives %g", res.RMSE, got)
	}
	puppet := math.Sqrt(res.Energy[0] / float64(m.n*g.NumFrames()))
	if !(res.RMSE < 0.2*puppet) {
		t.Errorf("fitted RMSE %g, the puppet's %g: want at most a fifth", res.RMSE, puppet)
	}
}

// fitExample simulates the example of parameters truth and fits it from the
// fit's start (60 iterations, κ included).
func fitExample(t *testing.T, m *Model, g *Goal, truth []Material) ([][]mgl64.Vec3, *FitResult) {
	t.Helper()
	example, err := Simulate(m, truth, g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Fit(t.Context(), m, g, example, FitOptions{Kappa: true, Iterations: 60})
	if err != nil {
		t.Fatal(err)
	}
	return example, res
}

// TestRestartFromState: a simulation restarted from a state saved at frame
// k gives the same frames as running on from k (what scrubbing relies on),
// and new parameters take effect from the next step.
func TestRestartFromState(t *testing.T) {
	m, rest := tubeModel(t, 6, 8)
	g := swayGoal(m, rest, 30)
	p := Uniform(m.n, Material{Alpha: 0.2, Beta: 0.6, Gamma: 0.3, Lambda: 0.1, Kappa: 0.1})
	s, err := NewSim(m, p, g, Options{Substeps: 2})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0)
	var saved State
	var want [][]mgl64.Vec3
	for f := 0; f+1 < g.NumFrames(); f++ {
		if f == 10 {
			saved = s.State()
		}
		if err := s.Advance(f + 1); err != nil {
			t.Fatal(err)
		}
		want = append(want, append([]mgl64.Vec3(nil), s.Positions()...))
	}
	s.SetState(10, saved)
	for f := 10; f+1 < g.NumFrames(); f++ {
		if err := s.Advance(f + 1); err != nil {
			t.Fatal(err)
		}
		if s.Frame() != f+1 || !slices.Equal(s.Positions(), want[f]) {
			t.Fatalf("frame %d differs after a restart from frame 10", f+1)
		}
	}
	for i := range p {
		p[i] = Puppet
	}
	if err := s.SetParams(p); err != nil {
		t.Fatal(err)
	}
	s.SetState(10, saved)
	s.Advance(11)
	if slices.Equal(s.Positions(), want[10]) {
		t.Error("SetParams did not change the next step")
	}
	p[3].Lambda = 0.9
	if err := s.SetParams(p); err == nil {
		t.Error("SetParams took λ = 0.9")
	}
}

// TestPokeWobblesBack: a poked vertex is pulled to the cursor and drags
// its neighbours (not a vertex far away); released, the mesh returns to
// its goal (κ damps it).
func TestPokeWobblesBack(t *testing.T) {
	m, rest := tubeModel(t, 10, 8)
	p := Uniform(m.n, Material{Alpha: 0.05, Beta: 0.8, Gamma: 0.2, Lambda: 0.2, Kappa: 0.3})
	s, err := NewSim(m, p, stillGoal(rest, m.segs0, 30), Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0)
	v := 5*8 + 2 // a vertex in the middle ring
	far := 0     // a vertex of the bottom ring
	target := rest[v].Add(mgl64.Vec3{0, 0, 0.5})
	s.SetPoke(v, target)
	for range 30 {
		s.Advance(0)
	}
	x := s.Positions()
	// The cursor pulls with the goal force's full strength against the
	// surface force of its ring: most of the way, and more than any other
	// vertex.
	if d := x[v].Sub(rest[v]).Dot(target.Sub(rest[v]).Normalize()); d < 0.4*0.5 {
		t.Errorf("the poked vertex moved %g towards the cursor, 0.5 away", d)
	}
	for i := range x {
		if i != v && x[i].Sub(rest[i]).Len() >= x[v].Sub(rest[v]).Len() {
			t.Errorf("vertex %d moved as much as the poked one", i)
		}
	}
	nbr := m.perm[m.ring[m.start[m.at[v]]]]
	if d := x[nbr].Sub(rest[nbr]).Len(); d < 0.05 {
		t.Errorf("its neighbour %d moved only %g", nbr, d)
	}
	if d := x[far].Sub(rest[far]).Len(); d > 0.5*x[nbr].Sub(rest[nbr]).Len() {
		t.Errorf("a far vertex moved %g, as much as the neighbour", d)
	}
	s.ClearPoke()
	for range 300 {
		s.Advance(0)
	}
	worst := 0.0
	for i, q := range s.Positions() {
		worst = max(worst, q.Sub(rest[i]).Len())
	}
	if worst > 1e-3 {
		t.Errorf("10 s after the release a vertex is %g from its goal", worst)
	}
}

// TestFitRecoversPerVertexParams: an example made with parameters that
// differ from vertex to vertex (two materials, split along the tube) is
// fitted from uniform parameters to a small fraction of the puppet's
// error, which needs each vertex's solution written to that vertex (the
// fit solves in the model's own vertex order).
func TestFitRecoversPerVertexParams(t *testing.T) {
	m, rest := tubeModel(t, 8, 8)
	g := swayGoal(m, rest, 40)
	truth := make([]Material, m.n)
	mid := 0.0
	for _, p := range rest {
		mid += p[1] / float64(len(rest))
	}
	for i, p := range rest {
		truth[i] = Material{Alpha: 0.05, Beta: 0.1, Gamma: 0.05, Lambda: 0.02, Kappa: 0.05}
		if p[1] > mid {
			truth[i] = Material{Alpha: 0.5, Beta: 0.6, Gamma: 0.3, Lambda: 0.1, Kappa: 0.3}
		}
	}
	_, res := fitExample(t, m, g, truth)
	puppet := math.Sqrt(res.Energy[0] / float64(m.n*g.NumFrames()))
	var stiff, soft, ns, nf float64
	for i, p := range rest {
		if p[1] > mid {
			stiff += res.Params[i].Stability()
			ns++
		} else {
			soft += res.Params[i].Stability()
			nf++
		}
	}
	stiff, soft = stiff/ns, soft/nf
	t.Logf("fitted RMSE %.3g, the puppet's %.3g (%.3g of it); mean stability figure %.3g where the truth has %.3g, %.3g where it has %.3g",
		res.RMSE, puppet, res.RMSE/puppet, stiff, truth[slices.IndexFunc(rest, func(p mgl64.Vec3) bool { return p[1] > mid })].Stability(), soft, truth[slices.IndexFunc(rest, func(p mgl64.Vec3) bool { return p[1] <= mid })].Stability())
	if !(res.RMSE < 0.2*puppet) {
		t.Errorf("fitted RMSE %g, the puppet's %g: want at most a fifth", res.RMSE, puppet)
	}
	if !(stiff > 2*soft) {
		t.Errorf("the fitted parameters do not tell the two materials apart: mean stability figure %.3g and %.3g", stiff, soft)
	}
}

// TestSolveQPOptimal: on random problems of 1 to 5 parameters, some with
// the stability bound active, solveQP's answer is feasible (the box and the
// bound) and no feasible point sampled near it or anywhere does better.
func TestSolveQPOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	active := 0
	for trial := range 400 {
		n := 1 + trial%nParams
		var s qpSums
		target := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(0.5 + 4*rng.Float64())
		for range 3 {
			var c columns
			for k := range n {
				c[k] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			}
			s.add(&c, mgl64.Vec3{}, target)
		}
		x := solveQP(&s, n)
		m := materialOf(&x)
		for k := range nParams {
			if x[k] < -1e-12 || x[k] > upper[k]+1e-12 || k >= n && x[k] != 0 {
				t.Fatalf("trial %d: parameter %d = %g outside [0, %g] (n = %d)", trial, k, x[k], upper[k], n)
			}
		}
		if st := m.Stability(); st > StabilityLimit*(1+1e-9) {
			t.Fatalf("trial %d: stability %g over the limit %g", trial, st, StabilityLimit)
		} else if st > StabilityLimit*(1-1e-9) {
			active++
		}
		best := objective(&s, n, &x)
		tol := 1e-9 * (1 + math.Abs(best))
		try := func(y [nParams]float64) {
			for k := range n {
				y[k] = min(max(y[k], 0), upper[k])
			}
			if st := materialOf(&y).Stability(); st > StabilityLimit {
				for k := range n {
					y[k] *= StabilityLimit / st // towards 0, inside the box
				}
			}
			if f := objective(&s, n, &y); f < best-tol {
				t.Fatalf("trial %d (n = %d): solveQP gives %v at %g, %v gives %g", trial, n, x, best, y, f)
			}
		}
		for range 300 {
			var y [nParams]float64
			for k := range n {
				y[k] = rng.Float64() * upper[k]
			}
			try(y)
			y = x
			for k := range n {
				y[k] += 1e-3 * rng.NormFloat64()
			}
			try(y)
		}
	}
	t.Logf("the stability bound active in %d of 400 problems", active)
	if active < 20 {
		t.Errorf("the bound was active in only %d problems: the test does not reach it", active)
	}
}
