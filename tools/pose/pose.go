// Package pose is the model of the Pose tool: Mesh-Based Inverse
// Kinematics (Sumner et al. 2005) on the document's active object; its
// panel is panels/posepanel. The artist gives example poses, makes handles
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
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
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
// position when the handle was made plus the handle's offset. A handle
// turns with the pose (the rotation the example blend gives where it is,
// meshik's SetRotating) unless Fixed holds its orientation.
type handle struct {
	Name     string
	Vertices []int         // sorted
	Base     []assets.Vec3 // the vertices' positions when the handle was made
	Offset   assets.Vec3
	Fixed    bool
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
	// Components and Prior are meshik's Options of the same names: how
	// many principal components of the examples the solve keeps (0: as
	// many as carry variation) and how strongly it pulls the pose toward
	// the examples' mean (0: from the variation the components leave).
	Components int
	Prior      float64
}

// Pose is the Pose tool's model. Its zero value is ready to use. Every
// method runs on the UI thread.
type Pose struct {
	// XRay makes box selection reach hidden vertices; it is saved with
	// the tool.
	XRay bool
	// AnimIterations caps the Gauss-Newton iterations per frame of a
	// solved animation; 0 means meshik's default (50). Frames that reach
	// the cap are reported (CappedFrames).
	AnimIterations int

	obj *assets.Object // the object the state belongs to
	ed  edits

	session  *session
	version  uint64
	restart  uint64
	floor    uint64        // snapshots of older problems are not shown (an undo restored a pose)
	posed    []assets.Vec3 // the latest solution shown
	weights  []float64
	last     snapshot
	seen     uint64
	rate     rateMeter
	showClip bool // show the document's clip rather than the live pose
	left     bool // Leave stopped the session; Resume starts it again
	errShown error
	// compression is how the solver compressed the examples, as last
	// published (zero before it was built).
	compression meshik.CompressionInfo

	// drift is the last held pose's drift (see snapshot), when known.
	drift      float64
	driftKnown bool
	hint       string // what the viewport says until the first drag (SetUpDemo)

	drag   dragState
	anim   *animJob
	capped []CappedFrame // the last solved animation's frames that hit the cap
}

// HandleColors are the handles' colours, one per handle in turn.
var HandleColors = [][4]float32{
	{0.2, 0.75, 1, 1}, {0.45, 0.95, 0.35, 1}, {1, 0.4, 0.8, 1}, {1, 0.9, 0.25, 1},
	{0.6, 0.5, 1, 1}, {0.3, 1, 0.85, 1}, {1, 0.55, 0.3, 1}, {0.85, 0.85, 0.85, 1},
}

// reset forgets the state when the active object changes.
func (p *Pose) reset(h tools.Host) {
	p.Close()
	p.obj = h.Object()
	p.ed = edits{Reference: -1}
	p.posed, p.weights, p.last, p.seen, p.floor = nil, nil, snapshot{}, 0, 0
	p.compression = meshik.CompressionInfo{}
	p.drift, p.driftKnown, p.hint = 0, false, ""
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

// Leave stops the solver session, so that its memory (the compressed
// examples, the factorization: gigabytes on a production mesh with a
// capture as examples) can go while another tool is in use; the pose
// shown, its weights and every edit stay, and the solver is built again
// when the tool is next used. An animation being solved goes on.
func (p *Pose) Leave(h tools.Host) {
	if p.session != nil {
		p.session.stop()
		p.session = nil
		p.compression = meshik.CompressionInfo{}
		p.left = true
	}
}

// Resume starts the solver again for the state the tool holds (after
// Leave): the examples are prepared and the pose shown held.
func (p *Pose) Resume(h tools.Host) {
	p.Sync(h)
	if p.session == nil && p.left && p.obj != nil {
		p.left = false
		p.post(h, hold)
	}
}

// Sync makes the state belong to the active object: when it changed, the
// solver stops and the state starts afresh.
func (p *Pose) Sync(h tools.Host) {
	if p.obj != h.Object() {
		p.reset(h)
	}
}

// referencePositions returns the reference positions: the object's rest
// mesh or the chosen example.
func (p *Pose) referencePositions() []assets.Vec3 {
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
	var vs []int
	var ts []assets.Vec3
	for _, hd := range p.ed.Handles {
		for i, v := range hd.Vertices {
			vs, ts = append(vs, v), append(ts, hd.Base[i].Add(hd.Offset))
		}
	}
	return meshik.SortHandles(vs, ts)
}

// solveKind is how the session treats a new problem.
type solveKind int

const (
	// solve iterates from where the solver is (new targets: a drag) or,
	// for new examples, space or reference, from the pose shown.
	solve solveKind = iota
	// restart iterates from the linear space's solution for the
	// constraints (Re-solve).
	restart
	// hold takes the pose shown as the solution until the targets change
	// (a new handle set, a new example, a frozen region, an undo, a
	// reopened project): nothing moves until the artist drags.
	hold
)

// poseView is a pose as shown: its positions (nil: the document's) and
// the weights that produced it (nil: unknown).
type poseView struct {
	positions []assets.Vec3
	weights   []float64
}

// view returns the pose shown now.
func (p *Pose) view() poseView {
	if p.showClip {
		return poseView{}
	}
	return poseView{positions: p.posed, weights: p.weights}
}

// show makes v the pose shown and holds the solver there (see hold).
func (p *Pose) show(h tools.Host, v poseView) {
	p.posed, p.weights, p.showClip = v.positions, v.weights, false
	p.floor = p.version + 1 // what the session publishes for older problems is stale
	p.post(h, hold)
}

// post sends the current problem to the solver session, starting it if
// needed.
func (p *Pose) post(h tools.Host, kind solveKind) {
	if p.obj == nil || (p.ed.Mode == IK && len(p.ed.Handles) == 0 && len(p.ed.Examples) == 0) {
		return // nothing to solve or prepare until there is a handle or an example
	}
	if p.session == nil {
		p.session = newSession(h.Jobs())
	}
	p.version++
	if kind == restart {
		p.restart++
	}
	pr := &problem{
		version:      p.version,
		reference:    p.referencePositions(),
		triangles:    p.obj.Mesh.Triangles,
		space:        p.ed.Space,
		components:   p.ed.Components,
		prior:        p.ed.Prior,
		frozen:       p.ed.Frozen,
		start:        p.shown(h),
		startWeights: p.weights,
		restart:      p.restart,
		hold:         kind == hold,
	}
	for _, ex := range p.ed.Examples {
		pr.examples = append(pr.examples, ex.Positions)
	}
	if p.ed.Mode == Blend {
		// The blend of Figure 3: a weight per example, uncompressed.
		pr.space, pr.components, pr.prior = meshik.Nonlinear, -1, 0
		pr.blend = p.blendWeights()
		// One anchor vertex fixes the translation the features leave free.
		pr.handles = []int{0}
		pr.targets = []assets.Vec3{p.referencePositions()[0]}
		pr.frozen = nil
		pr.hold = false
	} else {
		pr.handles, pr.targets = p.targets()
		pr.groups = p.groups()
	}
	p.showClip = false
	p.session.post(pr)
}

// groups returns the vertices of each handle that turns with the pose.
func (p *Pose) groups() [][]int {
	var gs [][]int
	for _, hd := range p.ed.Handles {
		if !hd.Fixed && len(hd.Vertices) > 1 {
			gs = append(gs, hd.Vertices)
		}
	}
	return gs
}

// blendWeights returns the blend mode's weights, one per example.
func (p *Pose) blendWeights() []float64 {
	w := make([]float64, len(p.ed.Examples))
	copy(w, p.ed.Blend)
	return w
}

// Update runs once per UI frame: take the session's latest iterate.
func (p *Pose) Update(h tools.Host) {
	p.Sync(h)
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
	if snap.version < p.floor {
		return // an iterate of a problem an undo has replaced
	}
	p.last = *snap
	// The drift is that of the held pose; a solve shows another one.
	p.drift, p.driftKnown = snap.drift, snap.driftKnown
	if snap.err != nil {
		if p.errShown == nil || p.errShown.Error() != snap.err.Error() {
			var f *Failure
			if errors.As(snap.err, &f) {
				h.Warn(f) // the panel shows it, with its fix
			} else {
				h.Error(snap.err)
			}
		}
		p.errShown = snap.err
	} else {
		p.errShown = nil
	}
	if snap.compression.Examples > 0 || len(p.ed.Examples) == 0 {
		p.compression = snap.compression
	}
	if snap.positions != nil && len(snap.positions) == p.obj.Mesh.NumVertices() {
		p.posed, p.weights = snap.positions, snap.weights
	}
}

// Display returns what the viewport shows for the object: the live pose
// (nil: the document's positions), and the frozen region in red.
func (p *Pose) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	p.Sync(h)
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

// Markers returns each handle's vertices in its colour.
func (p *Pose) Markers() []viewport.PointSet {
	var sets []viewport.PointSet
	for i, hd := range p.ed.Handles {
		idx := make([]uint32, len(hd.Vertices))
		for k, v := range hd.Vertices {
			idx[k] = uint32(v)
		}
		sets = append(sets, viewport.PointSet{Indices: idx, Color: HandleColors[i%len(HandleColors)], Size: 6})
	}
	return sets
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

// MakeHandle turns the selected vertices into a new handle (taking them
// out of other handles).
func (p *Pose) MakeHandle(h tools.Host) {
	p.Sync(h)
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
	p.do(h, "Make handle", ed, hold)
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

// IsDemoBar reports whether the object has the demo bar's topology.
func (p *Pose) IsDemoBar() bool {
	bar := assets.DemoBar()
	return p.obj != nil && p.obj.Mesh.SameTopology(bar) == nil
}

// ExportOBJ writes the pose shown as an OBJ file.
func (p *Pose) ExportOBJ(h tools.Host) {
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
