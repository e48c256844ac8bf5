package rig

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/solver/ssdr"
	"gallop/tools"
	"gallop/tools/toolstest"
)

// demoHost returns a host on the demo scene's bar and its bending clip.
func demoHost() *toolstest.Host { return toolstest.New(assets.DemoScene().Objects[0]) }

// finish waits for the run to end, runs its completion on this (the UI)
// goroutine, and takes its last progress as a frame of the window would.
func finish(t *testing.T, tool *Rig, h *toolstest.Host) {
	t.Helper()
	h.Runner.Wait()
	tool.Update(h)
	if tool.Running() {
		t.Fatal("the run is still going after its job ended")
	}
}

// rigBar runs the tool with 4 bones and 30 iterations on the demo bar's
// bend and returns it, its host and the result shown.
func rigBar(t *testing.T) (*Rig, *toolstest.Host, *Result) {
	t.Helper()
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.Settings.Bones = 4
	tool.Settings.Iterations = 30
	tool.Start(h)
	if !tool.Running() {
		t.Fatalf("no run started; errors %v", h.Errs)
	}
	finish(t, tool, h)
	if len(h.Errs) > 0 {
		t.Fatalf("errors: %v", h.Errs)
	}
	r := tool.Result(h)
	if r == nil {
		t.Fatal("no result after the run")
	}
	return tool, h, r
}

// unitColours reports whether every colour component is finite and in [0, 1].
func unitColours(cols [][3]float32) bool {
	for _, c := range cols {
		for _, x := range c {
			if !(x >= 0 && x <= 1) {
				return false
			}
		}
	}
	return true
}

// TestRigBar rigs the demo bar's bend, checks what the tool shows (the
// skinned clip, weight and error heat maps, the bones' segments), exports
// it through the Save dialog, validates the file and checks that it plays
// back the tool's skinned positions.
func TestRigBar(t *testing.T) {
	tool, h, r := rigBar(t)
	if tool.Progress() == nil || len(tool.Progress().History) == 0 || tool.Progress().History[len(tool.Progress().History)-1] <= 0 {
		t.Errorf("no RMSE history published: %+v", tool.Progress())
	}
	nv, nf := h.Obj.Mesh.NumVertices(), len(h.Obj.Clip.Frames)
	t.Logf("RMSE %.3g (%.3g of the diagonal) after %d iterations", r.SSDR.RMSE, r.SSDR.RMSE/r.Diagonal, r.SSDR.Iterations)
	if rel := r.SSDR.RMSE / r.Diagonal; rel > 0.02 {
		t.Errorf("RMSE %.3g of the diagonal on a two-part bend, want ≤ 0.02", rel)
	}

	// Skinned positions at the frame shown.
	tool.Show = ShowSkinned
	h.CurrentFrame = nf / 2
	pos, cols := tool.Display(h)
	if len(pos) != nv || cols != nil {
		t.Fatalf("Display: %d positions, %d colours; want %d and none", len(pos), len(cols), nv)
	}
	// Heat maps: one finite colour per vertex, and a legend.
	for _, heat := range []Heat{HeatWeights, HeatError} {
		tool.Heat = heat
		_, cols := tool.Display(h)
		if len(cols) != nv || !unitColours(cols) {
			t.Errorf("heat map %d: %d colours (want %d), in [0, 1] %v", heat, len(cols), nv, unitColours(cols))
		}
		title, lo, hi, ok := tool.Legend(h)
		if !ok || title == "" || !(hi > lo) {
			t.Errorf("heat map %d: legend %q [%g, %g] %v", heat, title, lo, hi, ok)
		}
	}
	// Each bone's weights differ: bone 0 and bone 1 give different maps.
	tool.Heat, tool.Bone = HeatWeights, 0
	_, c0 := tool.Display(h)
	tool.Bone = 1
	_, c1 := tool.Display(h)
	same := 0
	for i := range c0 {
		if c0[i] == c1[i] {
			same++
		}
	}
	if same == nv {
		t.Error("bones 0 and 1 have the same weight map")
	}
	// Side by side: the copy is offset along x.
	tool.Show = ShowBoth
	items := tool.ExtraItems(h)
	if len(items) != 1 || len(items[0].Positions) != nv || items[0].Positions[0][0]-r.skinned[h.CurrentFrame][0][0] <= 0 {
		t.Errorf("side by side: %d items", len(items))
	}
	// Segments: finite, one per bone, inside the bar's bounding box.
	lo, hi := assets.Bounds(r.rest)
	for j, s := range r.segments {
		a, b := s.Ends()
		for _, p := range []assets.Vec3{a, b, s.Centre} {
			for k := range 3 {
				if !(p[k] >= lo[k]-0.5*r.Diagonal && p[k] <= hi[k]+0.5*r.Diagonal) {
					t.Errorf("bone %d segment %v–%v outside the bar", j, a, b)
				}
			}
		}
	}

	// Export through the Save dialog.
	h.SavePath = filepath.Join(t.TempDir(), "bar.glb")
	tool.Export(h)
	h.Runner.Wait()
	if len(h.Errs) > 0 {
		t.Fatalf("export: %v", h.Errs)
	}
	if !strings.Contains(tool.Exported(), "morph targets") {
		t.Errorf("export report %q names no morph-target size", tool.Exported())
	}
	gltftest.Validate(t, h.SavePath)
	objs, err := assets.LoadGLTF(h.SavePath)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Rig == nil || len(o.Rig.Joints) != 5 || o.Clip == nil || len(o.Clip.Frames) != nf {
		t.Fatalf("re-imported: rig %v, clip %v", o.Rig != nil, o.Clip != nil)
	}
	worst := 0.0
	for f := range nf {
		for i, p := range o.Clip.Frames[f] {
			worst = max(worst, p.Sub(r.skinned[f][i]).Len())
		}
	}
	if worst > 1e-4*r.Diagonal {
		t.Errorf("the export plays back %g away from the rig (diagonal %g)", worst, r.Diagonal)
	}
}

// TestRigEightInfluences exports a rig with more than 4 influences per
// vertex (JOINTS_1 / WEIGHTS_1) and checks the file.
func TestRigEightInfluences(t *testing.T) {
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.Settings = Settings{Bones: 8, MaxInfluences: 8, Iterations: 5, Smooth: 1e-4}
	tool.Start(h)
	finish(t, tool, h)
	r := tool.Result(h)
	if r == nil {
		t.Fatalf("no result; errors %v", h.Errs)
	}
	k := 0
	for _, l := range r.SSDR.Weights {
		k = max(k, len(l))
	}
	if k <= 4 {
		t.Fatalf("at most %d influences per vertex, want more than 4 to test JOINTS_1", k)
	}
	h.SavePath = filepath.Join(t.TempDir(), "bar8.gltf")
	tool.Export(h)
	h.Runner.Wait()
	if len(h.Errs) > 0 {
		t.Fatal(h.Errs)
	}
	gltftest.Validate(t, h.SavePath)
}

// TestRigBadInput: no clip, a one-frame clip and bad settings are refused
// with a message; a run cancelled by Stop leaves no result and no error.
func TestRigBadInput(t *testing.T) {
	bar := assets.DemoBar()
	for _, c := range []struct {
		name string
		obj  *assets.Object
		want string
	}{
		{"no object", nil, "no object"},
		{"no clip", &assets.Object{Name: "bar", Mesh: bar}, "no clip"},
		{"one frame", &assets.Object{Name: "bar", Mesh: bar, Clip: &assets.Clip{Name: "one", FPS: 30, Frames: [][]assets.Vec3{bar.Positions}}}, "1 frame"},
	} {
		h := toolstest.New(c.obj)
		tool := &Rig{}
		tool.Start(h)
		if tool.Running() || len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), c.want) {
			t.Errorf("%s: running %v, errors %v; want one naming %q", c.name, tool.Running(), h.Errs, c.want)
		}
	}
	for _, s := range []Settings{
		{Bones: 0, MaxInfluences: 4, Iterations: 10},
		{Bones: 1000, MaxInfluences: 4, Iterations: 10},
		{Bones: 4, MaxInfluences: 9, Iterations: 10},
		{Bones: 4, MaxInfluences: 4, Iterations: 0},
		{Bones: 4, MaxInfluences: 4, Iterations: 10, Smooth: -1},
	} {
		h := demoHost()
		tool := &Rig{Settings: s}
		tool.Start(h)
		if tool.Running() || len(h.Errs) != 1 {
			t.Errorf("settings %+v: running %v, errors %v", s, tool.Running(), h.Errs)
		}
	}
	// Stop: cancelled, no result, no error.
	h := demoHost()
	tool := &Rig{Settings: Settings{Bones: 8, MaxInfluences: 4, Iterations: 1000}}
	tool.Start(h)
	tool.Stop()
	finish(t, tool, h)
	if tool.res != nil || len(h.Errs) > 0 {
		t.Errorf("after Stop: result %v, errors %v", tool.res != nil, h.Errs)
	}
}

// TestRigState: the settings and display choices survive the project
// file; bad states are refused with a message.
func TestRigState(t *testing.T) {
	h := demoHost()
	tool := &Rig{Settings: Settings{Bones: 12, MaxInfluences: 6, Iterations: 40, Smooth: 0.01}, Show: ShowBoth, Heat: HeatError, Bone: 3, HideBones: true}
	raw, err := tool.State()
	if err != nil {
		t.Fatal(err)
	}
	var back Rig
	if err := back.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	if back.Settings != tool.Settings || back.Show != tool.Show || back.Heat != tool.Heat || back.Bone != tool.Bone || back.HideBones != tool.HideBones {
		t.Errorf("restored %+v, saved %+v", back, tool)
	}
	// The zero tool saves its defaults.
	raw, err = (&Rig{}).State()
	if err != nil {
		t.Fatal(err)
	}
	var s stateJSON
	if err := json.Unmarshal(raw, &s); err != nil || s.Settings != DefaultSettings() {
		t.Errorf("default state %s (%v)", raw, err)
	}
	for _, bad := range []string{
		`{"settings":{"bones":20,"max_influences":4,"iterations":100},"show":"sideways","heat":"none"}`,
		`{"settings":{"bones":20,"max_influences":4,"iterations":100},"show":"original","heat":"hot"}`,
		`{"settings":{"bones":20,"max_influences":12,"iterations":100},"show":"original","heat":"none"}`,
		`{"settings":{"bones":2,"max_influences":4,"iterations":100},"show":"original","heat":"none","bone":2}`,
		`{"settings":[]}`,
	} {
		if err := (&Rig{}).Restore(h, json.RawMessage(bad)); err == nil || !strings.HasPrefix(err.Error(), "rig tool state") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// TestRigApply applies a rig to the demo bar: the object gets the rig, its
// joint animation and the skinned clip, saves and exports as a skinned
// object, and Undo / Redo switch back and forth.
func TestRigApply(t *testing.T) {
	tool, h, r := rigBar(t)
	orig := h.Obj.Clip
	tool.Apply(h)
	if !r.Applied() || h.Obj.Rig == nil || h.Obj.Skin == nil || h.Obj.Source != nil {
		t.Fatalf("after Apply: applied %v, rig %v, skin %v, source %v", r.Applied(), h.Obj.Rig != nil, h.Obj.Skin != nil, h.Obj.Source)
	}
	if len(h.Obj.Rig.Joints) != 4 || len(h.Obj.Skin.Frames) != len(orig.Frames) || len(h.Obj.Clip.Frames) != len(orig.Frames) {
		t.Fatalf("after Apply: %d joints, %d skin frames, %d clip frames; want 4, %d, %d",
			len(h.Obj.Rig.Joints), len(h.Obj.Skin.Frames), len(h.Obj.Clip.Frames), len(orig.Frames), len(orig.Frames))
	}
	if tool.Result(h) != r {
		t.Error("the result is no longer shown after Apply")
	}
	// The applied object saves as a skinned glTF that validates and plays
	// the skinned clip.
	path := filepath.Join(t.TempDir(), "applied.glb")
	if err := assets.SaveGLTF(path, h.Obj, assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
		t.Fatal(err)
	}
	gltftest.Validate(t, path)
	h.Stack.Undo()
	if h.Obj.Clip != orig || h.Obj.Rig != nil || h.Obj.Skin != nil || r.Applied() {
		t.Fatal("Undo did not restore the original clip without a rig")
	}
	h.Stack.Redo()
	if !r.Applied() {
		t.Fatal("Redo did not apply the rig again")
	}

	// Issue 25, item 3: the captured clip is not lost but kept as the
	// object's take, which plays again in one undoable step.
	if len(h.Obj.Takes) != 1 || h.Obj.Takes[0].Clip != orig {
		t.Fatalf("after Apply the takes are %v, want the captured clip", h.Obj.Takes)
	}
	rigged := h.Obj.Clip
	h.Do(tools.PlayTake(h.Obj, 0))
	if h.Obj.Clip != orig || len(h.Obj.Takes) != 1 || h.Obj.Takes[0].Clip != rigged || h.Obj.Rig == nil {
		t.Fatal("playing the take did not swap it with the rigged clip")
	}
	h.Stack.Undo()
	if h.Obj.Clip != rigged || h.Obj.Takes[0].Clip != orig {
		t.Fatal("Undo did not bring the rigged clip back")
	}
}

// TestItem12SideBySideApartAndLabelled (issue 10, item 12): side by side,
// the galloping horse and its rig's copy stand apart on screen from the
// default camera (the copy sat 1.2 widths along x, and the horse, which
// runs along z, overlapped itself), both inside the view, each under its
// label.
func TestItem12SideBySideApartAndLabelled(t *testing.T) {
	objs, err := assets.Import(context.Background(), []string{shareddata.Path(t, "horse-gallop", "frames")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clip := objs[0]
	h := toolstest.New(clip)
	v := h.View()
	v.Width, v.Height = 660, 640 // the viewport of a 1280 × 800 window
	lo, hi := clip.Clip.Bounds()
	v.FrameBox(lo, hi)
	tool := &Rig{}
	tool.Update(h)
	tool.Settings.Bones, tool.Settings.Iterations = 4, 3
	tool.Start(h)
	finish(t, tool, h)
	if tool.Result(h) == nil {
		t.Fatalf("no result; errors %v", h.Errs)
	}
	tool.SetShow(h, ShowBoth)
	copyItems := tool.ExtraItems(h)
	if len(copyItems) != 1 {
		t.Fatalf("%d extra items side by side, want the copy", len(copyItems))
	}
	// span returns the screen box of positions.
	span := func(ps []assets.Vec3) (x0, y0, x1, y1 float64) {
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range ps {
			x, y, ok := v.ToScreen(p)
			if !ok {
				t.Fatalf("a vertex at %v is out of the view's depth", p)
			}
			x0, y0, x1, y1 = math.Min(x0, x), math.Min(y0, y), math.Max(x1, x), math.Max(y1, y)
		}
		return
	}
	for _, f := range []int{0, 12, 24, 36} {
		h.CurrentFrame = f
		ox0, oy0, ox1, oy1 := span(h.Positions())
		cx0, cy0, cx1, cy1 := span(tool.ExtraItems(h)[0].Positions)
		if !(ox1 < cx0) {
			t.Errorf("frame %d: the original spans x %.0f–%.0f and the copy %.0f–%.0f on screen: they overlap", f+1, ox0, ox1, cx0, cx1)
		}
		for _, b := range [][4]float64{{ox0, oy0, ox1, oy1}, {cx0, cy0, cx1, cy1}} {
			if b[0] < 0 || b[1] < 0 || b[2] > v.Width || b[3] > v.Height {
				t.Errorf("frame %d: a horse spans %v, outside the %gx%g view", f+1, b, v.Width, v.Height)
			}
		}
		labels := tool.Labels(h)
		if len(labels) != 2 || labels[0].Text != "original clip" || !strings.HasPrefix(labels[1].Text, "rig: 4 bones") {
			t.Fatalf("labels %+v", labels)
		}
		for i, span := range [][2]float64{{ox0, ox1}, {cx0, cx1}} {
			x, _, _ := v.ToScreen(labels[i].At)
			if x < span[0] || x > span[1] {
				t.Errorf("frame %d: label %q at x %.0f is not over its horse (%.0f–%.0f)", f+1, labels[i].Text, x, span[0], span[1])
			}
		}
	}
}

// TestItem14RigProgressSaysPolish (issue 10, item 14): the progress of a
// run of 30 iterations counts up to 30 and then names the polish rounds
// ("/105 iterations" when 100 were asked, before).
func TestItem14RigProgressSaysPolish(t *testing.T) {
	tool, _, _ := rigBar(t) // 30 iterations asked
	pr := tool.Progress()
	if pr == nil {
		t.Fatal("no progress after the run")
	}
	if pr.Asked != 30 || pr.PolishRounds != 5 || pr.Polish != 5 {
		t.Fatalf("progress %+v: want 30 iterations asked and 5 polish rounds done", *pr)
	}
	want := fmt.Sprintf("polish 5 of 5 after %d iterations", pr.Iteration-5)
	if got := pr.Text(); got != want {
		t.Errorf("progress after the run: %q, want %q", got, want)
	}
	running := Progress{Iteration: 12, Asked: 30, PolishRounds: 5}
	if got, want := running.Text(), "iteration 12 of at most 30, then 5 polish rounds"; got != want {
		t.Errorf("progress at iteration 12: %q, want %q", got, want)
	}
}

// TestIterationWords (issue 34): the status counts iterations as the
// progress bar does, polish rounds apart ("after 24 iterations" read
// against the panel's 19 and 5 polish rounds).
func TestIterationWords(t *testing.T) {
	for _, c := range []struct {
		it, polish, skeleton int
		want                 string
	}{{24, 5, 0, "19 iterations and 5 polish rounds"}, {1, 0, 0, "1 iteration"}, {6, 1, 0, "5 iterations and 1 polish round"},
		{41, 5, 12, "24 iterations, 5 polish rounds and 12 skeleton rounds"}} {
		if got := RoundWords(&ssdr.Result{Iterations: c.it, PolishRounds: c.polish, SkeletonRounds: c.skeleton}); got != c.want {
			t.Errorf("%d, %d, %d: %q, want %q", c.it, c.polish, c.skeleton, got, c.want)
		}
	}
}

// TestRigSkeletonMode (issue 35): with Skeleton ticked and a root asked
// for, the tool's run gives a skeleton with that root; the bones it
// draws run from joint to joint with the root marked once; the progress
// counts the skeleton's rounds; Apply gives the object a joint hierarchy
// with one root whose skinned clip is the result's; the export
// validates.
func TestRigSkeletonMode(t *testing.T) {
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.Settings.Bones, tool.Settings.Iterations, tool.Settings.Skeleton, tool.Settings.Root = 4, 30, true, 3
	tool.Start(h)
	finish(t, tool, h)
	r := tool.Result(h)
	if r == nil || len(h.Errs) > 0 {
		t.Fatalf("no result; errors %v", h.Errs)
	}
	k := r.SSDR.Skeleton
	if k == nil || k.Root() != 2 {
		t.Fatalf("skeleton %v, want one rooted at bone 2", k)
	}
	if pr := tool.Progress(); pr.Skeleton == 0 || pr.Skeleton != r.SSDR.SkeletonRounds || !strings.HasPrefix(pr.Text(), "skeleton round") {
		t.Errorf("progress %+v (%q), the run's skeleton rounds %d", pr, pr.Text(), r.SSDR.SkeletonRounds)
	}
	roots := 0
	for _, b := range tool.Bones(h) {
		if !b.Joint {
			t.Fatalf("bone %d drawn as a free bone", b.Bone)
		}
		if b.Root {
			roots++
			if b.Bone != 2 {
				t.Errorf("bone %d marked as the root", b.Bone)
			}
		}
	}
	if roots == 0 {
		t.Error("no root drawn")
	}
	tool.Apply(h)
	rg := h.Obj.Rig
	if rg == nil || len(rg.Joints) != 4 {
		t.Fatalf("applied rig %v", rg)
	}
	parents := 0
	for _, jt := range rg.Joints {
		if jt.Parent >= 0 {
			parents++
		}
	}
	if parents != 3 {
		t.Errorf("%d of 4 joints have a parent, want 3", parents)
	}
	clip, err := rg.Bake(h.Obj.Mesh.Positions, h.Obj.Skin)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for f := range clip.Frames {
		for i, p := range clip.Frames[f] {
			worst = max(worst, p.Sub(r.skinned[f][i]).Len())
		}
	}
	if worst > 1e-9*r.Diagonal {
		t.Errorf("the applied joint animation plays %.3g of the diagonal from the result", worst/r.Diagonal)
	}
	path := filepath.Join(t.TempDir(), "skeleton.glb")
	if err := assets.SaveGLTF(path, h.Obj, assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
		t.Fatal(err)
	}
	gltftest.Validate(t, path)
}

// TestRigFitSkeleton (issue 35): Fit to skeleton... reads a skeleton the
// tool exported and fits the clip to it: the result keeps its hierarchy,
// joints and names (Apply gives the object those joints), with an error
// no worse than 1.05 times the skeleton it came from; a file without a
// skin is reported, naming it.
func TestRigFitSkeleton(t *testing.T) {
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.Settings.Bones, tool.Settings.Iterations, tool.Settings.Skeleton = 4, 30, true
	tool.Start(h)
	finish(t, tool, h)
	first := tool.Result(h)
	if first == nil {
		t.Fatalf("no result; errors %v", h.Errs)
	}
	path := filepath.Join(t.TempDir(), "skeleton.glb")
	o := first.object()
	o.Rig.Joints[0].Name = "hips" // an artist's name, to come back
	if err := assets.SaveGLTF(path, o, assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
		t.Fatal(err)
	}
	h.OpenPath = path
	tool.FitSkeleton(h)
	finish(t, tool, h)
	r := tool.Result(h)
	if r == first || r == nil || len(h.Errs) > 0 {
		t.Fatalf("no new result; errors %v", h.Errs)
	}
	a, b := first.SSDR.Skeleton, r.SSDR.Skeleton
	order := a.Order()
	for q, j := range order {
		jb := b.Order()[q]
		if d := a.Joint[j].Sub(b.Joint[jb]).Len(); d > 1e-6*r.Diagonal {
			t.Errorf("joint %d moved by %.3g", q, d)
		}
	}
	if r.SSDR.RMSE > 1.05*first.SSDR.RMSE {
		t.Errorf("fitted RMSE %.4g, the skeleton's %.4g", r.SSDR.RMSE, first.SSDR.RMSE)
	}
	tool.Apply(h)
	if h.Obj.Rig.Joints[0].Name != "hips" {
		t.Errorf("the applied rig's root is %q, the file named it hips", h.Obj.Rig.Joints[0].Name)
	}

	morph := filepath.Join(t.TempDir(), "plain.glb")
	if err := assets.SaveGLTF(morph, h.Obj, assets.ExportOptions{Mode: assets.ExportMorph}); err != nil {
		t.Fatal(err)
	}
	h.Errs = nil
	h.OpenPath = morph
	tool.FitSkeleton(h)
	finish(t, tool, h)
	if len(h.Errs) == 0 || !strings.Contains(h.Errs[0].Error(), "plain.glb") {
		t.Errorf("fitting to a file without a skin: errors %v", h.Errs)
	}
}

// TestRigLockedSettings: locking bones in the settings reaches the
// skeleton's options, in order and without repeats; a bone out of range
// is refused by Check.
func TestRigLockedSettings(t *testing.T) {
	s := DefaultSettings()
	s.Skeleton = true
	s.SetLocked(7, true)
	s.SetLocked(2, true)
	s.SetLocked(7, true)
	if s.Locked != "2,7" {
		t.Errorf("locked %q, want 2,7", s.Locked)
	}
	if o := s.options(); !slices.Equal(o.Skeleton.Locked, []int{2, 7}) {
		t.Errorf("the solver's locked bones %v", o.Skeleton.Locked)
	}
	s.SetLocked(2, false)
	if s.Locked != "7" || s.Check(100) != nil {
		t.Errorf("locked %q, check %v", s.Locked, s.Check(100))
	}
	s.Locked = "7,40"
	if err := s.Check(100); err == nil || !strings.Contains(err.Error(), "40") {
		t.Errorf("bone 40 of 20 locked: %v", err)
	}
}
