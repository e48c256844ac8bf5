package app

import (
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/internal/undo"
	"gallop/internal/words"
)

// Document is what the artist is working on: a scene, the object being
// edited, the current frame, the vertex selection, and where it is saved.
// It is owned by the UI goroutine; jobs receive copies or immutable parts.
type Document struct {
	Scene     *assets.Scene
	Active    int    // index into Scene.Objects (meaningless when empty)
	Frame     int    // current frame of the timeline
	Selection []int  // selected vertices of the active object, sorted
	Path      string // the .gallop file it was loaded from or saved to; "" if none
	// Title names an unsaved document (the file it was imported from).
	Title string

	bounds map[*assets.Object]cachedBounds
}

// cachedBounds is an object's box over all its frames. Clip frames are never
// modified in place, so the box stays right while the clip and its frame
// count are the same.
type cachedBounds struct {
	clip   *assets.Clip
	frames int
	lo, hi assets.Vec3
}

// ObjectBounds returns the box around every frame of o, computed once per
// clip: the timeline and the grid ask for it every UI frame.
func (d *Document) ObjectBounds(o *assets.Object) (lo, hi assets.Vec3) {
	if o.Clip == nil {
		return assets.Bounds(o.Mesh.Positions)
	}
	c, ok := d.bounds[o]
	if !ok || c.clip != o.Clip || c.frames != len(o.Clip.Frames) {
		c = cachedBounds{clip: o.Clip, frames: len(o.Clip.Frames)}
		c.lo, c.hi = o.Clip.Bounds()
		if d.bounds == nil {
			d.bounds = map[*assets.Object]cachedBounds{}
		}
		d.bounds[o] = c
	}
	return c.lo, c.hi
}

// NewDocument returns an empty document.
func NewDocument() *Document { return &Document{Scene: &assets.Scene{}} }

// Object returns the active object, or nil in an empty scene.
func (d *Document) Object() *assets.Object {
	if d.Active < 0 || d.Active >= len(d.Scene.Objects) {
		return nil
	}
	return d.Scene.Objects[d.Active]
}

// NumFrames returns the length of the timeline: the longest clip.
func (d *Document) NumFrames() int {
	n := 1
	for _, o := range d.Scene.Objects {
		n = max(n, o.NumFrames())
	}
	return n
}

// FPS returns the frame rate of the timeline: the active object's.
func (d *Document) FPS() float64 {
	if o := d.Object(); o != nil {
		return o.FPS()
	}
	return assets.DefaultFPS
}

// DisplayName is the name shown in the title bar.
func (d *Document) DisplayName() string {
	switch {
	case d.Path != "":
		return d.Path
	case d.Title != "":
		return d.Title
	}
	return "untitled"
}

// Bounds returns the box around every frame of every object.
func (d *Document) Bounds() (lo, hi assets.Vec3, ok bool) {
	for i, o := range d.Scene.Objects {
		l, h := d.ObjectBounds(o)
		if i == 0 {
			lo, hi = l, h
			continue
		}
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], l[k]), max(hi[k], h[k])
		}
	}
	return lo, hi, len(d.Scene.Objects) > 0
}

// selectCmd replaces the selection.
type selectCmd struct {
	doc           *Document
	before, after []int
}

func (c *selectCmd) Name() string {
	if len(c.after) == 0 {
		return "Deselect"
	}
	return "Select " + words.Count(len(c.after), "vertex", "vertices")
}
func (c *selectCmd) Do()   { c.doc.Selection = c.after }
func (c *selectCmd) Undo() { c.doc.Selection = c.before }

// addObjectsCmd adds objects to the scene and makes the first one active,
// unless keepActive.
type addObjectsCmd struct {
	doc        *Document
	objs       []*assets.Object
	keepActive bool
	label      string // the step's name; "" for "Import …"
	prevActive int
	prevSel    []int
}

func (c *addObjectsCmd) Name() string {
	if c.label != "" {
		return c.label
	}
	if len(c.objs) == 1 {
		return "Import " + c.objs[0].Name
	}
	return fmt.Sprintf("Import %d objects", len(c.objs))
}

func (c *addObjectsCmd) Do() {
	c.prevActive, c.prevSel = c.doc.Active, c.doc.Selection
	if !c.keepActive {
		c.doc.Active = len(c.doc.Scene.Objects)
		c.doc.Selection = nil
	}
	c.doc.Scene.Objects = append(c.doc.Scene.Objects, c.objs...)
}

func (c *addObjectsCmd) Undo() {
	n := len(c.doc.Scene.Objects) - len(c.objs)
	clear(c.doc.Scene.Objects[n:])
	c.doc.Scene.Objects = c.doc.Scene.Objects[:n]
	c.doc.Active, c.doc.Selection = c.prevActive, c.prevSel
}

// removeObjectCmd deletes one object.
type removeObjectCmd struct {
	doc        *Document
	index      int
	obj        *assets.Object
	prevActive int
	prevSel    []int
}

func (c *removeObjectCmd) Name() string { return "Delete " + c.obj.Name }

func (c *removeObjectCmd) Do() {
	c.prevActive, c.prevSel = c.doc.Active, c.doc.Selection
	c.doc.Scene.Objects = slices.Delete(c.doc.Scene.Objects, c.index, c.index+1)
	c.doc.Active = max(0, min(c.doc.Active, len(c.doc.Scene.Objects)-1))
	c.doc.Selection = nil
}

func (c *removeObjectCmd) Undo() {
	c.doc.Scene.Objects = slices.Insert(c.doc.Scene.Objects, c.index, c.obj)
	c.doc.Active, c.doc.Selection = c.prevActive, c.prevSel
}

// setActiveCmd makes another object the one being edited.
type setActiveCmd struct {
	doc           *Document
	before, after int
	selBefore     []int
}

func (c *setActiveCmd) Name() string { return "Activate " + c.doc.Scene.Objects[c.after].Name }
func (c *setActiveCmd) Do() {
	c.selBefore = c.doc.Selection
	c.doc.Active, c.doc.Selection = c.after, nil
}
func (c *setActiveCmd) Undo() { c.doc.Active, c.doc.Selection = c.before, c.selBefore }

// renameCmd renames an object.
type renameCmd struct {
	obj           *assets.Object
	before, after string
}

func (c *renameCmd) Name() string { return "Rename to " + c.after }
func (c *renameCmd) Do()          { c.obj.Name = c.after }
func (c *renameCmd) Undo()        { c.obj.Name = c.before }

// setFPSCmd changes a clip's frame rate.
type setFPSCmd struct {
	clip          *assets.Clip
	before, after float64
}

func (c *setFPSCmd) Name() string { return fmt.Sprintf("Frame rate %g", c.after) }
func (c *setFPSCmd) Do()          { c.clip.FPS = c.after }
func (c *setFPSCmd) Undo()        { c.clip.FPS = c.before }

// Merge implements undo.Merger: dragging the frame rate is one step.
func (c *setFPSCmd) Merge(next undo.Command) bool {
	n, ok := next.(*setFPSCmd)
	if !ok || n.clip != c.clip {
		return false
	}
	c.after = n.after
	return true
}

// setHidden hides (or shows) objs, as one undoable step; objects already
// so are left out, and nothing happens when none changes.
func (a *App) setHidden(objs []*assets.Object, hidden bool) {
	var change []*assets.Object
	for _, o := range objs {
		if o.Hidden != hidden {
			change = append(change, o)
		}
	}
	if len(change) > 0 {
		a.history.Do(&hideCmd{objs: change, hidden: hidden})
	}
}

// hideCmd hides or shows objects.
type hideCmd struct {
	objs   []*assets.Object
	hidden bool
}

func (c *hideCmd) Name() string {
	verb := "Show"
	if c.hidden {
		verb = "Hide"
	}
	if len(c.objs) == 1 {
		return verb + " " + c.objs[0].Name
	}
	return verb + " " + words.Count(len(c.objs), "object", "objects")
}
func (c *hideCmd) Do()   { c.set(c.hidden) }
func (c *hideCmd) Undo() { c.set(!c.hidden) }
func (c *hideCmd) set(h bool) {
	for _, o := range c.objs {
		o.Hidden = h
	}
}
