package dynamics

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/dynskin"
	"gallop/tools"
)

// request is what the UI wants simulated, immutable once posted: the
// object's parts (values the document replaces, never modifies), its
// materials and settings, the timeline's frame and the poke.
type request struct {
	obj      *assets.Object // whose it is; only compared, never read on the job
	name     string
	mesh     *assets.Mesh
	rig      *assets.Rig
	skin     *assets.SkinAnimation
	clip     *assets.Clip
	params   []dynskin.Material
	settings Settings
	frame    int
	poke     *poke // nil: none
}

// poke is the artist dragging a vertex: its target in model space.
type poke struct {
	vertex int
	target assets.Vec3
}

// snapshot is what the simulation session published last, immutable.
type snapshot struct {
	req    *request
	rig    *Rigging
	frames [][]assets.Vec3 // the dynamic animation, frames simulated so far
	total  int             // the clip's frames
	done   bool            // every frame simulated (or stopped by err)
	// seam is the largest distance between frame 0 and the step after the
	// last frame (the jump where a loop closes); set once done.
	seam    float64
	maxDist float64 // the largest distance from the goal so far
	err     error   // the rig's or the simulation's problem
	live    []assets.Vec3
	// ownExample reports whether the object's clip is an example to fit
	// to: as many frames as the goal, and not the skinning itself.
	ownExample bool
}

// preview is the simulation session of one object: a job that simulates
// the clip frame by frame ahead of the timeline for the materials and
// settings posted, keeps every frame, and runs the poke live from the
// frame shown. It is the only goroutine that touches its simulations.
type preview struct {
	want   atomic.Pointer[request]
	wake   chan struct{}
	latest jobs.Latest[snapshot]
	job    *jobs.Job

	posted *request  // the last request posted (UI thread)
	shown  *snapshot // the snapshot taken (UI thread)
	seen   uint64
}

// newPreview starts a session; a failure of the job (a bug: it recovers
// from panics) is reported with h.Error, and the next Update starts a new
// one.
func newPreview(h tools.Host) *preview {
	p := &preview{wake: make(chan struct{}, 1)}
	p.job = h.Jobs().Start("Dynamics preview", p.run, func(err error) {
		if err != nil && !jobs.IsCanceled(err) {
			h.Error(fmt.Errorf("dynamics preview: %w", err))
		}
	})
	return p
}

// post makes r the request to work on.
func (p *preview) post(r *request) {
	p.posted = r
	p.want.Store(r)
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// take returns the latest snapshot.
func (p *preview) take() *snapshot {
	s, seq := p.latest.Load()
	if s != nil && seq != p.seen {
		p.shown, p.seen = s, seq
	}
	return p.shown
}

// stop ends the session's job.
func (p *preview) stop() { p.job.Cancel() }

// dead reports whether the session's job has ended.
func (p *preview) dead() bool {
	select {
	case <-p.job.Done():
		return true
	default:
		return false
	}
}

// post sends the session what is wanted now, when it changed.
func (t *Dynamics) post(h tools.Host) {
	o := h.Object()
	l := t.layer(h)
	r := &request{obj: o, name: o.Name, mesh: o.Mesh, rig: o.Rig, skin: o.Skin, clip: o.Clip, params: l.params, settings: t.Settings, frame: h.Frame(), poke: t.poke}
	if q := t.prev.posted; q != nil && q.obj == r.obj && q.mesh == r.mesh && q.rig == r.rig && q.skin == r.skin && q.clip == r.clip &&
		assets.Same(q.params, r.params) && q.settings == r.settings && q.frame == r.frame && q.poke == r.poke {
		return
	}
	t.prev.post(r)
}

// run is the session's job.
func (p *preview) run(ctx context.Context, rep jobs.Reporter) error {
	var s session
	for {
		if ctx.Err() != nil {
			return nil
		}
		r := p.want.Load()
		wait := time.Duration(-1)
		if r != nil {
			var snap *snapshot
			snap, wait = s.work(r)
			if snap != nil {
				p.latest.Publish(snap)
			}
			if s.rig != nil && !s.done {
				rep.Report(float64(len(s.frames))/float64(max(1, s.rig.Goal.NumFrames())), fmt.Sprintf("simulating frame %d of %d", len(s.frames), s.rig.Goal.NumFrames()))
			}
		}
		if wait == 0 {
			continue
		}
		var timer <-chan time.Time
		if wait > 0 {
			timer = time.After(wait)
		} else {
			rep.Idle()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-p.wake:
		case <-timer:
		}
	}
}

// checkpointEvery is how many frames apart the session keeps whole
// simulation states, to restart a poke from any frame with at most that
// many steps.
const checkpointEvery = 8

// session is the state of a preview's job.
type session struct {
	// The rig: built for these parts.
	mesh   *assets.Mesh
	rigOf  *assets.Rig
	skinOf *assets.SkinAnimation
	rig    *Rigging
	rigErr error
	clipOf *assets.Clip // the clip ownExample was found for
	own    bool

	// The clip's simulation for these materials and settings.
	params   []dynskin.Material
	settings Settings
	sim      *dynskin.Sim
	warm     int // loop warm-up steps done (of the clip's frames)
	frames   [][]assets.Vec3
	checks   []dynskin.State // checkpoints: the state at frame k·checkpointEvery
	done     bool
	seam     float64
	maxDist  float64
	err      error

	// The poke.
	lsim      *dynskin.Sim
	liveOn    bool
	liveFrame int
	liveT0    time.Time
	held      int // steps taken at liveFrame since liveT0
	still     int // consecutive steps that moved no vertex more than settleTol
	settled   bool
	prevX     []assets.Vec3
}

// settleTol, in diagonals per step: a released poke whose steps all move
// less than this for settleSteps steps has settled, and the session stops
// stepping until the frame changes.
const (
	settleTol   = 1e-6
	settleSteps = 30
)

// snapshot returns the session's state for r.
func (s *session) snapshot(r *request) *snapshot {
	snap := &snapshot{req: r, rig: s.rig, frames: s.frames, done: s.done, seam: s.seam, maxDist: s.maxDist, err: s.err, ownExample: s.own}
	if s.rig == nil {
		snap.err = s.rigErr
	} else {
		snap.total = s.rig.Goal.NumFrames()
	}
	if s.liveOn {
		snap.live = slices.Clone(s.lsim.Positions())
	}
	return snap
}

// work does one unit of work for r: builds the rig, simulates one frame,
// or steps the poke; it returns the snapshot to publish (nil: none) and
// how long to wait before the next unit (0: none, −1: until the next
// request).
func (s *session) work(r *request) (*snapshot, time.Duration) {
	if r.mesh != s.mesh || r.rig != s.rigOf || r.skin != s.skinOf {
		s.mesh, s.rigOf, s.skinOf = r.mesh, r.rig, r.skin
		s.rig, s.rigErr = NewRigging(&assets.Object{Name: r.name, Mesh: r.mesh, Rig: r.rig, Skin: r.skin})
		s.params, s.clipOf, s.own = nil, nil, false
		return s.snapshot(r), 0
	}
	if s.rig == nil {
		return nil, -1
	}
	if r.clip != s.clipOf {
		s.clipOf = r.clip
		g := s.rig.Goal
		s.own = r.clip != nil && len(r.clip.Frames) == g.NumFrames() &&
			dynskin.RMSE(r.clip.Frames, g.Positions) > 1e-6*s.rig.Model.Diagonal()
		return s.snapshot(r), 0
	}
	if !assets.Same(r.params, s.params) || r.settings != s.settings {
		s.restart(r)
		return s.snapshot(r), 0
	}
	if !s.done {
		s.step()
		return s.snapshot(r), 0
	}
	return s.live(r)
}

// restart starts the clip's simulation over for r's materials and
// settings.
func (s *session) restart(r *request) {
	s.params, s.settings = r.params, r.settings
	s.frames, s.checks, s.done, s.seam, s.maxDist, s.err, s.warm = nil, nil, false, 0, 0, nil, 0
	s.liveOn, s.lsim = false, nil
	g := s.rig.Goal
	var err error
	opts := dynskin.Options{Substeps: int(r.settings.Substeps)}
	if s.sim, err = dynskin.NewSim(s.rig.Model, r.params, g, opts); err == nil {
		s.lsim, err = dynskin.NewSim(s.rig.Model, r.params, g, opts)
	}
	if err != nil {
		s.err, s.done = fmt.Errorf("%s: %w", r.name, err), true
		return
	}
	s.sim.Start(0)
	if !r.settings.Loop {
		s.warm = g.NumFrames()
	}
}

// advance steps sim from its goal frame to the next, the last frame's
// next being frame 0 (a loop).
func (s *session) advance(sim *dynskin.Sim) error {
	return sim.Advance((sim.Frame() + 1) % s.rig.Goal.NumFrames())
}

// step simulates the next frame: of the loop's warm-up pass first, then
// of the clip.
func (s *session) step() {
	g := s.rig.Goal
	n := g.NumFrames()
	if s.warm < n {
		if err := s.advance(s.sim); err != nil {
			s.err, s.done = fmt.Errorf("warming up the loop: %w", err), true
			return
		}
		s.warm++
		return
	}
	if len(s.frames) > 0 {
		if err := s.advance(s.sim); err != nil {
			s.err, s.done = err, true
			return
		}
	}
	f := len(s.frames)
	x := slices.Clone(s.sim.Positions())
	for i, p := range x {
		s.maxDist = math.Max(s.maxDist, p.Sub(g.Positions[f][i]).Len())
	}
	s.frames = append(s.frames, x)
	if f%checkpointEvery == 0 {
		s.checks = append(s.checks, s.sim.State())
	}
	if len(s.frames) == n {
		// The seam: one more step, from the last frame to the first.
		s.done = true
		if err := s.advance(s.sim); err == nil {
			for i, p := range s.sim.Positions() {
				s.seam = math.Max(s.seam, p.Sub(s.frames[0][i]).Len())
			}
		}
	}
}

// live runs the poke: from the state at the request's frame (restored
// from the nearest checkpoint), the goal held at that frame in real time
// while the timeline stands, or following it while it plays, with the
// poked vertex pulled to its target. Released, the mesh wobbles back; once
// settled the session rests until the frame changes, and a jump of the
// frame (a scrub, the loop's wrap) ends the poke's run: the clip's frames
// are shown again.
func (s *session) live(r *request) (*snapshot, time.Duration) {
	g := s.rig.Goal
	n := g.NumFrames()
	f := max(0, min(r.frame, n-1))
	if !s.liveOn {
		if r.poke == nil || s.err != nil {
			return nil, -1
		}
		c := min(f/checkpointEvery, len(s.checks)-1)
		s.lsim.SetState(c*checkpointEvery, s.checks[c])
		for range f - c*checkpointEvery {
			if err := s.advance(s.lsim); err != nil {
				return &snapshot{req: r, rig: s.rig, frames: s.frames, err: err}, -1
			}
		}
		s.liveOn, s.liveFrame, s.liveT0, s.held, s.still, s.settled = true, f, time.Now(), 0, 0, false
	}
	if r.poke != nil {
		s.lsim.SetPoke(r.poke.vertex, r.poke.target)
		s.settled = false
	} else {
		s.lsim.ClearPoke()
	}
	switch {
	case f == s.liveFrame:
		if s.settled {
			return nil, -1
		}
		due := int(time.Since(s.liveT0).Seconds()*g.FPS) - s.held
		if due <= 0 {
			return nil, time.Duration(float64(time.Second) / g.FPS / 2)
		}
		for range min(due, 4) {
			if err := s.liveStep(s.lsim.Advance(f), r); err != nil {
				return s.stopLive(r, err), -1
			}
			s.held++
		}
	case f > s.liveFrame && f <= s.liveFrame+4:
		for range f - s.liveFrame {
			if err := s.liveStep(s.advance(s.lsim), r); err != nil {
				return s.stopLive(r, err), -1
			}
		}
		s.liveFrame, s.liveT0, s.held = f, time.Now(), 0
	case r.poke != nil:
		s.liveOn = false // a jump while dragging: start again at the new frame
		return nil, 0
	default:
		return s.stopLive(r, nil), -1
	}
	return s.snapshot(r), 0
}

// liveStep checks one step of the poke: its error, and whether it moved
// the mesh (to tell when a released poke has settled).
func (s *session) liveStep(err error, r *request) error {
	if err != nil {
		return fmt.Errorf("poke: %w", err)
	}
	x := s.lsim.Positions()
	tol := settleTol * s.rig.Model.Diagonal()
	moved := len(s.prevX) != len(x)
	for i := 0; i < len(x) && !moved; i++ {
		moved = x[i].Sub(s.prevX[i]).Len() > tol
	}
	s.prevX = append(s.prevX[:0], x...)
	if moved || r.poke != nil {
		s.still = 0
	} else if s.still++; s.still >= settleSteps {
		s.settled = true
	}
	return nil
}

// stopLive ends the poke's run (with the error that stopped it, if any).
func (s *session) stopLive(r *request, err error) *snapshot {
	s.liveOn = false
	snap := s.snapshot(r)
	if err != nil {
		snap.err = err
	}
	return snap
}
