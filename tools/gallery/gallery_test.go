package gallery

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
	"gallop/tools/toolstest"
)

// finish waits for the tool's jobs to end and runs their completions
// on this (the UI) goroutine, then a frame of the window.
func finish(t *testing.T, g *Gallery, h *toolstest.Host) {
	t.Helper()
	h.Runner.Wait()
	g.Update(h)
	if g.Running() {
		t.Fatal("the run is still going after its job ended")
	}
}

// started returns a tool that has run the 2D ball with two chains of 2000
// iterations.
func started(t *testing.T) (*Gallery, *toolstest.Host) {
	t.Helper()
	h := toolstest.New(nil)
	g := &Gallery{}
	// The setup is recorded on a job: a frame asks for it, and shows it
	// once the job ended.
	g.Update(h)
	h.Runner.Wait()
	if h.Shown == nil || h.Playing {
		t.Fatalf("the tool shows %v (playing %v), want the 2D ball's setup, still", h.Shown, h.Playing)
	}
	g.Chains, g.Iterations, g.Seed = 2, 2000, 1
	g.Start(h)
	if !g.Running() || len(h.Errs) > 0 {
		t.Fatalf("not running after Start; errors %v", h.Errs)
	}
	finish(t, g, h)
	if len(h.Errs) > 0 {
		t.Fatalf("errors %v", h.Errs)
	}
	return g, h
}

// TestRunPlayExport drives the tool as the artist does: Start on the 2D
// ball, the gallery fills with distinct satisfying samples, a click plays
// one in the viewport, Export writes it as a glTF file the validator
// accepts, Back to scene shows the document again.
func TestRunPlayExport(t *testing.T) {
	g, h := started(t)
	defer g.Close()
	snap := g.Snapshot()
	if snap == nil || !snap.Final || snap.Done != snap.Total || snap.Total != 4000 {
		t.Fatalf("final snapshot %+v", snap)
	}
	if len(snap.Samples) < 5 {
		t.Fatalf("%d samples in the gallery, want at least 5", len(snap.Samples))
	}
	if len(snap.Lines) != 2 || len(snap.Lines[0].Iteration) > plotPoints || len(snap.Lines[0].Iteration) < plotPoints/2 {
		t.Fatalf("plot lines: %d chains, %d points", len(snap.Lines), len(snap.Lines[0].Iteration))
	}
	if last := snap.Lines[0].Iteration; last[len(last)-1] != 2000 {
		t.Errorf("the plot ends at iteration %v, want 2000", last[len(last)-1])
	}
	if len(g.Unsatisfied()) > 0 {
		t.Errorf("unsatisfied chains: %v", g.Unsatisfied())
	}
	b := plausible.NewBall2D()
	for _, s := range snap.Samples {
		ball := s.Anim.Bodies[0].Positions
		x := ball[len(ball)-1][0] / plausible.Ball2DDiameter
		if d := x - b.Target; d < -b.Tolerance || d > b.Tolerance {
			t.Errorf("sample chain %d iteration %d lands at %.3f D, off the target", s.Chain+1, s.Iteration, x)
		}
	}

	s := snap.Samples[1]
	g.Play(h, s)
	if h.Shown != s.Anim || !h.Playing || g.chosen != s {
		t.Fatalf("after a click the viewport shows %v (playing %v)", h.Shown, h.Playing)
	}
	h.SavePath = filepath.Join(t.TempDir(), "sample.glb")
	g.Export(h)
	if len(h.Errs) > 0 {
		t.Fatalf("export: %v", h.Errs)
	}
	objs, err := assets.LoadGLTF(h.SavePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(s.Anim.Bodies)+len(s.Anim.Static) || objs[0].NumFrames() != s.Anim.NumFrames() {
		t.Errorf("the exported file has %d objects, %d frames; want %d, %d", len(objs), objs[0].NumFrames(), len(s.Anim.Bodies)+len(s.Anim.Static), s.Anim.NumFrames())
	}

	g.show(h, nil, false)
	g.Update(h)
	if h.Shown != nil {
		t.Error("Back to scene still shows an animation")
	}
	gltftest.Validate(t, h.SavePath)
}

// TestFavouritesRoundTrip stars two samples, saves the state as a project
// does, restores it into a new tool and replays a favourite: the same
// animation. Unstarring removes one.
func TestFavouritesRoundTrip(t *testing.T) {
	g, h := started(t)
	defer g.Close()
	a, b := g.Snapshot().Samples[0], g.Snapshot().Samples[2]
	g.ToggleFavourite(a)
	g.ToggleFavourite(b)
	if g.favouriteOf(a) != 0 || g.favouriteOf(b) != 1 {
		t.Fatalf("favourites %v", g.favourites)
	}
	raw, err := g.State()
	if err != nil {
		t.Fatal(err)
	}
	q := &Gallery{}
	if err := q.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	raw2, err := q.State()
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) != string(raw2) {
		t.Errorf("state changed in a round trip:\n%s\n%s", raw, raw2)
	}
	q.PlayFavourite(h, 1)
	h.Runner.Wait() // the replay's job
	if len(h.Errs) > 0 || h.Shown == nil {
		t.Fatalf("replaying a favourite: %v", h.Errs)
	}
	want, got := b.Anim.Bodies[0].Positions, h.Shown.Bodies[0].Positions
	if len(got) != len(want) || got[len(got)-1] != want[len(want)-1] {
		t.Errorf("the favourite replays to %v, was %v", got[len(got)-1], want[len(want)-1])
	}
	g.ToggleFavourite(a)
	if len(g.favourites) != 1 || g.favouriteOf(b) != 0 {
		t.Errorf("after unstarring: %v", g.favourites)
	}
}

// TestBadSettings: zero chains, no iterations, a bad σ_d and zero weights
// are reported and start nothing; an unknown scenario in a project is an
// error.
func TestBadSettings(t *testing.T) {
	cases := []struct {
		set  func(g *Gallery)
		want string
	}{
		{func(g *Gallery) { g.Chains = 0 }, "0 chains"},
		{func(g *Gallery) { g.Iterations = 0 }, "0 iterations"},
		{func(g *Gallery) { g.Settings().(*Ball2DSettings).Sigma = -1 }, "σ_d = -1"},
		{func(g *Gallery) { g.Settings().(*Ball2DSettings).Tolerance = 0 }, "tolerance 0"},
		{func(g *Gallery) { g.Weights = []float64{0} }, "weight is 0"},
	}
	for _, c := range cases {
		h := toolstest.New(nil)
		g := &Gallery{}
		g.Update(h)
		c.set(g)
		g.Start(h)
		if g.cur() != nil || len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), c.want) {
			t.Errorf("want one error containing %q, got %v (run started: %v)", c.want, h.Errs, g.cur() != nil)
		}
	}
	for raw, want := range map[string]string{
		`{"scenario": "Pinball"}`: `unknown scenario "Pinball"`,
		`{"scenario": "2D ball", "settings": {"2D ball": {"Sigma": "wide"}}}`: "2D ball settings",
		`not json`: "gallery tool state",
	} {
		if err := (&Gallery{}).Restore(toolstest.New(nil), json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", raw, err, want)
		}
	}
}

// TestNeverSatisfied: a target out of reach gives one line per chain
// saying it never satisfied the constraints.
func TestNeverSatisfied(t *testing.T) {
	h := toolstest.New(nil)
	g := &Gallery{}
	g.Update(h)
	g.Settings().(*Ball2DSettings).Target = 500
	g.Chains, g.Iterations = 3, 50
	g.Start(h)
	finish(t, g, h)
	if len(g.Unsatisfied()) != 3 || g.Unsatisfied()[2] != "chain 3 never satisfied the constraints in 50 iterations" {
		t.Errorf("unsatisfied lines %q", g.Unsatisfied())
	}
}

// TestStop: Stop ends a long run early and keeps what it found.
func TestStop(t *testing.T) {
	h := toolstest.New(nil)
	g := &Gallery{}
	g.Update(h)
	g.Chains, g.Iterations = 2, 100_000_000
	g.Start(h)
	for g.Update(h); g.Snapshot() == nil || g.Snapshot().Done == 0; g.Update(h) {
		time.Sleep(2 * time.Millisecond) // until the first snapshot with progress
	}
	g.Stop()
	finish(t, g, h)
	if len(h.Errs) > 0 {
		t.Errorf("a stopped run reported %v", h.Errs)
	}
	if g.Snapshot() == nil || g.Snapshot().Done == 0 || g.Snapshot().Done >= g.Snapshot().Total {
		t.Errorf("snapshot after Stop: %+v", g.Snapshot())
	}
}

// TestRecordingFailureStopsChains: when a sample cannot be recorded the
// chains stop at once (not after their remaining iterations) and the run
// reports the error.
func TestRecordingFailureStopsChains(t *testing.T) {
	h := toolstest.New(nil)
	g := &Gallery{record: func(plausible.Entry, float64) (*assets.RigidAnimation, error) {
		return nil, errors.New("test: the recorder failed")
	}}
	g.Update(h)
	g.Chains, g.Iterations = 2, 1_000_000_000 // hours of sampling if it did not stop
	g.Start(h)
	finish(t, g, h)
	if len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), "the recorder failed") {
		t.Fatalf("errors %v; want the recording's", h.Errs)
	}
	if snap := g.Snapshot(); snap != nil && snap.Done >= snap.Total {
		t.Errorf("the chains ran all %d iterations after the recording failed", snap.Total)
	}
}

// panicky is the 2D ball with a simulator that panics after a few calls:
// a bug in a scenario.
type panicky struct {
	*plausible.Ball2D
	calls atomic.Int32
}

func (p *panicky) Simulate(s plausible.Ball2DState) (plausible.Ball2DOutcome, error) {
	if p.calls.Add(1) > 100 {
		panic("test: a simulator bug")
	}
	return p.Ball2D.Simulate(s)
}

// TestChainPanicIsReported: a panic inside the sampling (in a chain's
// goroutine) ends the run with an error naming it; the process lives.
func TestChainPanicIsReported(t *testing.T) {
	h := toolstest.New(nil)
	sc := &panicky{Ball2D: plausible.NewBall2D()}
	pg, err := plausible.NewGallery(sc, []uint64{1, 2}, 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{gallery: pg, scenario: "panicky", iterations: 1_000_000}
	r.start(&h.Runner, nil)
	h.Runner.Wait()
	if r.task.Err == nil || !strings.Contains(r.task.Err.Error(), "panic") || !strings.Contains(r.task.Err.Error(), "a simulator bug") {
		t.Fatalf("the run's error is %v; want the panic", r.task.Err)
	}
}

// TestRunGoroutinePanicIsReported: a panic on the run's own goroutine,
// outside any chain (where the chains' recovery cannot see it), ends the
// run with an error naming it; the process lives.
func TestRunGoroutinePanicIsReported(t *testing.T) {
	h := toolstest.New(nil)
	pg, err := plausible.NewGallery(plausible.NewBall2D(), []uint64{1}, 10)
	if err != nil {
		t.Fatal(err)
	}
	r := &run{gallery: pg, scenario: "ball", iterations: 10, chains: func(context.Context) ([]mcmc.Stats, error) {
		panic("test: a bug between the chains")
	}}
	r.start(&h.Runner, nil)
	h.Runner.Wait()
	if r.task.Err == nil || !strings.Contains(r.task.Err.Error(), "internal error in the chains") || !strings.Contains(r.task.Err.Error(), "a bug between the chains") {
		t.Fatalf("the run's error is %v; want the panic", r.task.Err)
	}
}

// TestScenarioSettings checks every scenario of the picker: its defaults
// make a model whose setup validates, its settings survive the project's
// JSON, and a bad log λ is refused.
func TestScenarioSettings(t *testing.T) {
	for _, sc := range scenarios {
		s := sc.New()
		m, err := s.Model()
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		a, err := m.Setup(30)
		if err != nil {
			t.Fatalf("%s: setup: %v", sc.Name, err)
		}
		if err := a.Validate(); err != nil {
			t.Fatalf("%s: setup: %v", sc.Name, err)
		}
		if len(m.Kernels) == 0 || len(m.Kernels) != len(m.Weights) {
			t.Errorf("%s: %d kernels, %d weights", sc.Name, len(m.Kernels), len(m.Weights))
		}
		raw, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back := sc.New()
		if err := json.Unmarshal(raw, back); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if _, err := back.Model(); err != nil {
			t.Errorf("%s: settings read back: %v", sc.Name, err)
		}
		if ll := back.LogLambda(); ll != nil {
			*ll = 0
			if _, err := back.Model(); err == nil {
				t.Errorf("%s: log λ = 0 (λ = 1) accepted", sc.Name)
			}
		}
	}
}

// TestItem8ScenarioSwitchShowsItsOwnGallery (issue 10, item 8): after a
// run of the 2D ball, switching to Spell shows no thumbnails, progress or
// plots of the 2D ball's run (they used to stay until Start); switching
// back shows the 2D ball's gallery again.
func TestItem8ScenarioSwitchShowsItsOwnGallery(t *testing.T) {
	g, h := started(t)
	defer g.Close()
	ball := g.Snapshot()
	if ball == nil || len(ball.Samples) == 0 {
		t.Fatal("no gallery after the 2D ball's run")
	}
	spell := slices.Index(ScenarioNames(), "Spell")
	g.SetScenario(h, spell)
	if snap := g.Snapshot(); snap != nil || g.PlotLabel() != "" || g.Unsatisfied() != nil || g.Running() {
		t.Fatalf("Spell shows the 2D ball's run: snapshot %v, plot %q", snap != nil, g.PlotLabel())
	}
	g.SetScenario(h, 0)
	if g.Snapshot() != ball {
		t.Error("back on the 2D ball, its gallery is gone")
	}
}

// TestItem7ThumbnailsKeepTheirPlace (issue 10, item 7): while chains run,
// every snapshot keeps the samples shown before in the same places, so a
// click lands on the sample that was under the mouse.
func TestItem7ThumbnailsKeepTheirPlace(t *testing.T) {
	h := toolstest.New(nil)
	g := &Gallery{}
	g.Update(h)
	g.SetScenario(h, slices.Index(ScenarioNames(), "Spell"))
	sp := g.Settings().(*SpellSettings) // a "V" on 3 × 2 bins: many spellings, soon
	sp.Cols, sp.Rows, sp.Fill = 3, 2, []string{"x.x", ".x."}
	g.Edited(h)
	h.Runner.Wait()
	g.Chains, g.Iterations, g.Seed = 2, 3000, 1
	g.Start(h)
	place := map[*Sample]int{}
	snapshots, moved := 0, 0
	var last *Snapshot
	for g.Running() {
		time.Sleep(20 * time.Millisecond)
		h.Runner.Poll()
		g.Update(h)
		snap := g.Snapshot()
		if snap == nil || snap == last {
			continue
		}
		last = snap
		snapshots++
		for i, s := range snap.Samples {
			if p, ok := place[s]; ok && p != i {
				moved++
			}
			place[s] = i
		}
	}
	t.Logf("%d snapshots, %d samples shown", snapshots, len(place))
	if snapshots < 3 || len(place) < 5 {
		t.Fatalf("%d snapshots of %d samples: too few to tell", snapshots, len(place))
	}
	if moved > 0 {
		t.Errorf("%d times a shown sample moved to another place", moved)
	}
}
