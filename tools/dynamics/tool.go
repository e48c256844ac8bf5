package dynamics

import (
	"errors"
	"fmt"
	"math"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/tools"
	"gallop/viewport"
)

// Show is what the viewport shows of the active object.
type Show int

const (
	// ShowDynamic shows the dynamic animation (the default).
	ShowDynamic Show = iota
	// ShowSkinned shows the plain skinned animation, the goal.
	ShowSkinned
	// ShowBoth shows the dynamic animation and, beside it to the right as
	// the camera looked when it was chosen, the plain skinning.
	ShowBoth
	// ShowOverlay shows the dynamic surface with the plain skinning over
	// it as a wireframe.
	ShowOverlay
)

// Heat is the heat map drawn on the mesh.
type Heat int

const (
	// HeatParam draws the parameter being painted (the default).
	HeatParam Heat = iota
	// HeatDistance draws each vertex's distance from its goal, the plain
	// skinning, at the frame shown.
	HeatDistance
	// HeatNone draws none.
	HeatNone
)

// Settings are the simulation's and the fit's settings.
type Settings struct {
	// Substeps is the number of steps per frame, 1 to 16.
	Substeps int32 `json:"substeps"`
	// Loop simulates one pass of the clip before the one shown and baked,
	// so that a looping clip closes without a jump at the seam.
	Loop bool `json:"loop,omitempty"`
	// Paper fits the paper's four parameters only (κ held at 0).
	Paper bool `json:"paper_model,omitempty"`
	// Iterations caps the fit's iterations.
	Iterations int32 `json:"iterations"`
	// Bones is the number of bones of a rig inferred for an object that
	// has none.
	Bones int32 `json:"infer_bones"`
}

// DefaultSettings returns 1 substep (the paper's), no loop, the fit of
// five parameters capped at dynskin.DefaultFitIterations, and 20 bones
// for an inferred rig.
func DefaultSettings() Settings {
	return Settings{Substeps: 1, Iterations: dynskin.DefaultFitIterations, Bones: 20}
}

// Check names the first setting out of range.
func (s Settings) Check() error {
	switch {
	case s.Substeps < 1 || s.Substeps > 16:
		return fmt.Errorf("dynamics: %d substeps, want 1 to 16", s.Substeps)
	case s.Iterations < 1 || s.Iterations > 10000:
		return fmt.Errorf("dynamics: %d fit iterations, want 1 to 10000", s.Iterations)
	case s.Bones < 1 || s.Bones > 200:
		return fmt.Errorf("dynamics: %d bones to infer, want 1 to 200", s.Bones)
	}
	return nil
}

// Dynamics is the tool's model: the active object's per-vertex materials
// (painted, filled or fitted; each change one undo step), the dynamic
// animation they give its skinned animation (simulated on a job ahead of
// the timeline, frame by frame, the same at every frame however it is
// reached), the poke, the comparison with plain skinning, the bake and the
// export. Its zero value is ready to use; every method runs on the UI
// thread.
type Dynamics struct {
	// Settings are the simulation's and the fit's; the panel edits them in
	// place and calls Changed.
	Settings Settings
	// Show is what the viewport shows.
	Show Show
	// Heat is the heat map drawn on the mesh.
	Heat Heat
	// Brush is the paint brush.
	Brush Brush

	obj    *assets.Object
	layers map[*assets.Object]*layer
	saved  map[string][]dynskin.Material // restored from a project, waiting for their object

	prev      *preview // the active object's simulation session
	fit       *fitRun  // the running or last fit
	infer     *inferRun
	stroke    *stroke
	poke      *poke
	pokeDepth assets.Vec3 // where the poked vertex was grabbed
	side      assets.Vec3 // the side-by-side copy's offset (zero: not placed yet)
	reported  error       // the simulation error last reported
	baked     string      // the last bake's report
	exported  string      // the last export's report

	distCache struct { // the distance heat map of one frame of one snapshot
		snap   *snapshot
		frame  int
		colors [][3]float32
	}
	sideCache struct { // the side-by-side copy: of a goal frame, shifted by an offset
		of, out []assets.Vec3
		by      assets.Vec3
	}
}

// init fills in what the zero value lacks.
func (t *Dynamics) init() {
	if t.Settings == (Settings{}) {
		t.Settings = DefaultSettings()
	}
	if t.Brush == (Brush{}) {
		t.Brush = DefaultBrush()
	}
	if t.layers == nil {
		t.layers = map[*assets.Object]*layer{}
	}
}

// Sync follows the active object: when it changed, the simulation of the
// previous one stops (its materials stay, for when it is active again).
func (t *Dynamics) Sync(h tools.Host) {
	t.init()
	if o := h.Object(); o != t.obj {
		t.stopPreview()
		t.obj, t.side, t.baked, t.exported, t.stroke, t.poke = o, assets.Vec3{}, "", "", nil, nil
	}
}

// Close stops the tool's jobs (the document is being replaced).
func (t *Dynamics) Close() {
	t.stopPreview()
	if t.fit != nil {
		t.fit.task.Cancel()
	}
	if t.infer != nil {
		t.infer.task.Cancel()
	}
}

// Leave stops the simulation session when another tool becomes active,
// so that what it holds can go: the clip's goal frames, the model with
// them in its own vertex order, every simulated frame and the
// checkpoints (half a gigabyte on a 135,000-vertex mesh of 48 frames).
// The materials, the settings and a fit that runs stay; the clip is
// simulated again when the tool is next used.
func (t *Dynamics) Leave() {
	t.stopPreview()
	t.distCache.snap, t.distCache.colors = nil, nil
	t.sideCache.of, t.sideCache.out = nil, nil
}

// RigError says why o cannot be simulated, or nil: the Dynamics tool needs
// a rig with a joint animation (a glTF skin, or one the Rig tool or
// InferRig made).
func RigError(o *assets.Object) error {
	switch {
	case o == nil:
		return errors.New("dynamics: no object; open a skinned glTF, or a mesh animation to infer a rig from")
	case o.Rig == nil && (o.Clip == nil || len(o.Clip.Frames) < 2):
		return fmt.Errorf("dynamics: %s has no rig and no animation to infer one from; open a skinned glTF or a mesh animation", o.Name)
	case o.Rig == nil:
		return fmt.Errorf("dynamics: %s has no rig: infer one from its animation first", o.Name)
	case o.Skin == nil || len(o.Skin.Frames) < 2:
		return fmt.Errorf("dynamics: %s's rig has no joint animation of 2 frames or more to drive it", o.Name)
	}
	return nil
}

// CanInfer reports whether the active object has no rig but an animation
// a rig can be inferred from (InferRig).
func CanInfer(o *assets.Object) bool {
	return o != nil && o.Rig == nil && o.Clip != nil && len(o.Clip.Frames) >= 2
}

// Params returns the active object's materials (nil without an object).
// The slice is immutable: edits replace it.
func (t *Dynamics) Params(h tools.Host) []dynskin.Material {
	if l := t.layer(h); l != nil {
		return l.params
	}
	return nil
}

// Update runs once per UI frame: follow the active object, keep its
// simulation in step with the materials, the settings and the timeline,
// and take the jobs' latest results.
func (t *Dynamics) Update(h tools.Host) {
	t.Sync(h)
	if t.fit != nil {
		t.fit.task.Take()
	}
	if t.infer != nil {
		t.infer.task.Take()
	}
	o := h.Object()
	if RigError(o) != nil || t.Settings.Check() != nil {
		t.stopPreview()
		return
	}
	if t.prev == nil || t.prev.dead() {
		t.prev = newPreview(h)
	}
	t.post(h)
	s := t.prev.take()
	if s != nil && s.err != nil && s.err != t.reported {
		t.reported = s.err
		h.Error(s.err)
	}
}

// stopPreview ends the simulation session.
func (t *Dynamics) stopPreview() {
	if t.prev != nil {
		t.prev.stop()
		t.prev = nil
	}
}

// snapshot returns the simulation's latest state for the active object,
// or nil.
func (t *Dynamics) snapshot(h tools.Host) *snapshot {
	if t.prev == nil {
		return nil
	}
	s := t.prev.shown
	if s == nil || s.req.obj != h.Object() {
		return nil
	}
	return s
}

// Status says how far the simulation has come: frames simulated, or why
// there is none.
type Status struct {
	Frames, Total int     // frames simulated of the clip's
	Err           error   // the rig's or the simulation's problem
	Live          bool    // a poke is running (or settling)
	Current       bool    // the frames are for the materials and settings of now
	Stray         float64 // the largest distance from plain skinning so far, over the mesh's diagonal
}

// StrayLimit is how far, as a fraction of the mesh's bounding-box
// diagonal, the dynamic animation may stray from plain skinning before the
// tool warns that it has lost its shape: a material too soft for the
// motion (Jelly on a fast clip) lags and folds the mesh up, stable but
// crumpled. Measured on dynskin-tube's train animation filled with each
// preset: Soft tissue strays 0.07 of the diagonal at the data's speed and
// 0.26 at six times; Jelly 0.19 at the data's speed (a soft tube meant to
// wobble), 0.68 at four times. Half the diagonal is past any wobble an
// artist paints for; triangles flipped against the skinning's were tried
// as the measure and rejected: Jelly at the data's speed flips 8% of the
// tube's at its bend.
const StrayLimit = 0.5

// Warning says, when the simulation strays more than StrayLimit from the
// skinning, by how much and what to do; "" otherwise.
func (st Status) Warning() string {
	if st.Stray <= StrayLimit {
		return ""
	}
	return fmt.Sprintf("The dynamic animation strays up to %.0f%% of the mesh's size from the skinning: the materials are too soft for this motion and crumple it. Paint a stiffer preset (Stiff, Soft tissue) or raise the substeps.", 100*st.Stray)
}

// Status returns the simulation's status for the active object.
func (t *Dynamics) Status(h tools.Host) Status {
	s := t.snapshot(h)
	if s == nil {
		return Status{}
	}
	st := Status{Frames: len(s.frames), Total: s.total, Err: s.err, Live: s.live != nil}
	if s.rig != nil {
		st.Stray = s.maxDist / s.rig.Model.Diagonal()
	}
	if l := t.layer(h); l != nil {
		st.Current = assets.Same(s.req.params, l.params) && s.req.settings == t.Settings
	}
	return st
}

// goalAt returns the plain skinning at frame f (nil before the rig is
// built).
func (s *snapshot) goalAt(f int) []assets.Vec3 {
	if s == nil || s.rig == nil {
		return nil
	}
	g := s.rig.Goal.Positions
	return g[max(0, min(f, len(g)-1))]
}

// dynamicAt returns the dynamic positions shown at frame f: the poke's
// while one runs, else the simulated frame f, else (not simulated yet, or
// after a blow-up) the plain skinning.
func (s *snapshot) dynamicAt(f int) []assets.Vec3 {
	switch {
	case s == nil:
		return nil
	case s.live != nil:
		return s.live
	case f >= 0 && f < len(s.frames):
		return s.frames[f]
	}
	return s.goalAt(f)
}

// Display returns the positions shown for the active object (the dynamic
// animation, or its goal) and the heat map's colours.
func (t *Dynamics) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	s := t.snapshot(h)
	var pos []assets.Vec3
	if s != nil {
		if t.Show == ShowSkinned {
			pos = s.goalAt(h.Frame())
		} else {
			pos = s.dynamicAt(h.Frame())
		}
	}
	return pos, t.colours(h, s)
}

// colours returns the heat map's colours, or nil.
func (t *Dynamics) colours(h tools.Host, s *snapshot) [][3]float32 {
	switch t.Heat {
	case HeatParam:
		if l := t.layer(h); l != nil {
			return l.colours(t.Brush.Channel)
		}
	case HeatDistance:
		if s == nil || s.rig == nil {
			return nil
		}
		f := h.Frame()
		c := &t.distCache
		if c.snap != s || c.frame != f || s.live != nil {
			d, g := s.dynamicAt(f), s.goalAt(f)
			cols := make([][3]float32, len(d))
			hi := s.distHi()
			for i := range d {
				cols[i] = viewport.Turbo.At(viewport.Scale(d[i].Sub(g[i]).Len(), 0, hi))
			}
			c.snap, c.frame, c.colors = s, f, cols
		}
		return c.colors
	}
	return nil
}

// distHi is the top of the distance heat map's scale: the largest
// distance from the goal over the frames simulated, at least a
// thousandth of the diagonal.
func (s *snapshot) distHi() float64 {
	return math.Max(s.maxDist, 1e-3*s.rig.Model.Diagonal())
}

// Legend returns the heat map's title and range, ok false without one.
func (t *Dynamics) Legend(h tools.Host) (title string, lo, hi float64, ok bool) {
	switch t.Heat {
	case HeatParam:
		if t.layer(h) == nil {
			return "", 0, 0, false
		}
		k := t.Brush.Channel.param()
		return ParamLabels[k], 0, dynskin.Upper(k), true
	case HeatDistance:
		if s := t.snapshot(h); s != nil && s.rig != nil {
			return "distance from skinning", 0, s.distHi(), true
		}
	}
	return "", 0, 0, false
}

// ExtraItems returns the plain skinning beside the dynamic animation or
// over it, as Show asks.
func (t *Dynamics) ExtraItems(h tools.Host) []viewport.Item {
	s := t.snapshot(h)
	if s == nil || s.rig == nil || h.Object() == nil {
		return nil
	}
	tris := h.Object().Mesh.Triangles
	g := s.goalAt(h.Frame())
	switch t.Show {
	case ShowOverlay:
		return []viewport.Item{{Key: &t.side, Triangles: tris, Positions: g, Wire: true}}
	case ShowBoth:
		if t.side == (assets.Vec3{}) {
			lo, hi := s.rig.bounds()
			t.side = h.View().Camera.SideOffset(lo, hi)
		}
		c := &t.sideCache
		if c.out == nil || !assets.Same(c.of, g) || c.by != t.side {
			c.out = make([]assets.Vec3, len(g))
			for i, p := range g {
				c.out[i] = p.Add(t.side)
			}
			c.of, c.by = g, t.side
		}
		return []viewport.Item{{Key: &t.side, Triangles: tris, Positions: c.out}}
	}
	return nil
}

// Labels names the two animations when they are shown side by side (none
// otherwise): the dynamic one, and the plain skinning beside it, each
// over the top centre of its box.
func (t *Dynamics) Labels(h tools.Host) []tools.Label {
	s := t.snapshot(h)
	if t.Show != ShowBoth || s == nil || s.rig == nil || h.Object() == nil {
		return nil
	}
	lo, hi := s.rig.bounds()
	top := lo.Add(hi).Mul(0.5)
	top[1] = hi[1]
	return []tools.Label{{Text: "dynamic", At: top}, {Text: "plain skinning", At: top.Add(t.side)}}
}

// SetShow changes what the viewport shows; side by side places the
// skinned copy for the camera of now and frames both.
func (t *Dynamics) SetShow(h tools.Host, v Show) {
	t.Show = v
	if s := t.snapshot(h); s != nil && s.rig != nil && v == ShowBoth {
		lo, hi := s.rig.bounds()
		t.side = h.View().Camera.SideOffset(lo, hi)
		blo, bhi := lo, hi
		for k := range 3 {
			blo[k] = min(lo[k], lo[k]+t.side[k])
			bhi[k] = max(hi[k], hi[k]+t.side[k])
		}
		h.View().FrameBox(blo, bhi)
	}
}
