package meshik

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/deform"
	"gallop/solver/deform/deformtest"
	"gallop/solver/rotation"
)

func frob(m mgl64.Mat3) float64 {
	s := 0.0
	for _, x := range m {
		s += x * x
	}
	return math.Sqrt(s)
}

// poseSet is a reference mesh, its gradient operator, and example poses.
type poseSet struct {
	name  string
	ref   *assets.Mesh
	g     *deform.Gradients
	poses [][]mgl64.Vec3
}

// examples returns the feature vectors of the poses.
func (p *poseSet) examples() [][]mgl64.Mat3 {
	ex := make([][]mgl64.Mat3, len(p.poses))
	for i, pose := range p.poses {
		ex[i] = make([]mgl64.Mat3, p.g.NumTriangles())
		p.g.Features(ex[i], pose)
	}
	return ex
}

// loadPoses reads set/reference.obj and the numbered frames, skipping the
// test if the shared data is absent.
func loadPoses(tb testing.TB, set string, frames ...int) *poseSet {
	tb.Helper()
	dir := shareddata.Path(tb, set)
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		tb.Fatal(err)
	}
	p := &poseSet{name: set, ref: ref}
	for _, f := range frames {
		m, err := assets.LoadOBJ(filepath.Join(dir, "frames", fmt.Sprintf("%d.obj", f)))
		if err != nil {
			tb.Fatal(err)
		}
		if err := ref.SameTopology(m); err != nil {
			tb.Fatalf("%s frame %d: %v", set, f, err)
		}
		p.poses = append(p.poses, m.Positions)
	}
	if p.g, err = deform.New(ref.Positions, ref.Triangles); err != nil {
		tb.Fatal(err)
	}
	return p
}

// barPoses is the demo bar with its two examples of Figure 5 (A):
// straight, and bent by DemoBendAngle.
func barPoses(tb testing.TB) *poseSet {
	bar := assets.DemoBar()
	g, err := deform.New(bar.Positions, bar.Triangles)
	if err != nil {
		tb.Fatal(err)
	}
	return &poseSet{name: "bar", ref: bar, g: g,
		poses: [][]mgl64.Vec3{bar.Positions, assets.DemoBarBent(assets.DemoBendAngle)}}
}

func randomMat(rng *rand.Rand) mgl64.Mat3 {
	var a mgl64.Mat3
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	return a
}

func TestNewSpaceErrors(t *testing.T) {
	ok := []mgl64.Mat3{mgl64.Ident3(), mgl64.Ident3()}
	nan := []mgl64.Mat3{mgl64.Ident3(), {0, 0, math.NaN()}}
	for _, c := range []struct {
		examples [][]mgl64.Mat3
		want     string
	}{
		{nil, "meshik: no example poses"},
		{[][]mgl64.Mat3{ok, ok[:1]}, "meshik: example 1 has 1 features, example 0 has 2"},
		{[][]mgl64.Mat3{ok, nan}, "meshik: example 1, triangle 1: non-finite deformation gradient"},
	} {
		for name, build := range map[string]func([][]mgl64.Mat3) (Space, error){
			"linear":    func(e [][]mgl64.Mat3) (Space, error) { return NewLinearSpace(e) },
			"nonlinear": func(e [][]mgl64.Mat3) (Space, error) { return NewNonlinearSpace(e) },
		} {
			if _, err := build(c.examples); err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("%s: error %v, want %q", name, err, c.want)
			}
		}
	}
}

// TestLinearSpace checks the parameterisation of Section 3.2 on random
// features: the mean at w = 0, example k at e_k, the last example at
// (−1, …, −1), the Jacobian d̄_k, and the one-example case.
func TestLinearSpace(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const m, l = 7, 4
	ex := make([][]mgl64.Mat3, l)
	for i := range ex {
		ex[i] = make([]mgl64.Mat3, m)
		for j := range ex[i] {
			ex[i][j] = randomMat(rng)
		}
	}
	s, err := NewLinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	if s.NumWeights() != l-1 || s.NumTriangles() != m {
		t.Fatalf("%d weights, %d triangles", s.NumWeights(), s.NumTriangles())
	}
	got := make([]mgl64.Mat3, m)
	check := func(what string, w []float64, want func(j int) mgl64.Mat3) {
		t.Helper()
		s.Eval(w, got)
		for j := range got {
			if d := frob(got[j].Sub(want(j))); d > 1e-14 {
				t.Fatalf("%s: triangle %d off by %g", what, j, d)
			}
		}
	}
	check("w = 0", make([]float64, l-1), func(j int) mgl64.Mat3 {
		return ex[0][j].Add(ex[1][j]).Add(ex[2][j]).Add(ex[3][j]).Mul(0.25)
	})
	for k := 0; k < l-1; k++ {
		w := make([]float64, l-1)
		w[k] = 1
		check(fmt.Sprintf("w = e_%d", k), w, func(j int) mgl64.Mat3 { return ex[k][j] })
	}
	check("w = −1", []float64{-1, -1, -1}, func(j int) mgl64.Mat3 { return ex[l-1][j] })
	jac := make([]mgl64.Mat3, m*(l-1))
	s.Jacobian([]float64{0.3, -2, 5}, jac)
	for j := 0; j < m; j++ {
		for k := 0; k < l-1; k++ {
			if d := frob(jac[j*(l-1)+k].Sub(ex[k][j].Sub(s.Mean(j)))); d > 1e-15 {
				t.Fatalf("∂T_%d/∂w_%d off by %g", j, k, d)
			}
		}
	}
	one, err := NewLinearSpace(ex[2:3])
	if err != nil {
		t.Fatal(err)
	}
	if one.NumWeights() != 0 {
		t.Fatalf("one example: %d weights", one.NumWeights())
	}
	one.EvalJacobian(nil, got, nil)
	for j := range got {
		if got[j] != ex[2][j] {
			t.Fatalf("one example: triangle %d = %v, want %v", j, got[j], ex[2][j])
		}
	}
}

// TestNonlinearKnownAnswer: the halfway blend of I and Rz(θ)·diag(2, 1, 1)
// is Rz(θ/2)·diag(1.5, 1, 1), and a single example reproduces itself.
func TestNonlinearKnownAnswer(t *testing.T) {
	theta := 2.0
	rz := func(a float64) mgl64.Mat3 { return rotation.Exp(mgl64.Vec3{0, 0, a}) }
	ex := [][]mgl64.Mat3{{mgl64.Ident3()}, {rz(theta).Mul3(mgl64.Diag3(mgl64.Vec3{2, 1, 1}))}}
	s, err := NewNonlinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]mgl64.Mat3, 1)
	s.Eval([]float64{0.5, 0.5}, got)
	want := rz(theta / 2).Mul3(mgl64.Diag3(mgl64.Vec3{1.5, 1, 1}))
	if d := frob(got[0].Sub(want)); d > 1e-15 {
		t.Fatalf("blend = %v, want %v", got[0], want)
	}
	logR, sym := s.Factors(1, 0)
	if logR.Sub(mgl64.Vec3{0, 0, theta}).Len() > 1e-15 || frob(sym.Sub(mgl64.Diag3(mgl64.Vec3{2, 1, 1}))) > 1e-15 {
		t.Fatalf("factors of example 1: %v, %v", logR, sym)
	}
}

// TestNonlinearSelectsExamples: w = e_k reproduces example k's features,
// on the bar and on real example poses.
func TestNonlinearSelectsExamples(t *testing.T) {
	sets := []func(testing.TB) *poseSet{
		barPoses,
		func(tb testing.TB) *poseSet { return loadPoses(tb, "horse-poses", 1, 2, 3, 4) },
		func(tb testing.TB) *poseSet { return loadPoses(tb, "lion-poses", 1, 2, 3, 4, 5, 6, 7, 8, 9) },
	}
	for _, load := range sets {
		p := load(t)
		ex := p.examples()
		s, err := NewNonlinearSpace(ex)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]mgl64.Mat3, s.NumTriangles())
		for k := range ex {
			w := make([]float64, len(ex))
			w[k] = 1
			s.Eval(w, got)
			worst := 0.0
			for j := range got {
				worst = math.Max(worst, frob(got[j].Sub(ex[k][j]))/(1+frob(ex[k][j])))
			}
			// The factors are kept in single precision (unit roundoff
			// 6e-8): Exp of a rounded Log R and the rounded S.
			if worst > 3e-7 {
				t.Errorf("%s: w = e_%d reproduces example %d only to %g", p.name, k, k, worst)
			}
		}
	}
}

// TestBarHalfBend is Figure 5 (B) against (C) at the halfway point: with
// the straight and the bent bar as examples, the nonlinear blend at
// w = (½, ½) is the bar bent by half the angle, at full length, while the
// linear blend (the mean, w = 0) shrinks where the examples' rotations
// differ most. Both are checked on the features and on the bar
// reconstructed from them (Eq. 3, left cap fixed).
func TestBarHalfBend(t *testing.T) {
	p := barPoses(t)
	ex := p.examples()
	nl, err := NewNonlinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	lin, err := NewLinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	m := p.g.NumTriangles()
	fn, fl, half := make([]mgl64.Mat3, m), make([]mgl64.Mat3, m), make([]mgl64.Mat3, m)
	nl.Eval([]float64{0.5, 0.5}, fn)
	lin.Eval([]float64{0}, fl)
	halfPose := assets.DemoBarBent(assets.DemoBendAngle / 2)
	p.g.Features(half, halfPose)

	// Features: the nonlinear blend is close to the half-bent bar's, and
	// so are its determinants (volume changes: 1 on the rigid parts, down
	// to about 0.85 on the inside of the bend, where the half-bent bar
	// itself is compressed); the linear blend's fall to cos²(θ/2) = ½ on
	// the far cap, which the bent example turns by θ = π/2.
	worst, worstDet, minDetN, minDetL := 0.0, 0.0, math.Inf(1), math.Inf(1)
	for j := range fn {
		worst = math.Max(worst, frob(fn[j].Sub(half[j])))
		worstDet = math.Max(worstDet, math.Abs(fn[j].Det()-half[j].Det()))
		minDetN = math.Min(minDetN, fn[j].Det())
		minDetL = math.Min(minDetL, fl[j].Det())
	}
	for _, j := range groupTriangles(p.ref, "cap1") {
		if d := fn[j].Det(); math.Abs(d-1) > 1e-12 {
			t.Errorf("far cap triangle %d: nonlinear blend det = %g, want 1 (a rotation)", j, d)
		}
		if d := fl[j].Det(); math.Abs(d-0.5) > 1e-12 {
			t.Errorf("far cap triangle %d: linear blend det = %g, want ½", j, d)
		}
	}
	t.Logf("features: max ‖T(½,½) − T_half‖ = %.3g, max |det T(½,½) − det T_half| = %.3g; min det nonlinear %.3f, linear %.3f",
		worst, worstDet, minDetN, minDetL)
	if worst > 0.02 {
		t.Errorf("nonlinear blend differs from the half-bent bar's features by %g", worst)
	}
	if worstDet > 0.01 {
		t.Errorf("nonlinear blend's determinants differ from the half-bent bar's by %g", worstDet)
	}
	if minDetL > 0.6 {
		t.Errorf("linear blend: min det %g, expected it to shrink to about ½", minDetL)
	}

	// Reconstruction with the left cap fixed in place.
	cap0 := groupVertices(p.ref, "cap0")
	xn := deformtest.SolveDense(t, p.g, fn, cap0, p.g.Unknowns(nil, p.ref.Positions))[:len(halfPose)]
	xl := deformtest.SolveDense(t, p.g, fl, cap0, p.g.Unknowns(nil, p.ref.Positions))[:len(halfPose)]
	errN := 0.0
	for i := range halfPose {
		errN = math.Max(errN, xn[i].Sub(halfPose[i]).Len())
	}
	lenRef, lenN, lenL := centreLength(p.ref.Positions), centreLength(xn), centreLength(xl)
	t.Logf("reconstructed: nonlinear off the half-bent bar by %.3g (bar length %g); centre line %.4f (nonlinear), %.4f (linear), %.4f (straight)",
		errN, lenRef, lenN, lenL, lenRef)
	if errN > 0.01*lenRef {
		t.Errorf("nonlinear blend reconstructs %g away from the half-bent bar", errN)
	}
	if math.Abs(lenN-lenRef) > 0.005*lenRef {
		t.Errorf("nonlinear blend: centre line %g, want %g", lenN, lenRef)
	}
	if lenL > 0.97*lenRef {
		t.Errorf("linear blend: centre line %g, expected it to shrink from %g", lenL, lenRef)
	}
}

// groupTriangles returns the triangles of the named group of m.
func groupTriangles(m *assets.Mesh, name string) []int {
	for _, g := range m.Groups {
		if g.Name == name {
			return g.Triangles
		}
	}
	panic("no group " + name)
}

// groupVertices returns the vertices of the triangles of a group.
func groupVertices(m *assets.Mesh, name string) []int {
	seen := map[int]bool{}
	var vs []int
	for _, f := range groupTriangles(m, name) {
		for _, v := range m.Triangles[f] {
			if !seen[v] {
				seen[v] = true
				vs = append(vs, v)
			}
		}
	}
	return vs
}

// centreLength is the length of the polyline through the centroids of the
// bar's rings (13 rings of 10 vertices).
func centreLength(p []mgl64.Vec3) float64 {
	var prev mgl64.Vec3
	total := 0.0
	for r := 0; r < 13; r++ {
		var c mgl64.Vec3
		for k := 0; k < 10; k++ {
			c = c.Add(p[10*r+k])
		}
		c = c.Mul(0.1)
		if r > 0 {
			total += c.Sub(prev).Len()
		}
		prev = c
	}
	return total
}

// jacobianError compares s.Jacobian at w with central differences of
// s.Eval and returns the largest error relative to the size of the
// triangle's Jacobian block.
func jacobianError(s Space, w []float64, h float64) float64 {
	m, nw := s.NumTriangles(), s.NumWeights()
	jac := make([]mgl64.Mat3, m*nw)
	s.Jacobian(w, jac)
	plus, minus := make([]mgl64.Mat3, m), make([]mgl64.Mat3, m)
	fd := make([]mgl64.Mat3, m*nw)
	wp := append([]float64(nil), w...)
	for k := 0; k < nw; k++ {
		wp[k] = w[k] + h
		s.Eval(wp, plus)
		wp[k] = w[k] - h
		s.Eval(wp, minus)
		wp[k] = w[k]
		for j := 0; j < m; j++ {
			fd[j*nw+k] = plus[j].Sub(minus[j]).Mul(1 / (2 * h))
		}
	}
	return blockError(jac, fd, m, nw)
}

// blockError returns max_j max_k ‖a_jk − b_jk‖ / max_k ‖b_jk‖.
func blockError(a, b []mgl64.Mat3, m, nw int) float64 {
	worst := 0.0
	for j := 0; j < m; j++ {
		scale, e := 0.0, 0.0
		for k := 0; k < nw; k++ {
			scale = math.Max(scale, frob(b[j*nw+k]))
			e = math.Max(e, frob(a[j*nw+k].Sub(b[j*nw+k])))
		}
		worst = math.Max(worst, e/scale)
	}
	return worst
}

// randomWeights returns weights near a convex combination (summing to
// about 1, some slightly negative: mild extrapolation, as the solver
// explores).
func randomWeights(rng *rand.Rand, l int) []float64 {
	w := make([]float64, l)
	sum := 0.0
	for i := range w {
		w[i] = rng.Float64()
		sum += w[i]
	}
	for i := range w {
		w[i] = w[i]/sum + 0.2*(rng.Float64()-0.5)
	}
	return w
}

// TestJacobianFiniteDifferences checks ∂T_j/∂w_k against central
// differences of Eval, for random weights, on the bar with its bent
// example and on real example poses, where the rotations of different
// examples do not commute. It also shows that the paper's Eq. 7 (the
// commuting-rotation derivative) is measurably wrong there.
func TestJacobianFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	sets := []func(testing.TB) *poseSet{
		barPoses,
		func(tb testing.TB) *poseSet { return loadPoses(tb, "horse-poses", 1, 2, 3, 4) },
		func(tb testing.TB) *poseSet { return loadPoses(tb, "lion-poses", 1, 3, 5, 7, 9) },
	}
	for _, load := range sets {
		p := load(t)
		ex := p.examples()
		nl, err := NewNonlinearSpace(ex)
		if err != nil {
			t.Fatal(err)
		}
		lin, err := NewLinearSpace(ex)
		if err != nil {
			t.Fatal(err)
		}
		for trial := 0; trial < 3; trial++ {
			w := randomWeights(rng, len(ex))
			if e := jacobianError(nl, w, 1e-5); e > 1e-6 {
				t.Errorf("%s nonlinear, w = %.3f: Jacobian relative error %.3g", p.name, w, e)
			} else {
				t.Logf("%s nonlinear, w = %.3f: Jacobian relative error %.3g", p.name, w, e)
			}
			if e := jacobianError(lin, w[1:], 1e-5); e > 1e-6 {
				t.Errorf("%s linear: Jacobian relative error %.3g", p.name, e)
			}
		}
		w := randomWeights(rng, len(ex))
		eq7 := paperEq7(nl, w)
		exact := make([]mgl64.Mat3, len(eq7))
		nl.Jacobian(w, exact)
		e7 := blockError(eq7, exact, nl.NumTriangles(), nl.NumWeights())
		t.Logf("%s: Eq. 7 differs from the exact derivative by up to %.3g (relative)", p.name, e7)
		if p.name != "bar" && e7 < 1e-3 {
			t.Errorf("%s: Eq. 7 agrees with the exact derivative to %g; expected non-commuting rotations", p.name, e7)
		}
	}
}

// paperEq7 evaluates the paper's Eq. 7, exp(ω)·log(R_k)·S(w) + exp(ω)·S_k,
// which treats the rotation logarithms as commuting.
func paperEq7(s *NonlinearSpace, w []float64) []mgl64.Mat3 {
	l := s.NumWeights()
	out := make([]mgl64.Mat3, s.NumTriangles()*l)
	for j := 0; j < s.NumTriangles(); j++ {
		var omega mgl64.Vec3
		var sum mgl64.Mat3
		for i := 0; i < l; i++ {
			lr, sym := s.Factors(i, j)
			omega = omega.Add(lr.Mul(w[i]))
			sum = sum.Add(sym.Mul(w[i]))
		}
		e := rotation.Exp(omega)
		for k := 0; k < l; k++ {
			lr, sym := s.Factors(k, j)
			out[j*l+k] = e.Mul3(rotation.Skew(lr)).Mul3(sum).Add(e.Mul3(sym))
		}
	}
	return out
}

// TestEvalJacobianConsistent: EvalJacobian equals Eval and Jacobian bit
// for bit, on the horse (parallel) and the bar (sequential), and the bar
// path allocates nothing.
func TestEvalJacobianConsistent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	sets := []func(testing.TB) *poseSet{
		barPoses,
		func(tb testing.TB) *poseSet { return loadPoses(tb, "horse-poses", 1, 2, 3, 4) },
	}
	for _, load := range sets {
		p := load(t)
		ex := p.examples()
		nl, _ := NewNonlinearSpace(ex)
		lin, _ := NewLinearSpace(ex)
		for _, s := range []Space{nl, lin} {
			m, nw := s.NumTriangles(), s.NumWeights()
			w := randomWeights(rng, nw)
			t1, t2 := make([]mgl64.Mat3, m), make([]mgl64.Mat3, m)
			d1, d2 := make([]mgl64.Mat3, m*nw), make([]mgl64.Mat3, m*nw)
			s.Eval(w, t1)
			s.Jacobian(w, d1)
			s.EvalJacobian(w, t2, d2)
			for j := range t1 {
				if t1[j] != t2[j] {
					t.Fatalf("%s %T: triangle %d: Eval %v, EvalJacobian %v", p.name, s, j, t1[j], t2[j])
				}
			}
			for i := range d1 {
				if d1[i] != d2[i] {
					t.Fatalf("%s %T: entry %d: Jacobian %v, EvalJacobian %v", p.name, s, i, d1[i], d2[i])
				}
			}
			if m < parallelMin {
				allocs := testing.AllocsPerRun(10, func() { s.EvalJacobian(w, t2, d2) })
				if allocs != 0 {
					t.Errorf("%s %T: EvalJacobian allocates %v times", p.name, s, allocs)
				}
			}
		}
	}
}

// benchSpaces loads the horse with 4 and 10 examples, and the subdivided
// horse (67,372 triangles) with 4 and 10, and passes each nonlinear space
// to fn.
func benchSpaces(b *testing.B, fn func(b *testing.B, s Space)) {
	p := loadPoses(b, "horse-poses", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	ex := p.examples()
	sub := assets.SubdivideMidpoint(p.ref)
	gs, err := deform.New(sub.Positions, sub.Triangles)
	if err != nil {
		b.Fatal(err)
	}
	subEx := make([][]mgl64.Mat3, len(p.poses))
	for i, pose := range p.poses {
		subEx[i] = make([]mgl64.Mat3, gs.NumTriangles())
		gs.Features(subEx[i], assets.SubdivideMidpointPositions(p.ref, pose))
	}
	for _, set := range [][][]mgl64.Mat3{ex, subEx} {
		for _, l := range []int{4, 10} {
			nl, err := NewNonlinearSpace(set[:l])
			if err != nil {
				b.Fatal(err)
			}
			lin, err := NewLinearSpace(set[:l])
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("nonlinear/F=%d/l=%d", nl.NumTriangles(), l), func(b *testing.B) { fn(b, nl) })
			b.Run(fmt.Sprintf("linear/F=%d/l=%d", lin.NumTriangles(), l), func(b *testing.B) { fn(b, lin) })
		}
	}
}

// perTriangle reports the wall time per triangle (all workers together).
func perTriangle(b *testing.B, s Space) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.NumTriangles()), "ns/tri")
}

func BenchmarkEval(b *testing.B) {
	benchSpaces(b, func(b *testing.B, s Space) {
		w := randomWeights(rand.New(rand.NewPCG(7, 8)), s.NumWeights())
		dst := make([]mgl64.Mat3, s.NumTriangles())
		b.ReportAllocs()
		for b.Loop() {
			s.Eval(w, dst)
		}
		perTriangle(b, s)
	})
}

func BenchmarkJacobian(b *testing.B) {
	benchSpaces(b, func(b *testing.B, s Space) {
		w := randomWeights(rand.New(rand.NewPCG(7, 8)), s.NumWeights())
		dst := make([]mgl64.Mat3, s.NumTriangles()*s.NumWeights())
		b.ReportAllocs()
		for b.Loop() {
			s.Jacobian(w, dst)
		}
		perTriangle(b, s)
	})
}

func BenchmarkEvalJacobian(b *testing.B) {
	benchSpaces(b, func(b *testing.B, s Space) {
		w := randomWeights(rand.New(rand.NewPCG(7, 8)), s.NumWeights())
		t := make([]mgl64.Mat3, s.NumTriangles())
		dt := make([]mgl64.Mat3, s.NumTriangles()*s.NumWeights())
		b.ReportAllocs()
		for b.Loop() {
			s.EvalJacobian(w, t, dt)
		}
		perTriangle(b, s)
	})
}

// BenchmarkNewNonlinearSpace measures the precomputation (a polar
// decomposition and a logarithm per triangle and example) on the horse.
func BenchmarkNewNonlinearSpace(b *testing.B) {
	p := loadPoses(b, "horse-poses", 1, 2, 3, 4)
	ex := p.examples()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := NewNonlinearSpace(ex); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAdjoint checks both spaces' AdjointRange against the Jacobian's
// transpose times a field of matrices, on real example poses (and on a
// compressed space), for random weights and fields.
func TestAdjoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	p := loadPoses(t, "lion-poses", 1, 3, 5, 7, 9)
	ex := p.examples()
	nl, err := NewNonlinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	lin, err := NewLinearSpace(ex)
	if err != nil {
		t.Fatal(err)
	}
	cnl, _, err := newCompressedNonlinear(context.Background(), p.g, p.poses, Compression{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Space{nl, lin, cnl} {
		m, l := s.NumTriangles(), s.NumWeights()
		w := randomWeights(rng, l)
		v := make([]mgl64.Mat3, m)
		for j := range v {
			v[j] = randomMat(rng)
		}
		jac := make([]mgl64.Mat3, m*l)
		t0 := make([]mgl64.Mat3, m)
		s.EvalJacobian(w, t0, jac)
		lin := make([]float64, m*s.LinSize())
		tl := make([]mgl64.Mat3, m)
		s.LineariseRange(w, tl, lin, 0, m)
		for j := range tl {
			if tl[j] != t0[j] {
				t.Fatalf("%T: LineariseRange's feature %d differs from EvalJacobian's", s, j)
			}
		}
		g := make([]float64, l)
		s.AdjointRange(lin, v, g, 0, m)
		for k := 0; k < l; k++ {
			want, sc := 0.0, 0.0
			for j := 0; j < m; j++ {
				want += dot9(&jac[j*l+k], &v[j])
				sc += frob(jac[j*l+k]) * frob(v[j])
			}
			if math.Abs(g[k]-want) > 1e-12*sc {
				t.Errorf("%T: adjoint %d = %v, the Jacobian's transpose gives %v", s, k, g[k], want)
			}
		}
	}
}

// TestProjectRangeMatchesJacobian: the nonlinear space's projected rows
// (one 6×9 map of each weight's factors) equal its 3×3 derivatives
// projected, for every number of weights from 1 to 9 (the kernels' blocks
// of four and their tails), at weights away from the examples.
func TestProjectRangeMatchesJacobian(t *testing.T) {
	p := loadPoses(t, "lion-poses", 1, 2, 3, 4, 5, 6, 7, 8, 9)
	ex := p.examples()
	m := len(ex[0])
	rng := rand.New(rand.NewPCG(3, 4))
	hp := make([][6]float64, m)
	for j := range hp {
		for i := range hp[j] {
			hp[j][i] = rng.NormFloat64()
		}
	}
	for l := 1; l <= len(ex); l++ {
		s, err := NewNonlinearSpace(ex[:l])
		if err != nil {
			t.Fatal(err)
		}
		w := make([]float64, l)
		for k := range w {
			w[k] = (1 + 0.3*rng.NormFloat64()) / float64(l)
		}
		const stride = 13
		t1, t2 := make([]mgl64.Mat3, m), make([]mgl64.Mat3, m)
		got, want := make([]float64, 6*m*stride), make([]float64, 6*m*stride)
		dt := make([]mgl64.Mat3, m*l)
		s.projectRange(w, hp, t1, got, stride, 0, m)
		s.EvalRange(w, t2, dt, 0, m)
		worst, scale := 0.0, 0.0
		for j := 0; j < m; j++ {
			projectRows(&hp[j], dt[j*l:(j+1)*l], want[6*j*stride:], stride)
			if t1[j] != t2[j] {
				t.Fatalf("l=%d: triangle %d's features differ: %v, %v", l, j, t1[j], t2[j])
			}
		}
		for i := range got {
			worst = max(worst, math.Abs(got[i]-want[i]))
			scale = max(scale, math.Abs(want[i]))
		}
		if worst > 1e-12*scale {
			t.Errorf("l=%d: projected rows differ from the projected derivatives by %.3g (largest %.3g)", l, worst, scale)
		}
	}
}
