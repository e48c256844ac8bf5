package ensemble

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/tools/toolstest"
)

// finish waits for the tool's jobs, runs their completions on this (the
// UI) goroutine and takes their last snapshots, as a frame of the window
// would.
func finish(tool *Tool, h *toolstest.Host) {
	h.Runner.Wait()
	tool.Update(h)
}

// TestLevelFolders: a groups file, a level folder or a frame of a level
// all give the banner's three levels in order.
func TestLevelFolders(t *testing.T) {
	dir := shareddata.Path(t, "ensemble-banner")
	want := []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3")}
	frames, err := assets.ListOBJSequence(want[1])
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "groups.csv"), want[2], frames[0]} {
		levels, groups, err := LevelFolders(path)
		if err != nil || !slices.Equal(levels, want) {
			t.Errorf("%s: levels %v, %v; want %v", path, levels, err, want)
		}
		if csv := strings.HasSuffix(path, ".csv"); (groups != "") != csv {
			t.Errorf("%s: groups %q", path, groups)
		}
	}
	if _, _, err := LevelFolders(t.TempDir()); err == nil {
		t.Error("an empty folder gave levels")
	}
}

// TestTool drives the Ensemble tool as the panel does on the banner: open
// it through the dialog, build a small graph (the trace and Table I's
// figures published), play with the wind moved to level 3 until the
// player gets there (groups blending on the way), scrub, export the
// stretch through the Save dialog, save the graph, reopen it, and save and
// restore the tool's state.
func TestTool(t *testing.T) {
	dir := shareddata.Path(t, "ensemble-banner")
	h := toolstest.New(nil)
	tool := &Tool{}
	tool.Update(h)
	h.OpenPath = filepath.Join(dir, "groups.csv")
	tool.Open(h, false)
	if !tool.Opening() {
		t.Fatalf("nothing opening: %v", h.Errs)
	}
	finish(tool, h)
	d := tool.Data()
	if d == nil || len(h.Errs) > 0 {
		t.Fatalf("not opened: %v", h.Errs)
	}
	if len(d.Levels) != 3 || len(d.Ensemble.Groups) != 31 || len(d.Ensemble.Rest) != 2152 {
		t.Fatalf("opened %s", tool.Summary())
	}
	// The first level's source clip is shown, each group in its colour.
	if h.ShownClip() == nil || h.ShownClip().Clip != d.Ensemble.Levels[0] {
		t.Fatal("the level's clip is not shown")
	}
	cols := tool.ClipColors(h)
	if len(cols) != 2152 || cols[d.Ensemble.Groups[0].First] == cols[d.Ensemble.Groups[1].First] {
		t.Fatalf("group colours %d", len(cols))
	}
	tool.SetWind(h, 2)
	if h.ShownClip().Clip != d.Ensemble.Levels[1] {
		t.Error("wind 2 does not show the second level")
	}

	tool.Settings.Tries, tool.Settings.Samples, tool.Settings.Seed = 1, 2, 5
	tool.Build(h)
	if !tool.Building() {
		t.Fatalf("no build started: %v", h.Errs)
	}
	finish(tool, h)
	b := tool.Built()
	if b == nil || len(h.Errs) > 0 {
		t.Fatalf("not built: %v", h.Errs)
	}
	st := b.Stats
	if st.Found == 0 || st.Found != len(b.Graph.Transitions) || st.CSP.Programs == 0 || st.CSP.Wins == 0 {
		t.Fatalf("stats %+v", st)
	}
	pr := tool.BuildProgress()
	if pr == nil || pr.Fraction != 1 || pr.Trace == nil || pr.Calls < st.CSP.Computes || len(pr.Trace.Seconds) < 2 {
		t.Fatalf("progress %+v", pr)
	}
	tr := pr.Trace
	if !slices.IsSorted(tr.Seconds) || len(tr.Phi) != len(tr.Seconds) || len(tr.Contacts) != len(tr.Seconds) {
		t.Errorf("trace of %d points not in time order", len(tr.Seconds))
	}
	t.Logf("%s; %d calls traced, the last %d events", tool.Summary(), pr.Calls, len(tr.Seconds))

	// Play from level 1, then head for level 3.
	tool.SetWind(h, 1)
	tool.Play(h)
	if !tool.Playing(h) || !h.Playing {
		t.Fatalf("not playing: %v", h.Errs)
	}
	tool.SetWind(h, 3)
	blended, reached := 0, 0
	for f := range 1200 {
		h.ShownAt = f
		tool.Update(h)
		ps, ok := tool.PlayState(h)
		if !ok || ps.Frame != f || ps.Wind != 3 {
			t.Fatalf("frame %d: %+v, %v", f, ps, ok)
		}
		if slices.Contains(ps.Blending, true) {
			blended++
			// The blending groups are yellow.
			cols := tool.ClipColors(h)
			k := slices.Index(ps.Blending, true)
			if cols[d.Ensemble.Groups[k].First] != blendColour {
				t.Fatalf("frame %d: group %d blends in %v", f, k+1, cols[d.Ensemble.Groups[k].First])
			}
		}
		if ps.Level == 3 && reached == 0 {
			reached = f
		}
	}
	if blended == 0 || reached == 0 {
		t.Fatalf("in 1200 frames: %d blending, level 3 reached at %d", blended, reached)
	}
	// 60 s kept: the first frames were dropped and the timeline moved back.
	ps, _ := tool.PlayState(h)
	if keep := 1800; ps.Frames > keep+keep/10+ahead+1 || ps.Output != 1199 {
		t.Errorf("after 1200 frames: %+v", ps)
	}
	t.Logf("level 3 at frame %d; %d frames blending; %d transitions", reached, blended, ps.Transitions)

	// Export through the Save dialog.
	out := t.TempDir()
	h.SavePath = filepath.Join(out, "played.glb")
	tool.Export(h)
	if len(h.Errs) > 0 || !strings.Contains(tool.Report(), "wrote "+h.SavePath) {
		t.Fatalf("export: %v, %q", h.Errs, tool.Report())
	}
	glb := h.SavePath
	objs, err := assets.LoadGLTF(h.SavePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 31 || objs[0].NumFrames() < 1200 {
		t.Errorf("exported %d objects of %d frames", len(objs), objs[0].NumFrames())
	}

	// Save the graph, save the state, restore it in a new tool: the graph
	// reopens with its data.
	h.SavePath = filepath.Join(out, "graph.json")
	tool.SaveGraph(h)
	if _, err := os.Stat(h.SavePath); err != nil || len(h.Errs) > 0 {
		t.Fatalf("graph not saved: %v %v", err, h.Errs)
	}
	raw, err := tool.State()
	if err != nil {
		t.Fatal(err)
	}
	var st2 state
	if err := json.Unmarshal(raw, &st2); err != nil || st2.Graph != h.SavePath || len(st2.Levels) != 3 || st2.Settings.Tries != 1 {
		t.Fatalf("state %s", raw)
	}
	h2 := toolstest.New(nil)
	again := &Tool{}
	if err := again.Restore(h2, raw); err != nil {
		t.Fatal(err)
	}
	finish(again, h2)
	if again.Built() == nil || len(h2.Errs) > 0 || len(again.Built().Graph.Transitions) != len(b.Graph.Transitions) || again.Settings != tool.Settings {
		t.Fatalf("restored: %v, %s", h2.Errs, again.Summary())
	}
	again.Play(h2)
	if !again.Playing(h2) {
		t.Errorf("the reopened graph does not play: %v", h2.Errs)
	}
	if err := again.Restore(h2, json.RawMessage(`{"settings":{"tau_max":0}}`)); err == nil {
		t.Error("τ_max 0 restored")
	}
	gltftest.Validate(t, glb)
}
