package meshik

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/finite"
	"gallop/internal/hugepage"
	"gallop/solver/deform"
	"gallop/solver/meshgraph"
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
	// Components is how many principal components of the examples the
	// feature space keeps (see pca): 0 chooses from the examples
	// (ChooseComponents), a positive number keeps that many (at most the
	// examples' rank), a negative one does not compress: the examples
	// themselves are the basis, a weight per example (Eq. 4 and 6), as the
	// blend of Figure 3 needs.
	Components int
	// Prior is k of Eq. 5: the residual k·z on the weights of the
	// components, which pulls them toward the examples' mean. 0 means
	// automatic: σ, the noise level of probabilistic PCA, from the
	// variance the compression drops (0 when it drops none, and for
	// uncompressed examples); a negative value means none. Uncompressed,
	// it applies to the example weights as they are.
	Prior float64
	// Temporal is p of Section 5: the residual p·(w − w₀) that keeps the
	// weights near those of the previous animation frame (SetPrevious),
	// measured on the example weights the space's weights stand for (so
	// that it means the same compressed or not). The paper uses p = 100
	// for animations; 0 means none.
	Temporal float64
	// Epsilon is ε of the convergence tests (Section 4.1); 0 means 1e-6.
	Epsilon float64
	// MaxIterations caps Solve; 0 means 50.
	MaxIterations int
	// TriangleWeights, when not nil, weighs each triangle's residual in
	// the objective (one per triangle, in the caller's order, positive):
	// Σ_j w_j·‖Ǧ_j·x − M_j(w)‖². A coarse level (Coarse) weighs each of
	// its triangles by the number of the full mesh's triangles it stands
	// for, so that its objective approximates the full one's.
	TriangleWeights []float64
	// Exact forms the weight system anew every iteration, as the paper
	// does, instead of reusing it while steps go well (see reuse.go):
	// for measuring one Gauss-Newton iteration, and for tests of a
	// single step.
	Exact bool
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
// iterations (Eq. 9–10) solved with the block structure of Eq. 11–13.
//
// The fourth vertices are condensed out exactly. Each appears only in its
// own triangle's three rows of G (per coordinate), with coefficients
// c4_j = (c4_0, c4_1, c4_2) over the gradient's columns c, so minimising
// over it projects that triangle's residual onto the plane orthogonal to
// ĝ_j = c4_j/‖c4_j‖. With H_j a 3×2 orthonormal basis of that plane and
// Cv_j the triangle's coefficients at its three vertices, the objective
// minimised over the fourth vertices is
//
//	f(x, w) = Σ_j Σ_r ‖Ǧ_j·x_r − H_jᵀ·τ_jr(w)‖² + regularisers,
//	Ǧ_j = H_jᵀ·Cv_j (2 × 3),  τ_jr = (T_j[r][0], T_j[r][1], T_j[r][2]),
//
// six rows per triangle instead of nine, and no fourth-vertex unknowns:
// K = Σ_j Ǧ_jᵀǦ_j = GᵥᵀGᵥ − Gᵥᵀg₄·D⁻¹·g₄ᵀGᵥ (the Schur complement of the
// fourth vertices in GᵀG) has the pattern of the vertex graph, so the
// sparse factor (package sparse) covers the n vertices only. (The pose's
// own fourth vertices, for its deformation gradients, are those of
// deform.FourthVertex.)
//
// One Gauss-Newton step, with D̃ the six projected rows per triangle of
// ∂M/∂w (each row a weight's derivative), b̃ = H_jᵀτ_j(w) − Ǧ·x̂ (x̂: the
// constrained values only) and ẽ = Ǧ·x − H_jᵀτ_j(w) the residual:
//
//	K = Pᵀ·L·Lᵀ·P, factored once per set of constrained vertices;
//	[Y | z] = L⁻¹·P·Ǧᵀ·[D̃ | b̃]   (forward solves, 3(l+1) columns at once)
//	(D̃ᵀD̃ − YᵀY + diag(k² + p²))·δ = Yᵀz − D̃ᵀb̃ − k²w − p²(w − w₀)
//	x = Pᵀ·L⁻ᵀ·(z + Y·δ),  w ← w + δ     (backward solve, 3 columns)
//
// The l×l system is dense. Its sums are Gram matrices: D̃ᵀD̃, D̃ᵀb̃, D̃ᵀẽ,
// b̃ᵀb̃ and ẽᵀẽ (the objective) are one symmetric rank-k update over the
// stacked rows [D̃ | b̃ | ẽ], and YᵀY, Yᵀz and zᵀz another over the
// forward-solved rows, each computed in blocks by the tiled kernels of
// package dense. So an iteration costs one pass over the triangles (the
// features, their derivatives and the update), one over the vertices
// (Ǧᵀ), the triangular solves, and O((m + n)·l²) multiply-adds in dense
// kernels.
//
// Constraints are imposed by value (Dirichlet): the pattern of K is
// analysed once per mesh; a new set of constrained vertices zeroes their
// rows and columns and puts 1 on their diagonal, which needs only a numeric
// refactorization, and new targets for the same set need none. A
// constrained vertex's rows then decouple from the rest: the solves leave
// them at zero and the vertex is put at its target.
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
	grad *deform.Gradients // of the triangles in the solver's order
	n, m int               // vertices, triangles
	// The solver keeps the triangles sorted by their lowest vertex index
	// (localOrder), so that a vertex's triangles lie close together in
	// memory; slot[j] is where the caller's triangle j is.
	slot []int

	// Per triangle j: Ǧ_j (gp[j][3a + q], row a, vertex q) and H_j
	// (hp[j][2c + a], gradient column c, row a).
	gp [][6]float64
	hp [][6]float64
	// Ǧ by vertex: vertex u's incident triangles are
	// incTri[incPtr[u]:incPtr[u+1]], and incCoef holds Ǧ's two entries
	// (rows a = 0, 1) of each at u.
	incPtr  []int
	incTri  []int32
	incCoef [][2]float64
	// gatherOrder lists the vertices by their first incident triangle,
	// the order in which the gathers Ǧᵀ·(rows) visit them: a gather then
	// walks the triangles' rows nearly in storage order, which keeps
	// their reads in cache whatever the mesh's own vertex numbering (a
	// subdivided mesh numbers its new vertices after the old ones).
	gatherOrder []int32
	// scatter is the plan by which prepare applies Ǧᵀ chunk by chunk
	// (scatter.go).
	scatter *scatter
	k       *sparse.CSC // K = ǦᵀǦ with the Dirichlet rows applied
	base    []float64   // K's own values
	diag    []int       // index of each column's diagonal entry in k.Val
	sym     *sparse.Symbolic
	fac     *sparse.Factor
	ws      *sparse.Workspace
	comp    []int // connected component of each vertex, -1 if unreferenced
	ncomp   int
	ready   bool // a factorization for the current constraints exists

	analyzeTime, factorTime time.Duration // of Analyze (in New) and the last SetHandles
	// interrupt, when set, is asked between the steps of a weight fit
	// whether to stop there (SetInterrupt).
	interrupt func() bool

	fixed     []bool       // per vertex: held by value
	fixedList []int        // the vertices held by value
	held      []mgl64.Vec3 // their positions when the current Iterate began
	goal      []mgl64.Vec3 // per vertex: its target as set (SetTargets)
	target    []mgl64.Vec3 // per vertex: its value when fixed (goal, turned for a rotating group)
	groups    []group      // rotating groups of constrained vertices (SetRotating)
	frozen    []bool       // per triangle
	fgrad     []mgl64.Mat3 // per triangle: the frozen target
	handle    []int        // the constrained vertices, sorted
	x         []mgl64.Vec3 // current positions

	// gslot numbers the groups' vertices (-1 for the others, nil without
	// groups), gtri marks the triangles (solver order) with a corner in a
	// group, and gdx holds the groups' vertices' ∂x_v/∂w_k at
	// gslot[v]·l + k (turnJacobian).
	gslot []int32
	gtri  []bool
	gdx   []mgl64.Vec3

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
	// sys is the weight system S of the last full iteration (l×l,
	// row-major, without regularisers or damping; nil: none valid),
	// sysAge the iterations since, lastRho the last step's gain ratio
	// (see reuse.go).
	sys     []float64
	sysAge  int
	lastRho float64
	// secRHS and secStep are the last reusing step's right-hand side and
	// step, for the secant update of sys (see reuse.go); secOK says they
	// are of the iteration just before, for the targets of now.
	secRHS, secStep []float64
	secOK           bool
	// confirm: a reusing iteration passed the convergence tests, and the
	// next (for the same targets) is a full one, to end as the paper's.
	confirm bool

	// Storage of one iteration, shared by the spaces (one prepares and
	// steps at a time), sized for the one with the most weights l:
	// rows holds a reusing iteration's per-triangle fields (30 numbers
	// per triangle, see reuse.go), half the vertex rows Ǧᵀ·[D̃ | b̃],
	// 3(l + 1) per vertex at the stride halfStride gives, each at its
	// vertex's pivot position (sparse.Symbolic.PivotOf) so that the
	// forward solve runs on them in place, then the scatter's partial
	// rows of shared vertices, and xs the backward solve's n × 3.
	rows []float64
	half []float64
	xs   *mat.Dense
}

// spaceState is a feature space with its weights and the storage of one
// Gauss-Newton iteration.
type spaceState struct {
	kind  SpaceKind
	space Space // nil for the identity
	l     int   // weights
	nex   int   // examples
	// basis is the compression the space was built from (nil: the
	// examples themselves are its basis).
	basis *basis
	// prior and temporal are, per weight, k² and p² of the regularisers
	// Σ_k prior_k·w_k² + temporal_k·(w_k − w₀_k)².
	prior, temporal []float64
	w, w0           []float64
}

func newSpaceState(kind SpaceKind, space Space, bs *basis, nex int, opts Options) *spaceState {
	bl := &spaceState{kind: kind, space: space, basis: bs, nex: nex}
	if space != nil {
		bl.l = space.NumWeights()
	}
	bl.w = make([]float64, bl.l)
	bl.w0 = make([]float64, bl.l)
	bl.prior = make([]float64, bl.l)
	bl.setPrior(opts.Prior)
	bl.temporal = make([]float64, bl.l)
	pp := opts.Temporal * opts.Temporal
	for i := range bl.temporal {
		bl.temporal[i] = pp
	}
	if bs != nil {
		// The temporal term on the example weights c(w): ‖c(w) − c(w₀)‖²
		// is diagonal in the components, whose coefficient vectors a_k
		// are orthogonal to each other and to 1 (see exampleWeights).
		off := 0
		if kind == Nonlinear {
			bl.temporal[0] = pp / float64(nex)
			off = 1
		}
		for k := 0; k < bs.q; k++ {
			a2 := 0.0
			for i := 0; i < nex; i++ {
				a2 += bs.a[i*bs.q+k] * bs.a[i*bs.q+k]
			}
			bl.temporal[off+k] = pp * a2
		}
	}
	bl.neutral()
	return bl
}

// setPrior sets the per-weight k² from Options.Prior's k: 0 automatic
// (σ of the compression, see pca; 0 uncompressed), negative none. The
// compressed nonlinear space's β, the blend's overall scale, is free as
// in Eq. 6.
func (bl *spaceState) setPrior(k float64) {
	switch {
	case k < 0:
		k = 0
	case k == 0 && bl.basis != nil:
		k = math.Sqrt(bl.basis.noise)
	}
	for i := range bl.prior {
		bl.prior[i] = k * k
	}
	if bl.kind == Nonlinear && bl.basis != nil && bl.l > 0 {
		bl.prior[0] = 0
	}
}

// neutral sets the weights to the space's centre: the mean (w = 0) for
// the linear space, equal shares (β = 1, z = 0 when compressed) for the
// nonlinear one.
func (bl *spaceState) neutral() {
	for i := range bl.w {
		bl.w[i] = 0
		if bl.kind == Nonlinear && bl.basis == nil {
			bl.w[i] = 1 / float64(bl.l)
		}
	}
	if bl.kind == Nonlinear && bl.basis != nil {
		bl.w[0] = 1
	}
}

// exampleWeights returns the example weights c the space's weights stand
// for, the features being Σ_i c_i·f_i (in the space's own features: T_ij
// for the linear space, the polar factors for the nonlinear one):
//
//	uncompressed nonlinear  c = w
//	uncompressed linear     c_i = w_i + (1 − Σw)/l (i < l), c_l = (1 − Σw)/l
//	compressed linear       c = 1/l + Σ_k z_k·a_k
//	compressed nonlinear    c = β/l + Σ_k z_k·a_k
//
// (a_k the coefficients of component k, see basis).
func (bl *spaceState) exampleWeights() []float64 {
	l := bl.nex
	c := make([]float64, l)
	switch {
	case bl.kind == Identity:
		return nil
	case bl.basis == nil && bl.kind == Nonlinear:
		copy(c, bl.w)
	case bl.basis == nil:
		sum := 0.0
		for _, v := range bl.w {
			sum += v
		}
		for i := range c {
			c[i] = (1 - sum) / float64(l)
			if i < l-1 {
				c[i] += bl.w[i]
			}
		}
	default:
		z, base := bl.w, 1.0
		if bl.kind == Nonlinear {
			z, base = bl.w[1:], bl.w[0]
		}
		d := bl.basis.combination(z)
		for i := range c {
			c[i] = base/float64(l) + d[i]
		}
	}
	return c
}

// setExampleWeights sets the weights that stand for the example weights c
// (exampleWeights' inverse where the space holds Σ_i c_i·f_i; otherwise
// the nearest such, projected onto the components; the linear space takes
// c as an affine combination).
func (bl *spaceState) setExampleWeights(c []float64) {
	switch {
	case bl.kind == Identity:
	case bl.basis == nil && bl.kind == Nonlinear:
		copy(bl.w, c)
	case bl.basis == nil:
		last := c[len(c)-1]
		for i := range bl.w {
			bl.w[i] = c[i] - last
		}
	default:
		z := bl.basis.project(c)
		if bl.kind == Nonlinear {
			sum := 0.0
			for _, v := range c {
				sum += v
			}
			bl.w[0] = sum
			copy(bl.w[1:], z)
			return
		}
		copy(bl.w, z)
	}
}

// evalRange computes M(w) (into t[j − lo]) and ∂M/∂w (into
// dt[(j − lo)·l:], unless dt is nil) for triangles [lo, hi) on the calling
// goroutine, frozen triangles overridden (their feature is fixed, so their
// derivative is zero).
func (bl *spaceState) evalRange(frozen []bool, fgrad, t, dt []mgl64.Mat3, lo, hi int) {
	if bl.space != nil {
		bl.space.EvalRange(bl.w, t, dt, lo, hi)
	} else {
		for j := lo; j < hi; j++ {
			t[j-lo] = mgl64.Ident3()
		}
	}
	for j := lo; j < hi; j++ {
		if frozen[j] {
			t[j-lo] = fgrad[j]
			if dt != nil {
				clear(dt[(j-lo)*bl.l : (j-lo+1)*bl.l])
			}
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
	Rotation  float64 // the largest turn of a rotating group before the step (radians; SetRotating)
	Converged bool    // the three tests of Section 4.1 hold, and no group turned
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
	return NewContext(context.Background(), reference, triangles, examples, opts)
}

// NewContext is New that gives up, returning ctx's error, when ctx is
// done while the examples are being compressed (seconds on a production
// mesh with a capture as examples): the Pose tool left in the middle of
// preparing lets go of its memory at once.
func NewContext(ctx context.Context, reference []mgl64.Vec3, triangles [][3]int, examples [][]mgl64.Vec3, opts Options) (*Solver, error) {
	order, triangles := localOrder(reference, triangles)
	grad, err := deform.New(reference, triangles)
	if err != nil {
		// Report the problem in the caller's numbering.
		_, err = deform.New(reference, unorder(order, triangles))
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
	if kind != Identity {
		for i, ex := range examples {
			if len(ex) != n {
				return nil, fmt.Errorf("example %d has %d vertices, the reference has %d", i, len(ex), n)
			}
			for v, p := range ex {
				if !finite.Vec3(p) {
					return nil, fmt.Errorf("example %d, vertex %d: non-finite position %v", i, v, p)
				}
			}
		}
	}
	if err := checkStrength("prior", opts.Prior); err != nil {
		return nil, err
	}
	if err := checkStrength("temporal weight", opts.Temporal); err != nil {
		return nil, err
	}
	opts.Space = kind
	s := &Solver{opts: opts, grad: grad, n: n, m: m, slot: make([]int, m)}
	for k, j := range order {
		s.slot[j] = k
	}
	if err := s.buildSpaces(ctx, examples); err != nil {
		return nil, err
	}
	s.k = sparse.MulTransA(s.condense())
	if s.usedVertices(triangles) < n {
		// Unreferenced vertices have empty columns: give them a diagonal
		// (they are always pinned).
		s.k = withDiagonal(s.k)
	}
	s.base = slices.Clone(s.k.Val)
	s.diag = make([]int, n)
	for v := 0; v < n; v++ {
		lo, hi := s.k.ColPtr[v], s.k.ColPtr[v+1]
		k, _ := slices.BinarySearch(s.k.RowIdx[lo:hi], v)
		s.diag[v] = lo + k
	}
	start := time.Now()
	if s.sym, err = sparse.Analyze(s.k, nil); err != nil {
		return nil, err
	}
	s.analyzeTime = time.Since(start)
	s.comp, s.ncomp = meshgraph.Components(n, triangles)
	s.fixed = make([]bool, n)
	s.target = slices.Clone(reference)
	s.goal = slices.Clone(reference)
	s.frozen = make([]bool, m)
	s.fgrad = hugepage.Make[mgl64.Mat3](m)
	s.x = slices.Clone(reference)
	s.prevX = make([]mgl64.Vec3, n)
	s.prevW = make([]float64, s.main.l)
	l := s.main.l
	if s.lin != nil {
		l = max(l, s.lin.l)
	}
	s.rows = hugepage.Make[float64](30 * m)
	s.half = hugepage.Make[float64](n * halfStride(l))
	s.xs = mat.NewDense(n, 3, nil)
	s.resetConvergence()
	return s, nil
}

// buildSpaces makes the feature space the options ask for from the
// example poses, and for the nonlinear space the linear one it starts
// from (StartFromLinear).
func (s *Solver) buildSpaces(ctx context.Context, examples [][]mgl64.Vec3) error {
	l := len(examples)
	kind := s.opts.Space
	if kind == Identity {
		s.main = newSpaceState(Identity, nil, nil, 0, s.opts)
		return nil
	}
	if kind != Linear && kind != Nonlinear {
		return fmt.Errorf("meshik: unknown feature space %v", kind)
	}
	comp := Compression{Components: s.opts.Components}
	linear := func() (*spaceState, error) {
		if comp.Components < 0 {
			ls, err := NewLinearSpace(s.features(examples))
			if err != nil {
				return nil, err
			}
			return newSpaceState(Linear, ls, nil, l, s.opts), nil
		}
		ls, bs, err := newCompressedLinear(ctx, s.grad, examples, comp)
		if err != nil {
			return nil, err
		}
		return newSpaceState(Linear, ls, bs, l, s.opts), nil
	}
	var err error
	if kind == Linear {
		s.main, err = linear()
		return err
	}
	if comp.Components < 0 {
		ns, err := NewNonlinearSpace(s.features(examples))
		if err != nil {
			return err
		}
		s.main = newSpaceState(Nonlinear, ns, nil, l, s.opts)
	} else {
		ns, bs, err := newCompressedNonlinear(ctx, s.grad, examples, comp)
		if err != nil {
			return err
		}
		s.main = newSpaceState(Nonlinear, ns, bs, l, s.opts)
	}
	if l > 1 {
		s.lin, err = linear()
	}
	return err
}

// features returns the feature vectors of the example poses.
func (s *Solver) features(examples [][]mgl64.Vec3) [][]mgl64.Mat3 {
	feats := make([][]mgl64.Mat3, len(examples))
	for i, ex := range examples {
		feats[i] = hugepage.Make[mgl64.Mat3](s.m)
		s.grad.Features(feats[i], ex)
	}
	return feats
}

// condense computes, per triangle, H (an orthonormal basis of the plane
// orthogonal to the fourth vertex's coefficients) and Ǧ = Hᵀ·Cv, their
// incidence by vertex, and returns Ǧ as a 2m × n matrix (see Solver).
func (s *Solver) condense() *sparse.CSC {
	m, n := s.m, s.n
	s.gp = make([][6]float64, m)
	s.hp = make([][6]float64, m)
	scale := make([]float64, m)
	for j := range scale {
		scale[j] = 1
	}
	if tw := s.opts.TriangleWeights; tw != nil {
		for j, k := range s.slot {
			scale[k] = math.Sqrt(tw[j])
		}
	}
	t := sparse.NewTriplet(2*m, n, 6*m)
	for j := 0; j < m; j++ {
		var cv [3][3]float64 // [c][q]
		var c4 mgl64.Vec3
		for c := 0; c < 3; c++ {
			_, coef := s.grad.Row(j, c)
			cv[c] = [3]float64{coef[0], coef[1], coef[2]}
			c4[c] = coef[3]
		}
		h1, h2 := planeBasis(c4.Normalize()) // c4 ≠ 0: deform.New rejected degenerate triangles
		h1, h2 = h1.Mul(scale[j]), h2.Mul(scale[j])
		s.hp[j] = [6]float64{h1[0], h2[0], h1[1], h2[1], h1[2], h2[2]}
		tri := s.grad.Triangle(j)
		for a, h := range [2]mgl64.Vec3{h1, h2} {
			for q := 0; q < 3; q++ {
				g := h[0]*cv[0][q] + h[1]*cv[1][q] + h[2]*cv[2][q]
				s.gp[j][3*a+q] = g
				t.Add(2*j+a, tri[q], g)
			}
		}
	}

	s.incPtr = make([]int, n+1)
	for j := 0; j < m; j++ {
		for _, v := range s.grad.Triangle(j) {
			s.incPtr[v+1]++
		}
	}
	for u := 0; u < n; u++ {
		s.incPtr[u+1] += s.incPtr[u]
	}
	s.incTri = make([]int32, 3*m)
	s.incCoef = make([][2]float64, 3*m)
	next := slices.Clone(s.incPtr[:n])
	for j := 0; j < m; j++ {
		for q, v := range s.grad.Triangle(j) {
			p := next[v]
			next[v]++
			s.incTri[p] = int32(j)
			s.incCoef[p] = [2]float64{s.gp[j][q], s.gp[j][3+q]}
		}
	}
	s.gatherOrder = make([]int32, n)
	for u := range s.gatherOrder {
		s.gatherOrder[u] = int32(u)
	}
	first := func(u int32) int {
		if s.incPtr[u] == s.incPtr[u+1] {
			return m
		}
		return int(s.incTri[s.incPtr[u]])
	}
	slices.SortStableFunc(s.gatherOrder, func(a, b int32) int { return first(a) - first(b) })
	tris := make([][3]int, m)
	for j := range tris {
		tris[j] = s.grad.Triangle(j)
	}
	s.scatter = newScatter(n, tris)
	return t.CSC()
}

// planeBasis returns two orthonormal vectors orthogonal to the unit
// vector g (and to each other), deterministically: the first from the
// coordinate axis least aligned with g.
func planeBasis(g mgl64.Vec3) (h1, h2 mgl64.Vec3) {
	axis := 0
	for c := 1; c < 3; c++ {
		if math.Abs(g[c]) < math.Abs(g[axis]) {
			axis = c
		}
	}
	var e mgl64.Vec3
	e[axis] = 1
	h1 = e.Sub(g.Mul(g.Dot(e))).Normalize()
	return h1, g.Cross(h1)
}

// localOrder returns the triangles sorted along a Z-order (Morton) curve
// through their centroids in the reference pose (ties: by their sorted
// vertex indices, so that the order does not depend on the caller's), and
// order with sorted[k] = triangles[order[k]]. Consecutive triangles then
// form compact patches of the surface whatever the mesh's vertex
// numbering, which the passes over them rely on: prepare's chunks of
// scatterChunk triangles apply Ǧᵀ within a patch (scatter.go), and the
// per-vertex gathers find a vertex's triangles near one another. (The
// earlier sort by lowest vertex index relied on the numbering: on the
// horse subdivided twice, whose new vertices are numbered after the old
// ones, it left chunks as strips in which 101,740 of 134,782 vertices lay
// on a seam between chunks.)
func localOrder(reference []mgl64.Vec3, triangles [][3]int) (order []int, sorted [][3]int) {
	lo, hi := mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}, mgl64.Vec3{math.Inf(-1), math.Inf(-1), math.Inf(-1)}
	valid := func(v int) bool { return v >= 0 && v < len(reference) }
	for _, t := range triangles {
		for _, v := range t {
			if valid(v) {
				for c := 0; c < 3; c++ {
					lo[c], hi[c] = min(lo[c], reference[v][c]), max(hi[c], reference[v][c])
				}
			}
		}
	}
	span := max(hi[0]-lo[0], hi[1]-lo[1], hi[2]-lo[2])
	key := make([]uint64, len(triangles))
	for j, t := range triangles {
		if !valid(t[0]) || !valid(t[1]) || !valid(t[2]) || !(span > 0) || math.IsInf(span, 0) {
			continue // deform.New reports the triangle or the mesh
		}
		var q [3]uint64
		for c := 0; c < 3; c++ {
			f := ((reference[t[0]][c]+reference[t[1]][c]+reference[t[2]][c])/3 - lo[c]) / span
			if !(f >= 0) { // NaN or below
				f = 0
			}
			q[c] = uint64(min(f, 1) * (1<<21 - 1))
		}
		key[j] = spread3(q[0]) | spread3(q[1])<<1 | spread3(q[2])<<2
	}
	sortedTri := func(t [3]int) [3]int {
		a, b, c := t[0], t[1], t[2]
		if a > b {
			a, b = b, a
		}
		if b > c {
			b, c = c, b
		}
		if a > b {
			a, b = b, a
		}
		return [3]int{a, b, c}
	}
	order = make([]int, len(triangles))
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(key[a], key[b]); c != 0 {
			return c
		}
		ta, tb := sortedTri(triangles[a]), sortedTri(triangles[b])
		for i := range ta {
			if c := cmp.Compare(ta[i], tb[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	sorted = make([][3]int, len(triangles))
	for k, j := range order {
		sorted[k] = triangles[j]
	}
	return order, sorted
}

// spread3 spaces the low 21 bits of x three apart (bit i to bit 3i), for
// interleaving three coordinates into one Morton code.
func spread3(x uint64) uint64 {
	x &= 1<<21 - 1
	x = (x | x<<32) & 0x1f00000000ffff
	x = (x | x<<16) & 0x1f0000ff0000ff
	x = (x | x<<8) & 0x100f00f00f00f00f
	x = (x | x<<4) & 0x10c30c30c30c30c3
	x = (x | x<<2) & 0x1249249249249249
	return x
}

// unorder is the inverse of localOrder: the triangles in the caller's
// order.
func unorder(order []int, sorted [][3]int) [][3]int {
	t := make([][3]int, len(sorted))
	for k, j := range order {
		t[j] = sorted[k]
	}
	return t
}

// usedVertices returns the number of distinct vertices the triangles use.
func (s *Solver) usedVertices(triangles [][3]int) int {
	used := make([]bool, s.n)
	k := 0
	for _, t := range triangles {
		for _, v := range t {
			if !used[v] {
				used[v] = true
				k++
			}
		}
	}
	return k
}

// withDiagonal returns a with every missing diagonal entry added (as 0).
func withDiagonal(a *sparse.CSC) *sparse.CSC {
	t := sparse.NewTriplet(a.Rows, a.Cols, a.NNZ()+a.Cols)
	for j := 0; j < a.Cols; j++ {
		t.Add(j, j, 0)
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			t.Add(a.RowIdx[p], j, a.Val[p])
		}
	}
	return t.CSC()
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
	s.invalidateSystem()
	s.resetConvergence()
}

// SortHandles returns the constrained vertices sorted, the order of
// SetHandles and Handles, with their targets in the same order:
// targets[i] is the target of vertices[i], before and after. Equal
// vertices keep their order. vertices and targets must have one length.
func SortHandles(vertices []int, targets []mgl64.Vec3) ([]int, []mgl64.Vec3) {
	if len(vertices) != len(targets) {
		panic(fmt.Sprintf("meshik: SortHandles: %d vertices, %d targets", len(vertices), len(targets)))
	}
	order := make([]int, len(vertices))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(vertices[a], vertices[b]) })
	vs, ts := make([]int, len(order)), make([]mgl64.Vec3, len(order))
	for i, k := range order {
		vs[i], ts[i] = vertices[k], targets[k]
	}
	return vs, ts
}

// SetHandles sets the constrained vertices (any order, no duplicates).
// Their targets start at their current positions (SetTargets moves them;
// SortHandles puts targets given with the vertices in its order).
// It refactors K (the condensed GᵀG): on the subdivided horse this is the
// step the Pose tool must finish within 0.25 s.
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
	s.groups, s.gslot, s.gtri = nil, nil, nil
	for _, v := range hs {
		s.fixed[v] = true
		s.target[v], s.goal[v] = s.x[v], s.x[v]
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
			s.target[v], s.goal[v] = s.x[v], s.x[v]
			if c >= 0 {
				anchored[c] = true
			}
		}
	}
	s.handle = hs
	s.fixedList = s.fixedList[:0]
	for v, f := range s.fixed {
		if f {
			s.fixedList = append(s.fixedList, v)
		}
	}
	// Dirichlet by values: zero fixed rows and columns, 1 on their diagonal.
	copy(s.k.Val, s.base)
	a := s.k
	for j := 0; j < s.n; j++ {
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
	s.invalidateSystem()
	if err != nil {
		return fmt.Errorf("meshik: factoring K: %w", err)
	}
	s.resetConvergence()
	return nil
}

// FactorTimes returns the wall time of the symbolic analysis of K (done
// once per mesh, in New) and of the last numeric factorization (done by
// each SetHandles).
func (s *Solver) FactorTimes() (analyze, factor time.Duration) {
	return s.analyzeTime, s.factorTime
}

// Handles returns the constrained vertices, sorted.
func (s *Solver) Handles() []int { return slices.Clone(s.handle) }

// SetTargets moves the constrained vertices: targets[i] is the position of
// the i-th vertex of Handles (for a rotating group, see SetRotating, the
// targets give its centroid and shape, not its rotation).
func (s *Solver) SetTargets(targets []mgl64.Vec3) error {
	if len(targets) != len(s.handle) {
		return fmt.Errorf("meshik: %d targets for %d constrained vertices", len(targets), len(s.handle))
	}
	for i, p := range targets {
		if !finite.Vec3(p) {
			return fmt.Errorf("target of vertex %d is not finite: %v", s.handle[i], p)
		}
	}
	for i, p := range targets {
		s.goal[s.handle[i]] = p
	}
	s.place()
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
		frozen[s.slot[j]] = true
	}
	if s.main.l > 0 && !slices.Contains(frozen, false) {
		return errors.New("every triangle is frozen: nothing is left for the examples to explain (unfreeze some)")
	}
	s.frozen = frozen
	s.grad.Features(s.fgrad, s.x)
	s.invalidateSystem()
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
	s.invalidateSystem()
	s.resetConvergence()
	return nil
}

// Weights returns the current weights of the feature space: one per
// example uncompressed; compressed, the components' z (and, first, the
// nonlinear space's β).
func (s *Solver) Weights() []float64 { return slices.Clone(s.main.w) }

// ExampleWeights returns the weight of each example in the current blend
// (see spaceState.exampleWeights): what the space's weights stand for,
// whether the examples are compressed or not. Nil for the identity.
func (s *Solver) ExampleWeights() []float64 { return s.main.exampleWeights() }

// SetExampleWeights sets the space's weights to those of the blend with
// weight c_i on example i, projected onto the components kept when the
// examples are compressed (the starting point of the next iterations).
func (s *Solver) SetExampleWeights(c []float64) error {
	if len(c) != s.main.nex {
		return fmt.Errorf("meshik: %d example weights, there are %d examples", len(c), s.main.nex)
	}
	for i, v := range c {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("meshik: example weight %d is not finite", i)
		}
	}
	if s.main.kind != Identity {
		s.main.setExampleWeights(c)
	}
	s.invalidateSystem()
	s.resetConvergence()
	return nil
}

// SetInterrupt sets a function that FitWeights and RefineWeights ask
// between their Levenberg-Marquardt steps whether to stop (nil: never):
// for a caller that fits while the artist may start a drag, which should
// not wait for the fit. A fit stopped early keeps the weights of its last
// accepted step, each of which lowered the fit's objective.
func (s *Solver) SetInterrupt(f func() bool) { s.interrupt = f }

// SetExact sets Options.Exact: whether every iteration forms the weight
// system anew (the paper's Gauss-Newton) or reuses it while steps go well.
func (s *Solver) SetExact(exact bool) {
	s.opts.Exact = exact
	s.invalidateSystem()
}

// SetPrior sets k of the prior as Options.Prior does (0 automatic,
// negative none), for the next iterations; nothing else changes.
func (s *Solver) SetPrior(k float64) error {
	if err := checkStrength("prior", k); err != nil {
		return err
	}
	s.opts.Prior = k
	s.main.setPrior(k)
	s.resetConvergence()
	return nil
}

// MaxStrength is the largest k of a prior or temporal term (Options.Prior,
// Options.Temporal, SetPrior). A prior far weaker already holds the
// weights at the examples' mean to within rounding (k = 10⁶ on pcow, the
// elastic cow, with 47 examples); much stronger ones push the weights they hold toward
// the bottom of the number range (from about 10⁵⁰ the nonlinear solve no
// longer settles) and, past 10¹⁵⁴, k² overflows and the weight system
// fails as if the handles left it undecided.
const MaxStrength = 1e30

// checkStrength reports a k (named what) that is not a number or exceeds
// MaxStrength in size.
func checkStrength(what string, k float64) error {
	if math.IsNaN(k) || math.IsInf(k, 0) || math.Abs(k) > MaxStrength {
		return fmt.Errorf("meshik: %s %v: want a number of size at most %g", what, k, MaxStrength)
	}
	return nil
}

// CompressionInfo describes the compression of the examples in the
// feature space being solved in.
type CompressionInfo struct {
	Examples   int       // l
	Components int       // q kept (for the uncompressed space, the weights)
	Rank       int       // the components above the noise floor (NoiseFloor): how many ways the examples really vary
	Kept       float64   // the fraction of the examples' variance kept
	Prior      float64   // k in use (Options.Prior, or the automatic σ)
	Variances  []float64 // λ_k, the variance of each component, decreasing
	Compressed bool
}

// Compression returns how the examples are compressed (zero for the
// identity space).
func (s *Solver) Compression() CompressionInfo {
	bl := s.main
	info := CompressionInfo{Examples: bl.nex, Components: bl.l, Kept: 1}
	for k, kk := range bl.prior {
		if k > 0 || bl.kind != Nonlinear || bl.basis == nil {
			info.Prior = math.Sqrt(kk)
			break
		}
	}
	if bs := bl.basis; bs != nil {
		info.Compressed = true
		info.Components = bs.q
		info.Kept = bs.kept()
		info.Variances = slices.Clone(bs.lambda)
		for _, v := range bs.lambda {
			if v > NoiseFloor*bs.lambda[0] {
				info.Rank++
			}
		}
	}
	return info
}

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
// iterations; constrained vertices keep their targets, and the vertices
// the solver pins, see Solver, stay where the pose puts them).
func (s *Solver) SetPositions(p []mgl64.Vec3) error {
	if len(p) != s.n {
		return fmt.Errorf("meshik: %d positions, the mesh has %d vertices", len(p), s.n)
	}
	copy(s.x, p)
	for v, f := range s.fixed {
		if f && !s.isHandle(v) {
			s.target[v], s.goal[v] = p[v], p[v]
		}
	}
	s.resetConvergence()
	return nil
}

// Positions returns the current vertex positions (a new slice).
func (s *Solver) Positions() []mgl64.Vec3 { return slices.Clone(s.x[:s.n]) }

func (s *Solver) resetConvergence() {
	s.confirm, s.secOK = false, false
	s.prevF = math.NaN()
	s.iter = 0
	s.mu = 0
	s.predicted = 0
}
