// Package gallery is the Gallery tool: Chenney and Forsyth's "Sampling
// Plausible Solutions to Multi-body Constraint Problems" (2000) in the
// window. The artist picks a scenario and sets its constraints (the 2D
// ball's target is dragged in the viewport), starts Markov chain Monte
// Carlo chains as a background job (package solver/plausible's Gallery),
// watches live plots of the chains (the paper's Figures 2, 6 and 7) and
// browses a gallery of thumbnails of the most different samples that
// satisfy the constraints: hovering one plays it, clicking one plays it in
// the viewport with the timeline, a star keeps it as a favourite (saved in
// the project), and Export glTF writes it with one node animation per
// body.
package gallery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/panels"
	"gallop/tools"
	"gallop/viewport"
)

// Gallery is the Gallery tool. Its zero value is ready to use: the first
// scenario with its defaults, one chain per CPU.
type Gallery struct {
	scenario int        // index into scenarios
	settings []Settings // per scenario, made when first used
	weights  []float64  // proposal weights of the scenario's kernels (nil: its defaults)

	chains, iterations, seed int32 // chain settings (0 chains: not set yet)

	run  *run      // the running or last run
	snap *snapshot // its latest snapshot
	seen uint64
	// unsatisfied holds a line per chain of the last run that ended
	// without ever satisfying the constraints.
	unsatisfied []string

	// want is what the tool shows in the viewport: the scenario's setup
	// or a sample (nil: the document's scene). Update shows it again when
	// the application went back to the document by itself.
	want  *assets.RigidAnimation
	setup *assets.RigidAnimation
	// The setup is recorded (a simulation) on a job: setupAsked is set
	// once one was asked for, setupBusy while a job records it, and
	// setupStale when the settings changed since that job started.
	setupAsked, setupBusy, setupStale bool
	closed                            bool    // Close was called: a setup job's end changes nothing
	chosen                            *sample // the sample played, which Export writes

	favourites []favourite
	thumbs     thumbnails
	traceAt    time.Time
	marks      panels.Marks // with trace: where the GUI tests click
}

// favourite is a sample the artist starred: enough to replay it in any
// later session (its scenario, the settings it was sampled with and its
// state), and where it came from.
type favourite struct {
	Scenario  string          `json:"scenario"`
	Settings  json.RawMessage `json:"settings"`
	Chain     int             `json:"chain"` // 0-based
	Iteration int             `json:"iteration"`
	LogP      float64         `json:"log_p"`
	State     json.RawMessage `json:"state"`
}

// label names a favourite in the panel.
func (f *favourite) label() string {
	return fmt.Sprintf("%s: chain %d, iteration %d", f.Scenario, f.Chain+1, f.Iteration)
}

// trace is set by GALLOP_TRACE=1: the tool then prints its progress,
// what it plays and where its marked widgets are to stderr (for the GUI
// tests).
var trace = panels.Trace

// Name implements panels.Tool.
func (t *Gallery) Name() string { return "Gallery" }

// Help implements panels.Tool.
func (t *Gallery) Help() string {
	return "Plausible animations by MCMC: set the constraints (drag the target), Start, then click a thumbnail to play it."
}

// current returns the settings of the chosen scenario.
func (t *Gallery) current() Settings {
	if t.settings == nil {
		t.settings = make([]Settings, len(scenarios))
	}
	if t.settings[t.scenario] == nil {
		t.settings[t.scenario] = scenarios[t.scenario].New()
	}
	return t.settings[t.scenario]
}

// defaults fills in the chain settings not set yet.
func (t *Gallery) defaults() {
	if t.chains == 0 && t.iterations == 0 {
		t.chains, t.iterations, t.seed = int32(runtime.NumCPU()), 20000, 1
	}
}

// Close stops the tool's run (the document is being replaced).
func (t *Gallery) Close() {
	if t.running() {
		t.run.job.Cancel()
	}
	t.thumbs.release()
	t.closed = true
}

// running reports whether a run is going on.
func (t *Gallery) running() bool { return t.run != nil && !t.run.finished }

// setScenario picks scenario i.
func (t *Gallery) setScenario(h tools.Host, i int) {
	if i == t.scenario {
		return
	}
	t.scenario, t.weights = i, nil
	t.edited(h)
}

// edited records an edit of the constraints: the viewport shows the
// scenario's setup with them once it is recorded.
func (t *Gallery) edited(h tools.Host) {
	t.setupAsked, t.setupStale = true, true
	t.recordSetup(h)
}

// recordSetup records the setup of the current settings on a job, unless
// one is already at work: edits that come meanwhile (a target dragged,
// bins painted) are coalesced into one more recording of the latest
// settings when it ends, so the window never waits for a simulation.
func (t *Gallery) recordSetup(h tools.Host) {
	if t.setupBusy || !t.setupStale {
		return
	}
	t.setupStale = false
	m, err := t.current().Model()
	if err != nil {
		return // shown in the panel, and refused by Start
	}
	t.setupBusy = true
	var setup *assets.RigidAnimation
	h.Jobs().Start("Gallery: "+scenarios[t.scenario].Name+" setup", func(context.Context, jobs.Reporter) error {
		var err error
		setup, err = m.Setup(fps)
		return err
	}, func(err error) {
		t.setupBusy = false
		switch {
		case t.closed:
		case t.setupStale:
			t.recordSetup(h)
		case err != nil:
			h.Error(err)
		default:
			t.setup, t.chosen = setup, nil
			t.show(h, setup, false)
		}
	})
}

// show puts anim in the viewport (nil: the document's scene).
func (t *Gallery) show(h tools.Host, anim *assets.RigidAnimation, play bool) {
	t.want = anim
	if err := h.ShowAnimation(anim, play); err != nil {
		t.want = nil
		h.Error(err)
	}
}

// start checks the settings and starts a run; bad settings are reported
// with h.Error and start nothing.
func (t *Gallery) start(h tools.Host) {
	t.defaults()
	if t.running() {
		return
	}
	if err := t.check(); err != nil {
		h.Error(err)
		return
	}
	s := t.current()
	m, err := s.Model()
	if err != nil {
		h.Error(fmt.Errorf("%s: %w", scenarios[t.scenario].Name, err))
		return
	}
	weights := t.weights
	if len(weights) != len(m.Weights) {
		weights = m.Weights
	}
	seeds := make([]uint64, t.chains)
	for i := range seeds {
		seeds[i] = uint64(t.seed) + uint64(i)
	}
	g, err := m.Gallery(weights, seeds, int(t.iterations))
	if err != nil {
		h.Error(fmt.Errorf("%s: %w", scenarios[t.scenario].Name, err))
		return
	}
	raw, err := json.Marshal(s)
	if err != nil {
		h.Error(err)
		return
	}
	r := &run{gallery: g, scenario: scenarios[t.scenario].Name, settings: raw, iterations: int(t.iterations)}
	t.run, t.snap, t.seen, t.unsatisfied = r, nil, 0, nil
	r.start(h.Jobs(), func() { t.finished(h, r) })
}

// check validates the chain settings.
func (t *Gallery) check() error {
	switch {
	case t.chains < 1:
		return fmt.Errorf("gallery: %d chains, want at least 1", t.chains)
	case t.chains > 1024:
		return fmt.Errorf("gallery: %d chains, want at most 1024", t.chains)
	case t.iterations < 1:
		return fmt.Errorf("gallery: %d iterations, want at least 1", t.iterations)
	}
	return nil
}

// stop cancels the run; what it found stays.
func (t *Gallery) stop() {
	if t.running() {
		t.run.job.Cancel()
	}
}

// finished runs on the UI thread when r's job ends: it takes the last
// snapshot, reports an error, and names the chains that never satisfied
// the constraints.
func (t *Gallery) finished(h tools.Host, r *run) {
	if r != t.run {
		return
	}
	t.take()
	if r.err != nil {
		h.Error(fmt.Errorf("gallery: %w", r.err))
	}
	if t.snap == nil || !t.snap.final {
		return
	}
	for c, st := range t.snap.stats {
		if st.FirstSatisfied < 0 {
			t.unsatisfied = append(t.unsatisfied, fmt.Sprintf("chain %d never satisfied the constraints in %d iterations", c+1, st.Iterations))
		}
	}
	h.Info("Gallery: %d chains of %d iterations, %d distinct satisfying samples", len(t.snap.stats), r.iterations, len(t.snap.samples))
	if trace {
		fmt.Fprintf(os.Stderr, "gallery: finished, %d samples\n", len(t.snap.samples))
	}
}

// take makes the run's latest snapshot the one shown.
func (t *Gallery) take() {
	if t.run == nil {
		return
	}
	snap, seq := t.run.latest.Load()
	if snap != nil && seq != t.seen {
		t.snap, t.seen = snap, seq
	}
}

// Update implements panels.Tool: take the run's latest snapshot and keep
// the tool's animation in the viewport.
func (t *Gallery) Update(h tools.Host) {
	t.defaults()
	if !t.setupAsked {
		t.edited(h)
	}
	if t.want != nil && h.ShownAnimation() != t.want {
		t.show(h, t.want, false)
	}
	t.take()
	if trace && time.Since(t.traceAt) >= time.Second {
		t.traceAt = time.Now()
		if t.snap != nil {
			fmt.Fprintf(os.Stderr, "gallery: %d of %d iterations, %d samples, %d thumbnails\n", t.snap.done, t.snap.total, len(t.snap.samples), t.thumbs.ready)
		}
		t.marks.Print(os.Stderr, "gallery")
	}
}

// play shows sample s in the viewport and plays it on the timeline.
func (t *Gallery) play(h tools.Host, s *sample) {
	t.chosen = s
	t.show(h, s.Anim, true)
	if trace {
		fmt.Fprintf(os.Stderr, "gallery: playing chain %d iteration %d (%d frames)\n", s.Chain+1, s.Iteration, s.Anim.NumFrames())
	}
}

// playFavourite replays favourite i (a simulation, on a job) and plays it.
func (t *Gallery) playFavourite(h tools.Host, i int) {
	f := t.favourites[i]
	var s *sample
	h.Jobs().Start("Gallery: replaying "+f.label(), func(context.Context, jobs.Reporter) error {
		var err error
		s, err = f.replay()
		return err
	}, func(err error) {
		switch {
		case t.closed:
		case err != nil:
			h.Error(err)
		default:
			t.play(h, s)
		}
	})
}

// replay records the favourite with the settings it was sampled with.
func (f *favourite) replay() (*sample, error) {
	k := scenarioIndex(f.Scenario)
	if k < 0 {
		return nil, fmt.Errorf("favourite %s: unknown scenario %q", f.label(), f.Scenario)
	}
	s := scenarios[k].New()
	if err := json.Unmarshal(f.Settings, s); err != nil {
		return nil, fmt.Errorf("favourite %s: settings: %w", f.label(), err)
	}
	m, err := s.Model()
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.label(), err)
	}
	anim, err := m.Replay(f.State, fps)
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.label(), err)
	}
	anim.Name = fmt.Sprintf("%s chain %d iteration %d", anim.Name, f.Chain+1, f.Iteration)
	scene, err := viewport.NewRigidScene(anim)
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.label(), err)
	}
	smp := &sample{State: f.State, Anim: anim, Scene: scene}
	smp.Chain, smp.Iteration, smp.LogP = f.Chain, f.Iteration, f.LogP
	return smp, nil
}

// scenarioIndex returns the index of the scenario called name, or -1.
func scenarioIndex(name string) int {
	for i, s := range scenarios {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// favouriteOf returns the index of the favourite that is sample s of the
// current run, or -1.
func (t *Gallery) favouriteOf(s *sample) int {
	if t.run == nil {
		return -1
	}
	for i, f := range t.favourites {
		if f.Scenario == t.run.scenario && string(f.Settings) == string(t.run.settings) && f.Chain == s.Chain && f.Iteration == s.Iteration {
			return i
		}
	}
	return -1
}

// toggleFavourite stars sample s of the current run, or unstars it.
func (t *Gallery) toggleFavourite(s *sample) {
	if i := t.favouriteOf(s); i >= 0 {
		t.favourites = append(t.favourites[:i:i], t.favourites[i+1:]...)
		return
	}
	t.favourites = append(t.favourites, favourite{Scenario: t.run.scenario, Settings: t.run.settings,
		Chain: s.Chain, Iteration: s.Iteration, LogP: s.LogP, State: s.State})
}

// export asks where to save the sample played and writes it as glTF.
func (t *Gallery) export(h tools.Host) {
	s := t.chosen
	if s == nil {
		h.Error(errors.New("gallery: click a thumbnail (or play a favourite) to choose the sample to export"))
		return
	}
	name := fmt.Sprintf("sample-chain%d-iteration%d.glb", s.Chain+1, s.Iteration)
	h.SaveFile("Export sample as glTF", []string{"glb", "gltf"}, name, func(path string) {
		if err := assets.SaveRigidGLTF(path, s.Anim); err != nil {
			h.Error(err)
			return
		}
		h.Info("Wrote %s", path)
	})
}

// Viewport implements panels.Tool: while the viewport shows the tool's
// scenario, its settings take the mouse (the 2D ball's target drag).
func (t *Gallery) Viewport(h tools.Host, in *viewport.Input) {
	if t.want == nil || h.ShownAnimation() != t.want {
		return
	}
	if t.current().Viewport(h.View(), in) {
		t.edited(h)
	}
}

// Markers implements panels.Tool: none.
func (t *Gallery) Markers(tools.Host) []viewport.PointSet { return nil }

// Display implements panels.Tool: the document's objects as they are.
func (t *Gallery) Display(tools.Host) ([]assets.Vec3, [][3]float32) { return nil, nil }

// Shortcut implements panels.Tool: the tool has no keys of its own.
func (t *Gallery) Shortcut(tools.Host, panels.Key) bool { return false }

var _ panels.Tool = (*Gallery)(nil)
