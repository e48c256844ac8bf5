package app

import (
	"fmt"
	"gallop/panels"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/viewport"
)

// preview is an animation shown in the viewport and on the timeline in
// place of the document's scene: a rigid-body animation
// (Host.ShowAnimation, a sample of the Gallery tool) or a mesh clip
// (Host.ShowClip, a variation of the Synthesize tool). The document does
// not change: the preview is no undo step and is not saved.
type preview struct {
	anim  *assets.RigidAnimation // the rigid-body animation, or nil
	scene *viewport.RigidScene   // its scene, or nil
	clip  *assets.Object         // the mesh clip, or nil
	marks []int                  // frames marked on the timeline (a clip's splices)
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

// items returns what the renderer draws of the preview at its
// frame.
func (p *preview) items() []viewport.Item {
	if p.scene != nil {
		return p.scene.Items(p.doc.Frame)
	}
	return []viewport.Item{{Key: p.clip, Triangles: p.clip.Mesh.Triangles, Positions: p.clip.PositionsAt(p.doc.Frame)}}
}

// caption says what the preview shows, over the viewport: a preview,
// which the document keeps only as the copies Add to document makes.
func (p *preview) caption() string {
	if p.anim != nil {
		return fmt.Sprintf("%s (preview; Add to document keeps a copy)  |  %s  |  frame %d / %d",
			p.anim.Name, words.Count(len(p.anim.Bodies), "body", "bodies"), p.doc.Frame+1, p.doc.NumFrames())
	}
	return fmt.Sprintf("%s (preview; Add to document keeps a copy)  |  %s  |  frame %d / %d",
		p.clip.Name, words.Count(len(p.marks), "splice", "splices"), p.doc.Frame+1, p.doc.NumFrames())
}

// ShowClip implements tools.Host.
func (a *App) ShowClip(o *assets.Object, marks []int, play bool) error {
	if o == nil {
		a.endPreview()
		return nil
	}
	if err := o.Validate(); err != nil {
		return err
	}
	p := &preview{clip: o, marks: marks, doc: &Document{Scene: &assets.Scene{Objects: []*assets.Object{o}}, Title: o.Name}}
	// A clip of the same mesh keeps the camera the artist set.
	if a.preview == nil {
		p.camera = a.view.Camera
	} else {
		p.camera = a.preview.camera
	}
	if a.preview == nil || a.preview.clip == nil || a.preview.clip.Mesh.NumVertices() != o.Mesh.NumVertices() {
		if lo, hi, ok := p.doc.Bounds(); ok {
			a.view.Camera.Frame(lo, hi, a.view.Aspect())
		}
	}
	a.preview = p
	a.play.playing = false
	if play {
		a.togglePlay()
	}
	return nil
}

// ShownClip implements tools.Host.
func (a *App) ShownClip() *assets.Object {
	if a.preview == nil {
		return nil
	}
	return a.preview.clip
}

// ShownFrame implements tools.Host.
func (a *App) ShownFrame() (int, bool) {
	if a.preview == nil {
		return 0, false
	}
	return a.preview.doc.Frame, true
}

// SetShownFrame implements tools.Host.
func (a *App) SetShownFrame(frame int) {
	if a.preview != nil {
		a.setFrame(frame)
	}
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

// setTool makes tool i active; a preview ends when the tool changes, and
// the tool left lets go of what it only needs while active.
func (a *App) setTool(i int) {
	if i != a.tool {
		a.endPreview()
		if l, ok := a.tools[a.tool].(panels.Leaver); ok {
			l.Leave(a)
		}
	}
	a.tool = i
}
