// Package pose is the Pose tool: Mesh-Based Inverse Kinematics (Sumner et
// al. 2005) in the viewport. The artist gives example poses, makes handles
// of selected vertices and drags them; the rest of the mesh follows the
// deformations the examples demonstrate. The solver (package
// solver/meshik) runs as a background job that receives each new handle
// position and publishes every Gauss-Newton iterate, so the mesh follows
// the mouse while the window stays responsive.
//
// Also here: freezing a region (Figure 6C), switching between the
// nonlinear and the linear feature space, the blend mode of Figure 3
// (weights set by hand, no handles), and keyframed handles solved into an
// animation clip with the temporal term of Section 5.
package pose

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"slices"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/panels"
	"gallop/solver/meshik"
	"gallop/tools"
	"gallop/viewport"
)

// Mode is what the tool does with the examples.
type Mode int

const (
	// IK poses the mesh by dragging handles (the default).
	IK Mode = iota
	// Blend shows the nonlinear blend of the examples with weights set by
	// hand (the paper's Figure 3).
	Blend
)

// example is one example pose.
type example struct {
	Name      string
	Positions []assets.Vec3 // never modified in place
}

// handle is a group of vertices moved rigidly: each vertex's target is its
// position when the handle was made plus the handle's offset.
type handle struct {
	Name     string
	Vertices []int         // sorted
	Base     []assets.Vec3 // the vertices' positions when the handle was made
	Offset   assets.Vec3
}

// key is the handles' offsets at one frame of the timeline.
type key struct {
	Frame   int
	Offsets []assets.Vec3 // one per handle
}

// edits is the tool state that undo and project files cover. Slices in it
// are never modified in place: an edit builds new ones.
type edits struct {
	Examples  []example
	Reference int // -1: the object's rest mesh; else an example
	Space     meshik.SpaceKind
	Handles   []handle
	Frozen    []int // triangles, sorted
	Mode      Mode
	Blend     []float64 // one per example
	Keys      []key     // sorted by frame
}

// Pose is the Pose tool. Its zero value is ready to use.
type Pose struct {
	sel panels.Select // clicks and boxes that do not grab a handle select

	obj *assets.Object // the object the state belongs to
	ed  edits

	session  *session
	version  uint64
	restart  uint64
	posed    []assets.Vec3 // the latest solution shown
	weights  []float64
	last     snapshot
	seen     uint64
	rate     rateMeter
	showClip bool // show the document's clip rather than the live pose
	errShown error

	drag dragState
	anim *animJob

	traceAt time.Time // last GALLOP_TRACE line
}

// trace is set by GALLOP_TRACE=1: the tool then prints the solver's update
// rate to stderr once a second while it solves (for tests and profiling).
var (
	trace      = os.Getenv("GALLOP_TRACE") != ""
	traceStart = time.Now()
)

// handleColors are the markers' colours, one per handle in turn.
var handleColors = [][4]float32{
	{0.2, 0.75, 1, 1}, {0.45, 0.95, 0.35, 1}, {1, 0.4, 0.8, 1}, {1, 0.9, 0.25, 1},
	{0.6, 0.5, 1, 1}, {0.3, 1, 0.85, 1}, {1, 0.55, 0.3, 1}, {0.85, 0.85, 0.85, 1},
}

// Name implements panels.Tool.
func (p *Pose) Name() string { return "Pose" }

// Help implements panels.Tool.
func (p *Pose) Help() string {
	return "Mesh-Based IK: add example poses, select vertices and make handles (Ctrl+H), drag a handle's ring to pose (X/Y/Z lock an axis)."
}

// reset forgets the state when the active object changes.
func (p *Pose) reset(h tools.Host) {
	p.Close()
	p.obj = h.Object()
	p.ed = edits{Reference: -1}
	p.posed, p.weights, p.last, p.seen = nil, nil, snapshot{}, 0
	p.drag = dragState{}
}

// Close stops the tool's solver job (the document is being replaced).
func (p *Pose) Close() {
	if p.session != nil {
		p.session.stop()
		p.session = nil
	}
	if p.anim != nil {
		p.anim.job.Cancel()
	}
}

// sync makes the state belong to the active object.
func (p *Pose) sync(h tools.Host) {
	if p.obj != h.Object() {
		p.reset(h)
	}
}

// reference returns the reference positions: the object's rest mesh or the
// chosen example.
func (p *Pose) reference() []assets.Vec3 {
	if r := p.ed.Reference; r >= 0 && r < len(p.ed.Examples) {
		return p.ed.Examples[r].Positions
	}
	return p.obj.Mesh.Positions
}

// shown returns the positions the mesh has on screen: the live pose, or
// the document's.
func (p *Pose) shown(h tools.Host) []assets.Vec3 {
	if p.posed != nil && !p.showClip {
		return p.posed
	}
	return h.Positions()
}

// targets returns the handle vertices (sorted) and their targets.
func (p *Pose) targets() ([]int, []assets.Vec3) {
	type vt struct {
		v int
		t assets.Vec3
	}
	var all []vt
	for _, hd := range p.ed.Handles {
		for i, v := range hd.Vertices {
			all = append(all, vt{v, hd.Base[i].Add(hd.Offset)})
		}
	}
	slices.SortFunc(all, func(a, b vt) int { return a.v - b.v })
	vs := make([]int, len(all))
	ts := make([]assets.Vec3, len(all))
	for i, x := range all {
		vs[i], ts[i] = x.v, x.t
	}
	return vs, ts
}

// post sends the current problem to the solver session, starting it if
// needed. restart asks for a fresh start from the linear space.
func (p *Pose) post(h tools.Host, restart bool) {
	if p.obj == nil || (p.ed.Mode == IK && len(p.ed.Handles) == 0) {
		return // nothing to solve until there is a handle
	}
	if p.session == nil {
		p.session = newSession(h.Jobs())
	}
	p.version++
	if restart {
		p.restart++
	}
	pr := &problem{
		version:   p.version,
		reference: p.reference(),
		triangles: p.obj.Mesh.Triangles,
		space:     p.ed.Space,
		frozen:    p.ed.Frozen,
		start:     p.shown(h),
		restart:   p.restart,
	}
	for _, ex := range p.ed.Examples {
		pr.examples = append(pr.examples, ex.Positions)
	}
	if p.ed.Mode == Blend {
		pr.space = meshik.Nonlinear
		pr.blend = p.blendWeights()
		// One anchor vertex fixes the translation the features leave free.
		pr.handles = []int{0}
		pr.targets = []assets.Vec3{p.reference()[0]}
		pr.frozen = nil
	} else {
		pr.handles, pr.targets = p.targets()
	}
	p.showClip = false
	p.session.post(pr)
}

// blendWeights returns the blend mode's weights, one per example.
func (p *Pose) blendWeights() []float64 {
	w := make([]float64, len(p.ed.Examples))
	copy(w, p.ed.Blend)
	return w
}

// Update implements panels.Tool: take the session's latest iterate.
func (p *Pose) Update(h tools.Host) {
	p.sync(h)
	if p.session == nil {
		return
	}
	snap, _ := p.session.latest.Load()
	if snap == nil || snap.count == p.seen {
		return
	}
	now := time.Now()
	p.rate.add(int(snap.count-p.seen), now)
	p.seen = snap.count
	if trace && now.Sub(p.traceAt) >= time.Second {
		p.traceAt = now
		fmt.Fprintf(os.Stderr, "pose: %d solver updates in the last second (%d in all at %.3f s), iteration %d, objective %.6g\n",
			p.rate.perSecond(now), snap.count, now.Sub(traceStart).Seconds(), snap.stats.Iteration, snap.stats.Objective)
	}
	p.last = *snap
	if snap.err != nil {
		if p.errShown == nil || p.errShown.Error() != snap.err.Error() {
			h.Error(snap.err)
		}
		p.errShown = snap.err
	} else {
		p.errShown = nil
	}
	if snap.positions != nil && len(snap.positions) == p.obj.Mesh.NumVertices() {
		p.posed, p.weights = snap.positions, snap.weights
	}
}

// Display implements panels.Tool: the live pose, and the frozen region in
// red.
func (p *Pose) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	p.sync(h)
	if p.obj == nil {
		return nil, nil
	}
	var colors [][3]float32
	if len(p.ed.Frozen) > 0 {
		colors = make([][3]float32, p.obj.Mesh.NumVertices())
		for i := range colors {
			colors[i] = [3]float32{0.78, 0.78, 0.8}
		}
		for _, j := range p.ed.Frozen {
			for _, v := range p.obj.Mesh.Triangles[j] {
				colors[v] = [3]float32{0.9, 0.28, 0.22}
			}
		}
	}
	if p.showClip {
		return nil, colors
	}
	return p.posed, colors
}

// Markers implements panels.Tool: the selection, and each handle's
// vertices in its colour.
func (p *Pose) Markers(h tools.Host) []viewport.PointSet {
	sets := p.sel.Markers(h)
	for i, hd := range p.ed.Handles {
		idx := make([]uint32, len(hd.Vertices))
		for k, v := range hd.Vertices {
			idx[k] = uint32(v)
		}
		sets = append(sets, viewport.PointSet{Indices: idx, Color: handleColors[i%len(handleColors)], Size: 6})
	}
	return sets
}

// Shortcut implements panels.Tool: Ctrl+H makes a handle, I inserts a key,
// X / Y / Z lock the drag to an axis (Blender's keys).
func (p *Pose) Shortcut(h tools.Host, k panels.Key) bool {
	switch {
	case k.Key == giu.KeyH && k.Mods == giu.ModControl:
		p.makeHandle(h)
	case k.Key == giu.KeyI && k.Mods == giu.ModNone:
		p.insertKey(h)
	case p.drag.active && k.Mods == giu.ModNone && (k.Key == giu.KeyX || k.Key == giu.KeyY || k.Key == giu.KeyZ):
		axis := map[giu.Key]int{giu.KeyX: 0, giu.KeyY: 1, giu.KeyZ: 2}[k.Key]
		if p.drag.axis == axis {
			p.drag.axis = -1 // pressing it again frees the drag, as in Blender
		} else {
			p.drag.axis = axis
		}
	default:
		return false
	}
	return true
}

// handleCentre returns a handle's centre on screen now.
func (p *Pose) handleCentre(h tools.Host, i int) mgl64.Vec3 {
	pos := p.shown(h)
	var c mgl64.Vec3
	for _, v := range p.ed.Handles[i].Vertices {
		c = c.Add(pos[v])
	}
	return c.Mul(1 / float64(len(p.ed.Handles[i].Vertices)))
}

// makeHandle turns the selected vertices into a new handle (taking them
// out of other handles).
func (p *Pose) makeHandle(h tools.Host) {
	p.sync(h)
	sel := h.Selection()
	if p.obj == nil || len(sel) == 0 {
		h.Error(fmt.Errorf("select the vertices of the handle first (click, or drag a box)"))
		return
	}
	ed := p.ed.clone()
	var kept []handle
	for _, hd := range ed.Handles {
		var vs []int
		var base []assets.Vec3
		for i, v := range hd.Vertices {
			if _, in := slices.BinarySearch(sel, v); !in {
				vs = append(vs, v)
				base = append(base, hd.Base[i])
			}
		}
		if len(vs) > 0 {
			hd.Vertices, hd.Base = vs, base
			kept = append(kept, hd)
		}
	}
	pos := p.shown(h)
	nh := handle{Name: fmt.Sprintf("Handle %d", len(kept)+1), Vertices: slices.Clone(sel)}
	for _, v := range sel {
		nh.Base = append(nh.Base, pos[v])
	}
	ed.Handles = append(kept, nh)
	ed.Keys = nil // keys hold one offset per handle: a new handle set starts over
	p.do(h, "Make handle", ed, true)
}

// rateMeter counts solver updates per second over the last second.
type rateMeter struct {
	times []time.Time
}

func (r *rateMeter) add(n int, now time.Time) {
	for range min(n, 100) {
		r.times = append(r.times, now)
	}
	cut := 0
	for cut < len(r.times) && now.Sub(r.times[cut]) > time.Second {
		cut++
	}
	r.times = r.times[cut:]
}

func (r *rateMeter) perSecond(now time.Time) int {
	n := 0
	for _, t := range r.times {
		if now.Sub(t) <= time.Second {
			n++
		}
	}
	return n
}

// Viewport implements panels.Tool: grab and drag a handle's ring; anything
// else selects, as the Select tool does.
func (p *Pose) Viewport(h tools.Host, in *viewport.Input) {
	p.sync(h)
	dl := imgui.ForegroundDrawListViewportPtr()
	// Handle rings.
	for i := range p.ed.Handles {
		x, y, ok := h.View().ToScreen(p.handleCentre(h, i))
		if !ok {
			continue
		}
		c := handleColors[i%len(handleColors)]
		col := imgui.ColorU32Vec4(imgui.Vec4{X: c[0], Y: c[1], Z: c[2], W: 1})
		centre := imgui.Vec2{X: float32(in.OriginX + x), Y: float32(in.OriginY + y)}
		thick := float32(2)
		if p.drag.active && p.drag.handle == i {
			thick = 3.5
		}
		dl.AddCircleV(centre, grabRadius, col, 24, thick)
	}
	if p.dragInput(h, in) {
		return
	}
	p.sel.Viewport(h, in)
}

// Panel implements panels.Tool.
func (p *Pose) Panel(h tools.Host) giu.Layout {
	p.sync(h)
	if p.obj == nil {
		return giu.Layout{giu.Label("Open or import a mesh to pose it.")}
	}
	return giu.Layout{
		p.modePanel(h),
		giu.Separator(),
		p.examplesPanel(h),
		giu.Separator(),
		p.handlesPanel(h),
		giu.Separator(),
		p.statusPanel(h),
		giu.Separator(),
		p.animPanel(h),
	}
}

func (p *Pose) modePanel(h tools.Host) giu.Widget {
	return giu.Layout{
		giu.Row(
			giu.RadioButton("Drag handles", p.ed.Mode == IK).OnChange(func() { p.setMode(h, IK) }),
			giu.RadioButton("Blend examples", p.ed.Mode == Blend).OnChange(func() { p.setMode(h, Blend) }),
		),
		giu.Condition(p.ed.Mode == IK, giu.Row(
			giu.Label("Space:"),
			giu.RadioButton("Nonlinear", p.ed.Space == meshik.Nonlinear).OnChange(func() { p.setSpace(h, meshik.Nonlinear) }),
			giu.RadioButton("Linear", p.ed.Space == meshik.Linear).OnChange(func() { p.setSpace(h, meshik.Linear) }),
		), nil),
	}
}

func (p *Pose) examplesPanel(h tools.Host) giu.Widget {
	// The buttons come first so they stay put as the list grows.
	l := giu.Layout{
		giu.Labelf("Examples (%d)", len(p.ed.Examples)),
		giu.Row(
			giu.Button("Add OBJ...").OnClick(func() {
				h.OpenFile("Add example pose", []string{"obj"}, func(path string) { p.addExampleFiles(h, []string{path}) })
			}),
			giu.Button("Add folder...").OnClick(func() {
				h.OpenFolder("Add a folder of example poses", func(path string) { p.addExampleFolder(h, path) })
			}),
		),
		giu.Row(
			giu.Button("Add this frame").OnClick(func() { p.addFrames(h, []int{h.Frame()}) }),
			giu.Button("Add all frames").OnClick(func() {
				fs := make([]int, h.NumFrames())
				for i := range fs {
					fs[i] = i
				}
				p.addFrames(h, fs)
			}),
		),
		giu.Condition(p.isDemoBar(), giu.Button("Add the demo bar's examples (straight, bent)").OnClick(func() { p.addDemoExamples(h) }), nil),
		giu.RadioButton("Reference: the object's rest pose", p.ed.Reference < 0).OnChange(func() { p.setReference(h, -1) }),
	}
	for i, ex := range p.ed.Examples {
		i := i
		w := 0.0
		if i < len(p.weights) && p.ed.Mode == IK && p.ed.Space == meshik.Nonlinear {
			w = p.weights[i]
		}
		l = append(l, giu.Row(
			giu.RadioButton(fmt.Sprintf("##ref%d", i), p.ed.Reference == i).OnChange(func() { p.setReference(h, i) }),
			giu.Tooltip("Use this example as the reference pose"),
			giu.ProgressBar(float32(math.Max(0, math.Min(1, w)))).Size(90, 0).Overlay(fmt.Sprintf("%.2f", w)),
			giu.Label(ex.Name),
			giu.SmallButton(fmt.Sprintf("x##ex%d", i)).OnClick(func() { p.removeExample(h, i) }),
		))
		if p.ed.Mode == Blend {
			v := float32(0)
			if i < len(p.ed.Blend) {
				v = float32(p.ed.Blend[i])
			}
			l = append(l, giu.SliderFloat(&v, -0.5, 1.5).Label(fmt.Sprintf("##blend%d", i)).Size(240).OnChange(func() {
				p.setBlend(h, i, float64(v))
			}))
		}
	}
	return l
}

func (p *Pose) handlesPanel(h tools.Host) giu.Widget {
	l := giu.Layout{
		giu.Labelf("Handles (%d)", len(p.ed.Handles)),
		giu.Button("Make handle from selection (Ctrl+H)").OnClick(func() { p.makeHandle(h) }),
	}
	for i, hd := range p.ed.Handles {
		i := i
		c := handleColors[i%len(handleColors)]
		name := hd.Name
		l = append(l, giu.Row(
			giu.Style().SetColor(giu.StyleColorText, color.RGBA{R: uint8(255 * c[0]), G: uint8(255 * c[1]), B: uint8(255 * c[2]), A: 255}).To(giu.Label("●")),
			giu.InputText(&name).Label(fmt.Sprintf("##hname%d", i)).Size(110).Flags(giu.InputTextFlagsEnterReturnsTrue).OnChange(func() { p.renameHandle(h, i, name) }),
			giu.Labelf("%d vertices", len(hd.Vertices)),
			giu.SmallButton(fmt.Sprintf("Reset##h%d", i)).OnClick(func() { p.resetHandle(h, i) }),
			giu.SmallButton(fmt.Sprintf("x##h%d", i)).OnClick(func() { p.removeHandle(h, i) }),
		))
	}
	l = append(l,
		giu.Labelf("Frozen: %d triangles", len(p.ed.Frozen)),
		giu.Row(
			giu.Button("Freeze selection").OnClick(func() { p.freezeSelection(h, true) }),
			giu.Button("Unfreeze selection").OnClick(func() { p.freezeSelection(h, false) }),
		),
	)
	return l
}

func (p *Pose) statusPanel(h tools.Host) giu.Widget {
	st := p.last.stats
	state := "idle"
	switch {
	case p.ed.Mode == IK && len(p.ed.Handles) == 0:
		state = "select vertices and make a handle (Ctrl+H)"
	case p.session == nil:
		state = "no solve yet"
	case p.last.err != nil:
		state = "error: " + p.last.err.Error()
	case p.last.converged:
		state = "converged"
	case p.last.count > 0:
		state = "solving"
	}
	return giu.Layout{
		giu.Labelf("Solver: %s", state),
		giu.Labelf("iteration %d, objective %.4g, %d updates/s", st.Iteration, st.Objective, p.rate.perSecond(time.Now())),
		giu.Row(
			giu.Button("Re-solve").OnClick(func() { p.post(h, true) }),
			giu.Button("Export posed OBJ...").OnClick(func() { p.exportOBJ(h) }),
		),
	}
}

// isDemoBar reports whether the object has the demo bar's topology.
func (p *Pose) isDemoBar() bool {
	bar := assets.DemoBar()
	return p.obj != nil && p.obj.Mesh.SameTopology(bar) == nil
}

// exportOBJ writes the pose shown as an OBJ file.
func (p *Pose) exportOBJ(h tools.Host) {
	pos := p.shown(h)
	mesh := p.obj.Mesh
	h.SaveFile("Export posed mesh", []string{"obj"}, p.obj.Name+"-posed.obj", func(path string) {
		if err := assets.SaveOBJ(path, mesh, pos); err != nil {
			h.Error(err)
			return
		}
		h.Info("Wrote %s", path)
	})
}
