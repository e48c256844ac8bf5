package gallery

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/jobs"
	"gallop/internal/undo"
	"gallop/solver/plausible"
	"gallop/viewport"
)

// host is a tools.Host without a window: no document object, a job runner
// polled by the test, the animation shown, and SaveFile answering with
// savePath.
type host struct {
	runner   jobs.Runner
	errs     []error
	shown    *assets.RigidAnimation
	playing  bool
	savePath string
}

func (h *host) Object() *assets.Object                  { return nil }
func (h *host) Positions() []assets.Vec3                { return nil }
func (h *host) Selection() []int                        { return nil }
func (h *host) SetSelection([]int)                      {}
func (h *host) Do(c undo.Command)                       { c.Do() }
func (h *host) Jobs() *jobs.Runner                      { return &h.runner }
func (h *host) View() *viewport.View                    { return viewport.NewView() }
func (h *host) Error(err error)                         { h.errs = append(h.errs, err) }
func (h *host) Info(string, ...any)                     {}
func (h *host) Frame() int                              { return 0 }
func (h *host) NumFrames() int                          { return 1 }
func (h *host) FPS() float64                            { return 30 }
func (h *host) OpenFile(string, []string, func(string)) {}
func (h *host) OpenFolder(string, func(string))         {}
func (h *host) SaveFile(_ string, _ []string, _ string, done func(string)) {
	if h.savePath != "" {
		done(h.savePath)
	}
}
func (h *host) ShownAnimation() *assets.RigidAnimation { return h.shown }
func (h *host) ShowAnimation(a *assets.RigidAnimation, play bool) error {
	if a != nil {
		if err := a.Validate(); err != nil {
			return err
		}
	}
	h.shown, h.playing = a, play
	return nil
}

// finish runs UI frames until the tool's run has ended.
func finish(t *testing.T, g *Gallery, h *host) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for g.running() {
		if time.Now().After(deadline) {
			t.Fatal("the run did not end in 30 s")
		}
		h.runner.Poll()
		g.Update(h)
		time.Sleep(5 * time.Millisecond)
	}
}

// started returns a tool that has run the 2D ball with two chains of 2000
// iterations.
func started(t *testing.T) (*Gallery, *host) {
	t.Helper()
	h := &host{}
	g := &Gallery{}
	// The setup is recorded on a job: run UI frames until it shows.
	deadline := time.Now().Add(10 * time.Second)
	for g.Update(h); h.shown == nil && time.Now().Before(deadline); g.Update(h) {
		time.Sleep(5 * time.Millisecond)
		h.runner.Poll()
	}
	if h.shown == nil || h.playing {
		t.Fatalf("the tool shows %v (playing %v), want the 2D ball's setup, still", h.shown, h.playing)
	}
	g.chains, g.iterations, g.seed = 2, 2000, 1
	g.start(h)
	if !g.running() || len(h.errs) > 0 {
		t.Fatalf("not running after Start; errors %v", h.errs)
	}
	finish(t, g, h)
	if len(h.errs) > 0 {
		t.Fatalf("errors %v", h.errs)
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
	snap := g.snap
	if snap == nil || !snap.final || snap.done != snap.total || snap.total != 4000 {
		t.Fatalf("final snapshot %+v", snap)
	}
	if len(snap.samples) < 5 {
		t.Fatalf("%d samples in the gallery, want at least 5", len(snap.samples))
	}
	if len(snap.lines) != 2 || len(snap.lines[0].Iteration) > plotPoints || len(snap.lines[0].Iteration) < plotPoints/2 {
		t.Fatalf("plot lines: %d chains, %d points", len(snap.lines), len(snap.lines[0].Iteration))
	}
	if last := snap.lines[0].Iteration; last[len(last)-1] != 2000 {
		t.Errorf("the plot ends at iteration %v, want 2000", last[len(last)-1])
	}
	if len(g.unsatisfied) > 0 {
		t.Errorf("unsatisfied chains: %v", g.unsatisfied)
	}
	b := plausible.NewBall2D()
	for _, s := range snap.samples {
		ball := s.Anim.Bodies[0].Positions
		x := ball[len(ball)-1][0] / plausible.Ball2DDiameter
		if d := x - b.Target; d < -b.Tolerance || d > b.Tolerance {
			t.Errorf("sample chain %d iteration %d lands at %.3f D, off the target", s.Chain+1, s.Iteration, x)
		}
	}

	s := snap.samples[1]
	g.play(h, s)
	if h.shown != s.Anim || !h.playing || g.chosen != s {
		t.Fatalf("after a click the viewport shows %v (playing %v)", h.shown, h.playing)
	}
	h.savePath = filepath.Join(t.TempDir(), "sample.glb")
	g.export(h)
	if len(h.errs) > 0 {
		t.Fatalf("export: %v", h.errs)
	}
	objs, err := assets.LoadGLTF(h.savePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != len(s.Anim.Bodies)+len(s.Anim.Static) || objs[0].NumFrames() != s.Anim.NumFrames() {
		t.Errorf("the exported file has %d objects, %d frames; want %d, %d", len(objs), objs[0].NumFrames(), len(s.Anim.Bodies)+len(s.Anim.Static), s.Anim.NumFrames())
	}

	g.show(h, nil, false)
	g.Update(h)
	if h.shown != nil {
		t.Error("Back to scene still shows an animation")
	}
	gltftest.Validate(t, h.savePath)
}

// TestFavouritesRoundTrip stars two samples, saves the state as a project
// does, restores it into a new tool and replays a favourite: the same
// animation. Unstarring removes one.
func TestFavouritesRoundTrip(t *testing.T) {
	g, h := started(t)
	defer g.Close()
	a, b := g.snap.samples[0], g.snap.samples[2]
	g.toggleFavourite(a)
	g.toggleFavourite(b)
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
	q.playFavourite(h, 1)
	h.runner.Wait() // the replay's job
	if len(h.errs) > 0 || h.shown == nil {
		t.Fatalf("replaying a favourite: %v", h.errs)
	}
	want, got := b.Anim.Bodies[0].Positions, h.shown.Bodies[0].Positions
	if len(got) != len(want) || got[len(got)-1] != want[len(want)-1] {
		t.Errorf("the favourite replays to %v, was %v", got[len(got)-1], want[len(want)-1])
	}
	g.toggleFavourite(a)
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
		{func(g *Gallery) { g.chains = 0 }, "0 chains"},
		{func(g *Gallery) { g.iterations = 0 }, "0 iterations"},
		{func(g *Gallery) { g.current().(*ball2D).Sigma = -1 }, "σ_d = -1"},
		{func(g *Gallery) { g.current().(*ball2D).Tolerance = 0 }, "tolerance 0"},
		{func(g *Gallery) { g.weights = []float64{0} }, "weight is 0"},
	}
	for _, c := range cases {
		h := &host{}
		g := &Gallery{}
		g.Update(h)
		c.set(g)
		g.start(h)
		if g.run != nil || len(h.errs) != 1 || !strings.Contains(h.errs[0].Error(), c.want) {
			t.Errorf("want one error containing %q, got %v (run started: %v)", c.want, h.errs, g.run != nil)
		}
	}
	for raw, want := range map[string]string{
		`{"scenario": "Pinball"}`: `unknown scenario "Pinball"`,
		`{"scenario": "2D ball", "settings": {"2D ball": {"Sigma": "wide"}}}`: "2D ball settings",
		`not json`: "gallery tool state",
	} {
		if err := (&Gallery{}).Restore(&host{}, json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", raw, err, want)
		}
	}
}

// TestNeverSatisfied: a target out of reach gives one line per chain
// saying it never satisfied the constraints.
func TestNeverSatisfied(t *testing.T) {
	h := &host{}
	g := &Gallery{}
	g.Update(h)
	g.current().(*ball2D).Target = 500
	g.chains, g.iterations = 3, 50
	g.start(h)
	finish(t, g, h)
	if len(g.unsatisfied) != 3 || g.unsatisfied[2] != "chain 3 never satisfied the constraints in 50 iterations" {
		t.Errorf("unsatisfied lines %q", g.unsatisfied)
	}
}

// TestStop: Stop ends a long run early and keeps what it found.
func TestStop(t *testing.T) {
	h := &host{}
	g := &Gallery{}
	g.Update(h)
	g.chains, g.iterations = 2, 100_000_000
	g.start(h)
	time.Sleep(600 * time.Millisecond)
	h.runner.Poll()
	g.Update(h)
	g.stop()
	finish(t, g, h)
	if len(h.errs) > 0 {
		t.Errorf("a stopped run reported %v", h.errs)
	}
	if g.snap == nil || g.snap.done == 0 || g.snap.done >= g.snap.total {
		t.Errorf("snapshot after Stop: %+v", g.snap)
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
