package ensemble

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/tools"
	"gallop/tools/farmrun"
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
	finish(tool, h) // the file is written on a job
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

// openBuilt opens the banner in a new tool through the dialog and builds
// a small graph (one try, two samples).
func openBuilt(t *testing.T) (*Tool, *toolstest.Host) {
	t.Helper()
	dir := shareddata.Path(t, "ensemble-banner")
	h := toolstest.New(nil)
	tool := &Tool{}
	tool.Update(h)
	h.OpenPath = filepath.Join(dir, "groups.csv")
	tool.Open(h, false)
	finish(tool, h)
	if tool.Data() == nil || len(h.Errs) > 0 {
		t.Fatalf("not opened: %v", h.Errs)
	}
	tool.Settings.Tries, tool.Settings.Samples, tool.Settings.Seed = 1, 2, 5
	tool.Build(h)
	finish(tool, h)
	if tool.Built() == nil || len(h.Errs) > 0 || len(tool.Built().Graph.Transitions) == 0 {
		t.Fatalf("not built: %v", h.Errs)
	}
	return tool, h
}

// TestCompare compares a transition between levels as the panel does:
// computed as a job, its three variants shown in place of the scene; the
// solver's has no new interpenetrating pair, Φ is the graph's Φ(τ) and
// Φ(0) and at most the unconstrained minimum's, the red groups are those
// of the pairs the model's oracle finds frame by frame, and Back to
// playing brings the played stretch back where it was left.
func TestCompare(t *testing.T) {
	tool, h := openBuilt(t)
	b := tool.Built()
	d := tool.Data()
	x := tool.CompareDefault()
	if x < 0 || b.Graph.Transitions[x].From.Level == b.Graph.Transitions[x].To.Level {
		t.Fatalf("default transition %d is not between levels", x)
	}
	tool.Play(h)
	h.ShownAt = 40
	tool.Update(h)
	// The player may have taken a transition by now, the default then:
	// pick the one between levels.
	tool.SetCompareIndex(x)

	tool.Compare(h)
	if !tool.Comparing() {
		t.Fatalf("no comparison started: %v", h.Errs)
	}
	finish(tool, h)
	c := tool.Comparison()
	if c == nil || len(h.Errs) > 0 || c.Index != x {
		t.Fatalf("not compared: %v %v", h.Errs, h.Infos)
	}
	if pr := tool.CompareProgress(); pr == nil || pr.Fraction != 1 {
		t.Errorf("progress %+v", pr)
	}
	tr := b.Graph.Transitions[x]
	frames := b.Model.Frames()
	for v := range Variants {
		r := &c.Variants[v]
		t.Logf("transition %d (level %d frame %d → level %d frame %d), %s: %d new pairs over %d (pair, frame)s, Φ %.4g",
			x+1, tr.From.Level+1, tr.From.Frame+1, tr.To.Level+1, tr.To.Frame+1, v, len(r.Pairs), r.PairFrames, r.Phi)
		if len(r.Red) != frames || r.Object().NumFrames() != frames {
			t.Fatalf("%s: %d frames, want %d", v, len(r.Red), frames)
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(b)) }
	sync, unc, sol := &c.Variants[Synchronous], &c.Variants[Unconstrained], &c.Variants[Solved]
	if len(sol.Pairs) != 0 || sol.PairFrames != 0 {
		t.Errorf("the solver's τ has new pairs %v", sol.Pairs)
	}
	if !near(sol.Phi, tr.Phi) || !near(sync.Phi, tr.Phi0) || unc.Phi > sol.Phi+1e-12 {
		t.Errorf("Φ: τ = 0 %g (graph %g), unconstrained %g, solver %g (graph %g)", sync.Phi, tr.Phi0, unc.Phi, sol.Phi, tr.Phi)
	}

	// The variant shown is the chosen one, at its frame with most red.
	tool.SetVariant(h, Unconstrained)
	if v, ok := tool.CompareShown(h); !ok || v != Unconstrained || h.ShownClip() != unc.Object() || tool.Playing(h) {
		t.Fatalf("shown %v %v", v, ok)
	}
	if len(unc.Pairs) > 0 && Marked(unc.Red[h.ShownAt]) == 0 {
		t.Errorf("frame %d shown has no red group", h.ShownAt)
	}
	// The red groups are those of the pairs the oracle finds, frame by
	// frame; the others blending yellow or in their colours.
	p := b.Model.Program(tr.From, tr.To)
	pairs := map[[2]int]bool{}
	for f := range frames {
		h.ShownAt = f
		cols := tool.ClipColors(h)
		red := make([]bool, len(d.Ensemble.Groups))
		for _, pr := range p.New(nil, unc.Tau, f, nil) {
			if pr.K != pr.L {
				red[pr.K], red[pr.L] = true, true
				pairs[[2]int{pr.K, pr.L}] = true
			}
		}
		for k, g := range d.Ensemble.Groups {
			want := GroupColour(k)
			switch {
			case red[k]:
				want = redColour
			case unc.Blend[f][k]:
				want = blendColour
			}
			if cols[g.First] != want || cols[g.First+g.Count-1] != want {
				t.Fatalf("frame %d: group %d in %v, want %v", f, k+1, cols[g.First], want)
			}
		}
	}
	if len(pairs) != len(unc.Pairs) {
		t.Errorf("%d pairs counted, the oracle finds %d", len(unc.Pairs), len(pairs))
	}
	// Another variant keeps the frame when it has no red; Compare again
	// shows the computed comparison without a new job.
	h.ShownAt = 7
	tool.SetVariant(h, Solved)
	if v, _ := tool.CompareShown(h); v != Solved || h.ShownAt != 7 {
		t.Errorf("solver's variant: shown %v at %d", v, h.ShownAt)
	}
	tool.Compare(h)
	if tool.Comparing() || tool.Comparison() != c {
		t.Error("the comparison was computed again")
	}

	tool.BackToPlaying(h)
	if !tool.Playing(h) || h.ShownAt != 40 || !h.Playing {
		t.Errorf("back to playing at %d, playing %v", h.ShownAt, tool.Playing(h))
	}
	// Once the player took a transition, it is the default.
	tool.SetCompareIndex(-1)
	for f := 40; f < 400 && tool.play.player.Last() < 0; f++ {
		h.ShownAt = f
		tool.Update(h)
	}
	if last := tool.play.player.Last(); last < 0 || tool.CompareDefault() != last || tool.CompareIndex() != last {
		t.Errorf("default %d, the player took %d last", tool.CompareDefault(), last)
	}
	tool.SetCompareIndex(len(b.Graph.Transitions) - 1)
	if tool.CompareIndex() != len(b.Graph.Transitions)-1 {
		t.Errorf("picked %d", tool.CompareIndex())
	}
	// Cancelled: nothing changes.
	tool.Compare(h)
	tool.StopCompare()
	finish(tool, h)
	if len(h.Errs) > 0 {
		t.Errorf("errors: %v", h.Errs)
	}
}

// bannerTool returns a new tool with the banner open and bannerGraph's
// small graph built, as Open and Build leave it, without building again.
func bannerTool(t *testing.T) (*Tool, *toolstest.Host) {
	t.Helper()
	b := banner(t)
	h := toolstest.New(nil)
	tool := &Tool{}
	tool.Update(h)
	d := newData(b.levels, "", b.m.Dataset(), b.e)
	tool.data = d
	tool.built = &Built{Data: d, Model: b.m, Graph: b.g, Settings: b.settings, Latency: b.g.Latencies(b.m)}
	return tool, h
}

// playOn plays the timeline on by n frames, a UI frame per timeline
// frame, the wind moving to each level in turn every 100 frames played.
// (Update moves the timeline back as it drops the oldest frames.)
func playOn(tool *Tool, h tools.Host, th *toolstest.Host, n int) {
	for range n {
		th.ShownAt++
		tool.Update(h)
		if ps, ok := tool.PlayState(h); ok && ps.Output%100 == 0 {
			tool.SetWind(h, 1+(ps.Output/100)%3)
		}
	}
}

// dialogHost is a toolstest.Host whose Save dialog stays open until the
// test answers it with save.
type dialogHost struct {
	*toolstest.Host
	save func(path string)
}

// SaveFile implements tools.Host: the dialog opens and waits.
func (h *dialogHost) SaveFile(_ string, _ []string, _ string, done func(string)) { h.save = done }

// TestItem6ExportHoldsTheTimelinesFrames (issue 25, item 6): an export
// while the timeline showed 1,946 frames held 1,649, those of the moment
// Export was clicked, play having gone on while the Save dialog was open.
// Now the file holds the frames the timeline shows when the path is
// confirmed, the oldest dropped meanwhile ("seconds kept") included: the
// same number, and the same positions, first and last.
func TestItem6ExportHoldsTheTimelinesFrames(t *testing.T) {
	tool, th := bannerTool(t)
	h := &dialogHost{Host: th}
	tool.Settings.Record = 20 // 600 frames kept, dropped beyond 660
	tool.Play(h)
	playOn(tool, h, th, 400)
	tool.Export(h)
	if h.save == nil || len(th.Errs) > 0 {
		t.Fatalf("no Save dialog: %v", th.Errs)
	}
	clicked := th.ShownClip().NumFrames()
	playOn(tool, h, th, 400) // the dialog is open for 400 frames
	shown := slices.Clone(th.ShownClip().Clip.Frames)
	if ps, _ := tool.PlayState(h); len(shown) == clicked || ps.Output-ps.Frame == 0 {
		t.Fatalf("%d frames at the click, %d now, from output frame %d: nothing played or dropped", clicked, len(shown), ps.Output-ps.Frame)
	}
	path := filepath.Join(t.TempDir(), "played.glb")
	h.save(path)
	playOn(tool, h, th, 100) // play goes on while the file is written
	finish(tool, th)
	if len(th.Errs) > 0 || !strings.Contains(tool.Report(), fmt.Sprintf("(%d frames,", len(shown))) {
		t.Fatalf("export: %v, %q", th.Errs, tool.Report())
	}
	objs, err := assets.LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames on the timeline at the click, %d when the path was confirmed; the file holds %d", clicked, len(shown), objs[0].NumFrames())
	worst := 0.0
	for k, g := range tool.Data().Ensemble.Groups {
		c := objs[k].Clip
		if c.NumFrames() != len(shown) {
			t.Fatalf("group %s: %d frames exported, the timeline showed %d", g.Name, c.NumFrames(), len(shown))
		}
		for _, f := range []int{0, len(shown) - 1} {
			for v := range g.Count {
				worst = max(worst, c.Frames[f][v].Sub(shown[f][g.First+v]).Len())
			}
		}
	}
	if worst > 1e-5 {
		t.Errorf("the first and last frames exported are %g from the timeline's", worst)
	}
}

// TestItem6BlendHighlightStandsApart (issue 25, item 6): the yellow of the
// groups blending looked like the yellow and orange groups. Colours are
// compared as the viewport shows them (the values go to the screen as
// sRGB, scaled by the lighting) in CIELAB (D65): the highlight and
// Compare's red are each at least 50 (CIE76 ΔE*ab) from every group's
// colour and from each other, at least 25 whatever the lighting (both
// scaled by any factor in [0.4, 1.3], clamped to 1: a shaded yellow is
// olive, a lit amber yellow), and at least 40° of hue angle h_ab from
// every group colour with chroma (C*ab ≥ 15; the greys are told apart by
// the highlight's chroma, at least 60). Before, the highlight was 31 from
// the amber group, 4.5 under lighting and 16° of hue.
func TestItem6BlendHighlightStandsApart(t *testing.T) {
	var groups [][3]float32
	for k := range 64 {
		if c := GroupColour(k); !slices.Contains(groups, c) {
			groups = append(groups, c)
		}
	}
	if hl := labOf(blendColour); math.Hypot(hl[1], hl[2]) < 60 {
		t.Errorf("the highlight's chroma is %.0f", math.Hypot(hl[1], hl[2]))
	}
	for _, m := range []struct {
		name   string
		colour [3]float32
	}{{"the blending highlight", blendColour}, {"Compare's red", redColour}} {
		others := groups
		if m.colour == redColour {
			others = append(slices.Clone(groups), blendColour)
		}
		for _, g := range others {
			de, shaded := deltaE(m.colour, g), shadedDeltaE(m.colour, g)
			a, b := labOf(m.colour), labOf(g)
			dh := math.Abs(math.Remainder(hueAngle(a)-hueAngle(b), 360))
			t.Logf("%s %v against %v: ΔE %.1f, %.1f under lighting, hue %.0f°", m.name, m.colour, g, de, shaded, dh)
			if de < 50 || shaded < 25 || math.Hypot(b[1], b[2]) >= 15 && dh < 40 {
				t.Errorf("%s %v is too near %v: ΔE %.1f (want 50), %.1f under lighting (want 25), hue %.0f° (want 40°)", m.name, m.colour, g, de, shaded, dh)
			}
		}
	}
}

// labOf returns c, displayed as sRGB, in CIELAB (D65 white).
func labOf(c [3]float32) [3]float64 {
	var lin [3]float64
	for i, v := range c {
		if x := float64(v); x <= 0.04045 {
			lin[i] = x / 12.92
		} else {
			lin[i] = math.Pow((x+0.055)/1.055, 2.4)
		}
	}
	f := func(t float64) float64 {
		if t > 216.0/24389 {
			return math.Cbrt(t)
		}
		return (24389.0/27*t + 16) / 116
	}
	x := (0.4124*lin[0] + 0.3576*lin[1] + 0.1805*lin[2]) / 0.95047
	y := 0.2126*lin[0] + 0.7152*lin[1] + 0.0722*lin[2]
	z := (0.0193*lin[0] + 0.1192*lin[1] + 0.9505*lin[2]) / 1.08883
	return [3]float64{116*f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))}
}

// deltaE is the CIE76 colour difference of a and b, as displayed.
func deltaE(a, b [3]float32) float64 {
	la, lb := labOf(a), labOf(b)
	return math.Sqrt((la[0]-lb[0])*(la[0]-lb[0]) + (la[1]-lb[1])*(la[1]-lb[1]) + (la[2]-lb[2])*(la[2]-lb[2]))
}

// shadedDeltaE is the least deltaE of a and b each scaled by a lighting
// factor in [0.4, 1.3] (clamped to 1), in steps of 0.05.
func shadedDeltaE(a, b [3]float32) float64 {
	lit := func(c [3]float32, s float32) [3]float32 {
		return [3]float32{min(1, c[0]*s), min(1, c[1]*s), min(1, c[2]*s)}
	}
	least := math.Inf(1)
	for i := range 19 {
		for j := range 19 {
			least = min(least, deltaE(lit(a, 0.4+0.05*float32(i)), lit(b, 0.4+0.05*float32(j))))
		}
	}
	return least
}

// hueAngle is h_ab of a CIELAB colour, in degrees.
func hueAngle(lab [3]float64) float64 { return math.Atan2(lab[2], lab[1]) * 180 / math.Pi }

// TestItem6FarmResultAsksBeforeEndingThePlay (issue 25, item 6): a farm
// build that finished replaced the played stretch without asking. A
// farm run (the local engine, a stand-in gallop whose merge writes the
// banner's graph) now finishes while the stretch plays: its graph waits
// and the stretch plays on, the tool's graph unchanged, until the artist
// chooses. Keep playing leaves it unused; Use its graph opens it (the
// stretch then ends); with nothing played, a result opens at once as
// before.
func TestItem6FarmResultAsksBeforeEndingThePlay(t *testing.T) {
	tool, h := bannerTool(t)
	b := banner(t)
	dir := t.TempDir()
	graph := filepath.Join(dir, "built.json")
	f, err := NewGraphFile(b.levels, "", b.m, b.settings, b.g)
	if err == nil {
		err = SaveGraph(graph, f)
	}
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "gallop")
	script := "#!/bin/sh\nif [ \"$1\" = merge ]; then cp '" + graph + "' \"$(dirname \"$2\")/graph.json\"; fi\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	tool.Farm = farmrun.Jobs{Parent: dir, Exe: exe, Settings: farmrun.Settings{Engine: "local", Shards: 2}}
	farmRun := func() {
		t.Helper()
		tool.RunOnFarm(h)
		h.Runner.Wait() // the farm's job, then its result taken
		if len(h.Errs) > 0 {
			t.Fatalf("farm run: %v", h.Errs)
		}
	}

	built := tool.Built()
	tool.Play(h)
	playOn(tool, h, h, 50)
	played := h.ShownClip()
	farmRun()
	path, ends := tool.FarmWaiting()
	if path == "" || ends != "the played stretch" || tool.Opening() || tool.Built() != built || !tool.Playing(h) || h.ShownClip() != played {
		t.Fatalf("a farm result while playing: waiting %q (ends %q), opening %v, graph replaced %v, playing %v",
			path, ends, tool.Opening(), tool.Built() != built, tool.Playing(h))
	}
	playOn(tool, h, h, 50)
	if ps, ok := tool.PlayState(h); !ok || ps.Output != 100 {
		t.Fatalf("play did not go on: %+v", ps)
	}
	tool.KeepFarmGraphWaiting(h)
	if p, _ := tool.FarmWaiting(); p != "" || tool.Opening() || tool.Built() != built || !tool.Playing(h) {
		t.Fatalf("kept playing: waiting %q, opening %v, playing %v", p, tool.Opening(), tool.Playing(h))
	}

	farmRun()
	path, _ = tool.FarmWaiting()
	tool.UseFarmGraph(h)
	finish(tool, h)
	if nb := tool.Built(); nb == built || nb == nil || !nb.FromFile || nb.Path != path || tool.Playing(h) || tool.play != nil || len(h.Errs) > 0 {
		t.Fatalf("using the farm's graph: %v, playing %v, errors %v", nb, tool.Playing(h), h.Errs)
	}

	built = tool.Built()
	farmRun()
	if p, _ := tool.FarmWaiting(); p != "" || !tool.Opening() {
		t.Fatalf("with nothing played the farm's graph waits (%q) or does not open", p)
	}
	finish(tool, h)
	if tool.Built() == built || tool.Built() == nil || len(h.Errs) > 0 {
		t.Fatalf("the farm's graph did not open: %v", h.Errs)
	}
}

// TestItem3EnsembleStretchAsObject (issue 25, item 3: the Ensemble tool
// could not make document objects): Add to document adds the played
// stretch as one new object (through Host.AddObject, one undoable step,
// and no other edit), the whole ensemble (every group's vertices and
// triangles, a mesh of its own) with a clip of exactly the frames the
// timeline shows, oldest dropped ones excluded, at the data's rate; the
// object validates, and play going on leaves its clip as it was.
func TestItem3EnsembleStretchAsObject(t *testing.T) {
	tool, h := bannerTool(t)
	tool.AddToDocument(h)
	if len(h.Errs) != 1 || len(h.Others) != 0 {
		t.Fatalf("added before playing: %v, %d objects", h.Errs, len(h.Others))
	}
	h.Errs = nil
	tool.Settings.Record = 10 // 300 frames kept, dropped beyond 330
	tool.Play(h)
	playOn(tool, h, h, 400)
	shown := slices.Clone(h.ShownClip().Clip.Frames)
	ps, _ := tool.PlayState(h)
	tool.AddToDocument(h)
	if len(h.Errs) > 0 || len(h.Others) != 1 || h.Stack.CanUndo() {
		t.Fatalf("add: %v, %d objects, an edit besides AddObject: %v", h.Errs, len(h.Others), h.Stack.CanUndo())
	}
	o := h.Others[0]
	d := tool.Data()
	first := ps.Output - ps.Frame + 1
	want := fmt.Sprintf("ensemble-banner played, frames %d-%d", first, first+len(shown)-1)
	if o.Name != want || !strings.Contains(tool.Report(), "added "+want) {
		t.Errorf("added %q (%q), want %q", o.Name, tool.Report(), want)
	}
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	if o.Mesh == d.Mesh || o.Mesh.NumVertices() != len(d.Ensemble.Rest) || len(o.Mesh.Triangles) != len(d.Mesh.Triangles) {
		t.Errorf("the object's mesh: %d vertices, %d triangles, shared %v", o.Mesh.NumVertices(), len(o.Mesh.Triangles), o.Mesh == d.Mesh)
	}
	c := o.Clip
	if c == nil || c.FPS != 30 || len(c.Frames) != len(shown) || len(shown) < 300 || first == 1 {
		t.Fatalf("the object's clip: %v; the timeline shows %d frames from output frame %d", c, len(shown), first)
	}
	for f := range shown {
		if !slices.Equal(c.Frames[f], shown[f]) {
			t.Fatalf("frame %d of the object is not the timeline's", f+1)
		}
	}
	playOn(tool, h, h, 100)
	if len(c.Frames) != len(shown) || !slices.Equal(c.Frames[0], shown[0]) || o.Clip != c {
		t.Errorf("play went on and the object's clip changed: %d frames", len(c.Frames))
	}
}

// TestUnsavedGraph (issue 33, item 5): a graph just built is unsaved work
// until a saved project holds it; the project's state holds the graph
// itself (no graph file names it) and a new tool restored from it reopens
// the same transitions, as saved work; a later build is unsaved again.
func TestUnsavedGraph(t *testing.T) {
	tool, h := openBuilt(t)
	if w := tool.UnsavedWork(); !strings.Contains(w, "motion graph of ensemble-banner") {
		t.Fatalf("unsaved work after a build: %q", w)
	}
	mark := tool.WorkMark()
	raw, err := tool.State()
	if err != nil {
		t.Fatal(err)
	}
	var st state
	if err := json.Unmarshal(raw, &st); err != nil || st.Graph != "" || len(st.GraphData) == 0 {
		t.Fatalf("state without the graph: %.300s", raw)
	}
	tool.SavedWork(mark)
	if w := tool.UnsavedWork(); w != "" {
		t.Errorf("unsaved work after the project was saved: %q", w)
	}
	h2 := toolstest.New(nil)
	again := &Tool{}
	if err := again.Restore(h2, raw); err != nil {
		t.Fatal(err)
	}
	finish(again, h2)
	b, b2 := tool.Built(), again.Built()
	if b2 == nil || len(h2.Errs) > 0 || !reflect.DeepEqual(b2.Graph.Transitions, b.Graph.Transitions) {
		t.Fatalf("restored: %v", h2.Errs)
	}
	if w := again.UnsavedWork(); w != "" {
		t.Errorf("a graph from the project is unsaved work: %q", w)
	}
	tool.Build(h)
	finish(tool, h)
	if tool.UnsavedWork() == "" {
		t.Error("a new build is not unsaved work")
	}
	// A project saved from a snapshot taken before that build does not
	// make it saved.
	tool.SavedWork(mark)
	if tool.UnsavedWork() == "" {
		t.Error("an older snapshot's save made the new build saved")
	}
	if err := again.Restore(h2, json.RawMessage(`{"settings":`+string(mustJSON(t, DefaultSettings()))+`,"graph_data":{"format":"nope"}}`)); err == nil || !strings.Contains(err.Error(), "the project's ensemble graph") {
		t.Errorf("a broken graph in the project: %v", err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
