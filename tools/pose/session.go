package pose

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"gallop/assets"
	"gallop/internal/fault"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/decimate"
	"gallop/solver/meshik"
)

// problem is everything the solver needs, as the UI wants it now. A
// problem is immutable once published; the UI publishes a new one on every
// change, and the session applies the difference to its solver.
type problem struct {
	version uint64

	// The mesh and its examples. A change of any of these (identity of the
	// slices, or the space) rebuilds the solver: a new symbolic analysis.
	reference  []assets.Vec3
	triangles  [][3]int
	examples   [][]assets.Vec3
	space      meshik.SpaceKind
	components int // meshik.Options.Components
	// prior is meshik.Options.Prior; a change only sets it (SetPrior).
	prior float64

	// Constraints: the handle vertices (sorted) and their targets (same
	// order). A new vertex set refactors; new targets only re-solve. No
	// handles (examples but no handle yet) only prepares the solver: the
	// examples compressed and GᵀG analysed, so that the first drag after
	// Make handle waits for a refactorization only.
	handles []int
	targets []assets.Vec3
	frozen  []int

	// blend, when not nil, asks for the prescribed blend of Figure 3
	// instead of inverse kinematics (handles is then the anchor vertex).
	blend []float64

	// groups are the handles that turn with the pose (meshik's
	// SetRotating), each a list of its vertices.
	groups [][]int

	// start is the pose shown, where a rebuilt solver, a restart and a
	// hold begin; startWeights are the example weights that produced it
	// (nil: unknown), the first guess of the fit (meshik's FitWeights).
	start        []assets.Vec3
	startWeights []float64
	// restart asks for a fresh start (weights from the linear space's
	// solution for the constraints) rather than from the pose shown.
	restart uint64
	// hold asks the session to take the pose shown as the solution until
	// the targets change: after a new handle set, an undo or a reopened
	// project, nothing moves until the artist drags. The session fits the
	// weights to the pose and then measures, without showing it, how far
	// a solve with the handles where they are would move the mesh.
	hold bool
}

// snapshot is one published iterate.
type snapshot struct {
	version   uint64        // of the problem it solves
	positions []assets.Vec3 // nil: no new pose (a failure keeps the last good one)
	weights   []float64     // example weights (meshik's ExampleWeights)
	stats     meshik.Stats
	converged bool
	err       error
	count     uint64 // iterates published so far by the session
	// compression is how the solver compressed the examples (zero
	// before a solver exists).
	compression meshik.CompressionInfo
	// held marks the snapshot of a hold: the pose shown with its fitted
	// weights. drift, when known, is how far a solve with the handles
	// where they are would move the held pose: the largest vertex
	// displacement over the bounding box's diagonal (0 for a pose that is
	// a blend of the examples, or a solve's own result).
	held       bool
	drift      float64
	driftKnown bool
	// preview marks an iterate of the two-level drag (meshik.Coarse):
	// the weights solved on the coarse mesh, the full mesh placed for
	// them; the full solve finishes once the drag pauses.
	preview bool
}

// session runs a meshik.Solver on a job: it waits for problems, iterates
// while the current one is unsolved, and publishes every iterate. It is
// the only goroutine that touches the solver.
type session struct {
	want   atomic.Pointer[problem]
	wake   chan struct{}
	latest jobs.Latest[snapshot]
	job    *jobs.Job
	count  uint64

	// The simplified mesh of the coarse level (simplified), kept while
	// the mesh stays the same: simp of simpRef and simpTris.
	simpMu   sync.Mutex
	simp     *decimate.Result
	simpRef  []assets.Vec3
	simpTris [][3]int
}

func newSession(runner *jobs.Runner) *session {
	s := &session{wake: make(chan struct{}, 1)}
	s.job = runner.Start("Pose solver", s.run, nil)
	return s
}

// post makes p the problem to solve.
func (s *session) post(p *problem) {
	s.want.Store(p)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// stop ends the session's job.
func (s *session) stop() { s.job.Cancel() }

func (s *session) publish(snap *snapshot) {
	s.count++
	snap.count = s.count
	s.latest.Publish(snap)
}

func (s *session) run(ctx context.Context, rep jobs.Reporter) error {
	// The solver is this goroutine's alone: once the session ends (the
	// tool left, the document replaced) nothing holds it, and its memory
	// (gigabytes on a production mesh with a capture as examples) goes
	// back to the system now rather than when the runtime next scavenges.
	defer debug.FreeOSMemory()
	var (
		solver  *meshik.Solver
		have    *problem // the problem the solver is set up for
		done    bool     // the current problem is solved (or failed)
		restart uint64
		// coarse drags a production-size mesh (meshik.Coarse); nil
		// below meshik.CoarseAbove vertices. previewing: the current
		// problem's updates go through it, for at most
		// maxPreviewSteps, until its solve settles.
		coarse     *meshik.Coarse
		previewing bool
		previews   int
	)
	snap := func(p *problem, st meshik.Stats, converged bool, err error) *snapshot {
		sn := &snapshot{version: p.version, stats: st, converged: converged, err: err}
		if solver != nil {
			sn.compression = solver.Compression()
			if err == nil {
				sn.positions, sn.weights = solver.Positions(), solver.ExampleWeights()
			}
		}
		return sn
	}
	for {
		p := s.want.Load()
		if p == nil || (done && p == have) {
			rep.Idle()
			select {
			case <-ctx.Done():
				return nil
			case <-s.wake:
			}
			continue
		}
		if ctx.Err() != nil {
			return nil
		}
		if p != have {
			if p.handles == nil || solver == nil || !sameModel(have, p) {
				rep.Report(0, "preparing "+words.Count(len(p.examples), "example", "examples"))
			}
			var err error
			rebuilt := solver == nil || !sameModel(have, p)
			onlyTargets := !rebuilt && p.restart == restart && !p.hold && p.blend == nil && have.blend == nil &&
				slices.Equal(have.handles, p.handles) && slices.Equal(have.frozen, p.frozen) &&
				sameGroups(have.groups, p.groups) && have.prior == p.prior
			priorChanged := have == nil || have.prior != p.prior
			var built chan *meshik.Coarse
			if rebuilt {
				coarse = nil
				if p.blend == nil && len(p.examples) > 0 && len(p.reference) >= meshik.CoarseAbove {
					// The coarse level is built beside the full solver.
					built = make(chan *meshik.Coarse, 1)
					go func() { built <- s.coarseFor(ctx, p) }()
				}
			}
			solver, err = guard(func() (*meshik.Solver, error) { return s.apply(ctx, solver, have, p, restart) })
			restart = p.restart
			have, done = p, false
			if err != nil {
				s.publish(&snapshot{version: p.version, err: explain(err)})
				done, solver = true, nil
				continue
			}
			if built != nil {
				coarse = <-built
			}
			if coarse != nil && !onlyTargets {
				coarse.Invalidate()
				if priorChanged && !rebuilt {
					// The coarse level's own prior (automatic: from its
					// own compression) follows the artist's choice.
					_ = coarse.SetPrior(p.prior)
				}
			}
			previewing, previews = coarse != nil && len(p.handles) > 0 && p.blend == nil && !p.hold, 0
			if len(p.handles) == 0 {
				s.publish(snap(p, meshik.Stats{}, true, nil)) // prepared: nothing to solve yet
				done = true
				continue
			}
			if p.blend != nil {
				_, err := guard(func() (struct{}, error) { return struct{}{}, solver.Reconstruct(p.blend) })
				s.publish(snap(p, meshik.Stats{}, true, explain(err)))
				done = true
				continue
			}
			if p.hold {
				// The pose shown, at once: a new handle shows without
				// waiting for a fit over a production mesh.
				sn := snap(p, meshik.Stats{}, true, nil)
				sn.held, sn.weights = true, p.startWeights
				s.publish(sn)
				// Then the weights fitted to it, and the weight system
				// formed for the drag, whose first iteration reuses it. A
				// drag begun meanwhile stops the fit between its steps
				// and goes first (its first iteration forms the system).
				_, err := guard(func() (struct{}, error) {
					solver.SetInterrupt(func() bool { return s.want.Load() != p })
					defer solver.SetInterrupt(nil)
					if err := s.fit(solver, p, rebuilt); err != nil {
						return struct{}{}, err
					}
					sn := snap(p, meshik.Stats{}, true, nil)
					sn.held = true
					s.publish(sn)
					if s.want.Load() == p && coarse == nil {
						// (A drag through the coarse level needs no
						// full weight system.)
						solver.PrepareSystem()
					}
					return struct{}{}, nil
				})
				if err != nil {
					s.publish(&snapshot{version: p.version, err: explain(err)})
					done, solver = true, nil
					continue
				}
				done = true
				// The drift is measured once the artist pauses: a drag
				// right after Make handle goes first, not after a
				// measurement's iteration.
				if !s.pause(ctx, p) {
					continue
				}
				if d, ok := s.drift(ctx, solver, p); ok {
					sn := snap(p, meshik.Stats{}, true, nil)
					sn.held, sn.drift, sn.driftKnown = true, d, true
					s.publish(sn)
				}
				continue
			}
		}
		rep.Report(0.5, "solving")
		if previewing {
			st, err := guard(func() (meshik.Stats, error) {
				fault.At("pose-solve")
				st, err := coarse.Step(solver)
				if errors.Is(err, meshik.ErrCoarseStale) {
					if err := coarse.Sync(solver, p.frozen, p.triangles); err != nil {
						return st, err
					}
					st, err = coarse.Step(solver)
				}
				return st, err
			})
			previews++
			if err != nil || st.Converged || previews >= maxPreviewSteps {
				// Settled, or the coarse level failed: the full solve
				// takes over from the pose shown (a failure there is
				// the full solve's to report).
				previewing = false
				coarse.Invalidate()
			}
			if err == nil {
				sn := snap(p, st, false, nil)
				sn.preview = true
				s.publish(sn)
			}
			continue
		}
		st, err := guard(func() (meshik.Stats, error) {
			fault.At("pose-solve") // GALLOP_FAULT=pose-solve: a bug in the solve, for the tests
			return solver.Iterate()
		})
		if err == nil && !st.Converged && st.Iteration >= maxIterations {
			err = &Failure{What: fmt.Sprintf("The solve did not settle in %d iterations (objective %.4g); the pose shown is its last step.", st.Iteration, st.Objective),
				Do: "Drag again, or choose Solve again.", Fix: FixResolve}
			s.publish(snap(p, st, false, err)) // the last iterate is shown
			done = true
			continue
		}
		s.publish(snap(p, st, st.Converged, explain(err)))
		done = st.Converged || err != nil
	}
}

// maxIterations caps a live solve.
const maxIterations = 200

// maxPreviewSteps caps the coarse iterations of one problem (a drag's
// position): then the full solve finishes.
const maxPreviewSteps = 50

// coarseFor builds the coarse level of a production-size problem: its
// mesh simplified (once per mesh, simplified) and a solver there, or
// returns nil. It is an accelerator only: a mesh that cannot be
// simplified, or examples the coarse level cannot solve with, leave drags
// at full size as before.
func (s *session) coarseFor(ctx context.Context, p *problem) *meshik.Coarse {
	c, err := guard(func() (*meshik.Coarse, error) {
		simp, err := s.simplified(p)
		if err != nil {
			return nil, err
		}
		opts := meshik.Options{Space: p.space, Components: p.components, Prior: p.prior}
		return meshik.NewCoarse(ctx, simp, p.reference, p.triangles, p.examples, opts)
	})
	if err != nil {
		return nil
	}
	return c
}

// simplified returns the simplification of p's mesh to
// meshik.CoarseVertices, made once per mesh.
func (s *session) simplified(p *problem) (*decimate.Result, error) {
	s.simpMu.Lock()
	defer s.simpMu.Unlock()
	if s.simp != nil && sameSlice(s.simpRef, p.reference) && slices.Equal(s.simpTris, p.triangles) {
		return s.simp, nil
	}
	r, err := decimate.Simplify(p.reference, p.triangles, meshik.CoarseVertices)
	if err != nil {
		return nil, err
	}
	s.simp, s.simpRef, s.simpTris = r, p.reference, p.triangles
	return r, nil
}

// guard runs fn and turns a panic in it (a solver bug, on this goroutine
// or a parallel loop's worker) into an error, so that the session lives on
// and the next problem is solved.
func guard[T any](fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &bugError{value: r}
		}
	}()
	return fn()
}

// bugError is a panic caught in the solver.
type bugError struct{ value any }

func (e *bugError) Error() string { return fmt.Sprintf("%v", e.value) }

// sameModel reports whether problems a and b ask for the same solver
// (mesh, examples, space, compression): no rebuild between them.
func sameModel(a, b *problem) bool {
	return a != nil && slices.Equal(a.triangles, b.triangles) && sameSlice(a.reference, b.reference) &&
		samePoses(a.examples, b.examples) && a.space == b.space && a.components == b.components
}

// pause waits driftDelay for the artist to go on and reports whether the
// problem is still p then (a wake-up for p itself, left from its posting,
// does not end the pause).
func (s *session) pause(ctx context.Context, p *problem) bool {
	deadline := time.After(driftDelay)
	for {
		select {
		case <-ctx.Done():
			return false
		case <-s.wake:
			if s.want.Load() != p {
				return false
			}
		case <-deadline:
			return s.want.Load() == p
		}
	}
}

// driftDelay is how long the session waits, after holding a pose, for the
// artist to go on before it measures the pose's drift.
const driftDelay = 700 * time.Millisecond

// driftIterations caps the solve that measures a held pose's drift.
const driftIterations = 100

// drift solves, from the held pose, with the handles where they are, and
// returns the largest vertex displacement over the pose's bounding-box
// diagonal; then it puts the solver back as it was. It gives up (false)
// when a new problem arrives, the job is cancelled or the solve fails.
func (s *session) drift(ctx context.Context, solver *meshik.Solver, p *problem) (float64, bool) {
	x0, w0 := solver.Positions(), solver.Weights()
	defer func() {
		// The same pose, weights and groups as before the measurement,
		// and, while the artist still waits, the weight system for the
		// drag to come.
		_ = solver.SetPositions(x0)
		_ = solver.SetWeights(w0)
		_ = solver.SetRotating(p.groups)
		if ctx.Err() == nil && s.want.Load() == p {
			solver.PrepareSystem()
		}
	}()
	for range driftIterations {
		if ctx.Err() != nil || s.want.Load() != p {
			return 0, false
		}
		st, err := solver.Iterate()
		if err != nil {
			return 0, false
		}
		if st.Converged {
			break
		}
	}
	lo, hi := assets.Bounds(x0)
	diag := hi.Sub(lo).Len()
	if diag == 0 {
		return 0, true
	}
	worst := 0.0
	for v, q := range solver.Positions() {
		worst = math.Max(worst, q.Sub(x0[v]).Len())
	}
	return worst / diag, true
}

// apply brings the solver from problem old to p: rebuild for a new mesh,
// examples or space; refactor for a new handle set; set the targets and
// the frozen triangles. A rebuild, a restart or a hold starts from the
// pose shown; a rebuild or a restart with the weights fitted to it and
// the handles' rotations captured there (fit), a restart then taking the
// linear space's solution for the constraints instead; a hold leaves the
// fit to run, which publishes the pose first.
func (s *session) apply(ctx context.Context, solver *meshik.Solver, old, p *problem, restarted uint64) (*meshik.Solver, error) {
	rebuild := solver == nil || !sameModel(old, p)
	restart := p.restart != restarted
	start := rebuild || restart || p.hold
	if rebuild {
		solver = nil // the old one's memory can go before the new one is built
		var err error
		opts := meshik.Options{Space: p.space, Components: p.components, Prior: p.prior}
		if solver, err = meshik.NewContext(ctx, p.reference, p.triangles, p.examples, opts); err != nil {
			return nil, err
		}
	} else if old.prior != p.prior {
		if err := solver.SetPrior(p.prior); err != nil {
			return nil, err
		}
	}
	if len(p.handles) == 0 {
		return solver, nil // prepared; nothing to solve yet
	}
	if start {
		if err := solver.SetPositions(p.start); err != nil {
			return nil, err
		}
	}
	newHandles := rebuild || !slices.Equal(old.handles, p.handles)
	if newHandles {
		if err := solver.SetHandles(p.handles); err != nil {
			return nil, err
		}
	}
	if err := solver.SetTargets(p.targets); err != nil {
		return nil, err
	}
	if rebuild || !slices.Equal(old.frozen, p.frozen) {
		if err := solver.SetFrozen(p.frozen); err != nil {
			return nil, err
		}
	}
	if p.blend != nil {
		return solver, nil
	}
	if p.hold {
		// The pose shown is the answer: it is published before the
		// weights are fitted to it (settle, after the publication).
		return solver, nil
	}
	if start {
		if err := s.fit(solver, p, rebuild); err != nil {
			return nil, err
		}
	} else if newHandles || !sameGroups(old.groups, p.groups) {
		if err := solver.SetRotating(p.groups); err != nil {
			return nil, err
		}
	}
	if restart {
		if err := solver.StartFromLinear(); err != nil {
			return nil, err
		}
	}
	return solver, nil
}

// fit fits the solver's weights to the pose it holds (the pose shown):
// refined from the weights that produced it when known and the solver
// was not rebuilt (a pass or two over the mesh), else from the linear
// space's fit (meshik's FitWeights); then the turning handles' rotations
// are captured there (SetRotating).
func (s *session) fit(solver *meshik.Solver, p *problem, rebuilt bool) error {
	if len(p.startWeights) == len(p.examples) && !rebuilt {
		if err := solver.SetExampleWeights(p.startWeights); err != nil {
			return err
		}
		solver.RefineWeights()
	} else {
		solver.FitWeights()
	}
	return solver.SetRotating(p.groups)
}

func sameGroups(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func samePoses(a, b [][]assets.Vec3) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameSlice(a[i], b[i]) {
			return false
		}
	}
	return true
}
