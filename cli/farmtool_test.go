package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gallop/assets"
	"gallop/internal/shareddata"
	tens "gallop/tools/ensemble"
	"gallop/tools/farmrun"
	"gallop/tools/gallery"
	tsynth "gallop/tools/synth"
	"gallop/tools/toolstest"
)

// TestSynthToolOnFarm: the Synthesize tool's Run on farm (the local
// engine, this test binary standing for gallop) fills the gallery with the
// clips its own Analyse and Generate make from the same settings, targets
// and obstacles: the same seeds and splices, and the same poses to float32
// (the clips come back through skinned glTF).
func TestSynthToolOnFarm(t *testing.T) {
	files, err := assets.ListOBJSequence(filepath.Join(shareddata.Path(t, "pcow"), "frames"))
	if err != nil {
		t.Fatal(err)
	}
	mesh, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	clip.FPS = 24 // not the OBJ frames' default: --fps carries it
	obj := &assets.Object{Name: "pcow", Mesh: mesh, Clip: clip}
	setup := func(tool *tsynth.Synth, h *toolstest.Host) {
		tool.Update(h)
		tool.Settings.Count, tool.Settings.Seconds, tool.Settings.Seed = 3, 3, 5
		// pcow's default graph (a dozen transitions) has no walk that
		// keeps these seeds off the plane; 4 steps gives room.
		tool.Settings.Threshold = 4
		tool.AddTarget(h, 10, 40)
		tool.AddPlane(h)
	}

	h := toolstest.New(obj)
	local := &tsynth.Synth{}
	setup(local, h)
	local.Analyse(h)
	h.Runner.Wait()
	local.Generate(h)
	h.Runner.Wait()
	local.Update(h)
	want := local.Gallery()
	if want == nil || want.Made() != 3 || len(h.Errs) > 0 {
		t.Fatalf("the tool's own generation: %v", h.Errs)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GALLOP_CLI_MAIN", "1")
	farmed := &tsynth.Synth{}
	setup(farmed, h)
	farmed.Farm = farmrun.Jobs{Parent: t.TempDir(), Exe: exe, Settings: farmrun.Settings{Engine: "local", Shards: 2}}
	farmed.RunOnFarm(h)
	h.Runner.Wait()
	farmed.Update(h)
	j := farmed.Farm.List()[0]
	got := farmed.Gallery()
	if st := j.Status(); st.Phase != farmrun.Loaded || got == nil || len(h.Errs) > 0 {
		t.Fatalf("%s (%v)", j.Line(), h.Errs)
	}
	if len(got.Variations) != 3 {
		t.Fatalf("%d variations from the farm, want 3", len(got.Variations))
	}
	diag := want.Variations[0].Hi.Sub(want.Variations[0].Lo).Len()
	for i, w := range want.Variations {
		g := got.Variations[i]
		if g.Clip.Seed != w.Clip.Seed || len(g.Clip.Bones) != len(w.Clip.Bones) || !slices.Equal(g.SpliceFrames(), w.SpliceFrames()) ||
			g.Quality.MaxAccel != w.Quality.MaxAccel {
			t.Errorf("variation %d: seed %d, %d frames, splices %v, max %g; the tool's: seed %d, %d frames, splices %v, max %g", i,
				g.Clip.Seed, len(g.Clip.Bones), g.SpliceFrames(), g.Quality.MaxAccel, w.Clip.Seed, len(w.Clip.Bones), w.SpliceFrames(), w.Quality.MaxAccel)
			continue
		}
		worst := 0.0
		var a, b []assets.Vec3
		for f := range w.Clip.Bones {
			a, b = w.Clip.Pose(a, f), g.Clip.Pose(b, f)
			for k := range a {
				worst = max(worst, a[k].Sub(b[k]).Len())
			}
		}
		if worst > 1e-5*diag {
			t.Errorf("variation %d poses %.3g of the diagonal away from the tool's", i, worst/diag)
		}
	}
	if farmed.Play(h, 1); h.ShownClip() == nil || h.ShownClip().Clip.NumFrames() != 72 {
		t.Errorf("playing a variation from the farm shows %v", h.ShownClip())
	}
}

// TestEnsembleToolOnFarm: the Ensemble tool's Run on farm (the local
// engine, this test binary standing for gallop) opens the graph the farm
// built, which is the one its own Build makes with the same settings.
func TestEnsembleToolOnFarm(t *testing.T) {
	h := toolstest.New(nil)
	open := func() *tens.Tool {
		tool := &tens.Tool{}
		tool.Update(h)
		tool.OpenLevels(h, bannerLevels(t), "")
		h.Runner.Wait()
		tool.Update(h)
		if tool.Data() == nil || len(h.Errs) > 0 {
			t.Fatalf("the banner did not open: %v", h.Errs)
		}
		tool.Settings.Tries, tool.Settings.Samples, tool.Settings.Seed = 1, 2, 5
		return tool
	}
	local := open()
	local.Build(h)
	h.Runner.Wait()
	want := local.Built()
	if want == nil || len(h.Errs) > 0 {
		t.Fatalf("the tool's own build: %v", h.Errs)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GALLOP_CLI_MAIN", "1")
	farmed := open()
	farmed.Farm = farmrun.Jobs{Parent: t.TempDir(), Exe: exe, Settings: farmrun.Settings{Engine: "local", Shards: 2}}
	farmed.RunOnFarm(h)
	h.Runner.Wait() // the farm run, then the graph's open
	h.Runner.Wait()
	farmed.Update(h)
	j := farmed.Farm.List()[0]
	got := farmed.Built()
	if j.Status().Phase != farmrun.Loaded || got == nil || len(h.Errs) > 0 {
		t.Fatalf("%s (%v)", j.Line(), h.Errs)
	}
	if got.Path != filepath.Join(j.Status().Dir, "graph.json") || len(got.Graph.Transitions) != len(want.Graph.Transitions) || len(want.Graph.Transitions) == 0 {
		t.Fatalf("opened %s with %d transitions, the tool builds %d", got.Path, len(got.Graph.Transitions), len(want.Graph.Transitions))
	}
	for i, tr := range want.Graph.Transitions {
		if g := got.Graph.Transitions[i]; g.From != tr.From || g.To != tr.To || !slices.Equal(g.Tau, tr.Tau) {
			t.Errorf("transition %d: %+v, the tool's %+v", i, g, tr)
		}
	}
}

// TestGalleryToolOnFarm: the Gallery tool's Run on farm (the local
// engine, this test binary standing for gallop) of the 2D ball with a
// tolerance and proposal weights of its own gives the chains its own Start
// runs (the same statistics), and its samples, replayed from their states,
// fill the scenario's gallery: each plays and stars as a favourite.
func TestGalleryToolOnFarm(t *testing.T) {
	h := toolstest.New(nil)
	setup := func() *gallery.Gallery {
		g := &gallery.Gallery{}
		g.Update(h)
		g.Chains, g.Iterations, g.Seed = 3, 400, -7 // a negative seed runs locally, so on the farm too
		b := g.Settings().(*gallery.Ball2DSettings)
		b.Target, b.Tolerance = 1.2, 0.15
		g.Weights = []float64{2, 1}
		return g
	}
	local := setup()
	local.Start(h)
	h.Runner.Wait()
	local.Update(h)
	want := local.Snapshot()
	if want == nil || !want.Final || len(h.Errs) > 0 {
		t.Fatalf("the tool's own run: %v", h.Errs)
	}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("GALLOP_CLI_MAIN", "1")
	farmed := setup()
	farmed.Farm = farmrun.Jobs{Parent: t.TempDir(), Exe: exe, Settings: farmrun.Settings{Engine: "local", Shards: 2}}
	farmed.RunOnFarm(h)
	h.Runner.Wait()
	farmed.Update(h)
	j := farmed.Farm.List()[0]
	got := farmed.Snapshot()
	if j.Status().Phase != farmrun.Loaded || got == nil || len(h.Errs) > 0 {
		t.Fatalf("%s (%v)", j.Line(), h.Errs)
	}
	if len(got.Stats) != 3 || len(got.Samples) == 0 {
		t.Fatalf("%d chains, %d samples from the farm", len(got.Stats), len(got.Samples))
	}
	for c, st := range want.Stats {
		g := got.Stats[c]
		if g.Iterations != st.Iterations || g.AcceptanceRate != st.AcceptanceRate || g.FirstSatisfied != st.FirstSatisfied || g.SatisfiedAfter != st.SatisfiedAfter {
			t.Errorf("chain %d: %+v from the farm, the tool's %+v", c+1, g, st)
		}
	}
	for _, s := range got.Samples {
		if s.Anim == nil || s.Anim.NumFrames() < 2 || len(s.State) == 0 {
			t.Fatalf("sample %s: no animation or state", s.Caption())
		}
	}
	farmed.Play(h, got.Samples[0])
	farmed.ToggleFavourite(got.Samples[0])
	if h.ShownAnimation() != got.Samples[0].Anim || len(farmed.Favourites()) != 1 {
		t.Errorf("the first sample from the farm did not play or star")
	}
}

// TestGalleryScenarioFlags: every scenario's settings, as the Gallery tool
// turns them into options of gallop sample, are taken by it.
func TestGalleryScenarioFlags(t *testing.T) {
	h := toolstest.New(nil)
	g := &gallery.Gallery{}
	g.Update(h)
	for i, name := range gallery.ScenarioNames() {
		g.SetScenario(h, i)
		args := append(g.Settings().Flags(), "--chains", "1", "--iterations", "3")
		if err := runSample(args, &bytes.Buffer{}); err != nil {
			t.Errorf("%s: gallop sample %q: %v", name, args, err)
		}
	}
}
