package rig

import (
	"fmt"

	"gallop/assets"
	"gallop/tools"
)

// newApply returns the edit that makes r's rig part of the document: the
// object gets the rig, its joint animation, and the clip the rig plays
// (the skinned positions, named "NAME rigged") in place of the clip it
// was fitted to, which stays the object's first take. The clip and rig
// are new values, never the old ones modified, so the renderer and the
// timeline see the change.
func newApply(r *Result) *tools.ReplaceParts {
	o := r.obj
	rigged := r.object()
	clip := &assets.Clip{Name: r.clip.Name + " rigged", FPS: r.clip.FPS, Frames: r.skinned}
	return tools.NewReplaceParts(fmt.Sprintf("Apply rig (%d bones)", len(rigged.Rig.Joints)), o, func(p *tools.Parts) {
		p.KeepTake()
		p.Clip, p.Rig, p.Skin = clip, rigged.Rig, rigged.Skin
	})
}

// Applied reports whether r's rig is the one its object has now.
func (r *Result) Applied() bool {
	return r.obj.Rig != nil && r.obj.Clip != nil && len(r.skinned) > 0 && len(r.obj.Clip.Frames) > 0 &&
		&r.obj.Clip.Frames[0][0] == &r.skinned[0][0]
}
