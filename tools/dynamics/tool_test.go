package dynamics

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/tools/toolstest"
)

// simulate runs the tool's updates until its simulation of the active
// object is complete and current.
func simulate(t *testing.T, d *Dynamics, h *toolstest.Host) *snapshot {
	t.Helper()
	deadline := time.Now().Add(jobLimit)
	for time.Now().Before(deadline) {
		h.Runner.Poll()
		d.Update(h)
		if st := d.Status(h); st.Current && st.Err == nil && st.Total > 0 && st.Frames == st.Total {
			return d.snapshot(h)
		} else if st.Err != nil {
			t.Fatalf("simulation: %v", st.Err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the simulation did not complete in %v", jobLimit)
	return nil
}

// jobLimit is how long a test waits for a job before it fails instead of
// hanging: far beyond what any takes here (seconds), so that a run under
// the race detector (ten times slower) on a shared machine passes too.
const jobLimit = 10 * time.Minute

// until polls the host's jobs while busy reports true (at most jobLimit).
func until(t *testing.T, h *toolstest.Host, busy func() bool) {
	t.Helper()
	deadline := time.Now().Add(jobLimit)
	for h.Runner.Poll(); busy(); h.Runner.Poll() {
		if time.Now().After(deadline) {
			t.Fatalf("the job did not end in %v", jobLimit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// largest returns the largest distance between two animations' vertices,
// and the largest over the vertices in only.
func largest(a, b [][]assets.Vec3, only map[int]bool) (all, in float64) {
	for f := range a {
		for i := range a[f] {
			d := a[f][i].Sub(b[f][i]).Len()
			all = math.Max(all, d)
			if only[i] {
				in = math.Max(in, d)
			}
		}
	}
	return all, in
}

// TestToolPaintSimulateBake drives the model as the panel does, on the
// tube: unpainted (Stiff) it reproduces the skinning exactly; jelly filled
// in the middle moves the middle and nothing else; one undo step per
// fill; the preview is the same at every frame however often it is
// restarted; the bake is the preview frame for frame and undoes; the
// saved state brings the materials back.
func TestToolPaintSimulateBake(t *testing.T) {
	o, _, _, _ := tube(t, "train")
	h := toolstest.New(o)
	d := &Dynamics{}
	s := simulate(t, d, h)
	if all, _ := largest(s.frames, s.rig.Goal.Positions, nil); all > 1e-9*s.rig.Model.Diagonal() {
		t.Fatalf("stiff everywhere: %g from the skinning, want none", all)
	}
	// The middle third along the tube's long axis.
	lo, hi := s.rig.bounds()
	axis := 0
	for k := range 3 {
		if hi[k]-lo[k] > hi[axis]-lo[axis] {
			axis = k
		}
	}
	mid := map[int]bool{}
	for i, p := range o.Mesh.Positions {
		if u := (p[axis] - lo[axis]) / (hi[axis] - lo[axis]); u > 1.0/3 && u < 2.0/3 {
			mid[i] = true
			h.Sel = append(h.Sel, i)
		}
	}
	d.Brush.Channel, d.Brush.Preset = ChannelMaterial, 2 // jelly
	d.Fill(h, false)
	if h.Stack.Position() != 1 {
		t.Fatalf("the fill made %d undo steps, want 1", h.Stack.Position())
	}
	s = simulate(t, d, h)
	all, in := largest(s.frames, s.rig.Goal.Positions, mid)
	t.Logf("jelly in the middle: largest distance from skinning %.3g, in the middle %.3g (diagonal %.3g)", all, in, s.rig.Model.Diagonal())
	if in < 1e-3*s.rig.Model.Diagonal() {
		t.Errorf("jelly moved the middle by only %g", in)
	}
	for f := range s.frames {
		for i := range s.frames[f] {
			if !mid[i] && s.frames[f][i].Sub(s.rig.Goal.Positions[f][i]).Len() > 1e-9*s.rig.Model.Diagonal() {
				t.Fatalf("frame %d, vertex %d outside the painted middle moved off the skinning", f, i)
			}
		}
	}
	first := s.frames

	// Bake: the clip becomes the preview's frames; undo brings back the
	// clip before.
	before := o.Clip
	d.Bake(h)
	if o.Clip == before || !assets.Same(o.Clip.Frames, first) {
		t.Fatal("the bake is not the preview's frames")
	}
	if before != nil && (len(o.Takes) == 0 || o.Takes[0].Clip != before) {
		t.Fatal("the clip the bake replaced is not kept as a take (issue 25)")
	}
	h.Stack.Undo()
	if o.Clip != before {
		t.Fatal("undoing the bake did not bring the clip back")
	}

	// Saved and restored, the materials come back, and the simulation
	// gives the same frames bit for bit.
	raw, err := d.State()
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d2 := &Dynamics{}
	if err := d2.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	s2 := simulate(t, d2, h)
	for f := range first {
		for i := range first[f] {
			if first[f][i] != s2.frames[f][i] {
				t.Fatalf("restored: frame %d vertex %d is %v, was %v", f, i, s2.frames[f][i], first[f][i])
			}
		}
	}
	// Undo of the fill: stiff again.
	h.Stack.Undo()
	if p := d.Params(h); p[h.Sel[0]] != Presets[0].Material {
		t.Errorf("after undo vertex %d has %v, want Stiff", h.Sel[0], p[h.Sel[0]])
	}
	d2.Close()
}

// TestRestoreRefusesBadState: state with parameters out of range or
// unknown names is refused with a message saying which.
func TestRestoreRefusesBadState(t *testing.T) {
	bad := func(v []float64) string { return assets.EncodeFloat64s(v) }
	for raw, want := range map[string]string{
		`{"show": "sideways"}`: "unknown display",
		`{"settings": {"substeps": 0, "iterations": 10, "infer_bones": 5}, "show": "dynamic", "heat": "none"}`:                    "substeps",
		`{"show": "dynamic", "heat": "none", "objects": [{"name": "tube", "params": "` + bad([]float64{1, 0, 0, 0.6, 0}) + `"}]}`: "vertex 0: lambda = 0.6",
		`{"show": "dynamic", "heat": "none", "objects": [{"name": "tube", "params": "` + bad([]float64{1, 0, 0}) + `"}]}`:         "not groups of 5",
	} {
		d := &Dynamics{}
		err := d.Restore(toolstest.New(nil), json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", raw, err, want)
		}
	}
}

// TestToolBlowUpStops: a goal that jumps a million diagonals at frame 10
// under Jelly blows the simulation up; the tool names the frame and the
// vertex, keeps the frames before, and shows only finite positions.
func TestToolBlowUpStops(t *testing.T) {
	o, _, _, _ := tube(t, "train")
	skin := *o.Skin
	skin.Frames = append([][]assets.Transform(nil), o.Skin.Frames...)
	for f := 10; f < len(skin.Frames); f++ {
		root := append([]assets.Transform(nil), skin.Frames[f]...)
		root[0].Translation = root[0].Translation.Add(assets.Vec3{4e6, 0, 0})
		skin.Frames[f] = root
	}
	o.Skin = &skin
	h := toolstest.New(o)
	d := &Dynamics{}
	d.Brush.Channel, d.Brush.Preset = ChannelMaterial, 2
	d.Update(h)
	d.Fill(h, true)
	deadline := time.Now().Add(30 * time.Second)
	var st Status
	for time.Now().Before(deadline) {
		h.Runner.Poll()
		d.Update(h)
		if st = d.Status(h); st.Err != nil && st.Current {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if st.Err == nil || !strings.Contains(st.Err.Error(), "blew up at frame 10, vertex") {
		t.Fatalf("status %+v, want a blow-up at frame 10 named", st)
	}
	if st.Frames != 10 {
		t.Errorf("%d frames kept, want the 10 before the blow-up", st.Frames)
	}
	if len(h.Errs) != 1 {
		t.Errorf("%d errors reported, want 1: %v", len(h.Errs), h.Errs)
	}
	for f := range o.NumFrames() {
		h.CurrentFrame = f
		pos, _ := d.Display(h)
		for i, p := range pos {
			if math.IsNaN(p[0]+p[1]+p[2]) || math.IsInf(p[0]+p[1]+p[2], 0) {
				t.Fatalf("frame %d shows vertex %d at %v", f, i, p)
			}
		}
	}
	d.Close()
}

// TestRigError: an object without a rig names what is missing and whether
// a rig can be inferred.
func TestRigError(t *testing.T) {
	o, _, _, _ := tube(t, "train")
	static := &assets.Object{Name: "still", Mesh: o.Mesh}
	if err := RigError(static); err == nil || !strings.Contains(err.Error(), "still has no rig and no animation") || CanInfer(static) {
		t.Errorf("a static mesh: %v", err)
	}
	anim := &assets.Object{Name: "cloth", Mesh: o.Mesh, Clip: o.Clip}
	if err := RigError(anim); err == nil || !strings.Contains(err.Error(), "infer one") || !CanInfer(anim) {
		t.Errorf("an animation without a rig: %v", err)
	}
	if err := RigError(o); err != nil {
		t.Errorf("the tube: %v", err)
	}
}

// TestInferThenFitOwnClip: an animation without a rig (pcow, a simulated
// elastic cow) gets one in the tool, as one undo step that keeps its
// clip; the clip is then the example, and a short fit to it lowers the
// error below plain skinning's, as one more undo step.
func TestInferThenFitOwnClip(t *testing.T) {
	files, err := assets.ListOBJSequence(shareddata.Path(t, "pcow", "frames"))
	if err != nil {
		t.Fatal(err)
	}
	mesh, clip, err := assets.LoadOBJSequence(context.Background(), files[:40], nil)
	if err != nil {
		t.Fatal(err)
	}
	o := &assets.Object{Name: "pcow", Mesh: mesh, Clip: clip}
	h := toolstest.New(o)
	d := &Dynamics{}
	d.Update(h)
	d.Settings.Bones, d.Settings.Iterations = 8, 80
	d.InferRig(h)
	until(t, h, d.Inferring)
	if len(h.Errs) > 0 || o.Rig == nil || o.Skin == nil || o.Clip != clip || h.Stack.Position() != 1 {
		t.Fatalf("infer: errors %v, rig %v, clip kept %v, %d undo steps", h.Errs, o.Rig != nil, o.Clip == clip, h.Stack.Position())
	}
	simulate(t, d, h)
	if !d.HasOwnExample(h) {
		t.Fatal("the clip is not offered as the example")
	}
	d.Fit(h, "")
	until(t, h, d.Fitting)
	if len(h.Errs) > 0 || d.fit.res == nil || h.Stack.Position() != 2 {
		t.Fatalf("fit: errors %v, %d undo steps", h.Errs, h.Stack.Position())
	}
	t.Logf("%s", d.FitReport())
	if d.fit.ratio >= 1 {
		t.Errorf("the fit's RMSE is %.3f of skinning's, want below 1", d.fit.ratio)
	}
	d.Close()
}

// TestItem7SideBySideLabelled (issue 25, item 7): side by side, the
// dynamic animation and the plain skinning beside it had no names; now
// each has its label over it, the skinning's one side offset away.
func TestItem7SideBySideLabelled(t *testing.T) {
	d, h := tubeTool(t, "test")
	if l := d.Labels(h); len(l) != 0 {
		t.Fatalf("labels %v while one animation is shown", l)
	}
	d.SetShow(h, ShowBoth)
	l := d.Labels(h)
	if len(l) != 2 || l[0].Text != "dynamic" || l[1].Text != "plain skinning" {
		t.Fatalf("labels %v, want dynamic and plain skinning", l)
	}
	if got := l[1].At.Sub(l[0].At); got.Sub(d.side).Len() > 1e-12 || d.side.Len() == 0 {
		t.Errorf("the labels are %v apart, the animations %v", got, d.side)
	}
}

// TestItem7CrumpleIsReported (issue 25, item 7): Jelly on a motion far
// faster than the data's (the tube's train animation played 4 times as
// fast) crumpled the mesh without a word; now the status says how far it
// strays and what to do. The data's own motion with the same Jelly does
// not warn.
func TestItem7CrumpleIsReported(t *testing.T) {
	stray := func(speed int) Status {
		o, _, _, _ := tube(t, "train")
		skin := *o.Skin
		skin.Frames = make([][]assets.Transform, len(o.Skin.Frames))
		for f := range skin.Frames {
			skin.Frames[f] = o.Skin.Frames[(speed*f)%len(o.Skin.Frames)]
		}
		o.Skin = &skin
		h := toolstest.New(o)
		d := &Dynamics{}
		d.Brush.Channel, d.Brush.Preset = ChannelMaterial, 2 // Jelly
		d.Update(h)
		d.Fill(h, true)
		simulate(t, d, h)
		st := d.Status(h)
		d.Close()
		return st
	}
	calm, fast := stray(1), stray(4)
	t.Logf("Jelly strays %.3f of the diagonal at the data's speed, %.3f at 4 times", calm.Stray, fast.Stray)
	if calm.Warning() != "" {
		t.Errorf("the data's motion warns: %s", calm.Warning())
	}
	if w := fast.Warning(); !strings.Contains(w, "too soft") {
		t.Errorf("4 times as fast: no warning (stray %.3f)", fast.Stray)
	}
}

// TestLeaveReleasesSimulation: leaving the tool ends the simulation's job
// (its frames and model can go) and keeps the materials; back in the
// tool, the clip is simulated again to the same frames.
func TestLeaveReleasesSimulation(t *testing.T) {
	o, _, _, _ := tube(t, "train")
	h := toolstest.New(o)
	d := &Dynamics{}
	simulate(t, d, h)
	h.Sel = []int{0, 1, 2, 3}
	d.Brush.Channel, d.Brush.Preset = ChannelMaterial, 2 // jelly
	d.Fill(h, false)
	first := simulate(t, d, h).frames
	params := d.Params(h)
	d.Leave()
	until(t, h, func() bool { return len(h.Runner.Running()) > 0 })
	if d.prev != nil || d.snapshot(h) != nil {
		t.Fatal("the simulation is still held after Leave")
	}
	if !assets.Same(d.Params(h), params) {
		t.Fatal("Leave changed the materials")
	}
	again := simulate(t, d, h).frames
	for f := range first {
		for i := range first[f] {
			if first[f][i] != again[f][i] {
				t.Fatalf("after Leave: frame %d vertex %d is %v, was %v", f, i, again[f][i], first[f][i])
			}
		}
	}
	d.Close()
}
