package rig

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
	"gallop/viewport"
)

// host is a tools.Host without a window: one object, a job runner polled
// by the test, and a Save dialog that answers savePath.
type host struct {
	obj      *assets.Object
	stack    undo.Stack
	runner   jobs.Runner
	errs     []error
	infos    []string
	frame    int
	savePath string
}

func (h *host) Object() *assets.Object   { return h.obj }
func (h *host) Positions() []assets.Vec3 { return h.obj.PositionsAt(h.frame) }
func (h *host) Selection() []int         { return nil }
func (h *host) SetSelection([]int)       {}
func (h *host) Do(c undo.Command)        { h.stack.Do(c) }
func (h *host) Jobs() *jobs.Runner       { return &h.runner }
func (h *host) View() *viewport.View     { return viewport.NewView() }
func (h *host) Error(err error)          { h.errs = append(h.errs, err) }
func (h *host) Info(format string, args ...any) {
	h.infos = append(h.infos, format)
}
func (h *host) Frame() int                              { return h.frame }
func (h *host) NumFrames() int                          { return h.obj.NumFrames() }
func (h *host) FPS() float64                            { return h.obj.FPS() }
func (h *host) OpenFile(string, []string, func(string)) {}
func (h *host) OpenFolder(string, func(string))         {}
func (h *host) SaveFile(_ string, _ []string, _ string, done func(string)) {
	if h.savePath != "" {
		done(h.savePath)
	}
}
func (h *host) ShowAnimation(*assets.RigidAnimation, bool) error { return nil }
func (h *host) ShownAnimation() *assets.RigidAnimation           { return nil }

// demoHost returns a host on the demo scene's bar and its bending clip.
func demoHost() *host { return &host{obj: assets.DemoScene().Objects[0]} }

// finish polls the runner as the window does until the run ends (at most
// 60 s).
func finish(t *testing.T, tool *Rig, h *host) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		h.runner.Poll()
		tool.Update(h)
		if tool.run != nil && tool.run.finished {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the rig did not finish in 60 s")
}

// rigBar runs the tool with 4 bones and 30 iterations on the demo bar's
// bend and returns it, its host and the result shown.
func rigBar(t *testing.T) (*Rig, *host, *result) {
	t.Helper()
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.settings.Bones = 4
	tool.settings.Iterations = 30
	tool.start(h)
	if !tool.running() {
		t.Fatalf("no run started; errors %v", h.errs)
	}
	finish(t, tool, h)
	if len(h.errs) > 0 {
		t.Fatalf("errors: %v", h.errs)
	}
	r := tool.shown(h)
	if r == nil {
		t.Fatal("no result after the run")
	}
	return tool, h, r
}

// finite reports whether every colour component is finite and in [0, 1].
func finite(cols [][3]float32) bool {
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
	if tool.prog == nil || len(tool.prog.history) == 0 || tool.prog.history[len(tool.prog.history)-1] <= 0 {
		t.Errorf("no RMSE history published: %+v", tool.prog)
	}
	nv, nf := h.obj.Mesh.NumVertices(), len(h.obj.Clip.Frames)
	t.Logf("RMSE %.3g (%.3g of the diagonal) after %d iterations", r.res.RMSE, r.res.RMSE/r.diag, r.res.Iterations)
	if rel := r.res.RMSE / r.diag; rel > 0.02 {
		t.Errorf("RMSE %.3g of the diagonal on a two-part bend, want ≤ 0.02", rel)
	}

	// Skinned positions at the frame shown.
	tool.show = ShowSkinned
	h.frame = nf / 2
	pos, cols := tool.Display(h)
	if len(pos) != nv || cols != nil {
		t.Fatalf("Display: %d positions, %d colours; want %d and none", len(pos), len(cols), nv)
	}
	// Heat maps: one finite colour per vertex, and a legend.
	for _, heat := range []Heat{HeatWeights, HeatError} {
		tool.heat = heat
		_, cols := tool.Display(h)
		if len(cols) != nv || !finite(cols) {
			t.Errorf("heat map %d: %d colours (want %d), finite %v", heat, len(cols), nv, finite(cols))
		}
		title, lo, hi, ok := tool.Legend(h)
		if !ok || title == "" || !(hi > lo) {
			t.Errorf("heat map %d: legend %q [%g, %g] %v", heat, title, lo, hi, ok)
		}
	}
	// Each bone's weights differ: bone 0 and bone 1 give different maps.
	tool.heat, tool.bone = HeatWeights, 0
	_, c0 := tool.Display(h)
	tool.bone = 1
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
	tool.show = ShowBoth
	items := tool.ExtraItems(h)
	if len(items) != 1 || len(items[0].Positions) != nv || items[0].Positions[0][0]-r.skinned[h.frame][0][0] <= 0 {
		t.Errorf("side by side: %d items", len(items))
	}
	// Segments: finite, one per bone, inside the bar's bounding box.
	lo, hi := assets.Bounds(r.rest)
	for j, s := range r.segments {
		a, b := s.Ends()
		for _, p := range []assets.Vec3{a, b, s.Centre} {
			for k := range 3 {
				if !(p[k] >= lo[k]-0.5*r.diag && p[k] <= hi[k]+0.5*r.diag) {
					t.Errorf("bone %d segment %v–%v outside the bar", j, a, b)
				}
			}
		}
	}

	// Export through the Save dialog.
	h.savePath = filepath.Join(t.TempDir(), "bar.glb")
	tool.export(h, r)
	h.runner.Wait()
	if len(h.errs) > 0 {
		t.Fatalf("export: %v", h.errs)
	}
	if !strings.Contains(tool.exported, "morph targets") {
		t.Errorf("export report %q names no morph-target size", tool.exported)
	}
	gltftest.Validate(t, h.savePath)
	objs, err := assets.LoadGLTF(h.savePath)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Rig == nil || len(o.Rig.Joints) != 4 || o.Clip == nil || len(o.Clip.Frames) != nf {
		t.Fatalf("re-imported: rig %v, clip %v", o.Rig != nil, o.Clip != nil)
	}
	worst := 0.0
	for f := range nf {
		for i, p := range o.Clip.Frames[f] {
			worst = max(worst, p.Sub(r.skinned[f][i]).Len())
		}
	}
	if worst > 1e-4*r.diag {
		t.Errorf("the export plays back %g away from the rig (diagonal %g)", worst, r.diag)
	}
}

// TestRigEightInfluences exports a rig with more than 4 influences per
// vertex (JOINTS_1 / WEIGHTS_1) and checks the file.
func TestRigEightInfluences(t *testing.T) {
	h := demoHost()
	tool := &Rig{}
	tool.Update(h)
	tool.settings = Settings{Bones: 8, MaxInfluences: 8, Iterations: 5, Smooth: 1e-4}
	tool.start(h)
	finish(t, tool, h)
	r := tool.shown(h)
	if r == nil {
		t.Fatalf("no result; errors %v", h.errs)
	}
	k := 0
	for _, l := range r.res.Weights {
		k = max(k, len(l))
	}
	if k <= 4 {
		t.Fatalf("at most %d influences per vertex, want more than 4 to test JOINTS_1", k)
	}
	h.savePath = filepath.Join(t.TempDir(), "bar8.gltf")
	tool.export(h, r)
	h.runner.Wait()
	if len(h.errs) > 0 {
		t.Fatal(h.errs)
	}
	gltftest.Validate(t, h.savePath)
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
		h := &host{obj: c.obj}
		tool := &Rig{}
		tool.start(h)
		if tool.running() || len(h.errs) != 1 || !strings.Contains(h.errs[0].Error(), c.want) {
			t.Errorf("%s: running %v, errors %v; want one naming %q", c.name, tool.running(), h.errs, c.want)
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
		tool := &Rig{settings: s}
		tool.start(h)
		if tool.running() || len(h.errs) != 1 {
			t.Errorf("settings %+v: running %v, errors %v", s, tool.running(), h.errs)
		}
	}
	// Stop: cancelled, no result, no error.
	h := demoHost()
	tool := &Rig{settings: Settings{Bones: 8, MaxInfluences: 4, Iterations: 1000}}
	tool.start(h)
	tool.stop()
	finish(t, tool, h)
	if tool.res != nil || len(h.errs) > 0 {
		t.Errorf("after Stop: result %v, errors %v", tool.res != nil, h.errs)
	}
}

// TestRigState: the settings and display choices survive the project
// file; bad states are refused with a message.
func TestRigState(t *testing.T) {
	h := demoHost()
	tool := &Rig{settings: Settings{Bones: 12, MaxInfluences: 6, Iterations: 40, Smooth: 0.01}, show: ShowBoth, heat: HeatError, bone: 3, noBones: true}
	raw, err := tool.State()
	if err != nil {
		t.Fatal(err)
	}
	var back Rig
	if err := back.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	if back.settings != tool.settings || back.show != tool.show || back.heat != tool.heat || back.bone != tool.bone || back.noBones != tool.noBones {
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
	orig := h.obj.Clip
	h.Do(newApply(r))
	if !r.applied() || h.obj.Rig == nil || h.obj.Skin == nil || h.obj.Source != nil {
		t.Fatalf("after Apply: applied %v, rig %v, skin %v, source %v", r.applied(), h.obj.Rig != nil, h.obj.Skin != nil, h.obj.Source)
	}
	if len(h.obj.Rig.Joints) != 4 || len(h.obj.Skin.Frames) != len(orig.Frames) || len(h.obj.Clip.Frames) != len(orig.Frames) {
		t.Fatalf("after Apply: %d joints, %d skin frames, %d clip frames; want 4, %d, %d",
			len(h.obj.Rig.Joints), len(h.obj.Skin.Frames), len(h.obj.Clip.Frames), len(orig.Frames), len(orig.Frames))
	}
	if tool.shown(h) != r {
		t.Error("the result is no longer shown after Apply")
	}
	// The applied object saves as a skinned glTF that validates and plays
	// the skinned clip.
	path := filepath.Join(t.TempDir(), "applied.glb")
	if err := assets.SaveGLTF(path, h.obj, assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
		t.Fatal(err)
	}
	gltftest.Validate(t, path)
	h.stack.Undo()
	if h.obj.Clip != orig || h.obj.Rig != nil || h.obj.Skin != nil || r.applied() {
		t.Fatal("Undo did not restore the original clip without a rig")
	}
	h.stack.Redo()
	if !r.applied() {
		t.Fatal("Redo did not apply the rig again")
	}
}
