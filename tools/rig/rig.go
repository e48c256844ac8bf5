// Package rig is the "Rig from animation" tool: Smooth Skinning
// Decomposition with Rigid Bones (Le and Deng 2012, package solver/ssdr)
// in the window. It turns the active object's clip into a linear-blend-
// skinning rig (a number of bones with a rigid transform per frame and at
// most K weights per vertex) as a background job with a progress bar and a
// live plot of the error per iteration, then shows the result in sync with
// the timeline: the original clip, the skinned one, or both side by side;
// the bones at their transforms (each bone's segment, the principal axis
// of the rest-pose vertices it moves); a heat map of the selected bone's
// weights (pick the bone with a slider or by clicking a vertex) or of each
// vertex's error. Export writes the rig as a skinned glTF, as `gallop rig
// --out` does, and reports its size beside the morph-target export's.
package rig

import (
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"

	"gallop/assets"
	"gallop/panels"
	"gallop/solver/ssdr"
	"gallop/tools"
	"gallop/viewport"
)

// Show is what the viewport shows of a result.
type Show int

const (
	// ShowOriginal shows the object's clip (the default).
	ShowOriginal Show = iota
	// ShowSkinned shows the rig's positions in place of the clip.
	ShowSkinned
	// ShowBoth shows the clip and, beside it along x, the rig's positions.
	ShowBoth
)

// Heat is the heat map drawn on the mesh.
type Heat int

const (
	// HeatNone draws none.
	HeatNone Heat = iota
	// HeatWeights draws the selected bone's weights (0 to 1).
	HeatWeights
	// HeatError draws each vertex's error, the RMS over the frames of its
	// distance from the clip.
	HeatError
)

// Settings are the decomposition's parameters. The zero value is not
// valid: DefaultSettings gives the tool's defaults.
type Settings struct {
	Bones         int32   `json:"bones"`          // B
	MaxInfluences int32   `json:"max_influences"` // K, 1 to 8
	Iterations    int32   `json:"iterations"`     // most alternation rounds
	Smooth        float64 `json:"smooth"`         // weight smoothness μ; 0 for none
}

// DefaultSettings returns 20 bones, 4 influences, 100 iterations and Dem
// Bones' smoothness 1e-4.
func DefaultSettings() Settings {
	return Settings{Bones: 20, MaxInfluences: 4, Iterations: 100, Smooth: 1e-4}
}

// check names the first setting out of range for a mesh of nv vertices.
func (s Settings) check(nv int) error {
	switch {
	case s.Bones < 1 || int(s.Bones) > nv:
		return fmt.Errorf("rig: %d bones, want 1 to %d (the vertices)", s.Bones, nv)
	case s.MaxInfluences < 1 || s.MaxInfluences > 8:
		return fmt.Errorf("rig: %d influences per vertex, want 1 to 8", s.MaxInfluences)
	case s.Iterations < 1:
		return fmt.Errorf("rig: %d iterations, want at least 1", s.Iterations)
	case !(s.Smooth >= 0) || math.IsInf(s.Smooth, 0):
		return fmt.Errorf("rig: smoothness %g, want a number ≥ 0", s.Smooth)
	}
	return nil
}

// options returns the solver's options for s.
func (s Settings) options() ssdr.Options {
	o := ssdr.Options{Bones: int(s.Bones), MaxInfluences: int(s.MaxInfluences), Iterations: int(s.Iterations), Smooth: s.Smooth}
	if s.Smooth == 0 {
		o.Smooth = -1 // none (0 would mean the default)
	}
	return o
}

// Rig is the tool. Its zero value is ready to use, with DefaultSettings.
type Rig struct {
	settings Settings
	show     Show
	heat     Heat
	bone     int32 // the selected bone
	noBones  bool  // hide the bones

	obj  *assets.Object // the object the runs and the result belong to
	run  *run           // the running or last run
	prog *progress      // its latest progress
	seen uint64
	res  *result // the last finished result for obj

	exported string // the last export's report

	press   [2]float64 // where the left button went down over the viewport
	pressed bool

	marks   panels.Marks
	traceAt time.Time
}

var _ panels.Tool = (*Rig)(nil)

// Name implements panels.Tool.
func (t *Rig) Name() string { return "Rig" }

// Help implements panels.Tool.
func (t *Rig) Help() string {
	return "Rig from animation (SSDR): set the bones, Start; then show the weights (click a vertex to pick its bone), the error, and export a skinned glTF."
}

// defaults fills in the settings when none are set yet.
func (t *Rig) defaults() {
	if t.settings == (Settings{}) {
		t.settings = DefaultSettings()
	}
}

// sync makes the runs and result belong to the active object.
func (t *Rig) sync(h tools.Host) {
	t.defaults()
	if t.obj != h.Object() {
		t.Close()
		t.obj, t.run, t.prog, t.seen, t.res, t.exported = h.Object(), nil, nil, 0, nil, ""
	}
}

// Close stops the tool's run (the document is being replaced).
func (t *Rig) Close() {
	if t.running() {
		t.run.job.Cancel()
	}
}

// running reports whether a run is going on.
func (t *Rig) running() bool { return t.run != nil && !t.run.finished }

// clipError says why the active object cannot be rigged, or nil.
func clipError(o *assets.Object) error {
	switch {
	case o == nil:
		return errors.New("rig: no object; open a mesh animation (an OBJ sequence or a glTF with an animation)")
	case o.Clip == nil:
		return fmt.Errorf("rig: %s has no clip; rigging needs a mesh animation of at least 2 frames", o.Name)
	case len(o.Clip.Frames) < 2:
		return fmt.Errorf("rig: %s's clip has %d frame; rigging needs at least 2", o.Name, len(o.Clip.Frames))
	}
	return nil
}

// start checks the object and the settings and starts a run; what is
// wrong is reported with h.Error and starts nothing.
func (t *Rig) start(h tools.Host) {
	t.sync(h)
	if t.running() {
		return
	}
	o := h.Object()
	if err := clipError(o); err != nil {
		h.Error(err)
		return
	}
	if err := t.settings.check(o.Mesh.NumVertices()); err != nil {
		h.Error(err)
		return
	}
	r := &run{obj: o, settings: t.settings}
	t.run, t.prog, t.seen = r, nil, 0
	r.start(h.Jobs(), func() { t.finished(h, r) })
}

// stop cancels the run; the previous result stays.
func (t *Rig) stop() {
	if t.running() {
		t.run.job.Cancel()
	}
}

// finished runs on the UI thread when r's job ends.
func (t *Rig) finished(h tools.Host, r *run) {
	if r != t.run {
		return
	}
	t.take()
	if r.err != nil {
		h.Error(r.err)
		return
	}
	if r.res == nil {
		h.Info("Rig: stopped")
		return
	}
	t.res, t.exported = r.res, ""
	if t.bone >= int32(r.res.bones()) {
		t.bone = 0
	}
	rr := r.res.res
	h.Info("Rig: %d bones, RMSE %.4g (%.3g of the bounding-box diagonal) after %d iterations, %.1f s",
		r.res.bones(), rr.RMSE, rr.RMSE/r.res.diag, rr.Iterations, r.job.Elapsed().Seconds())
	if panels.Trace {
		fmt.Fprintf(os.Stderr, "rig: finished, %d bones, RMSE %g\n", r.res.bones(), rr.RMSE)
	}
}

// take makes the run's latest progress the one shown.
func (t *Rig) take() {
	if t.run == nil {
		return
	}
	p, seq := t.run.latest.Load()
	if p != nil && seq != t.seen {
		t.prog, t.seen = p, seq
	}
}

// shown returns the result when it belongs to the active object.
func (t *Rig) shown(h tools.Host) *result {
	if t.res != nil && t.res.obj == h.Object() {
		return t.res
	}
	return nil
}

// Update implements panels.Tool: take the run's latest progress.
func (t *Rig) Update(h tools.Host) {
	t.sync(h)
	t.take()
	if panels.Trace && time.Since(t.traceAt) >= time.Second {
		t.traceAt = time.Now()
		if t.prog != nil {
			fmt.Fprintf(os.Stderr, "rig: iteration %d of %d\n", t.prog.iteration, t.prog.total)
		}
		t.marks.Print(os.Stderr, "rig")
	}
}

// Display implements panels.Tool: the skinned positions when they are
// shown in place of the clip, and the heat map's colours.
func (t *Rig) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	r := t.shown(h)
	if r == nil {
		return nil, nil
	}
	var pos []assets.Vec3
	if t.show == ShowSkinned {
		pos = r.skinned[r.frame(h.Frame())]
	}
	return pos, t.colours(r)
}

// colours returns the heat map's colours, or nil.
func (t *Rig) colours(r *result) [][3]float32 {
	switch t.heat {
	case HeatWeights:
		return r.weightColours(int(t.bone))
	case HeatError:
		return r.errorColours()
	}
	return nil
}

// Legend implements panels.Legend.
func (t *Rig) Legend(h tools.Host) (string, float64, float64, bool) {
	r := t.shown(h)
	switch {
	case r == nil:
		return "", 0, 0, false
	case t.heat == HeatWeights:
		return fmt.Sprintf("bone %d weight", t.bone), 0, 1, true
	case t.heat == HeatError:
		return "RMS error", 0, r.errHi, true
	}
	return "", 0, 0, false
}

// ExtraItems implements panels.Extras: the skinned copy beside the clip.
func (t *Rig) ExtraItems(h tools.Host) []viewport.Item {
	r := t.shown(h)
	if r == nil || t.show != ShowBoth {
		return nil
	}
	return []viewport.Item{{Key: r, Triangles: r.obj.Mesh.Triangles, Positions: r.shiftedAt(h.Frame()), Colors: t.colours(r)}}
}

// Markers implements panels.Tool: none (the bones are drawn by Viewport).
func (t *Rig) Markers(tools.Host) []viewport.PointSet { return nil }

// Shortcut implements panels.Tool: the tool has no keys of its own.
func (t *Rig) Shortcut(tools.Host, panels.Key) bool { return false }

// Bone colours: the selected bone's and the others'.
var (
	selectedBone = imgui.Vec4{X: 1, Y: 0.85, Z: 0.2, W: 1}
	otherBone    = imgui.Vec4{X: 0.95, Y: 0.95, Z: 1, W: 0.85}
)

// Viewport implements panels.Tool: it draws the bones at the current frame
// and, on a click on the mesh, selects the bone of largest weight at the
// vertex clicked and shows its weights.
func (t *Rig) Viewport(h tools.Host, in *viewport.Input) {
	r := t.shown(h)
	if r == nil {
		return
	}
	if !t.noBones {
		t.drawBones(h, r, in)
	}
	if in.Pressed[viewport.Left] && in.Hovered && !in.Alt {
		t.press, t.pressed = [2]float64{in.X, in.Y}, true
	}
	if !t.pressed || !in.Released[viewport.Left] {
		return
	}
	t.pressed = false
	if math.Hypot(in.X-t.press[0], in.Y-t.press[1]) > 4 {
		return // a drag, not a click
	}
	if v, ok := h.View().PickVertex(in.X, in.Y); ok {
		t.bone, t.heat = int32(r.dominantBone(v)), HeatWeights
	}
}

// drawBones draws each bone's segment at the current frame as a line
// with a dot at its centre, on the skinned copy when it is shown beside
// the clip.
func (t *Rig) drawBones(h tools.Host, r *result, in *viewport.Input) {
	dl := imgui.ForegroundDrawListViewportPtr()
	var shift assets.Vec3
	if t.show == ShowBoth {
		shift = r.offset
	}
	screen := func(p assets.Vec3) (imgui.Vec2, bool) {
		x, y, ok := h.View().ToScreen(p.Add(shift))
		return imgui.Vec2{X: float32(in.OriginX + x), Y: float32(in.OriginY + y)}, ok
	}
	draw := func(j int, c imgui.Vec4, thick float32) {
		if r.segments[j].Weight == 0 {
			return
		}
		a, b, m := r.bone(j, h.Frame())
		sa, oka := screen(a)
		sb, okb := screen(b)
		sm, okm := screen(m)
		col := imgui.ColorU32Vec4(c)
		if oka && okb {
			dl.AddLineV(sa, sb, col, thick)
		}
		if okm {
			dl.AddCircleFilled(sm, thick+2, col)
		}
	}
	for j := range r.bones() {
		if j != int(t.bone) {
			draw(j, otherBone, 2)
		}
	}
	draw(int(t.bone), selectedBone, 3.5)
}
