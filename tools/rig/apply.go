package rig

import (
	"fmt"

	"gallop/assets"
)

// objectParts are the fields of an object that applying a rig replaces.
type objectParts struct {
	clip   *assets.Clip
	rig    *assets.Rig
	skin   *assets.SkinAnimation
	source *assets.Source
}

// applyCmd makes a rig part of the document: the object gets the rig, its
// joint animation, and the clip the rig plays (the skinned positions) in
// place of the clip it was fitted to; being edited, it is embedded in the
// project from then on. Undo puts the original fields back. The clip and
// rig are new values, never the old ones modified, so the renderer and
// the timeline see the change.
type applyCmd struct {
	obj           *assets.Object
	before, after objectParts
}

// newApply returns the command applying r to its object.
func newApply(r *Result) *applyCmd {
	o := r.obj
	rigged := SkinnedObject(r.SSDR, r.clip.Name, r.clip.FPS, o.Mesh, r.rest)
	clip := &assets.Clip{Name: r.clip.Name, FPS: r.clip.FPS, Frames: r.skinned}
	return &applyCmd{
		obj:    o,
		before: objectParts{clip: o.Clip, rig: o.Rig, skin: o.Skin, source: o.Source},
		after:  objectParts{clip: clip, rig: rigged.Rig, skin: rigged.Skin},
	}
}

// Name implements undo.Command.
func (c *applyCmd) Name() string {
	return fmt.Sprintf("Apply rig (%d bones)", len(c.after.rig.Joints))
}

// Do implements undo.Command.
func (c *applyCmd) Do() { c.set(c.after) }

// Undo implements undo.Command.
func (c *applyCmd) Undo() { c.set(c.before) }

func (c *applyCmd) set(p objectParts) {
	c.obj.Clip, c.obj.Rig, c.obj.Skin, c.obj.Source = p.clip, p.rig, p.skin, p.source
}

// Applied reports whether r's rig is the one its object has now.
func (r *Result) Applied() bool {
	return r.obj.Rig != nil && r.obj.Clip != nil && len(r.skinned) > 0 && len(r.obj.Clip.Frames) > 0 &&
		&r.obj.Clip.Frames[0][0] == &r.skinned[0][0]
}
