// Package tools is the layer of Gallop's tool models: one package per
// method below it (pose, gallery, rig), each holding a tool's state, its
// edits (undoable commands), its solver sessions and jobs, and what it
// saves in the project file, with no Dear ImGui and no OpenGL. The window
// lays a model out through a thin panel (package panels and its
// subpackages); the headless commands and the tests drive the model
// directly.
//
// A model reaches the document only through Host, which the application
// implements (and toolstest fakes), so it never touches UI state it does
// not own.
package tools

import (
	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/undo"
	"gallop/viewport"
)

// Label is a name drawn in the viewport over what it names (the two
// animations shown side by side, say); see panels.DrawLabels.
type Label struct {
	Text string
	At   assets.Vec3 // the top centre of what it names
}

// Host is what the application offers a tool.
type Host interface {
	// Object returns the object being edited, or nil.
	Object() *assets.Object
	// Positions returns the active object's vertex positions at the current
	// frame (nil without an object).
	Positions() []assets.Vec3
	// Selection returns the selected vertices of the active object, sorted.
	Selection() []int
	// SetSelection replaces the selection as one undoable step.
	SetSelection(vertices []int)
	// Do applies an edit and records it for undo.
	Do(cmd undo.Command)
	// Jobs runs background work.
	Jobs() *jobs.Runner
	// View gives picking and projection in the viewport.
	View() *viewport.View
	// Error reports a problem to the artist.
	Error(err error)
	// Warn reports a problem that the tool also shows in its panel with
	// what to do about it, in the message log only: no dialog interrupts
	// the artist (a solve that failed in the middle of a drag).
	Warn(err error)
	// Info reports something that went well, in the status bar.
	Info(format string, args ...any)
	// Frame returns the current frame of the timeline; NumFrames and FPS
	// its length and rate.
	Frame() int
	NumFrames() int
	FPS() float64
	// OpenFile asks for a file with a native dialog (extensions without the
	// dot); done runs on the UI thread with the chosen path, unless the
	// dialog was cancelled.
	OpenFile(title string, exts []string, done func(path string))
	// OpenFolder asks for a folder, like OpenFile.
	OpenFolder(title string, done func(path string))
	// SaveFile asks where to save, like OpenFile.
	SaveFile(title string, exts []string, suggested string, done func(path string))
	// ShowAnimation shows anim in the viewport and on the timeline in
	// place of the document's scene, from its first frame, playing if
	// play; nil goes back to the document's scene. The document does not
	// change (no undo step, nothing saved). The application goes back by
	// itself when the active tool changes or another document opens. It
	// fails when anim does not validate.
	ShowAnimation(anim *assets.RigidAnimation, play bool) error
	// ShownAnimation returns what ShowAnimation shows, or nil.
	ShownAnimation() *assets.RigidAnimation
	// ShowClip shows o, an object with a clip that is not in the
	// document, in place of the document's scene, like ShowAnimation,
	// with the frames marks marked on the timeline; nil goes back.
	ShowClip(o *assets.Object, marks []int, play bool) error
	// ShownClip returns what ShowClip shows, or nil.
	ShownClip() *assets.Object
	// ShownFrame returns the frame of what ShowAnimation or ShowClip
	// shows (the timeline's frame while it shows it), ok false when
	// nothing is shown. SetShownFrame moves it there (clamped to its
	// frames; playback goes on from there if it plays).
	ShownFrame() (frame int, ok bool)
	SetShownFrame(frame int)
	// Objects returns the document's objects.
	Objects() []*assets.Object
	// AddObject adds o to the document's scene as one undoable step; the
	// active object stays active.
	AddObject(o *assets.Object)
}
