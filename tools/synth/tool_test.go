package synth

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/solver/synth"
	"gallop/tools/toolstest"
)

// horse returns the horse gallop as a document object.
func horse(t *testing.T) *assets.Object {
	t.Helper()
	files, err := assets.ListOBJSequence(filepath.Join(shareddata.Path(t, "horse-gallop"), "frames"))
	if err != nil {
		t.Fatal(err)
	}
	mesh, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &assets.Object{Name: "horse", Mesh: mesh, Clip: clip}
}

// finish waits for the tool's jobs, runs their completions on this (the
// UI) goroutine and takes their last snapshots, as a frame of the window
// would.
func finish(tool *Synth, h *toolstest.Host) {
	h.Runner.Wait()
	tool.Update(h)
}

// TestTool drives the Synthesize tool as the panel does on the horse
// gallop with components: analyse, move the threshold, generate, play,
// remix one component, export through the Save dialog, add to the
// document, save and restore the settings.
func TestTool(t *testing.T) {
	h := toolstest.New(horse(t))
	tool := &Synth{}
	tool.Update(h)
	tool.Settings.Components = true
	tool.Analyse(h)
	if !tool.Analysing() {
		t.Fatalf("no analysis started: %v", h.Errs)
	}
	finish(tool, h)
	r := tool.Analysis(h)
	if r == nil || len(h.Errs) > 0 {
		t.Fatalf("no analysis: %v", h.Errs)
	}
	if len(r.Analysis.Parts) < 2 {
		t.Fatalf("%d components on the horse", len(r.Analysis.Parts))
	}
	if r.CostSize != 48 || len(r.Cost) != 48*48 || !(r.CostMax > 0) {
		t.Errorf("cost matrix %d × %d, max %g", r.CostSize, r.CostSize, r.CostMax)
	}
	summary := tool.GraphSummary()
	t.Log(summary)
	if !strings.Contains(summary, "candidate transitions") {
		t.Errorf("graph summary %q", summary)
	}

	// The threshold rebuilds the graphs without the rig.
	count := func() int {
		gs, err := tool.Graphs()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, g := range gs {
			n += len(g.Transitions)
		}
		return n
	}
	all := count()
	tool.SetThreshold(h, 1)
	if few := count(); few >= all {
		t.Errorf("a threshold of 1 step gives %d candidates, the default %d", few, all)
	}
	tool.SetThreshold(h, 0)
	if count() != all {
		t.Error("back to the default threshold, the graphs differ")
	}

	tool.Settings.Count, tool.Settings.Seconds = 4, 4
	tool.Generate(h)
	finish(tool, h)
	g := tool.Gallery()
	if g == nil || g.Made() != 4 || len(h.Errs) > 0 {
		t.Fatalf("gallery %+v, errors %v", g, h.Errs)
	}
	for i, v := range g.Variations {
		for _, w := range g.Variations[:i] {
			if synth.SameWalks(v.Clip, w.Clip) {
				t.Errorf("variations %d and %d walk the same way", i, slices.Index(g.Variations, w))
			}
		}
		if !(v.Lo[1] < v.Hi[1]) {
			t.Errorf("variation %d's box %v %v", i, v.Lo, v.Hi)
		}
	}

	tool.Play(h, 1)
	if h.Clip == nil || len(h.Clip.Clip.Frames) != 120 || !h.Playing {
		t.Fatalf("playing: %+v", h.Clip)
	}
	if !slices.Equal(h.Marks, g.Variations[1].SpliceFrames()) || len(h.Marks) == 0 {
		t.Errorf("timeline marks %v, splices %v", h.Marks, g.Variations[1].SpliceFrames())
	}

	// Component 2 gets the walk of seed 99; the others keep theirs.
	before := g.Variations[1].Clip
	tool.Remix(h, 1, 99)
	finish(tool, h)
	after := tool.Chosen().Clip
	if after == before || after.Seeds[1] != 99 || after.Seeds[0] != before.Seeds[0] {
		t.Fatalf("remix: seeds %v, were %v", after.Seeds, before.Seeds)
	}
	if !slices.Equal(after.Walks[0].Source, before.Walks[0].Source) || slices.Equal(after.Walks[1].Source, before.Walks[1].Source) {
		t.Error("the remix changed another component, or not the one asked")
	}
	if h.Clip.Name != tool.Chosen().Name(r) || !strings.Contains(h.Clip.Name, "-99") {
		t.Errorf("after the remix the viewport plays %q", h.Clip.Name)
	}

	h.SavePath = filepath.Join(t.TempDir(), "variation.glb")
	tool.Export(h, false)
	if len(h.Errs) > 0 {
		t.Fatal(h.Errs)
	}
	gltftest.Validate(t, h.SavePath)
	objs, err := assets.LoadGLTF(h.SavePath)
	if err != nil {
		t.Fatal(err)
	}
	if n := objs[0].NumFrames(); n != 120 {
		t.Errorf("the export has %d frames", n)
	}

	tool.AddToDocument(h)
	if len(h.Others) != 1 || h.Others[0].Clip == nil || len(h.Others[0].Clip.Frames) != 120 {
		t.Fatalf("added %v", h.Others)
	}
	// Issue 25, item 3: the variation enters the document with its rig and
	// joint animation, which pose it as its clip, so Dynamics can use it
	// without inferring a rig again.
	added := h.Others[0]
	if added.Rig == nil || added.Skin == nil {
		t.Fatal("the added variation has no rig")
	}
	baked, err := added.Rig.Bake(added.Mesh.Positions, added.Skin)
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for f := range baked.Frames {
		for i, p := range baked.Frames[f] {
			worst = max(worst, p.Sub(added.Clip.Frames[f][i]).Len())
		}
	}
	if worst > 1e-9 {
		t.Errorf("the added rig poses the variation %g from its clip", worst)
	}

	// Acceptance 4: the components coloured, and they splice at
	// different frames.
	tool.ShowComponents = true
	_, cols := tool.Display(h)
	distinct := map[[3]float32]bool{}
	for _, c := range cols {
		distinct[c] = true
	}
	if len(cols) != h.Obj.Mesh.NumVertices() || len(distinct) < len(r.Analysis.Parts) {
		t.Errorf("%d component colours, %d distinct, for %d components", len(cols), len(distinct), len(r.Analysis.Parts))
	}
	if w := after.Walks; slices.Equal(w[0].Splices, w[1].Splices) {
		t.Errorf("components 1 and 2 splice at the same frames %v", w[0].Splices)
	}

	tool.AddSphere(h)
	tool.AddPlane(h)
	tool.AddTarget(h, 10, 60)
	raw, err := tool.State()
	if err != nil {
		t.Fatal(err)
	}
	again := &Synth{}
	if err := again.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	if again.Settings != tool.Settings || !slices.Equal(again.Obstacles, tool.Obstacles) || !slices.Equal(again.Targets, tool.Targets) {
		t.Errorf("restored %+v, want %+v", again, tool)
	}
	if items := tool.ExtraItems(h); len(items) != 2 {
		t.Errorf("%d obstacle items drawn", len(items))
	}
	if err := again.Restore(h, []byte(`{"settings":{"bones":0}}`)); err == nil {
		t.Error("0 bones restored")
	}
}

// TestToolBadInput: too short a clip, bad settings, an obstacle object
// that is gone: clear errors, nothing started.
func TestToolBadInput(t *testing.T) {
	o := horse(t)
	o.Clip.Frames = o.Clip.Frames[:9]
	h := toolstest.New(o)
	tool := &Synth{}
	tool.Analyse(h)
	if tool.Analysing() || len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), "at least 10") {
		t.Errorf("9 frames: %v", h.Errs)
	}

	h = toolstest.New(horse(t))
	tool = &Synth{}
	tool.Update(h)
	tool.Settings.Seconds = math.NaN()
	tool.Analyse(h)
	if tool.Analysing() || len(h.Errs) != 1 {
		t.Errorf("NaN seconds: %v", h.Errs)
	}
	tool.Settings = DefaultSettings()
	tool.Settings.Bones = 8
	h.Errs = nil
	tool.Analyse(h)
	finish(tool, h)
	tool.AddObject(h, "gone")
	tool.Generate(h)
	if tool.Generating() || len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), `no other object named "gone"`) {
		t.Errorf("a missing obstacle object: %v", h.Errs)
	}
}

// TestItem5TargetsAndObstaclesUndo (issue 25, item 5): targets and
// obstacles could not be undone; now adding, removing and moving them are
// undo steps.
func TestItem5TargetsAndObstaclesUndo(t *testing.T) {
	h := toolstest.New(horse(t))
	tool := &Synth{}
	tool.Update(h)
	tool.AddSphere(h)
	tool.AddTarget(h, 4, 20)
	if len(tool.Obstacles) != 1 || len(tool.Targets) != 1 || h.Stack.Position() != 2 {
		t.Fatalf("%d obstacles, %d targets, %d undo steps", len(tool.Obstacles), len(tool.Targets), h.Stack.Position())
	}
	tool.BeginSceneDrag()
	tool.Obstacles[0].Radius *= 2 // the panel's field edits it in place
	tool.EndSceneDrag(h, "Resize sphere")
	tool.RemoveTarget(h, 0)
	if h.Stack.UndoName() != "Remove target" || len(tool.Targets) != 0 {
		t.Fatalf("undo step %q, %d targets", h.Stack.UndoName(), len(tool.Targets))
	}
	r := tool.Obstacles[0].Radius
	h.Stack.Undo()
	if len(tool.Targets) != 1 || tool.Targets[0] != (synth.Target{Input: 4, Output: 20}) {
		t.Errorf("undo did not bring the target back: %v", tool.Targets)
	}
	h.Stack.Undo()
	if tool.Obstacles[0].Radius != r/2 {
		t.Errorf("undo left the radius %g, want %g", tool.Obstacles[0].Radius, r/2)
	}
	h.Stack.Undo()
	h.Stack.Undo()
	if len(tool.Obstacles) != 0 || len(tool.Targets) != 0 {
		t.Errorf("undoing all left %v and %v", tool.Obstacles, tool.Targets)
	}
}

// TestItem5TargetBeyondTheClipAtOnce (issue 25, item 5): a target beyond
// the clip was caught only when the farm job failed, and that error
// counted frames from 0 ("29 at 149") where the panel counts from 1 ("30
// at 150"). Now adding it is refused at once, in the panel's numbers, and
// a target the settings outgrew stops Run on farm before it submits.
func TestItem5TargetBeyondTheClipAtOnce(t *testing.T) {
	o := horse(t)
	h := toolstest.New(o)
	tool := &Synth{}
	tool.Update(h)
	n := o.Clip.NumFrames()
	tool.AddTarget(h, n, 10) // input frame n+1 of n
	if len(tool.Targets) != 0 || len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), fmt.Sprintf("input frame %d at output frame 11: the clip has frames 1 to %d", n+1, n)) {
		t.Fatalf("targets %v, errors %v", tool.Targets, h.Errs)
	}
	tool.AddTarget(h, 5, 250)
	tool.Settings.Seconds = 2 // 250 is beyond the output now
	h.Errs = nil
	tool.RunOnFarm(h)
	if len(h.Errs) != 1 || !strings.Contains(h.Errs[0].Error(), "input frame 6 at output frame 251") || len(h.Runner.Running()) != 0 {
		t.Errorf("run on farm with a target beyond the output: errors %v, %d jobs", h.Errs, len(h.Runner.Running()))
	}
}

// TestGalleryNeverGoesBack (issue 26, item 5): the variations' workers
// take copies of the gallery in order but publish them as the scheduler
// runs them; an older copy published after a newer one made a finished
// gallery miss a variation. The copies taken here are published newest
// first, as that race would; the UI must still see the newest.
func TestGalleryNeverGoesBack(t *testing.T) {
	g := &generation{cur: Gallery{Variations: make([]*Variation, 2), Errors: make([]error, 2)}}
	g.cur.Done = 1
	older := g.snapshot()
	g.cur.Done = 2
	newer := g.snapshot()
	g.publish(newer)
	g.publish(older)
	if got, _ := g.task.Latest.Load(); got.Done != 2 {
		t.Errorf("the UI sees a gallery with %d done after one with 2", got.Done)
	}
}
