// Package rig is the model of the "Rig from animation" tool: Smooth
// Skinning Decomposition with Rigid Bones (Le and Deng 2012, package
// solver/ssdr) on the document's active object. Its panel is
// panels/rigpanel. It turns the active object's clip into a linear-blend-
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
	"slices"
	"strconv"
	"strings"

	"gallop/assets"
	"gallop/internal/option"
	"gallop/internal/words"
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
	// ShowBoth shows the clip and, beside it to the right as the camera
	// looks when it was chosen, the rig's positions, each labelled.
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
	// Skeleton makes the rig a skeleton (one root, bones turning about
	// joints, constant lengths) instead of free bones.
	Skeleton bool `json:"skeleton,omitempty"`
	// Root is, with Skeleton, the root bone plus one; 0 lets the fit
	// choose it.
	Root int32 `json:"root,omitempty"`
	// Locked lists, with Skeleton, the bones (comma-separated, in order)
	// whose vertices keep their weights in the skeleton's rounds.
	Locked string `json:"locked,omitempty"`
}

// LockedBones returns the bones Locked lists (none when it cannot be
// read; Check reports that).
func (s Settings) LockedBones() []int {
	bones, _ := ParseBones(s.Locked)
	return bones
}

// SetLocked adds bone j to Locked or takes it out.
func (s *Settings) SetLocked(j int, locked bool) {
	bones := slices.DeleteFunc(s.LockedBones(), func(b int) bool { return b == j })
	if locked {
		bones = append(bones, j)
	}
	slices.Sort(bones)
	parts := make([]string, len(bones))
	for k, b := range bones {
		parts[k] = strconv.Itoa(b)
	}
	s.Locked = strings.Join(parts, ",")
}

// DefaultSettings returns 20 bones, 4 influences, 100 iterations and Dem
// Bones' smoothness 1e-4.
func DefaultSettings() Settings {
	return Settings{Bones: 20, MaxInfluences: 4, Iterations: 100, Smooth: 1e-4}
}

// Check names the first setting out of range for a mesh of nv vertices.
func (s Settings) Check(nv int) error {
	switch {
	case s.Bones < 1 || int(s.Bones) > nv:
		return fmt.Errorf("rig: %d bones, want 1 to %d (the vertices)", s.Bones, nv)
	case s.MaxInfluences < 1 || s.MaxInfluences > 8:
		return fmt.Errorf("rig: %d influences per vertex, want 1 to 8", s.MaxInfluences)
	case s.Iterations < 1:
		return fmt.Errorf("rig: %d iterations, want at least 1", s.Iterations)
	case !(s.Smooth >= 0) || math.IsInf(s.Smooth, 0):
		return fmt.Errorf("rig: smoothness %g, want a number ≥ 0", s.Smooth)
	case s.Root < 0 || s.Root > s.Bones:
		return fmt.Errorf("rig: root bone %d, want 0 to %d", s.Root-1, s.Bones-1)
	}
	locked, err := ParseBones(s.Locked)
	if err != nil {
		return fmt.Errorf("rig: locked %w", err)
	}
	for _, j := range locked {
		if j >= int(s.Bones) {
			return fmt.Errorf("rig: locked bone %d, want bones 0 to %d", j, s.Bones-1)
		}
	}
	return nil
}

// options returns the solver's options for s.
func (s Settings) options() ssdr.Options {
	o := ssdr.Options{Bones: int(s.Bones), MaxInfluences: int(s.MaxInfluences), Iterations: int(s.Iterations), Smooth: option.Literal(s.Smooth)}
	if s.Skeleton {
		o.Skeleton = ssdr.DefaultSkeleton()
		o.Skeleton.Root = int(s.Root) - 1
		o.Skeleton.Locked = s.LockedBones()
	}
	return o
}

// Rig is the tool's model. Its zero value is ready to use, with
// DefaultSettings. Every method runs on the UI thread.
type Rig struct {
	// Settings are the next run's parameters; the panel edits them in
	// place.
	Settings Settings
	// Show is what the viewport shows of the result.
	Show Show
	// Heat is the heat map drawn on the mesh.
	Heat Heat
	// Bone is the selected bone, whose weights the Weights heat map shows.
	Bone int32
	// HideBones hides the bones' segments.
	HideBones bool

	obj      *assets.Object // the object the runs and the result belong to
	run      *run           // the running or last run
	res      *Result        // the last finished result for obj
	exported string         // the last export's report
	side     assets.Vec3    // the side-by-side copy's offset (zero: not placed yet)
}

// defaults fills in the settings when none are set yet.
func (t *Rig) defaults() {
	if t.Settings == (Settings{}) {
		t.Settings = DefaultSettings()
	}
}

// Sync makes the runs and result belong to the active object: when it
// changed, the run is cancelled and the result dropped.
func (t *Rig) Sync(h tools.Host) {
	t.defaults()
	if t.obj != h.Object() {
		t.Close()
		t.obj, t.run, t.res, t.exported, t.side = h.Object(), nil, nil, "", assets.Vec3{}
	}
}

// Close stops the tool's run (the document is being replaced).
func (t *Rig) Close() {
	if t.run != nil {
		t.run.task.Cancel()
	}
}

// Running reports whether a run is going on.
func (t *Rig) Running() bool { return t.run != nil && t.run.task.Running() }

// ClipError says why o cannot be rigged, or nil.
func ClipError(o *assets.Object) error {
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

// Start checks the object and the settings and starts a run; what is
// wrong is reported with h.Error and starts nothing.
func (t *Rig) Start(h tools.Host) {
	o := t.ready(h)
	if o == nil {
		return
	}
	if err := t.Settings.Check(o.Mesh.NumVertices()); err != nil {
		h.Error(err)
		return
	}
	t.launch(h, &run{obj: o, settings: t.Settings})
}

// FitSkeleton asks for a glTF file with a skin bound to the active
// object's mesh (a skeleton exported before, or an artist's) and starts a
// run that fits the clip to that skeleton: its hierarchy, rest joints and
// joint names kept, the animation and weights solved (`gallop rig
// --fit-to`). The file is read on the job.
func (t *Rig) FitSkeleton(h tools.Host) {
	o := t.ready(h)
	if o == nil {
		return
	}
	h.OpenFile("Fit to the skeleton of a glTF skin", []string{"glb", "gltf"}, func(path string) {
		if h.Object() == o && !t.Running() {
			t.launch(h, &run{obj: o, settings: t.Settings, fitTo: path})
		}
	})
}

// ready returns the active object when a run may start on it: no run
// going, and a clip to rig (else reported with h.Error); nil otherwise.
func (t *Rig) ready(h tools.Host) *assets.Object {
	t.Sync(h)
	if t.Running() {
		return nil
	}
	o := h.Object()
	if err := ClipError(o); err != nil {
		h.Error(err)
		return nil
	}
	return o
}

// launch makes r the tool's run and starts it.
func (t *Rig) launch(h tools.Host, r *run) {
	t.run = r
	r.start(h.Jobs(), func() { t.finished(h, r) })
}

// Stop cancels the run; the previous result stays.
func (t *Rig) Stop() {
	if t.run != nil {
		t.run.task.Cancel()
	}
}

// finished runs on the UI thread when r's job ends.
func (t *Rig) finished(h tools.Host, r *run) {
	if r != t.run {
		return
	}
	if r.task.Err != nil {
		h.Error(r.task.Err)
		return
	}
	if r.res == nil {
		h.Info("Rig: stopped")
		return
	}
	t.res, t.exported = r.res, ""
	if t.Bone >= int32(r.res.Bones()) {
		t.Bone = 0
	}
	rr := r.res.SSDR
	h.Info("Rig: %d bones, RMSE %.4g (%.3g of the bounding-box diagonal) after %s",
		r.res.Bones(), rr.RMSE, rr.RMSE/r.res.Diagonal, RoundWords(rr))
}

// Progress returns the latest progress of the running or last run (nil
// before its first iteration).
func (t *Rig) Progress() *Progress {
	if t.run == nil {
		return nil
	}
	return t.run.task.Shown()
}

// RunError returns the last run's error (nil while it runs, when it
// succeeded or was cancelled).
func (t *Rig) RunError() error {
	if t.run == nil {
		return nil
	}
	return t.run.task.Err
}

// Converged reports whether the last run ended with a result before its
// iteration limit (the error stalled).
func (t *Rig) Converged() bool {
	p := t.Progress()
	if t.run == nil || !t.run.task.Finished || t.run.res == nil || p == nil {
		return false
	}
	flat := p.Asked == 0 || p.Iteration-p.Polish-p.Skeleton < p.Asked
	return flat && (p.SkeletonRounds == 0 || p.Skeleton < p.SkeletonRounds)
}

// Result returns the result when it belongs to the active object, or nil.
func (t *Rig) Result(h tools.Host) *Result {
	if t.res != nil && t.res.obj == h.Object() {
		return t.res
	}
	return nil
}

// Exported returns the report of the last export ("" if none).
func (t *Rig) Exported() string { return t.exported }

// Update runs once per UI frame: follow the active object and take the
// run's latest progress.
func (t *Rig) Update(h tools.Host) {
	t.Sync(h)
	if t.run != nil {
		t.run.task.Take()
	}
}

// SetShow changes what the viewport shows. Side by side places the copy
// to the right of the clip as the camera looks now, clear of it on
// screen, and frames both.
func (t *Rig) SetShow(h tools.Host, v Show) {
	t.Show = v
	if r := t.Result(h); r != nil && v == ShowBoth {
		cam := &h.View().Camera
		t.side = cam.SideOffset(r.lo, r.hi)
		lo, hi := r.lo, r.hi.Add(t.side)
		for k := range 3 {
			lo[k] = min(lo[k], r.lo[k]+t.side[k])
			hi[k] = max(hi[k], r.hi[k])
		}
		h.View().FrameBox(lo, hi)
	}
}

// offset returns the side-by-side copy's offset, placing it for the
// current camera if it has not been yet (a reopened project).
func (t *Rig) offset(h tools.Host, r *Result) assets.Vec3 {
	if t.side == (assets.Vec3{}) {
		t.side = h.View().Camera.SideOffset(r.lo, r.hi)
	}
	return t.side
}

// Labels returns the names of the clip and of the rig's copy when they
// are shown side by side (none otherwise), each over the top centre of
// its box.
func (t *Rig) Labels(h tools.Host) []tools.Label {
	r := t.Result(h)
	if r == nil || t.Show != ShowBoth {
		return nil
	}
	top := r.lo.Add(r.hi).Mul(0.5)
	top[1] = r.hi[1]
	return []tools.Label{
		{Text: "original clip", At: top},
		{Text: fmt.Sprintf("rig: %d bones", r.Bones()), At: top.Add(t.offset(h, r))},
	}
}

// PickBone selects the bone of largest weight at the vertex under the
// viewport point (x, y) and shows its weights; it does nothing off the
// mesh or without a result.
func (t *Rig) PickBone(h tools.Host, x, y float64) {
	r := t.Result(h)
	if r == nil {
		return
	}
	if v, ok := h.View().PickVertex(x, y); ok {
		t.Bone, t.Heat = int32(r.dominantBone(v)), HeatWeights
	}
}

// Apply makes the result's rig part of the object, as one undoable edit.
func (t *Rig) Apply(h tools.Host) {
	if r := t.Result(h); r != nil && !r.Applied() {
		h.Do(newApply(r))
	}
}

// Display returns the skinned positions when they are shown in place of
// the clip, and the heat map's colours (nil: none).
func (t *Rig) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	r := t.Result(h)
	if r == nil {
		return nil, nil
	}
	var pos []assets.Vec3
	if t.Show == ShowSkinned {
		pos = r.skinned[r.frame(h.Frame())]
	}
	return pos, t.colours(r)
}

// colours returns the heat map's colours, or nil.
func (t *Rig) colours(r *Result) [][3]float32 {
	switch t.Heat {
	case HeatWeights:
		return r.weightColours(int(t.Bone))
	case HeatError:
		return r.errorColours()
	}
	return nil
}

// Legend returns the heat map's title and range, ok false without one.
func (t *Rig) Legend(h tools.Host) (title string, lo, hi float64, ok bool) {
	r := t.Result(h)
	switch {
	case r == nil:
		return "", 0, 0, false
	case t.Heat == HeatWeights:
		return fmt.Sprintf("bone %d weight", t.Bone), 0, 1, true
	case t.Heat == HeatError:
		return "RMS error (model units)", 0, r.errHi, true
	}
	return "", 0, 0, false
}

// ExtraItems returns the skinned copy beside the clip when both are shown.
func (t *Rig) ExtraItems(h tools.Host) []viewport.Item {
	r := t.Result(h)
	if r == nil || t.Show != ShowBoth {
		return nil
	}
	return []viewport.Item{{Key: r, Triangles: r.obj.Mesh.Triangles, Positions: r.shiftedAt(h.Frame(), t.offset(h, r)), Colors: t.colours(r)}}
}

// BoneSegment is a bone drawn in the viewport: its segment's end points
// and centre in world space at the current frame. A skeleton's bone
// (Joint set) runs from its joint A to a child's joint B (a bone with
// several children has a segment to each, a leaf one to the far end of
// its vertices' axis), Centre is its joint, and Root marks the root's.
type BoneSegment struct {
	Bone         int
	A, B, Centre assets.Vec3
	Selected     bool
	Joint, Root  bool
}

// Bones returns the bones to draw at the current frame (on the skinned
// copy when it is shown beside the clip), the selected one last; none
// when they are hidden or there is no result. Bones that move no vertex
// are left out.
func (t *Rig) Bones(h tools.Host) []BoneSegment {
	r := t.Result(h)
	if r == nil || t.HideBones {
		return nil
	}
	var shift assets.Vec3
	if t.Show == ShowBoth {
		shift = t.offset(h, r)
	}
	seg := func(j int) []BoneSegment {
		var out []BoneSegment
		for _, s := range r.bone(j, h.Frame()) {
			s.A, s.B, s.Centre, s.Selected = s.A.Add(shift), s.B.Add(shift), s.Centre.Add(shift), j == int(t.Bone)
			out = append(out, s)
		}
		return out
	}
	var out []BoneSegment
	for j := range r.Bones() {
		if j != int(t.Bone) {
			out = append(out, seg(j)...)
		}
	}
	if int(t.Bone) < r.Bones() {
		out = append(out, seg(int(t.Bone))...)
	}
	return out
}

// RoundWords says how long a run took as the progress bar counted it:
// "19 iterations and 5 polish rounds", "24 iterations, 5 polish rounds and
// 12 skeleton rounds" (SSDR's Iterations holds them all).
func RoundWords(r *ssdr.Result) string {
	parts := []string{words.Count(r.Iterations-r.PolishRounds-r.SkeletonRounds, "iteration", "iterations")}
	if r.PolishRounds > 0 {
		parts = append(parts, words.Count(r.PolishRounds, "polish round", "polish rounds"))
	}
	if r.SkeletonRounds > 0 {
		parts = append(parts, words.Count(r.SkeletonRounds, "skeleton round", "skeleton rounds"))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
