package meshik

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/solver/deform"
	"gallop/solver/parallel"
	"gallop/solver/sparse"
)

// SpaceKind selects the feature space of a Solver.
type SpaceKind int

const (
	// Nonlinear is the nonlinear span of Eq. 6 (rotations blended through
	// the exponential map): the paper's method and the default.
	Nonlinear SpaceKind = iota
	// Linear is the linear span of Section 3.2, for comparison.
	Linear
	// Identity uses the reference pose alone: every target feature is the
	// identity and there are no weights (Eq. 3 with f_id).
	Identity
)

func (k SpaceKind) String() string {
	switch k {
	case Nonlinear:
		return "nonlinear"
	case Linear:
		return "linear"
	case Identity:
		return "identity"
	}
	return fmt.Sprintf("SpaceKind(%d)", int(k))
}

// Options are the settings of a Solver. The zero value means the defaults
// documented on each field.
type Options struct {
	Space SpaceKind
	// Prior is k of Eq. 5: the residual k·w added to the objective, which
	// pulls the weights toward the mean of the examples (the linear space's
	// w = 0). 0 means none.
	Prior float64
	// Temporal is p of Section 5: the residual p·(w − w₀) that keeps the
	// weights near those of the previous animation frame (SetPrevious).
	// The paper uses p = 100 for animations; 0 means none.
	Temporal float64
	// Epsilon is ε of the convergence tests (Section 4.1); 0 means 1e-6.
	Epsilon float64
	// MaxIterations caps Solve; 0 means 50.
	MaxIterations int
}

func (o Options) epsilon() float64 {
	if o.Epsilon > 0 {
		return o.Epsilon
	}
	return 1e-6
}

func (o Options) maxIterations() int {
	if o.MaxIterations > 0 {
		return o.MaxIterations
	}
	return 50
}

// Solver poses a mesh: given the reference mesh, example poses and a set of
// constrained vertices with target positions, it finds the vertex positions
// x and the example weights w that minimise
//
//	f(x, w) = Σ_{r=x,y,z} ‖G·x_r − M_r(w)‖² + k²‖w‖² + p²‖w − w₀‖²
//
// with the constrained vertices held at their targets (Eq. 8, with Eq. 5's
// prior and Section 5's temporal term as extra residuals), by Gauss-Newton
// iterations (Eq. 9–10) solved with the block structure of Eq. 11–13:
//
//	GᵀG = Pᵀ·L·Lᵀ·P, factored once per set of constrained vertices;
//	Y_r = L⁻¹·P·Gᵀ·J_r,  z_r = L⁻¹·P·Gᵀ·b_r   (forward solves, all at once)
//	(Σ_r J_rᵀJ_r − Y_rᵀY_r + (k² + p²)·I)·δ = Σ_r (Y_rᵀz_r − J_rᵀb_r) − k²w − p²(w − w₀)
//	x_r = Pᵀ·L⁻ᵀ·(z_r + Y_r·δ),  w ← w + δ     (backward solves)
//
// where J_r is the coordinate-r block of ∂M/∂w and b_r = M_r(w) − G·x̂_r,
// x̂ holding only the constrained values. The l×l system is dense.
//
// Constraints are imposed by value (Dirichlet): the pattern of GᵀG (with
// the fourth vertices, n + m unknowns) is analysed once per mesh; a new set
// of constrained vertices zeroes their rows and columns and puts 1 on their
// diagonal, which needs only a numeric refactorization, and new targets for
// the same set need none.
//
// Frozen triangles (paper, Figure 6C) keep the deformation gradient they
// had when they were frozen as their target, independent of w: their rows
// still hold the frozen region in shape, but they no longer pull on the
// weights.
//
// A connected component of the mesh with no constrained vertex would be
// free to translate; the Solver pins one of its vertices where it is, and
// unreferenced vertices stay where they are.
//
// A Solver is not safe for concurrent use.
type Solver struct {
	opts Options
	grad *deform.Gradients
	n, m int // vertices, triangles
	nu   int // unknowns per coordinate: n + m

	gop   *sparse.CSC // G, one coordinate: 3m × (n+m)
	gtg   *sparse.CSC // GᵀG with the Dirichlet rows applied
	base  []float64   // GᵀG's own values
	sym   *sparse.Symbolic
	fac   *sparse.Factor
	ws    *sparse.Workspace
	diag  []int // index of each column's diagonal entry in gtg.Val
	comp  []int // connected component of each vertex, -1 if unreferenced
	ncomp int
	ready bool // a factorization for the current constraints exists

	analyzeTime, factorTime time.Duration // of Analyze (in New) and the last SetHandles

	fixed  []bool       // per unknown: held by value
	target []mgl64.Vec3 // per vertex: its value when fixed
	frozen []bool       // per triangle
	fgrad  []mgl64.Mat3 // per triangle: the frozen target
	handle []int        // the constrained vertices, sorted
	touch  []int        // the triangles with a constrained vertex
	x      []mgl64.Vec3 // current unknowns (positions, then fourth vertices)

	main *spaceState // the feature space being solved in
	lin  *spaceState // the linear space of the same examples, to start from (nil if not needed)

	// Iteration state: the last accepted iterate, for the
	// Levenberg-Marquardt safeguard and the convergence tests.
	iter  int
	prevF float64 // objective of the last accepted iterate; NaN before
	prevX []mgl64.Vec3
	prevW []float64
	mu    float64 // Marquardt damping of the weight step, 0 for pure Gauss-Newton
	// predicted is the decrease of f the linearised model promised for the
	// last step (0 if none).
	predicted float64

	fhat []mgl64.Mat3 // scratch: G·x, or b = M(w) − G·x̂ (x̂: the constrained values only)
	xs   *mat.Dense   // backward-solve right-hand sides: nu × 3
}

// spaceState is a feature space with its weights and the storage of one
// Gauss-Newton iteration.
type spaceState struct {
	kind  SpaceKind
	space Space // nil for the identity
	l     int
	w, w0 []float64
	t, dt []mgl64.Mat3 // M(w), ∂M/∂w
	b     *mat.Dense   // right-hand sides: nu × 3(l+1)
}

func newSpaceState(kind SpaceKind, space Space, m, nu int) *spaceState {
	bl := &spaceState{kind: kind, space: space}
	if space != nil {
		bl.l = space.NumWeights()
	}
	bl.w = make([]float64, bl.l)
	bl.w0 = make([]float64, bl.l)
	bl.t = make([]mgl64.Mat3, m)
	bl.dt = make([]mgl64.Mat3, m*bl.l)
	bl.b = mat.NewDense(nu, 3*(bl.l+1), nil)
	bl.neutral()
	return bl
}

// neutral sets the weights to the space's centre: the mean (w = 0) for
// the linear space, equal shares for the nonlinear one.
func (bl *spaceState) neutral() {
	for i := range bl.w {
		bl.w[i] = 0
		if bl.kind == Nonlinear {
			bl.w[i] = 1 / float64(bl.l)
		}
	}
}

// eval computes M(w) and ∂M/∂w, frozen triangles overridden.
func (bl *spaceState) eval(frozen []bool, fgrad []mgl64.Mat3) {
	if bl.space != nil {
		bl.space.EvalJacobian(bl.w, bl.t, bl.dt)
	} else {
		for j := range bl.t {
			bl.t[j] = mgl64.Ident3()
		}
	}
	for j, f := range frozen {
		if f {
			bl.t[j] = fgrad[j]
			clear(bl.dt[j*bl.l : (j+1)*bl.l])
		}
	}
}

// Stats describes one Gauss-Newton iteration.
type Stats struct {
	Iteration int     // 1-based, since the last change of constraints or weights
	Objective float64 // f at the start of the iteration
	Gradient  float64 // ‖∂f/∂w‖∞ at the start of the iteration
	Step      float64 // ‖δ‖∞
	Damping   float64 // the Marquardt μ the step was taken with (0: Gauss-Newton)
	Converged bool    // the three tests of Section 4.1 hold
}

// ErrNotConverged is returned (wrapped) by Solve when the iteration cap is
// reached before the convergence tests hold; the positions are the last
// iterate's.
var ErrNotConverged = errors.New("meshik: did not converge")

// New prepares a solver for the reference mesh (positions, triangles) and
// example poses (each a full set of positions in the reference's vertex
// order). With no examples (or Options.Space == Identity) the target
// features are the identity: the reference pose alone. It analyses GᵀG;
// call SetHandles before Solve.
func New(reference []mgl64.Vec3, triangles [][3]int, examples [][]mgl64.Vec3, opts Options) (*Solver, error) {
	grad, err := deform.New(reference, triangles)
	if err != nil {
		return nil, fmt.Errorf("reference mesh: %w", err)
	}
	n, m := len(reference), len(triangles)
	if m == 0 {
		return nil, errors.New("meshik: the mesh has no triangles")
	}
	kind := opts.Space
	if len(examples) == 0 {
		kind = Identity
	}
	var feats [][]mgl64.Mat3
	if kind != Identity {
		feats = make([][]mgl64.Mat3, len(examples))
		for i, ex := range examples {
			if len(ex) != n {
				return nil, fmt.Errorf("example %d has %d vertices, the reference has %d", i, len(ex), n)
			}
			for v, p := range ex {
				if !finite(p) {
					return nil, fmt.Errorf("example %d, vertex %d: non-finite position %v", i, v, p)
				}
			}
			feats[i] = make([]mgl64.Mat3, m)
			grad.Features(feats[i], ex)
		}
	}
	opts.Space = kind
	s := &Solver{opts: opts, grad: grad, n: n, m: m, nu: n + m}
	switch kind {
	case Identity:
		s.main = newSpaceState(Identity, nil, m, s.nu)
	case Linear:
		ls, err := NewLinearSpace(feats)
		if err != nil {
			return nil, err
		}
		s.main = newSpaceState(Linear, ls, m, s.nu)
	case Nonlinear:
		ns, err := NewNonlinearSpace(feats)
		if err != nil {
			return nil, err
		}
		s.main = newSpaceState(Nonlinear, ns, m, s.nu)
		if len(examples) > 1 {
			ls, err := NewLinearSpace(feats)
			if err != nil {
				return nil, err
			}
			s.lin = newSpaceState(Linear, ls, m, s.nu)
		}
	default:
		return nil, fmt.Errorf("meshik: unknown feature space %v", kind)
	}
	s.gop = gOperator(grad)
	s.gtg = sparse.MulTransA(s.gop)
	s.base = slices.Clone(s.gtg.Val)
	s.diag = make([]int, s.nu)
	for j := 0; j < s.nu; j++ {
		lo, hi := s.gtg.ColPtr[j], s.gtg.ColPtr[j+1]
		k, ok := slices.BinarySearch(s.gtg.RowIdx[lo:hi], j)
		if !ok {
			return nil, fmt.Errorf("meshik: GᵀG has no diagonal entry in column %d", j) // cannot happen: every unknown is in a row
		}
		s.diag[j] = lo + k
	}
	start := time.Now()
	if s.sym, err = sparse.Analyze(s.gtg, nil); err != nil {
		return nil, err
	}
	s.analyzeTime = time.Since(start)
	s.comp, s.ncomp = components(n, triangles)
	s.fixed = make([]bool, s.nu)
	s.target = slices.Clone(reference)
	s.frozen = make([]bool, m)
	s.fgrad = make([]mgl64.Mat3, m)
	s.x = grad.Unknowns(nil, reference)
	s.prevX = make([]mgl64.Vec3, s.nu)
	s.prevW = make([]float64, s.main.l)
	s.fhat = make([]mgl64.Mat3, m)
	s.xs = mat.NewDense(s.nu, 3, nil)
	s.resetConvergence()
	return s, nil
}

// gOperator assembles G (3m × (n+m), one coordinate) from the gradients.
func gOperator(g *deform.Gradients) *sparse.CSC {
	m := g.NumTriangles()
	t := sparse.NewTriplet(3*m, g.NumUnknowns(), 12*m)
	for j := 0; j < m; j++ {
		for c := 0; c < 3; c++ {
			cols, coef := g.Row(j, c)
			for k := 0; k < 4; k++ {
				t.Add(3*j+c, cols[k], coef[k])
			}
		}
	}
	return t.CSC()
}

// components labels the connected components of the mesh's vertices
// (sharing a triangle connects them); unreferenced vertices get -1.
func components(n int, triangles [][3]int) ([]int, int) {
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	used := make([]bool, n)
	for _, t := range triangles {
		for _, v := range t {
			used[v] = true
		}
		a, b, c := find(t[0]), find(t[1]), find(t[2])
		parent[b] = a
		parent[find(c)] = a
	}
	label := make([]int, n)
	ids := map[int]int{}
	for i := range label {
		if !used[i] {
			label[i] = -1
			continue
		}
		r := find(i)
		id, ok := ids[r]
		if !ok {
			id = len(ids)
			ids[r] = id
		}
		label[i] = id
	}
	return label, len(ids)
}

// NumWeights returns the number of example weights (0 for the identity
// space; l − 1 for the linear space of l examples).
func (s *Solver) NumWeights() int { return s.main.l }

// Space returns the feature space in use.
func (s *Solver) Space() SpaceKind { return s.main.kind }

// ResetWeights puts the weights back at the space's centre (the mean of
// the examples for the linear space, equal shares for the nonlinear one).
func (s *Solver) ResetWeights() {
	s.main.neutral()
	s.resetConvergence()
}

// SetHandles sets the constrained vertices (any order, no duplicates).
// Their targets start at their current positions (SetTargets moves them).
// It refactors GᵀG: on the subdivided horse this is the step the Pose tool
// must finish within 0.25 s.
func (s *Solver) SetHandles(vertices []int) error {
	hs := slices.Clone(vertices)
	slices.Sort(hs)
	for i, v := range hs {
		if v < 0 || v >= s.n {
			return fmt.Errorf("constraint on vertex %d, which does not exist (the mesh has %d vertices)", v, s.n)
		}
		if i > 0 && hs[i-1] == v {
			return fmt.Errorf("vertex %d is constrained twice", v)
		}
	}
	clear(s.fixed)
	for _, v := range hs {
		s.fixed[v] = true
		s.target[v] = s.x[v]
	}
	// Pin what would otherwise float: unreferenced vertices, and one vertex
	// of each component without a constraint.
	anchored := make([]bool, s.ncomp)
	for _, v := range hs {
		if c := s.comp[v]; c >= 0 {
			anchored[c] = true
		}
	}
	for v := 0; v < s.n; v++ {
		c := s.comp[v]
		if c < 0 || !anchored[c] {
			s.fixed[v] = true
			s.target[v] = s.x[v]
			if c >= 0 {
				anchored[c] = true
			}
		}
	}
	s.handle = hs
	s.touch = s.touch[:0]
	for j := 0; j < s.m; j++ {
		t := s.grad.Triangle(j)
		if s.fixed[t[0]] || s.fixed[t[1]] || s.fixed[t[2]] {
			s.touch = append(s.touch, j)
		}
	}
	// Dirichlet by values: zero fixed rows and columns, 1 on their diagonal.
	copy(s.gtg.Val, s.base)
	a := s.gtg
	for j := 0; j < s.nu; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			if s.fixed[j] || s.fixed[a.RowIdx[p]] {
				a.Val[p] = 0
			}
		}
		if s.fixed[j] {
			a.Val[s.diag[j]] = 1
		}
	}
	start := time.Now()
	defer func() { s.factorTime = time.Since(start) }()
	var err error
	if s.fac == nil {
		s.fac, err = s.sym.Factor(a)
		if err == nil {
			s.ws = s.fac.NewWorkspace()
		}
	} else {
		err = s.fac.Refactor(a)
	}
	s.ready = err == nil
	if err != nil {
		return fmt.Errorf("meshik: factoring GᵀG: %w", err)
	}
	s.resetConvergence()
	return nil
}

// FactorTimes returns the wall time of the symbolic analysis of GᵀG (done
// once per mesh, in New) and of the last numeric factorization (done by
// each SetHandles).
func (s *Solver) FactorTimes() (analyze, factor time.Duration) {
	return s.analyzeTime, s.factorTime
}

// Handles returns the constrained vertices, sorted.
func (s *Solver) Handles() []int { return slices.Clone(s.handle) }

// SetTargets moves the constrained vertices: targets[i] is the position of
// the i-th vertex of Handles.
func (s *Solver) SetTargets(targets []mgl64.Vec3) error {
	if len(targets) != len(s.handle) {
		return fmt.Errorf("meshik: %d targets for %d constrained vertices", len(targets), len(s.handle))
	}
	for i, p := range targets {
		if !finite(p) {
			return fmt.Errorf("target of vertex %d is not finite: %v", s.handle[i], p)
		}
		s.target[s.handle[i]] = p
	}
	s.resetConvergence()
	return nil
}

// SetFrozen freezes the given triangles (replacing the previous set): their
// target features become their deformation gradients in the current pose,
// independent of the weights. It returns an error if every triangle would
// be frozen while there are weights to solve for.
func (s *Solver) SetFrozen(triangles []int) error {
	frozen := make([]bool, s.m)
	for _, j := range triangles {
		if j < 0 || j >= s.m {
			return fmt.Errorf("frozen triangle %d does not exist (the mesh has %d triangles)", j, s.m)
		}
		frozen[j] = true
	}
	if s.main.l > 0 && !slices.Contains(frozen, false) {
		return errors.New("every triangle is frozen: nothing is left for the examples to explain (unfreeze some)")
	}
	s.frozen = frozen
	s.grad.Apply(s.fgrad, s.x)
	s.resetConvergence()
	return nil
}

// SetWeights sets the example weights (the starting point of the next
// Gauss-Newton iterations, or the blend of Reconstruct).
func (s *Solver) SetWeights(w []float64) error {
	if len(w) != s.main.l {
		return fmt.Errorf("meshik: %d weights, the space has %d", len(w), s.main.l)
	}
	for i, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("meshik: weight %d is not finite", i)
		}
	}
	copy(s.main.w, w)
	s.resetConvergence()
	return nil
}

// Weights returns the current example weights.
func (s *Solver) Weights() []float64 { return slices.Clone(s.main.w) }

// SetPrevious sets w₀ of the temporal term (the previous frame's weights).
func (s *Solver) SetPrevious(w0 []float64) error {
	if len(w0) != s.main.l {
		return fmt.Errorf("meshik: %d previous weights, the space has %d", len(w0), s.main.l)
	}
	copy(s.main.w0, w0)
	s.resetConvergence()
	return nil
}

// SetPositions sets the current pose (the starting point of the
// iterations; constrained vertices keep their targets).
func (s *Solver) SetPositions(p []mgl64.Vec3) error {
	if len(p) != s.n {
		return fmt.Errorf("meshik: %d positions, the mesh has %d vertices", len(p), s.n)
	}
	s.x = s.grad.Unknowns(s.x, p)
	s.resetConvergence()
	return nil
}

// Positions returns the current vertex positions (a new slice).
func (s *Solver) Positions() []mgl64.Vec3 { return slices.Clone(s.x[:s.n]) }

func (s *Solver) resetConvergence() {
	s.prevF = math.NaN()
	s.iter = 0
	s.mu = 0
	s.predicted = 0
}

// Iterate performs one Gauss-Newton iteration from the current (x, w).
//
// As a safeguard the paper does not need on its examples but larger
// residuals do (left-out poses, far drags), the iteration is
// Levenberg-Marquardt: the weight system is damped, S + μ·diag(S), by a μ
// that the gain ratio ρ = (actual decrease of f) / (decrease the linear
// model predicted) of the previous step steers (Madsen, Nielsen and
// Tingleff 2004, Section 3.2): a step that increased f is undone and
// retaken with μ larger; ρ < 1/4 doubles μ, ρ > 3/4 divides it by three
// down to 0, pure Gauss-Newton, which is where a well-behaved solve
// stays. Without the damping Gauss-Newton can zig-zag across a flat valley
// forever (the lion with pose 7 left out did).
func (s *Solver) Iterate() (Stats, error) {
	if !s.ready {
		return Stats{}, errors.New("meshik: no constraints set (SetHandles)")
	}
	for {
		f, grad := s.objective(s.main)
		if !math.IsNaN(s.prevF) && s.predicted > 0 {
			rho := (s.prevF - f) / s.predicted
			switch {
			case rho < 0 && s.mu < 1e8:
				// The last step made things worse: undo it and damp.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.mu = max(4*s.mu, 1e-3)
				s.predicted = 0
				continue
			case rho < 0.25:
				s.mu = max(4*s.mu, 1e-3)
			case rho > 0.75:
				if s.mu /= 3; s.mu < 1e-8 {
					s.mu = 0
				}
			}
		}
		copy(s.prevX, s.x)
		copy(s.prevW, s.main.w)
		lastF := s.prevF
		s.prevF = f
		delta, model, err := s.step(s.main, s.opts.Prior, s.opts.Temporal, s.mu, true)
		if err != nil {
			return Stats{}, err
		}
		s.predicted = f - model
		s.iter++
		eps := s.opts.epsilon()
		st := Stats{Iteration: s.iter, Objective: f, Damping: s.mu}
		wmax := 0.0
		for k := range delta {
			st.Step = max(st.Step, math.Abs(delta[k]))
			st.Gradient = max(st.Gradient, math.Abs(grad[k]))
			wmax = max(wmax, math.Abs(s.prevW[k]))
		}
		st.Converged = !math.IsNaN(lastF) &&
			math.Abs(f-lastF) < eps*(1+f) &&
			st.Gradient < math.Cbrt(eps)*(1+f) &&
			st.Step < math.Sqrt(eps)*(1+wmax)
		for _, p := range s.x {
			if !finite(p) {
				return st, errors.New("meshik: the solve produced non-finite positions")
			}
		}
		return st, nil
	}
}

// StartFromLinear replaces the weights with the best blend of the linear
// feature space for the current constraints (a convex problem: one exact
// step from its centre), expressed as nonlinear weights. The linear blend
// d̄ + Σ_{i<l} w_i·(d_i − d̄) is Σ_i α_i·d_i with α_i = w_i + (1 − Σ_j w_j)/l
// (w_l = 0), and α is where the nonlinear iterations start: the nonlinear
// space agrees with the linear one at the examples and near them, so this
// start lies in the right basin far more often than equal shares do (with
// equal shares the lion's pose 7 stalls in a local minimum). Positions are
// set to the linear solution. It does nothing for other spaces.
func (s *Solver) StartFromLinear() error {
	if s.lin == nil || !s.ready {
		return nil
	}
	s.lin.neutral()
	// A small prior keeps the linear problem well posed when examples are
	// nearly dependent; it hardly moves the optimum.
	if _, _, err := s.step(s.lin, max(s.opts.Prior, 1e-3), 0, 0, false); err != nil {
		return err
	}
	l := s.main.l
	sum := 0.0
	for _, v := range s.lin.w {
		sum += v
	}
	for i := range s.main.w {
		s.main.w[i] = (1 - sum) / float64(l)
		if i < l-1 {
			s.main.w[i] += s.lin.w[i]
		}
	}
	s.resetConvergence()
	return nil
}

// objective returns f at the current (x, w) of bl, and ∂f/∂w with x held,
// after evaluating M(w) and ∂M/∂w into bl and moving the constrained
// vertices to their targets.
func (s *Solver) objective(bl *spaceState) (float64, []float64) {
	l := bl.l
	bl.eval(s.frozen, s.fgrad)
	for v := 0; v < s.n; v++ {
		if s.fixed[v] {
			s.x[v] = s.target[v]
		}
	}
	s.grad.Apply(s.fhat, s.x)
	acc := s.reduce(s.m, 1+l, func(lo, hi int, acc []float64) {
		for j := lo; j < hi; j++ {
			e := s.fhat[j].Sub(bl.t[j])
			for _, v := range e {
				acc[0] += v * v
			}
			for k := 0; k < l; k++ {
				d := &bl.dt[j*l+k]
				g := 0.0
				for q := 0; q < 9; q++ {
					g += d[q] * e[q]
				}
				acc[1+k] -= 2 * g
			}
		}
	})
	f, grad := acc[0], acc[1:]
	kk, pp := s.opts.Prior*s.opts.Prior, s.opts.Temporal*s.opts.Temporal
	for k := 0; k < l; k++ {
		dw := bl.w[k] - bl.w0[k]
		f += kk*bl.w[k]*bl.w[k] + pp*dw*dw
		grad[k] += 2*kk*bl.w[k] + 2*pp*dw
	}
	return f, grad
}

// rhsFeatures sets s.fhat to b = t − G·x̂, where x̂ holds only the
// constrained values: t itself except on the triangles that touch a
// constrained unknown (listed by SetHandles).
func (s *Solver) rhsFeatures(t []mgl64.Mat3) {
	copy(s.fhat, t)
	for _, j := range s.touch {
		for c := 0; c < 3; c++ {
			cols, coef := s.grad.Row(j, c)
			for q, u := range cols {
				if s.fixed[u] {
					for r := 0; r < 3; r++ {
						s.fhat[j][3*c+r] -= coef[q] * s.x[u][r]
					}
				}
			}
		}
	}
}

// step solves the linearised problem at bl's current (x, w), with prior
// k, temporal p and Marquardt damping mu, and applies the step to x and
// bl.w. It returns δ and the value of the linearised objective at the new
// (x, w) (what the model predicts f will be). With evaluated, M(w) and
// ∂M/∂w are already in bl (objective computed them).
func (s *Solver) step(bl *spaceState, k, p, mu float64, evaluated bool) ([]float64, float64, error) {
	l, nu := bl.l, s.nu
	if !evaluated {
		bl.eval(s.frozen, s.fgrad)
	}
	for v := 0; v < s.n; v++ {
		if s.fixed[v] {
			s.x[v] = s.target[v]
		}
	}
	// b = M(w) − G·x̂ (x̂: constrained values only), then the right-hand
	// sides Gᵀ·J_r (l columns) and Gᵀ·b_r (one) per coordinate, and the
	// forward solves for all 3(l+1) columns at once.
	s.rhsFeatures(bl.t)
	s.scatterRHS(bl)
	s.ws.SolveLower(bl.b, bl.b)

	// The l×l system for δ.
	delta := make([]float64, l)
	if l > 0 {
		kk, pp := k*k, p*p
		jtj, jtb := s.smallProducts(bl)
		yty, ytz := s.gramY(bl)
		sys := mat.NewSymDense(l, nil)
		rhs := mat.NewVecDense(l, nil)
		for a := 0; a < l; a++ {
			for c := a; c < l; c++ {
				v := jtj[a*l+c] - yty[a*l+c]
				if a == c {
					v = (v + kk + pp) * (1 + mu)
				}
				sys.SetSym(a, c, v)
			}
			rhs.SetVec(a, ytz[a]-jtb[a]-kk*bl.w[a]-pp*(bl.w[a]-bl.w0[a]))
		}
		var ch mat.Cholesky
		if !ch.Factorize(sys) {
			return nil, 0, errors.New("meshik: the weight system is not positive definite (examples that do not vary, or constraints that do not involve them); add a prior")
		}
		if err := ch.SolveVecTo(mat.NewVecDense(l, delta), rhs); err != nil {
			return nil, 0, fmt.Errorf("meshik: weight system: %w", err)
		}
	}
	// Backward solves: x_r = Pᵀ·L⁻ᵀ·(z_r + Y_r·δ).
	bd := bl.b.RawMatrix()
	xd := s.xs.RawMatrix()
	parallel.Chunks(nu, 8192, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			row := bd.Data[u*bd.Stride:]
			for r := 0; r < 3; r++ {
				v := row[r*(l+1)+l]
				for a := 0; a < l; a++ {
					v += row[r*(l+1)+a] * delta[a]
				}
				xd.Data[u*xd.Stride+r] = v
			}
		}
	})
	s.ws.SolveUpper(s.xs, s.xs)
	for u := 0; u < nu; u++ {
		s.x[u] = mgl64.Vec3{xd.Data[u*xd.Stride], xd.Data[u*xd.Stride+1], xd.Data[u*xd.Stride+2]}
	}
	// The model's value at the new iterate: ‖G·x − (M + J·δ)‖² plus the
	// regularisers at w + δ.
	s.grad.Apply(s.fhat, s.x)
	model := s.reduce(s.m, 1, func(lo, hi int, acc []float64) {
		for j := lo; j < hi; j++ {
			e := s.fhat[j].Sub(bl.t[j])
			for a := 0; a < l; a++ {
				e = e.Sub(bl.dt[j*l+a].Mul(delta[a]))
			}
			for _, v := range e {
				acc[0] += v * v
			}
		}
	})[0]
	for a := range delta {
		bl.w[a] += delta[a]
		dw := bl.w[a] - bl.w0[a]
		model += k*k*bl.w[a]*bl.w[a] + p*p*dw*dw
	}
	return delta, model, nil
}

// reduceChunk is the number of items per partial sum of reduce: fixed, so
// sums do not depend on the number of cores.
const reduceChunk = 4096

// reduce runs fn over [0, n) in chunks of reduceChunk, in parallel, each
// chunk accumulating into its own zeroed slice of width numbers, and
// returns their sum taken in chunk order: a parallel reduction whose result
// does not depend on scheduling.
func (s *Solver) reduce(n, width int, fn func(lo, hi int, acc []float64)) []float64 {
	nc := (n + reduceChunk - 1) / reduceChunk
	part := make([]float64, nc*width)
	parallel.For(nc, func(c int) {
		fn(c*reduceChunk, min(n, (c+1)*reduceChunk), part[c*width:(c+1)*width])
	})
	sum := make([]float64, width)
	for c := 0; c < nc; c++ {
		for i, v := range part[c*width : (c+1)*width] {
			sum[i] += v
		}
	}
	return sum
}

// scatterRHS fills bl.b: per coordinate r, columns r(l+1)+k = Gᵀ·J_{r,k}
// (k < l) and r(l+1)+l = Gᵀ·b_r (b in s.fhat), with the constrained rows
// set for the Dirichlet system (0 for the J columns, the constrained value
// for b). Each row u of Gᵀ·F gathers from column u of G, whose entries name
// the triangle j and gradient column c they came from (row 3j + c), so rows
// are independent: they are computed in parallel, deterministically, and
// every read of a triangle's 3×3 blocks is contiguous.
func (s *Solver) scatterRHS(bl *spaceState) {
	l := bl.l
	w := 3 * (l + 1)
	bd := bl.b.RawMatrix()
	g := s.gop
	parallel.Chunks(s.nu, 2048, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			row := bd.Data[u*bd.Stride : u*bd.Stride+w]
			clear(row)
			if s.fixed[u] {
				for r := 0; r < 3; r++ {
					row[r*(l+1)+l] = s.x[u][r]
				}
				continue
			}
			for p := g.ColPtr[u]; p < g.ColPtr[u+1]; p++ {
				i, a := g.RowIdx[p], g.Val[p]
				j, c := i/3, i%3
				for k := 0; k < l; k++ {
					d := bl.dt[j*l+k][3*c : 3*c+3]
					row[k] += a * d[0]
					row[(l+1)+k] += a * d[1]
					row[2*(l+1)+k] += a * d[2]
				}
				bj := s.fhat[j][3*c : 3*c+3]
				row[l] += a * bj[0]
				row[(l+1)+l] += a * bj[1]
				row[2*(l+1)+l] += a * bj[2]
			}
		}
	})
}

// gramY returns, from the forward-solved right-hand sides in bl.b,
// Σ_r Y_rᵀY_r (l×l, row-major, upper triangle filled) and Σ_r Y_rᵀz_r: in
// one pass over the rows, split into chunks whose partial sums are added in
// chunk order, so the result does not depend on scheduling.
func (s *Solver) gramY(bl *spaceState) (yty, ytz []float64) {
	l := bl.l
	bd := bl.b.RawMatrix()
	const chunk = 8192
	nc := (s.nu + chunk - 1) / chunk
	part := make([]float64, nc*(l*l+l))
	parallel.For(nc, func(c int) {
		acc := part[c*(l*l+l) : (c+1)*(l*l+l)]
		for u := c * chunk; u < min(s.nu, (c+1)*chunk); u++ {
			row := bd.Data[u*bd.Stride : u*bd.Stride+3*(l+1)]
			for r := 0; r < 3; r++ {
				y := row[r*(l+1) : (r+1)*(l+1)]
				z := y[l]
				for k := 0; k < l; k++ {
					yk := y[k]
					a := acc[k*l:]
					for k2 := k; k2 < l; k2++ {
						a[k2] += yk * y[k2]
					}
					acc[l*l+k] += yk * z
				}
			}
		}
	})
	yty = make([]float64, l*l)
	ytz = make([]float64, l)
	for c := 0; c < nc; c++ {
		acc := part[c*(l*l+l) : (c+1)*(l*l+l)]
		for i := range yty {
			yty[i] += acc[i]
		}
		for k := range ytz {
			ytz[k] += acc[l*l+k]
		}
	}
	return yty, ytz
}

// smallProducts returns Σ_r J_rᵀJ_r (l×l, row-major, upper triangle) and
// Σ_r J_rᵀb_r, b in s.fhat.
func (s *Solver) smallProducts(bl *spaceState) (jtj, jtb []float64) {
	l := bl.l
	acc := s.reduce(s.m, l*l+l, func(lo, hi int, acc []float64) {
		for j := lo; j < hi; j++ {
			d := bl.dt[j*l : (j+1)*l]
			bj := &s.fhat[j]
			for k := 0; k < l; k++ {
				for k2 := k; k2 < l; k2++ {
					v := 0.0
					for q := 0; q < 9; q++ {
						v += d[k][q] * d[k2][q]
					}
					acc[k*l+k2] += v
				}
				v := 0.0
				for q := 0; q < 9; q++ {
					v += d[k][q] * bj[q]
				}
				acc[l*l+k] += v
			}
		}
	})
	return acc[:l*l], acc[l*l:]
}

// Result summarises Solve.
type Result struct {
	Iterations int
	Objective  float64 // at the start of the last iteration
	Converged  bool
}

// Solve iterates until the convergence tests of Section 4.1 hold or the
// iteration cap is reached (then it returns ErrNotConverged, wrapped, with
// the last iterate in place). each, if not nil, is called after every
// iteration (the Pose tool publishes the iterate there) and may stop the
// solve by returning false.
func (s *Solver) Solve(each func(Stats) bool) (Result, error) {
	var res Result
	for res.Iterations < s.opts.maxIterations() {
		st, err := s.Iterate()
		if err != nil {
			return res, err
		}
		res.Iterations++
		res.Objective = st.Objective
		res.Converged = st.Converged
		if each != nil && !each(st) {
			return res, nil
		}
		if st.Converged {
			return res, nil
		}
	}
	return res, fmt.Errorf("%w after %d iterations (objective %.4g)", ErrNotConverged, res.Iterations, res.Objective)
}

// Reconstruct sets the weights to w and solves for the positions that best
// match M(w) with the constrained vertices at their targets (Eq. 3 with a
// prescribed blend: the paper's Figure 3). No weights are updated.
func (s *Solver) Reconstruct(w []float64) error {
	if err := s.SetWeights(w); err != nil {
		return err
	}
	if !s.ready {
		return errors.New("meshik: no constraints set (SetHandles)")
	}
	s.main.eval(s.frozen, s.fgrad)
	for v := 0; v < s.n; v++ {
		if s.fixed[v] {
			s.x[v] = s.target[v]
		}
	}
	s.rhsFeatures(s.main.t)
	rhs := make([]mgl64.Vec3, s.nu)
	s.grad.ApplyTranspose(rhs, s.fhat)
	xd := s.xs.RawMatrix()
	for u := 0; u < s.nu; u++ {
		p := rhs[u]
		if s.fixed[u] {
			p = s.x[u]
		}
		copy(xd.Data[u*xd.Stride:u*xd.Stride+3], p[:])
	}
	s.ws.Solve(s.xs, s.xs)
	for u := 0; u < s.nu; u++ {
		s.x[u] = mgl64.Vec3{xd.Data[u*xd.Stride], xd.Data[u*xd.Stride+1], xd.Data[u*xd.Stride+2]}
	}
	return nil
}

func finite(p mgl64.Vec3) bool {
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
