package pose

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/meshik"
)

// problem is everything the solver needs, as the UI wants it now. A
// problem is immutable once published; the UI publishes a new one on every
// change, and the session applies the difference to its solver.
type problem struct {
	version uint64

	// The mesh and its examples. A change of any of these (identity of the
	// slices, or the space) rebuilds the solver: a new symbolic analysis.
	reference []assets.Vec3
	triangles [][3]int
	examples  [][]assets.Vec3
	space     meshik.SpaceKind

	// Constraints: the handle vertices (sorted) and their targets (same
	// order). A new vertex set refactors; new targets only re-solve.
	handles []int
	targets []assets.Vec3
	frozen  []int

	// blend, when not nil, asks for the prescribed blend of Figure 3
	// instead of inverse kinematics (handles is then the anchor vertex).
	blend []float64

	// start is where a rebuilt solver starts (the pose shown).
	start []assets.Vec3
	// restart asks for a fresh start (weights from the linear space)
	// rather than continuing from the last weights, as after a new handle
	// set.
	restart uint64
}

// snapshot is one published iterate.
type snapshot struct {
	version   uint64 // of the problem it solves
	positions []assets.Vec3
	weights   []float64
	stats     meshik.Stats
	converged bool
	err       error
	count     uint64 // iterates published so far by the session
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
	var (
		solver  *meshik.Solver
		have    *problem // the problem the solver is set up for
		done    bool     // the current problem is solved (or failed)
		restart uint64
	)
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
			var err error
			solver, err = s.apply(solver, have, p, restart)
			restart = p.restart
			have, done = p, false
			if err != nil {
				s.publish(&snapshot{version: p.version, err: err})
				done, solver = true, nil
				continue
			}
			if p.blend != nil {
				err := solver.Reconstruct(p.blend)
				s.publish(&snapshot{version: p.version, positions: solver.Positions(), weights: solver.Weights(), converged: true, err: err})
				done = true
				continue
			}
		}
		rep.Report(0.5, "solving")
		st, err := solver.Iterate()
		snap := &snapshot{version: p.version, positions: solver.Positions(), weights: solver.Weights(), stats: st, converged: st.Converged, err: err}
		if err == nil && !st.Converged && st.Iteration >= 200 {
			snap.err = fmt.Errorf("the solve did not converge in %d iterations (objective %.4g); showing the last iterate", st.Iteration, st.Objective)
		}
		s.publish(snap)
		done = st.Converged || snap.err != nil
	}
}

// apply brings the solver from problem old to p: rebuild for a new mesh,
// examples or space; refactor for a new handle set; then new targets,
// frozen triangles and a restart if asked.
func (s *session) apply(solver *meshik.Solver, old, p *problem, restarted uint64) (*meshik.Solver, error) {
	rebuild := solver == nil || old == nil || !slices.Equal(old.triangles, p.triangles) || !sameSlice(old.reference, p.reference) ||
		!samePoses(old.examples, p.examples) || old.space != p.space
	fresh := rebuild || p.restart != restarted
	if rebuild {
		var err error
		if solver, err = meshik.New(p.reference, p.triangles, p.examples, meshik.Options{Space: p.space}); err != nil {
			return nil, err
		}
		if err := solver.SetPositions(p.start); err != nil {
			return nil, err
		}
	}
	if rebuild || !slices.Equal(old.handles, p.handles) {
		if len(p.handles) == 0 {
			return nil, errors.New("no handles: select vertices and make a handle to pose the mesh")
		}
		if err := solver.SetHandles(p.handles); err != nil {
			return nil, err
		}
		fresh = true
	}
	if err := solver.SetTargets(p.targets); err != nil {
		return nil, err
	}
	if rebuild || !slices.Equal(old.frozen, p.frozen) {
		if err := solver.SetFrozen(p.frozen); err != nil {
			return nil, err
		}
	}
	if fresh && p.blend == nil {
		if err := solver.StartFromLinear(); err != nil {
			return nil, err
		}
	}
	return solver, nil
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
