package app

import (
	"gallop/assets"
	"gallop/viewport"
)

// preview is a rigid-body animation shown in the viewport and on the
// timeline in place of the document's scene (Host.ShowAnimation): a
// sample of the Gallery tool. The document does not change: the preview
// is no undo step and is not saved.
type preview struct {
	anim  *assets.RigidAnimation
	scene *viewport.RigidScene
	// doc holds the scene's objects and the preview's current frame, for
	// the timeline.
	doc *Document
	// camera is the document's camera, given back when the preview ends.
	camera viewport.Camera
}

// stage returns the document the viewport and the timeline show: the
// preview's while there is one, else the document.
func (a *App) stage() *Document {
	if a.preview != nil {
		return a.preview.doc
	}
	return a.doc
}

// ShowAnimation implements tools.Host.
func (a *App) ShowAnimation(anim *assets.RigidAnimation, play bool) error {
	if anim == nil {
		a.endPreview()
		return nil
	}
	rs, err := viewport.NewRigidScene(anim)
	if err != nil {
		return err
	}
	p := &preview{anim: anim, scene: rs, doc: &Document{Scene: &assets.Scene{Objects: rs.Objects}, Title: anim.Name}}
	// A new preview, or one of another kind of scene (another view
	// direction or size), is framed afresh; another sample of the same
	// scene keeps the camera the artist set.
	switch {
	case a.preview == nil:
		p.camera = a.view.Camera
		a.view.Camera = rs.Camera(a.view.Aspect())
	default:
		p.camera = a.preview.camera
		old := a.preview.scene
		ratio := rs.Hi.Sub(rs.Lo).Len() / max(old.Hi.Sub(old.Lo).Len(), 1e-12)
		if old.View != rs.View || ratio < 0.5 || ratio > 2 {
			a.view.Camera = rs.Camera(a.view.Aspect())
		}
	}
	a.preview = p
	a.play.playing = false
	if play {
		a.togglePlay()
	}
	return nil
}

// ShownAnimation implements tools.Host.
func (a *App) ShownAnimation() *assets.RigidAnimation {
	if a.preview == nil {
		return nil
	}
	return a.preview.anim
}

// endPreview goes back to the document's scene and camera.
func (a *App) endPreview() {
	if a.preview == nil {
		return
	}
	a.view.Camera = a.preview.camera
	a.preview = nil
	a.play.playing = false
}

// documentCamera returns the document's camera, which the viewport shows
// unless a preview has its own.
func (a *App) documentCamera() viewport.Camera {
	if a.preview != nil {
		return a.preview.camera
	}
	return a.view.Camera
}

// setTool makes tool i active; a preview ends when the tool changes.
func (a *App) setTool(i int) {
	if i != a.tool {
		a.endPreview()
	}
	a.tool = i
}
