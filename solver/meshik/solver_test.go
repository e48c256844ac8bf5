package meshik

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/assets"
	"gallop/internal/finite"
	"gallop/solver/deform"
	"gallop/solver/farthest"
)

// bendTip holds the demo bar's first ring and left cap centre where they
// are and asks for its right-cap vertex where bent has it.
func bendTip(s *Solver, bar *assets.Mesh, bent []mgl64.Vec3) {
	left, tip := barCap(bar)
	s.SetHandles(append(left, tip))
	targets := make([]mgl64.Vec3, len(s.Handles()))
	for i, v := range s.Handles() {
		targets[i] = bar.Positions[v]
		if v == tip {
			targets[i] = bent[tip]
		}
	}
	s.SetTargets(targets)
}

// barCap returns the vertices of the demo bar's first ring and its cap
// centre (the left cap, x = 0), and the index of a vertex on the right cap.
func barCap(bar *assets.Mesh) (left []int, tip int) {
	for _, g := range bar.Groups {
		if g.Name == "cap0" {
			seen := map[int]bool{}
			for _, f := range g.Triangles {
				for _, v := range bar.Triangles[f] {
					if !seen[v] {
						seen[v] = true
						left = append(left, v)
					}
				}
			}
		}
	}
	return left, len(bar.Positions) - 1 // the right cap's centre
}

func rmsDistance(a, b []mgl64.Vec3) float64 {
	s := 0.0
	for i := range a {
		s += a[i].Sub(b[i]).LenSqr()
	}
	return math.Sqrt(s / float64(len(a)))
}

func TestIdentityReproducesReference(t *testing.T) {
	for _, scale := range []float64{1e-6, 1, 1e6} {
		bar := assets.DemoBar()
		ref := make([]mgl64.Vec3, len(bar.Positions))
		for i, p := range bar.Positions {
			ref[i] = p.Mul(scale)
		}
		s, err := New(ref, bar.Triangles, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.Space() != Identity || s.NumWeights() != 0 {
			t.Fatalf("no examples should give the identity space, got %v with %d weights", s.Space(), s.NumWeights())
		}
		if err := s.SetHandles([]int{0, 5, 77, 131}); err != nil {
			t.Fatal(err)
		}
		// Start from a scrambled pose: the solve must return the reference.
		start := make([]mgl64.Vec3, len(ref))
		for i, p := range ref {
			start[i] = p.Add(mgl64.Vec3{math.Sin(float64(i)), math.Cos(float64(3 * i)), 0}.Mul(0.1 * scale))
		}
		for _, v := range s.Handles() {
			start[v] = ref[v]
		}
		if err := s.SetPositions(start); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Solve(nil); err != nil {
			t.Fatal(err)
		}
		if d := rmsDistance(s.Positions(), ref); d > 1e-9*scale {
			t.Fatalf("scale %g: identity features with reference constraints give RMS %g from the reference", scale, d)
		}
	}
}

// denseStep solves the linearised least-squares problem of one
// Gauss-Newton iteration (Eq. 9 with the prior and temporal rows) directly,
// with a dense QR over all free unknowns and the weight step, as the
// reference for the block elimination.
func denseStep(t *testing.T, s *Solver, x []mgl64.Vec3, w []float64) (xNew []mgl64.Vec3, wNew []float64) {
	t.Helper()
	l, nu, m := s.main.l, s.n+s.m, s.m
	tf := make([]mgl64.Mat3, m)
	dt := make([]mgl64.Mat3, m*l)
	if s.main.space != nil {
		s.main.space.EvalJacobian(w, tf, dt)
	} else {
		for j := range tf {
			tf[j] = mgl64.Ident3()
		}
	}
	for j, f := range s.frozen {
		if f {
			tf[j] = s.fgrad[j]
			for k := 0; k < l; k++ {
				dt[j*l+k] = mgl64.Mat3{}
			}
		}
	}
	fixed := func(u int) bool { return u < s.n && s.fixed[u] }
	var free []int
	col := make([]int, nu)
	for u := 0; u < nu; u++ {
		col[u] = -1
		if !fixed(u) {
			col[u] = len(free)
			free = append(free, u)
		}
	}
	nf := len(free)
	rows := 9*m + 2*l
	A := mat.NewDense(rows, 3*nf+l, nil)
	rhs := mat.NewDense(rows, 1, nil)
	for j := 0; j < m; j++ {
		for c := 0; c < 3; c++ {
			cols, coef := s.grad.Row(j, c)
			for r := 0; r < 3; r++ {
				row := 9*j + 3*c + r
				target := tf[j][3*c+r]
				for q, u := range cols {
					if fixed(u) {
						target -= coef[q] * x[u][r]
					} else {
						A.Set(row, 3*col[u]+r, coef[q])
					}
				}
				for k := 0; k < l; k++ {
					A.Set(row, 3*nf+k, -dt[j*l+k][3*c+r])
				}
				rhs.Set(row, 0, target)
			}
		}
	}
	for i := 0; i < l; i++ {
		k, p := math.Sqrt(s.main.prior[i]), math.Sqrt(s.main.temporal[i])
		A.Set(9*m+i, 3*nf+i, k)
		rhs.Set(9*m+i, 0, -k*w[i])
		A.Set(9*m+l+i, 3*nf+i, p)
		rhs.Set(9*m+l+i, 0, -p*(w[i]-s.main.w0[i]))
	}
	// Normal equations with a dense Cholesky (the problem is small and
	// well conditioned).
	var ata mat.SymDense
	ata.SymOuterK(1, A.T())
	var atb, sol mat.Dense
	atb.Mul(A.T(), rhs)
	var ch mat.Cholesky
	if !ch.Factorize(&ata) {
		t.Fatal("dense normal equations not positive definite")
	}
	if err := ch.SolveTo(&sol, &atb); err != nil {
		t.Fatal(err)
	}
	xNew = make([]mgl64.Vec3, nu)
	for u := 0; u < nu; u++ {
		if fixed(u) {
			xNew[u] = x[u]
			continue
		}
		for r := 0; r < 3; r++ {
			xNew[u][r] = sol.At(3*col[u]+r, 0)
		}
	}
	wNew = make([]float64, l)
	for i := range wNew {
		wNew[i] = w[i] + sol.At(3*nf+i, 0)
	}
	return xNew, wNew
}

// TestStepMatchesDenseLeastSquares checks the block elimination of
// Eq. 11–13 (with frozen triangles, the prior and the temporal term)
// against a dense QR solve of the same linearised problem.
func TestStepMatchesDenseLeastSquares(t *testing.T) {
	bar := assets.DemoBar()
	examples := [][]mgl64.Vec3{bar.Positions, assets.DemoBarBent(assets.DemoBendAngle), assets.DemoBarBent(-0.6)}
	for _, kind := range []SpaceKind{Nonlinear, Linear} {
		s, err := New(bar.Positions, bar.Triangles, examples, Options{Space: kind, Prior: 0.3, Temporal: 0.7})
		if err != nil {
			t.Fatal(err)
		}
		left, tip := barCap(bar)
		if err := s.SetHandles(append(left, tip)); err != nil {
			t.Fatal(err)
		}
		targets := make([]mgl64.Vec3, len(s.Handles()))
		for i, v := range s.Handles() {
			targets[i] = bar.Positions[v]
			if v == tip {
				targets[i] = targets[i].Add(mgl64.Vec3{-1, 2, 0.3})
			}
		}
		if err := s.SetTargets(targets); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFrozen([]int{3, 4, 5, 100}); err != nil {
			t.Fatal(err)
		}
		w := make([]float64, s.NumWeights())
		for i := range w {
			w[i] = 0.2 + 0.1*float64(i)
		}
		if err := s.SetWeights(w); err != nil {
			t.Fatal(err)
		}
		if err := s.SetPrevious([]float64{0.5, -0.1, 0.3}[:s.NumWeights()]); err != nil {
			t.Fatal(err)
		}
		x0 := append([]mgl64.Vec3(nil), s.x...)
		for v := 0; v < s.n; v++ {
			if s.fixed[v] {
				x0[v] = s.target[v]
			}
		}
		wantX, wantW := denseStep(t, s, x0, w)
		if _, err := s.Iterate(); err != nil {
			t.Fatal(err)
		}
		if d := rmsDistance(s.x, wantX[:s.n]); d > 1e-9 {
			t.Errorf("%v: positions after one step differ from the dense solve by RMS %g", kind, d)
		}
		for i := range wantW {
			if math.Abs(s.main.w[i]-wantW[i]) > 1e-9 {
				t.Errorf("%v: weight %d = %v, dense solve gives %v", kind, i, s.main.w[i], wantW[i])
			}
		}
	}
}

// barLength is the length of the bar's centre line through its ring
// centres (13 rings of 10 vertices, then the cap centres).
func barLength(p []mgl64.Vec3) float64 {
	const rings, seg = 13, 10
	l := 0.0
	prev := p[rings*seg]
	for r := 1; r < rings; r++ {
		var c mgl64.Vec3
		for k := 0; k < seg; k++ {
			c = c.Add(p[r*seg+k])
		}
		c = c.Mul(1.0 / seg)
		l += c.Sub(prev).Len()
		prev = c
	}
	return l
}

// tipAngle is the direction of the bar's last segment in the x-y plane.
func tipAngle(p []mgl64.Vec3) float64 {
	const rings, seg = 13, 10
	var c mgl64.Vec3
	for k := 0; k < seg; k++ {
		c = c.Add(p[(rings-2)*seg+k])
	}
	d := p[rings*seg+1].Sub(c.Mul(1.0 / seg))
	return math.Atan2(d[1], d[0])
}

// minRingRadius is the smallest distance of a ring vertex from its ring's
// centre: the bar's cross-section radius where it is thinnest.
func minRingRadius(p []mgl64.Vec3) float64 {
	const rings, seg = 13, 10
	m := math.Inf(1)
	for r := 0; r < rings; r++ {
		var c mgl64.Vec3
		for k := 0; k < seg; k++ {
			c = c.Add(p[r*seg+k])
		}
		c = c.Mul(1.0 / seg)
		for k := 0; k < seg; k++ {
			m = math.Min(m, p[r*seg+k].Sub(c).Len())
		}
	}
	return m
}

// solveBar poses the demo bar with its straight and 90°-bent examples, the
// left cap fixed and the right cap's centre dragged to where a bend of deg
// degrees would put it.
func solveBar(t *testing.T, kind SpaceKind, deg float64) []mgl64.Vec3 {
	t.Helper()
	bar := assets.DemoBar()
	examples := [][]mgl64.Vec3{bar.Positions, assets.DemoBarBent(assets.DemoBendAngle)}
	left, tip := barCap(bar)
	goal := assets.DemoBarBent(deg * math.Pi / 180)[tip]
	s, err := New(bar.Positions, bar.Triangles, examples, Options{Space: kind})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHandles(append(left, tip)); err != nil {
		t.Fatal(err)
	}
	targets := make([]mgl64.Vec3, len(s.Handles()))
	for i, v := range s.Handles() {
		targets[i] = bar.Positions[v]
		if v == tip {
			targets[i] = goal
		}
	}
	if err := s.SetTargets(targets); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Solve(nil); err != nil {
		t.Fatal(err)
	}
	return s.Positions()
}

// TestBarBendsFurther is the paper's Figure 5: with a straight and a bent
// (90°) example, dragging the tip beyond the bent example bends the bar
// further and keeps its length and cross-section (nonlinear space), while
// the linear space shortens it when extrapolating and collapses its
// cross-section when interpolating.
func TestBarBendsFurther(t *testing.T) {
	rest := barLength(assets.DemoBar().Positions)
	for _, deg := range []float64{135, 180} {
		p := solveBar(t, Nonlinear, deg)
		angle := tipAngle(p) * 180 / math.Pi
		if angle < deg-5 {
			t.Errorf("nonlinear, tip dragged to %.0f°: the tip turned only %.1f°", deg, angle)
		}
		if l := barLength(p); math.Abs(l-rest)/rest > 0.02 {
			t.Errorf("nonlinear, %.0f°: length %.3f vs rest %.3f, more than 2%% off", deg, l, rest)
		}
		if r := minRingRadius(p); math.Abs(r-0.5)/0.5 > 0.02 {
			t.Errorf("nonlinear, %.0f°: cross-section radius %.3f, want 0.5 within 2%%", deg, r)
		}
		t.Logf("nonlinear %.0f°: tip %.1f°, length %.3f (rest %.3f), radius %.3f", deg, angle, barLength(p), rest, minRingRadius(p))
	}
	q := solveBar(t, Linear, 180)
	if l := barLength(q); (rest-l)/rest < 0.10 {
		t.Errorf("linear, 180°: length %.3f vs rest %.3f: the linear space should shorten the bar visibly (≥ 10%%)", l, rest)
	}
	h := solveBar(t, Linear, 45)
	if r := minRingRadius(h); r > 0.5*0.85 {
		t.Errorf("linear, 45°: cross-section radius %.3f: the linear blend should collapse it (paper, Figure 5C)", r)
	}
	if r := minRingRadius(solveBar(t, Nonlinear, 45)); math.Abs(r-0.5)/0.5 > 0.02 {
		t.Errorf("nonlinear, 45°: cross-section radius %.3f, want 0.5 within 2%%", r)
	}
	t.Logf("linear: 180° length %.3f (%.0f%% short), 45° radius %.3f", barLength(q), 100*(rest-barLength(q))/rest, minRingRadius(h))
}

func TestBadInput(t *testing.T) {
	bar := assets.DemoBar()
	bent := assets.DemoBarBent(assets.DemoBendAngle)
	if _, err := New(bar.Positions, bar.Triangles, [][]mgl64.Vec3{bar.Positions, bent[:100]}, Options{}); err == nil || !strings.Contains(err.Error(), "example 1 has 100 vertices") {
		t.Errorf("short example: %v", err)
	}
	degenerate := append([][3]int(nil), bar.Triangles...)
	degenerate[7] = [3]int{3, 3, 4}
	var de *deform.DegenerateError
	if _, err := New(bar.Positions, degenerate, nil, Options{}); !errors.As(err, &de) || de.Triangle != 7 {
		t.Errorf("degenerate triangle: %v", err)
	}
	s, err := New(bar.Positions, bar.Triangles, [][]mgl64.Vec3{bar.Positions, bent}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetHandles([]int{0, 132}); err == nil || !strings.Contains(err.Error(), "vertex 132") {
		t.Errorf("constraint on a missing vertex: %v", err)
	}
	all := make([]int, len(bar.Triangles))
	for i := range all {
		all[i] = i
	}
	if err := s.SetFrozen(all); err == nil || !strings.Contains(err.Error(), "every triangle is frozen") {
		t.Errorf("all frozen: %v", err)
	}
	if _, err := s.Iterate(); err == nil {
		t.Error("iterating with no constraints should fail")
	}
	// A prior or temporal weight whose square would overflow is refused
	// by name, not failed later as a weight system the handles leave
	// undecided; MaxStrength itself solves, the weights at the mean.
	for _, o := range []Options{{Prior: 1e31}, {Prior: -1e200}, {Temporal: 1e300}, {Prior: math.NaN()}} {
		if _, err := New(bar.Positions, bar.Triangles, [][]mgl64.Vec3{bar.Positions, bent}, o); err == nil || !strings.Contains(err.Error(), "at most 1e+30") {
			t.Errorf("options %+v: %v", o, err)
		}
	}
	if err := s.SetPrior(1e300); err == nil || !strings.Contains(err.Error(), "prior 1e+300") {
		t.Errorf("SetPrior(1e300): %v", err)
	}
	strong, err := New(bar.Positions, bar.Triangles, [][]mgl64.Vec3{bar.Positions, bent, assets.DemoBarBent(-assets.DemoBendAngle)}, Options{Prior: MaxStrength})
	if err != nil {
		t.Fatal(err)
	}
	bendTip(strong, bar, bent)
	if _, err := strong.Solve(nil); err != nil {
		t.Fatalf("solve with the strongest prior: %v", err)
	}
	for _, p := range strong.Positions() {
		if !finite.Vec3(p) {
			t.Fatal("non-finite positions with the strongest prior")
		}
	}
	// An iteration cap that stops the solve is reported as such.
	capped, _ := New(bar.Positions, bar.Triangles, [][]mgl64.Vec3{bar.Positions, bent}, Options{MaxIterations: 1})
	bendTip(capped, bar, bent)
	if _, err := capped.Solve(nil); !errors.Is(err, ErrNotConverged) {
		t.Errorf("capped solve: %v, want ErrNotConverged", err)
	}
	for _, p := range capped.Positions() {
		if !finite.Vec3(p) {
			t.Fatal("non-finite positions after a capped solve")
		}
	}
}

// TestTriangleOrderDoesNotMatter: the solver reorders triangles internally
// (localOrder); the result, frozen triangles included, must be the same
// whatever order the caller lists them in.
func TestTriangleOrderDoesNotMatter(t *testing.T) {
	set := loadPoses(t, "lion-poses", 1, 2, 3)
	ref := set.ref
	m := len(ref.Triangles)
	reversed := make([][3]int, m)
	for j, tri := range ref.Triangles {
		reversed[m-1-j] = tri
	}
	frozen := []int{0, 17, 500, m / 2, m - 1}
	frozenRev := make([]int, len(frozen))
	for i, j := range frozen {
		frozenRev[i] = m - 1 - j
	}
	solve := func(tris [][3]int, frozen []int) []mgl64.Vec3 {
		s, err := New(ref.Positions, tris, set.poses, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetHandles(spreadHandles(ref)); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFrozen(frozen); err != nil {
			t.Fatal(err)
		}
		targets := make([]mgl64.Vec3, len(s.Handles()))
		for i, v := range s.Handles() {
			targets[i] = set.poses[1][v].Add(mgl64.Vec3{0.05, 0, 0})
		}
		if err := s.SetTargets(targets); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Solve(nil); err != nil {
			t.Fatal(err)
		}
		return s.Positions()
	}
	a := solve(ref.Triangles, frozen)
	b := solve(reversed, frozenRev)
	if d := rmsDistance(a, b); d > 1e-9 {
		t.Errorf("reversing the triangle list changes the solve by RMS %g", d)
	}
	// And freezing matters, so the comparison above can fail.
	if d := rmsDistance(a, solve(reversed, frozen)); d < 1e-6 {
		t.Errorf("freezing other triangles changes the solve by only RMS %g", d)
	}
}

// TestReuseMatchesExact: a drag (the lion's handles moved in ten steps
// from one pose toward another, a few iterations each, as the Pose tool
// solves one) ends where the paper's Gauss-Newton ends, although most of
// its iterations reuse an earlier weight system; and they do reuse it.
func TestReuseMatchesExact(t *testing.T) {
	set, diag := allPoses(t, "lion-poses")
	hs := spreadHandles(set.ref)
	var final [2][]mgl64.Vec3
	var finalW [2][]float64
	reused := 0
	for e, exact := range []bool{true, false} {
		// Converged tightly, so that the ends compare the optima, not
		// where each happened to pass the tests of Section 4.1.
		s, err := New(set.ref.Positions, set.ref.Triangles, set.poses[:8], Options{Exact: exact, Epsilon: 1e-14})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetHandles(hs); err != nil {
			t.Fatal(err)
		}
		from, to := set.poses[2], set.poses[8] // pose 9, left out, is the goal
		if err := s.SetPositions(from); err != nil {
			t.Fatal(err)
		}
		s.FitWeights()
		for step := 1; step <= 10; step++ {
			a := float64(step) / 10
			targets := make([]mgl64.Vec3, len(s.Handles()))
			for i, v := range s.Handles() {
				targets[i] = from[v].Mul(1 - a).Add(to[v].Mul(a))
			}
			if err := s.SetTargets(targets); err != nil {
				t.Fatal(err)
			}
			iters := 3
			if step == 10 {
				iters = 200 // the drag's end: solved to convergence
			}
			for range iters {
				if !exact && s.reusing() {
					reused++
				}
				st, err := s.Iterate()
				if err != nil {
					t.Fatal(err)
				}
				if st.Converged {
					break
				}
			}
		}
		final[e], finalW[e] = s.Positions(), s.Weights()
	}
	if d := rmsDistance(final[0], final[1]) / diag; d > 1e-9 {
		t.Errorf("the drag with reuse ends %.3g (RMS over the diagonal) from the exact one's end", d)
	}
	for k := range finalW[0] {
		if math.Abs(finalW[0][k]-finalW[1][k]) > 1e-5 {
			t.Errorf("weight %d: %v with reuse, %v exact", k, finalW[1][k], finalW[0][k])
		}
	}
	if reused < 10 {
		t.Errorf("only %d iterations reused a weight system", reused)
	}
	t.Logf("%d iterations reused the weight system; the ends differ by %.3g of the diagonal", reused, rmsDistance(final[0], final[1])/diag)
}

// TestWeightSystemScaling: the weight system is solved so that neither a
// strong prior nor weights the handles leave undetermined slow the solve,
// on pcow (the elastic cow) with frames 1-47 as examples and 10 handles
// from frame 48, one pulled by a tenth of the diagonal. With k = 10¹⁰
// the nonlinear solve settles in a few iterations (the unscaled system
// looked singular and froze the scale weight: 50 iterations, objective
// 771.7 for 571.6); in the linear space without a prior, where 47
// examples and 10 handles leave weights undetermined, it settles in a
// few too (a system equilibrated to a unit diagonal let those directions
// wander for 133).
func TestWeightSystemScaling(t *testing.T) {
	frames := make([]int, 48)
	for i := range frames {
		frames[i] = i + 1
	}
	p := loadPoses(t, "pcow", frames...)
	lo, hi := assets.Bounds(p.poses[47])
	diag := hi.Sub(lo).Len()
	h := farthest.Points(p.ref.Positions, 10, 0)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"nonlinear, k = 1e10", Options{Space: Nonlinear, Prior: 1e10, Exact: true}},
		{"linear, no prior", Options{Space: Linear, Prior: -1, Exact: true}},
	} {
		s, err := New(p.ref.Positions, p.ref.Triangles, p.poses[:47], c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.SetHandles(h); err != nil {
			t.Fatal(err)
		}
		targets := make([]mgl64.Vec3, len(s.Handles()))
		for i, v := range s.Handles() {
			targets[i] = p.poses[47][v]
			if v == h[0] {
				targets[i] = targets[i].Add(mgl64.Vec3{0.1 * diag, 0.05 * diag, 0})
			}
		}
		s.SetTargets(targets)
		res, err := s.Solve(nil)
		if err != nil || res.Iterations > 10 {
			t.Errorf("%s: %d iterations, objective %.6g, %v; want a solve settled in at most 10", c.name, res.Iterations, res.Objective, err)
		}
	}
}
