// Package gallery is the model of the Gallery tool: Chenney and
// Forsyth's "Sampling Plausible Solutions to Multi-body Constraint
// Problems" (2000) on the document; its panel is panels/gallerypanel. The artist picks a scenario and sets its constraints (the 2D
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
	"runtime"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/plausible"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// Gallery is the Gallery tool's model. Its zero value is ready to use:
// the first scenario with its defaults, one chain per CPU. Every method
// runs on the UI thread.
type Gallery struct {
	// Chains, Iterations and Seed are the next run's chain settings (0
	// chains and iterations: not set yet, the defaults); the panel edits
	// them in place.
	Chains, Iterations, Seed int32
	// Weights are the proposal weights of the scenario's kernels (nil or
	// of another length: its defaults).
	Weights []float64
	// Farm holds the runs on the farm (RunOnFarm) and the next one's
	// settings.
	Farm farmrun.Jobs

	scenario int        // index into scenarios
	settings []Settings // per scenario, made when first used

	// runs holds each scenario's running or last run (nil: none), so that
	// switching scenario shows that scenario's gallery, not another's.
	runs []*run

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
	chosen                            *Sample // the sample played, which Export writes

	favourites []Favourite

	// record, when set, records the runs' samples instead of the
	// scenario's own recording (tests make it fail).
	record func(e plausible.Entry, fps float64) (*assets.RigidAnimation, error)
}

// Favourite is a sample the artist starred: enough to replay it in any
// later session (its scenario, the settings it was sampled with and its
// state), and where it came from.
type Favourite struct {
	Scenario  string          `json:"scenario"`
	Settings  json.RawMessage `json:"settings"`
	Chain     int             `json:"chain"` // 0-based
	Iteration int             `json:"iteration"`
	LogP      float64         `json:"log_p"`
	State     json.RawMessage `json:"state"`
}

// Label names a favourite in the panel.
func (f *Favourite) Label() string {
	return fmt.Sprintf("%s: chain %d, iteration %s", f.Scenario, f.Chain+1, words.Int(f.Iteration))
}

// Settings returns the settings of the chosen scenario, for the panel to
// edit (then call Edited).
func (t *Gallery) Settings() Settings {
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
	if t.Chains == 0 && t.Iterations == 0 {
		t.Chains, t.Iterations, t.Seed = int32(runtime.NumCPU()), 20000, 1
	}
}

// Close stops the tool's run (the document is being replaced) and the
// following of its farm runs (see farmrun.Jobs.Close).
func (t *Gallery) Close() {
	t.Farm.Close()
	for _, r := range t.runs {
		if r != nil {
			r.task.Cancel()
		}
	}
	t.closed = true
}

// Running reports whether a run is going on.
func (t *Gallery) Running() bool { r := t.cur(); return r != nil && r.task.Running() }

// cur returns the chosen scenario's running or last run, or nil.
func (t *Gallery) cur() *run {
	if t.scenario < len(t.runs) {
		return t.runs[t.scenario]
	}
	return nil
}

// Scenario returns the index of the chosen scenario in ScenarioNames.
func (t *Gallery) Scenario() int { return t.scenario }

// SetScenario picks scenario i (an index into ScenarioNames).
func (t *Gallery) SetScenario(h tools.Host, i int) {
	if i == t.scenario || i < 0 || i >= len(scenarios) {
		return
	}
	t.scenario, t.Weights = i, nil
	t.Edited(h)
}

// Edited records an edit of the constraints: the viewport shows the
// scenario's setup with them once it is recorded.
func (t *Gallery) Edited(h tools.Host) {
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
	m, err := t.Settings().Model()
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

// Start checks the settings and starts a run; bad settings are reported
// with h.Error and start nothing.
func (t *Gallery) Start(h tools.Host) {
	t.defaults()
	if t.Running() {
		return
	}
	if err := t.check(); err != nil {
		h.Error(err)
		return
	}
	s := t.Settings()
	m, err := s.Model()
	if err != nil {
		h.Error(fmt.Errorf("%s: %w", scenarios[t.scenario].Name, err))
		return
	}
	weights := t.Weights
	if len(weights) != len(m.Weights) {
		weights = m.Weights
	}
	seeds := make([]uint64, t.Chains)
	for i := range seeds {
		seeds[i] = uint64(t.Seed) + uint64(i)
	}
	g, err := m.Gallery(weights, seeds, int(t.Iterations))
	if err != nil {
		h.Error(fmt.Errorf("%s: %w", scenarios[t.scenario].Name, err))
		return
	}
	raw, err := json.Marshal(s)
	if err != nil {
		h.Error(err)
		return
	}
	r := &run{gallery: g, scenario: scenarios[t.scenario].Name, settings: raw, iterations: int(t.Iterations), record: t.record}
	if len(t.runs) != len(scenarios) {
		t.runs = make([]*run, len(scenarios))
	}
	t.runs[t.scenario] = r
	r.start(h.Jobs(), func() { t.finished(h, r) })
}

// check validates the chain settings.
func (t *Gallery) check() error {
	switch {
	case t.Chains < 1:
		return fmt.Errorf("gallery: %d chains, want at least 1", t.Chains)
	case t.Chains > 1024:
		return fmt.Errorf("gallery: %d chains, want at most 1024", t.Chains)
	case t.Iterations < 1:
		return fmt.Errorf("gallery: %d iterations, want at least 1", t.Iterations)
	}
	return nil
}

// Stop cancels the chosen scenario's run; what it found stays.
func (t *Gallery) Stop() {
	if r := t.cur(); r != nil {
		r.task.Cancel()
	}
}

// finished runs on the UI thread when r's job ends: it reports an error
// and names the chains that never satisfied the constraints.
func (t *Gallery) finished(h tools.Host, r *run) {
	if t.closed {
		return
	}
	if r.task.Err != nil {
		h.Error(fmt.Errorf("gallery: %w", r.task.Err))
	}
	snap := r.task.Shown()
	if snap == nil || !snap.Final {
		return
	}
	for c, st := range snap.Stats {
		if st.FirstSatisfied < 0 {
			r.unsatisfied = append(r.unsatisfied, fmt.Sprintf("chain %d never satisfied the constraints in %s", c+1, words.Count(st.Iterations, "iteration", "iterations")))
		}
	}
	h.Info("Gallery: %s of %s, %s", words.Count(len(snap.Stats), "chain", "chains"), words.Count(r.iterations, "iteration", "iterations"), words.Count(len(snap.Samples), "distinct satisfying sample", "distinct satisfying samples"))
}

// Snapshot returns the latest snapshot of the running or last run (nil
// before its first).
func (t *Gallery) Snapshot() *Snapshot {
	r := t.cur()
	if r == nil {
		return nil
	}
	return r.task.Shown()
}

// RunError returns the last run's error (nil while it runs, when it
// succeeded or was cancelled).
func (t *Gallery) RunError() error {
	r := t.cur()
	if r == nil {
		return nil
	}
	return r.task.Err
}

// PlotLabel names the scenario's plotted value ("" when it plots none).
func (t *Gallery) PlotLabel() string {
	r := t.cur()
	if r == nil || r.gallery == nil {
		return ""
	}
	return r.gallery.PlotLabel()
}

// Unsatisfied names the chains of the last run that never satisfied the
// constraints, a line each.
func (t *Gallery) Unsatisfied() []string {
	if r := t.cur(); r != nil {
		return r.unsatisfied
	}
	return nil
}

// Chosen returns the sample played, which Export writes (nil: none).
func (t *Gallery) Chosen() *Sample { return t.chosen }

// ShowingScene reports whether the viewport shows the tool's own scene
// (the scenario's setup or a sample) rather than the document's.
func (t *Gallery) ShowingScene() bool { return t.want != nil }

// EditsInViewport reports whether the viewport shows the tool's scene
// now, so that the scenario's constraints may be edited there.
func (t *Gallery) EditsInViewport(h tools.Host) bool {
	return t.want != nil && h.ShownAnimation() == t.want
}

// BackToScene shows the document's scene again.
func (t *Gallery) BackToScene(h tools.Host) { t.show(h, nil, false) }

// Update runs once per UI frame: take the run's latest snapshot and keep
// the tool's animation in the viewport.
func (t *Gallery) Update(h tools.Host) {
	t.defaults()
	if !t.setupAsked {
		t.Edited(h)
	}
	if t.want != nil && h.ShownAnimation() != t.want {
		t.show(h, t.want, false)
	}
	for _, r := range t.runs {
		if r != nil {
			r.task.Take()
		}
	}
}

// Play shows sample s in the viewport and plays it on the timeline.
func (t *Gallery) Play(h tools.Host, s *Sample) {
	t.chosen = s
	t.show(h, s.Anim, true)
}

// PlayFavourite replays favourite i (a simulation, on a job) and plays it.
func (t *Gallery) PlayFavourite(h tools.Host, i int) {
	f := t.favourites[i]
	var s *Sample
	h.Jobs().Start("Gallery: replaying "+f.Label(), func(context.Context, jobs.Reporter) error {
		var err error
		s, err = f.replay()
		return err
	}, func(err error) {
		switch {
		case t.closed:
		case err != nil:
			h.Error(err)
		default:
			t.Play(h, s)
		}
	})
}

// replay records the favourite with the settings it was sampled with.
func (f *Favourite) replay() (*Sample, error) {
	k := scenarioIndex(f.Scenario)
	if k < 0 {
		return nil, fmt.Errorf("favourite %s: unknown scenario %q", f.Label(), f.Scenario)
	}
	s := scenarios[k].New()
	if err := json.Unmarshal(f.Settings, s); err != nil {
		return nil, fmt.Errorf("favourite %s: settings: %w", f.Label(), err)
	}
	m, err := s.Model()
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.Label(), err)
	}
	anim, err := m.Replay(f.State, fps)
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.Label(), err)
	}
	smp, err := newSample(plausible.Entry{Chain: f.Chain, Iteration: f.Iteration, LogP: f.LogP}, f.State, anim)
	if err != nil {
		return nil, fmt.Errorf("favourite %s: %w", f.Label(), err)
	}
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
func (t *Gallery) favouriteOf(s *Sample) int {
	r := t.cur()
	if r == nil {
		return -1
	}
	for i, f := range t.favourites {
		if f.Scenario == r.scenario && string(f.Settings) == string(r.settings) && f.Chain == s.Chain && f.Iteration == s.Iteration {
			return i
		}
	}
	return -1
}

// IsFavourite reports whether sample s of the current run is starred.
func (t *Gallery) IsFavourite(s *Sample) bool { return t.favouriteOf(s) >= 0 }

// Favourites returns the starred samples.
func (t *Gallery) Favourites() []Favourite { return t.favourites }

// RemoveFavourite unstars favourite i.
func (t *Gallery) RemoveFavourite(i int) {
	if i >= 0 && i < len(t.favourites) {
		t.favourites = append(t.favourites[:i:i], t.favourites[i+1:]...)
	}
}

// ToggleFavourite stars sample s of the current run, or unstars it.
func (t *Gallery) ToggleFavourite(s *Sample) {
	if i := t.favouriteOf(s); i >= 0 {
		t.favourites = append(t.favourites[:i:i], t.favourites[i+1:]...)
		return
	}
	r := t.cur()
	if r == nil {
		return
	}
	t.favourites = append(t.favourites, Favourite{Scenario: r.scenario, Settings: r.settings,
		Chain: s.Chain, Iteration: s.Iteration, LogP: s.LogP, State: s.State})
}

// Export asks where to save the sample played and writes it as glTF.
func (t *Gallery) Export(h tools.Host) {
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
