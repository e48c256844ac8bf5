package ssdr

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/option"
	"gallop/internal/parallel"
	"gallop/solver/meshgraph"
	"gallop/solver/rotation"
)

// Options tunes Decompose. The zero value of every field but Bones means
// Dem Bones' default, given on each field.
type Options struct {
	Bones         int // B, the number of bones (required, 1 ≤ B ≤ N)
	MaxInfluences int // K, the most bones per vertex; default 8

	Iterations int     // most alternation rounds before the polish; default 100
	Tolerance  float64 // relative RMSE decrease that counts as progress; default 1e-3
	Patience   int     // stop after this many rounds in a row without progress; default 3

	TransformIterations int // transform sweeps per round; default 5
	WeightIterations    int // weight sweeps per round; default 3
	InitIterations      int // fit / relabel rounds per clustering split; default 10

	// Smooth is μ, the weight of the smoothness term μ‖w − w̃‖² (Dem Bones'
	// weightsSmooth); default 1e-4, a negative value means 0.
	Smooth float64
	// SmoothStep is s, the step of the implicit Laplacian smoothing that
	// gives w̃ (weightsSmoothStep); default 1.
	SmoothStep float64
	// TransAffine is λ, the translation-affinity weight (transAffine);
	// default 10, a negative value means 0.
	TransAffine float64
	// PolishIterations is the number of rounds run without the
	// translation affinity (λ = 0) after the alternation stops, a
	// deviation from Dem Bones (see the package comment); default 5, a
	// negative value means none, as in Dem Bones. At most Iterations +
	// PolishIterations rounds run in all.
	PolishIterations int

	// SampleVertices bounds the vertices the alternation runs on, a
	// deviation from Dem Bones that makes a dense mesh cost about what a
	// mesh of this many vertices costs: a mesh with more is fitted on a
	// geodesic farthest-point sample of this many vertices (neighbours
	// where their cells of the mesh touch), then every vertex's weights
	// are solved against the sample's bones and up to RefineRounds rounds
	// (λ = 0) run on the whole mesh (see the package comment). Default
	// 16,384; a negative value means never.
	SampleVertices int

	// Skeleton, if not nil, makes the result a skeleton: one root, the
	// other bones turning about joints shared with their parents (see
	// SkeletonOptions and the package comment). nil gives SSDR's flat set
	// of bones, each with its own rigid motion.
	Skeleton *SkeletonOptions

	// Progress, if not nil, is called after each round with the round
	// (from 1), its RMSE and its stage: the alternation's rounds, then
	// the polish rounds (which follow however early the alternation
	// stopped), then, with Skeleton, the skeleton's rounds.
	Progress func(iteration int, rmse float64, stage Stage)
}

// Stage is the kind of a round Options.Progress reports.
type Stage int

const (
	StageAlternation Stage = iota // SSDR's alternation
	StagePolish                   // the rounds without translation affinity, and the refinement of a sampled mesh
	StageSkeleton                 // the skeleton's rounds
)

// RefineRounds is the most rounds run on the whole mesh after the
// alternation on a sample (Options.SampleVertices): the first solves the
// weights only, for the sample's bones; the rounds stop early when the
// RMSE falls by less than Tolerance.
const RefineRounds = 4

// MaxRounds returns the most rounds Decompose runs with these options
// (defaults applied) on a mesh of n vertices: the sum of StageRounds.
// Progress reports round numbers up to it.
func (o Options) MaxRounds(n int) int {
	a, p, k := o.StageRounds(n)
	return a + p + k
}

// StageRounds returns the most rounds of each stage Progress reports on
// a mesh of n vertices: the alternation's Iterations; the polish rounds,
// with a sampled mesh's refinement rounds (SampleVertices) when there is
// no skeleton; the skeleton's rounds, with the refinement rounds when
// there is one. A given skeleton (SkeletonOptions.Given) runs no
// alternation and no polish.
func (o Options) StageRounds(n int) (alternation, polish, skeleton int) {
	d := o.withDefaults()
	alternation, polish = d.Iterations, d.PolishIterations
	if d.Skeleton != nil {
		if d.Skeleton.Given != nil {
			alternation, polish = 0, 0
		}
		skeleton = d.Skeleton.rounds()
	}
	if d.sampled(n) {
		if d.Skeleton != nil {
			skeleton += RefineRounds
		} else {
			polish += RefineRounds
		}
	}
	return alternation, polish, skeleton
}

// sampled reports whether a mesh of n vertices is fitted on a sample.
func (o Options) sampled(n int) bool {
	return o.SampleVertices > 0 && n > o.SampleVertices && o.SampleVertices >= o.Bones
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxInfluences, 8)
	def(&o.Iterations, 100)
	def(&o.Patience, 3)
	def(&o.TransformIterations, 5)
	def(&o.WeightIterations, 3)
	def(&o.InitIterations, 10)
	o.SampleVertices = option.Resolve(o.SampleVertices, 16384)
	o.PolishIterations = option.Resolve(o.PolishIterations, 5)
	o.Smooth = option.Resolve(o.Smooth, 1e-4)
	o.TransAffine = option.Resolve(o.TransAffine, 10)
	if !(o.Tolerance > 0) {
		o.Tolerance = 1e-3
	}
	if !(o.SmoothStep > 0) {
		o.SmoothStep = 1
	}
	return o
}

// Influence is one bone's weight on a vertex.
type Influence struct {
	Bone   int
	Weight float64
}

// Transform is the motion p ↦ R·p + T of a bone at one frame, from the
// rest pose. In SSDR's results R is a proper rotation; Apply and Skin take
// any matrix (gallop/solver/synth relaxes bones to affine maps).
type Transform struct {
	R mgl64.Mat3
	T mgl64.Vec3
}

// Apply returns R·p + T.
func (x *Transform) Apply(p mgl64.Vec3) mgl64.Vec3 {
	r := &x.R
	return mgl64.Vec3{
		r[0]*p[0] + r[3]*p[1] + r[6]*p[2] + x.T[0],
		r[1]*p[0] + r[4]*p[1] + r[7]*p[2] + x.T[1],
		r[2]*p[0] + r[5]*p[1] + r[8]*p[2] + x.T[2],
	}
}

// Result is a decomposition: the best iterate found.
//
// Invariants: every weight is positive and finite, each vertex has 1 to K
// influences with distinct bones summing to 1 (to rounding), sorted by
// decreasing weight; every transform is finite with a proper rotation.
type Result struct {
	Weights    [][]Influence // #V lists of influences
	Transforms [][]Transform // #frames, each #bones transforms

	RMSE          float64   // of the iterate returned
	Iterations    int       // rounds run, the polish rounds included
	PolishRounds  int       // of those, the polish rounds at the end (Options.PolishIterations)
	BestIteration int       // the round that gave the result; 0 is the initial clustering
	History       []float64 // RMSE after the clustering (index 0) and after each round

	// SampleVertices is the size of the sample the alternation ran on
	// (Options.SampleVertices), 0 when it ran on every vertex. Then the
	// first Iterations − RefineRounds rounds' History is the sample's RMSE
	// and the last RefineRounds rounds' the whole mesh's; the result is
	// the best of those last (BestIteration among them).
	SampleVertices int
	RefineRounds   int

	// Skeleton is the hierarchy and joints the transforms keep (see
	// Skeleton's invariants), with Options.Skeleton; nil for SSDR's flat
	// bones. SkeletonRounds is how many of the Iterations were its rounds.
	Skeleton       *Skeleton
	SkeletonRounds int
	// FlatRMSE is, with a skeleton inferred, the RMSE of the flat bones
	// it was inferred from (the result Decompose gives without
	// Options.Skeleton; on a sampled mesh, the sample's); 0 otherwise.
	FlatRMSE float64
}

// Pose writes into dst (grown as needed and returned) the rest positions
// skinned by frame t's transforms: Σⱼ wᵢⱼ (Rⱼᵗ pᵢ + Tⱼᵗ).
func (r *Result) Pose(dst, rest []mgl64.Vec3, t int) []mgl64.Vec3 {
	return Skin(dst, rest, r.Weights, r.Transforms[t])
}

// Skin writes into dst (grown as needed and returned) the rest positions
// skinned by linear blend skinning with the bones' transforms:
// Σⱼ wᵢⱼ (Rⱼ pᵢ + Tⱼ).
func Skin(dst, rest []mgl64.Vec3, weights [][]Influence, bones []Transform) []mgl64.Vec3 {
	if cap(dst) < len(rest) {
		dst = make([]mgl64.Vec3, len(rest))
	}
	dst = dst[:len(rest)]
	for i, p := range rest {
		var v mgl64.Vec3
		for _, in := range weights[i] {
			a := &bones[in.Bone]
			f, w := &a.R, in.Weight
			v[0] += w * (f[0]*p[0] + f[3]*p[1] + f[6]*p[2] + a.T[0])
			v[1] += w * (f[1]*p[0] + f[4]*p[1] + f[7]*p[2] + a.T[1])
			v[2] += w * (f[2]*p[0] + f[5]*p[1] + f[8]*p[2] + a.T[2])
		}
		dst[i] = v
	}
	return dst
}

// Errors for bad input, wrapped with details.
var (
	ErrFrames     = errors.New("ssdr: need at least 2 frames")
	ErrBones      = errors.New("ssdr: bad number of bones")
	ErrVertices   = errors.New("ssdr: vertex counts differ")
	ErrNonFinite  = errors.New("ssdr: non-finite position")
	ErrTriangle   = errors.New("ssdr: bad triangle")
	ErrInfluences = errors.New("ssdr: bad number of influences")
)

// Decompose runs SSDR on the rest positions and the frames (each with the
// rest's vertex count; the rest pose need not be one of them). triangles,
// the rest mesh's faces (vertex indices), give the adjacency that the
// clustering and the weight smoothing use; without them every vertex is
// its own neighbourhood. It checks the input and returns an error wrapping
// ErrFrames, ErrBones, ErrInfluences, ErrVertices, ErrNonFinite or
// ErrTriangle, naming
// the frame and vertex at fault. When ctx is cancelled it returns
// ctx.Err().
func Decompose(ctx context.Context, rest []mgl64.Vec3, triangles [][3]int, frames [][]mgl64.Vec3, opts Options) (*Result, error) {
	if err := check(rest, triangles, frames, opts); err != nil {
		return nil, err
	}
	adj, err := meshgraph.New(len(rest), triangles)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTriangle, err)
	}
	o := opts.withDefaults()
	if o.sampled(len(rest)) {
		return decomposeSampled(ctx, rest, adj, frames, o)
	}
	return newSolver(rest, adj, frames, o).run(ctx)
}

// decomposeSampled runs the alternation on a geodesic farthest-point
// sample of opts.SampleVertices vertices (meshgraph.FarthestSample), the
// sample's graph joining samples whose cells touch, then carries its
// result to every vertex (a vertex takes its cell's sample's weights; the
// bones are the sample's) and refines it on the whole mesh (refine).
func decomposeSampled(ctx context.Context, rest []mgl64.Vec3, adj *meshgraph.Adjacency, frames [][]mgl64.Vec3, opts Options) (*Result, error) {
	samples, owner := meshgraph.FarthestSample(adj, rest, opts.SampleVertices)
	if len(samples) < opts.Bones { // a mesh of many duplicate positions
		return newSolver(rest, adj, frames, opts).run(ctx)
	}
	gather := func(pos []mgl64.Vec3) []mgl64.Vec3 {
		out := make([]mgl64.Vec3, len(samples))
		for k, v := range samples {
			out[k] = pos[v]
		}
		return out
	}
	sub := make([][]mgl64.Vec3, len(frames))
	for f, pos := range frames {
		sub[f] = gather(pos)
	}
	copts := opts
	if o := opts.Skeleton; o != nil && o.Weights != nil {
		so := *o
		so.Weights = make([][]Influence, len(samples))
		for k, v := range samples {
			so.Weights[k] = o.Weights[v]
		}
		copts.Skeleton = &so
	}
	coarse, err := newSolver(gather(rest), adj.Quotient(owner, len(samples)), sub, copts).run(ctx)
	if err != nil {
		return nil, err
	}
	s := newSolver(rest, adj, frames, opts)
	s.m = make([]Transform, s.b*s.t)
	for f, bones := range coarse.Transforms {
		for j, x := range bones {
			s.m[j*s.t+f] = x
		}
	}
	s.wb, s.ww = make([]int32, s.n*s.k), make([]float64, s.n*s.k)
	for i := range s.n {
		l := coarse.Weights[owner[i]]
		for q := range s.k {
			s.wb[i*s.k+q] = -1
			if q < len(l) {
				s.wb[i*s.k+q], s.ww[i*s.k+q] = int32(l[q].Bone), l[q].Weight
			}
		}
	}
	if coarse.Skeleton != nil {
		s.adoptSkeleton(coarse.Skeleton, opts.Skeleton)
	}
	r, err := s.refine(ctx, coarse.Iterations)
	if err != nil {
		return nil, err
	}
	r.History = append(coarse.History, r.History...)
	r.PolishRounds = coarse.PolishRounds + r.RefineRounds
	r.SkeletonRounds, r.FlatRMSE = coarse.SkeletonRounds, coarse.FlatRMSE
	r.SampleVertices = len(samples)
	return r, nil
}

// refine runs up to RefineRounds rounds with λ = 0 on the iterate, the
// first of the weights only, stopping when a round lowers the RMSE by less
// than Tolerance, and returns the best iterate; its rounds are numbered
// from after, History holds theirs only.
func (s *solver) refine(ctx context.Context, after int) (*Result, error) {
	if err := s.setSmoother(); err != nil {
		return nil, err
	}
	a := &alternation{s: s, it: after}
	prev := math.Inf(1)
	for a.it-after < RefineRounds {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var e float64
		if s.skel != nil {
			e = a.skeletonRound()
		} else {
			e = a.round(0, true, a.it > after)
		}
		if !(e < prev*(1-s.opts.Tolerance)) {
			break
		}
		prev = e
		if s.skel == nil {
			s.reseedDeadBones()
		}
	}
	r := a.result()
	r.RefineRounds = a.it - after
	return r, nil
}

func check(rest []mgl64.Vec3, triangles [][3]int, frames [][]mgl64.Vec3, opts Options) error {
	n := len(rest)
	if len(frames) < 2 {
		return fmt.Errorf("%w, have %d", ErrFrames, len(frames))
	}
	if opts.Bones < 1 || opts.Bones > n {
		return fmt.Errorf("%w: %d bones for %d vertices (want 1 to %d)", ErrBones, opts.Bones, n, n)
	}
	if opts.MaxInfluences < 0 || opts.MaxInfluences > maxK {
		return fmt.Errorf("%w: %d (want 1 to %d)", ErrInfluences, opts.MaxInfluences, maxK)
	}
	if opts.Skeleton != nil {
		if err := opts.Skeleton.check(n, opts.Bones); err != nil {
			return err
		}
	}
	for i, p := range rest {
		if !finite.Vec3(p) {
			return fmt.Errorf("%w: rest pose, vertex %d: %v", ErrNonFinite, i, p)
		}
	}
	for t, f := range frames {
		if len(f) != n {
			return fmt.Errorf("%w: frame %d has %d vertices, the rest pose %d", ErrVertices, t, len(f), n)
		}
		for i, p := range f {
			if !finite.Vec3(p) {
				return fmt.Errorf("%w: frame %d, vertex %d: %v", ErrNonFinite, t, i, p)
			}
		}
	}
	for f, tri := range triangles {
		for _, v := range tri {
			if v < 0 || v >= n {
				return fmt.Errorf("%w: triangle %d has vertex %d, the mesh has %d", ErrTriangle, f, v, n)
			}
		}
	}
	return nil
}

// solver holds the problem and the current iterate.
type solver struct {
	opts    Options
	n, t, b int
	k       int // min(K, B)

	rest   []mgl64.Vec3
	frames [][]mgl64.Vec3 // frame-major input
	vt     []mgl64.Vec3   // vertex-major copy: vt[i*t+f]
	adj    *meshgraph.Adjacency
	smooth *smoother
	sums   clusterSums // the clustering's cached sums

	// The iterate: bone-major transforms m[j*t+f]; weights in K slots per
	// vertex, wb[i*k+s] the bone (-1 for none) and ww[i*k+s] its weight.
	m  []Transform
	wb []int32
	ww []float64

	vv      []float64 // vv[i] = Σₜ ‖vᵢᵗ‖²
	vertErr []float64 // per-vertex squared error of the iterate

	skel *skeletal // the skeleton's state, in its rounds
}

// newSolver sets up the problem of the rest positions with graph adj and
// the frames.
func newSolver(rest []mgl64.Vec3, adj *meshgraph.Adjacency, frames [][]mgl64.Vec3, opts Options) *solver {
	s := &solver{opts: opts, n: len(rest), t: len(frames), b: opts.Bones, rest: rest, frames: frames, adj: adj}
	s.k = min(opts.MaxInfluences, s.b)
	s.vt = make([]mgl64.Vec3, s.n*s.t)
	s.vv = make([]float64, s.n)
	parallel.Chunks(s.n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for f := range s.t {
				v := frames[f][i]
				s.vt[i*s.t+f] = v
				s.vv[i] += v.Dot(v)
			}
		}
	})
	s.vertErr = make([]float64, s.n)
	return s
}

func (s *solver) run(ctx context.Context) (*Result, error) {
	if o := s.opts.Skeleton; o != nil && o.Given != nil {
		if err := s.setSmoother(); err != nil {
			return nil, err
		}
		s.startGiven(o)
		return s.skeletonRun(ctx, &Result{})
	}
	if err := s.initialize(ctx); err != nil {
		return nil, err
	}
	if err := s.setSmoother(); err != nil {
		return nil, err
	}
	a := &alternation{s: s}
	s.evaluate()
	a.keep(s.rmse())
	stop := stopRule{tol: s.opts.Tolerance, patience: s.opts.Patience}
	for a.it < s.opts.Iterations {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e := a.round(s.opts.TransAffine, false, true)
		s.reseedDeadBones()
		if stop.done(e) {
			break
		}
	}
	if s.opts.TransAffine != 0 {
		// Polish: a few rounds without the affinity, which holds each
		// bone's translation toward the rigid fit of its vertices and so
		// keeps the error well above what the rig can reach.
		for range s.opts.PolishIterations {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			a.round(0, true, true)
			s.reseedDeadBones()
		}
	}
	r := a.result()
	if s.opts.TransAffine != 0 {
		r.PolishRounds = s.opts.PolishIterations
	}
	if s.opts.Skeleton == nil {
		return r, nil
	}
	s.load(r)
	s.skeletonStart(s.opts.Skeleton)
	return s.skeletonRun(ctx, r)
}

// skeletonRun runs the skeleton's rounds on the skeleton state, after the
// rounds of flat (numbered on from them; its history kept), until they
// stop making progress (Skeleton.Tolerance, Patience) or Skeleton.Rounds have run,
// and returns the best skeleton iterate.
func (s *solver) skeletonRun(ctx context.Context, flat *Result) (*Result, error) {
	a := &alternation{s: s, it: flat.Iterations}
	stop := stopRule{tol: s.opts.Skeleton.tolerance(), patience: s.opts.Patience}
	for range s.opts.Skeleton.rounds() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if stop.done(a.skeletonRound()) {
			break
		}
	}
	r := a.result()
	r.SkeletonRounds = a.it - flat.Iterations
	r.History = append(slices.Clone(flat.History), r.History...)
	r.PolishRounds = flat.PolishRounds
	r.FlatRMSE = flat.RMSE
	return r, nil
}

// load makes r, an iterate of s, the iterate, bit for bit.
func (s *solver) load(r *Result) {
	for f, bones := range r.Transforms {
		for j, x := range bones {
			s.m[j*s.t+f] = x
		}
	}
	for i, l := range r.Weights {
		for q := range s.k {
			s.wb[i*s.k+q], s.ww[i*s.k+q] = -1, 0
			if q < len(l) {
				s.wb[i*s.k+q], s.ww[i*s.k+q] = int32(l[q].Bone), l[q].Weight
			}
		}
	}
}

// setWeights makes w (a user's) the iterate's weights: each vertex's K
// largest, normalised to sum to 1.
func (s *solver) setWeights(w [][]Influence) {
	for i, l := range w {
		l = slices.Clone(l)
		slices.SortStableFunc(l, func(x, y Influence) int { return cmp.Compare(y.Weight, x.Weight) })
		l = l[:min(len(l), s.k)]
		sum := 0.0
		for _, in := range l {
			sum += in.Weight
		}
		for q := range s.k {
			s.wb[i*s.k+q], s.ww[i*s.k+q] = -1, 0
			if q < len(l) && sum > 0 {
				s.wb[i*s.k+q], s.ww[i*s.k+q] = int32(l[q].Bone), l[q].Weight/sum
			}
		}
	}
}

// setSmoother prepares the weight smoothing of s's mesh (none for one
// bone, whose weights are all 1).
func (s *solver) setSmoother() error {
	if s.b == 1 {
		return nil
	}
	sm, err := newSmoother(s)
	if err != nil {
		return err
	}
	s.smooth = sm
	return nil
}

// alternation runs rounds on a solver and keeps the best iterate and the
// RMSE of every round.
type alternation struct {
	s       *solver
	tr      transformStep
	ws      weightStep
	it      int       // the last round run
	best    *Result   // the best iterate so far
	history []float64 // the RMSE after each round kept
}

// round runs round it+1: the transforms with translation affinity λ (unless
// not transforms), then the weights; it reports the round to Progress and
// returns its RMSE.
func (a *alternation) round(affine float64, polish, transforms bool) float64 {
	s := a.s
	if transforms {
		a.tr.run(s, affine)
	}
	if s.b > 1 {
		a.ws.run(s) // sets vertErr
	} else {
		s.evaluate()
	}
	a.it++
	e := s.rmse()
	a.keep(e)
	if s.opts.Progress != nil {
		stage := StageAlternation
		if polish {
			stage = StagePolish
		}
		s.opts.Progress(a.it, e, stage)
	}
	return e
}

// keep records the iterate's RMSE e after round a.it, and the iterate if
// it is the best so far.
func (a *alternation) keep(e float64) {
	a.history = append(a.history, e)
	if a.best == nil || e < a.best.RMSE {
		a.best = a.s.snapshot()
		a.best.RMSE, a.best.BestIteration = e, a.it
	}
}

// result is the best iterate with the rounds' count and history.
func (a *alternation) result() *Result {
	r := a.best
	r.Iterations, r.History = a.it, a.history
	return r
}

// stopRule is Dem Bones' rule for ending the alternation: a round that
// does not raise the RMSE and lowers it by less than the relative
// tolerance tol uses up patience, any other resets it, and the
// alternation stops when patience runs out.
type stopRule struct {
	tol      float64
	patience int
	used     int
	prev     float64
	started  bool
}

// done takes a round's RMSE e and reports whether to stop.
func (r *stopRule) done(e float64) bool {
	if r.started && e <= r.prev && r.prev-e < r.tol*r.prev {
		r.used++
	} else {
		r.used = 0
	}
	r.prev, r.started = e, true
	return r.used >= r.patience
}

// snapshot copies the iterate into a Result.
func (s *solver) snapshot() *Result {
	r := &Result{Weights: make([][]Influence, s.n), Transforms: make([][]Transform, s.t)}
	for f := range s.t {
		r.Transforms[f] = make([]Transform, s.b)
		for j := range s.b {
			r.Transforms[f][j] = s.m[j*s.t+f]
		}
	}
	for i := range s.n {
		var l []Influence
		for q := range s.k {
			if j := s.wb[i*s.k+q]; j >= 0 && s.ww[i*s.k+q] > 0 {
				l = append(l, Influence{int(j), s.ww[i*s.k+q]})
			}
		}
		// Insertion sort by decreasing weight, then bone: at most K items.
		for a := 1; a < len(l); a++ {
			for c := a; c > 0 && (l[c].Weight > l[c-1].Weight || l[c].Weight == l[c-1].Weight && l[c].Bone < l[c-1].Bone); c-- {
				l[c], l[c-1] = l[c-1], l[c]
			}
		}
		r.Weights[i] = l
	}
	if s.skel != nil {
		r.Skeleton = s.skel.k.Clone()
	}
	return r
}

// evaluate sets vertErr to each vertex's squared error summed over the
// frames, Σₜ ‖Σⱼ wᵢⱼ(Rⱼᵗpᵢ + Tⱼᵗ) − vᵢᵗ‖².
func (s *solver) evaluate() {
	parallel.Chunks(s.n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := s.rest[i]
			e := 0.0
			for f := range s.t {
				var x mgl64.Vec3
				for q := range s.k {
					j := s.wb[i*s.k+q]
					if j < 0 {
						continue
					}
					x = x.Add(s.m[int(j)*s.t+f].Apply(p).Mul(s.ww[i*s.k+q]))
				}
				d := x.Sub(s.vt[i*s.t+f])
				e += d.Dot(d)
			}
			s.vertErr[i] = e
		}
	})
}

// rmse returns √(Σᵢ vertErr[i] / (N·T)).
func (s *solver) rmse() float64 {
	sum := 0.0
	for _, e := range s.vertErr {
		sum += e
	}
	return math.Sqrt(sum / float64(s.n*s.t))
}

// setLabels makes the weights rigid: vertex i is bound to bone label[i].
func (s *solver) setLabels(label []int32) {
	s.wb = make([]int32, s.n*s.k)
	s.ww = make([]float64, s.n*s.k)
	for i := range s.n {
		for q := range s.k {
			s.wb[i*s.k+q] = -1
		}
		s.wb[i*s.k] = label[i]
		s.ww[i*s.k] = 1
	}
}

// reseedDeadBones gives every bone without weight on any vertex the
// worst-reconstructed vertex (by vertErr) not yet taken and its
// one-ring, with weight 1, and fits its transforms to them.
func (s *solver) reseedDeadBones() {
	alive := make([]bool, s.b)
	for q, j := range s.wb {
		if j >= 0 && s.ww[q] > 0 {
			alive[j] = true
		}
	}
	taken := make([]bool, s.n)
	for j := range s.b {
		if alive[j] {
			continue
		}
		worst := -1
		for i, e := range s.vertErr {
			if !taken[i] && (worst < 0 || e > s.vertErr[worst]) {
				worst = i
			}
		}
		members := append([]int32{int32(worst)}, s.adj.Neighbours(worst)...)
		for _, i := range members {
			taken[i] = true
			for q := range s.k {
				s.wb[int(i)*s.k+q], s.ww[int(i)*s.k+q] = -1, 0
			}
			s.wb[int(i)*s.k], s.ww[int(i)*s.k] = int32(j), 1
		}
		parallel.For(s.t, func(f int) {
			var c cov4
			for _, i := range members {
				c.addOuter(1, s.frames[f][i], s.rest[i])
			}
			c.fit(&s.m[j*s.t+f])
		})
	}
}

// addOuterTop adds c·q[p;1]ᵀ to the top three rows a of a cov4.
func addOuterTop(a *[12]float64, c float64, q, p mgl64.Vec3) {
	for r := range 3 {
		cq := c * q[r]
		a[4*r] += cq * p[0]
		a[4*r+1] += cq * p[1]
		a[4*r+2] += cq * p[2]
		a[4*r+3] += cq
	}
}

// cov4 is a 4×4 matrix, row-major, of sums Σ c·[q;1][p;1]ᵀ: the
// cross-covariance of a weighted absolute-orientation problem.
type cov4 [16]float64

// addOuter adds c·[q;1][p;1]ᵀ.
func (a *cov4) addOuter(c float64, q, p mgl64.Vec3) {
	addOuterTop((*[12]float64)(a[:12]), c, q, p)
	a[12] += c * p[0]
	a[13] += c * p[1]
	a[14] += c * p[2]
	a[15] += c
}

// fit sets x to the rigid motion minimising Σ cᵢ‖R·pᵢ + T − qᵢ‖² for the
// sums a = Σ cᵢ[qᵢ;1][pᵢ;1]ᵀ (rotation.RigidSums.Fit: Kabsch by the polar
// decomposition). x is left unchanged when a₃₃ ≤ 0 (no weight).
func (a *cov4) fit(x *Transform) {
	if r, t, ok := (*rotation.RigidSums)(a).Fit(); ok {
		x.R, x.T = r, t
	}
}
