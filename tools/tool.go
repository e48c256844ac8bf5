// Package tools holds Gallop's interactive tools. A Tool turns what the
// artist does in the viewport and in its panel into document edits (undoable
// commands) and solver jobs. The application swaps the active tool; each tool
// keeps its own state in plain structs and saves it in the project file.
//
// Tools reach the document only through Host, which the application
// implements, so a tool never touches UI state it does not own.
package tools

import (
	"encoding/json"
	"image/color"

	"github.com/AllenDang/giu"

	_ "gallop/app/glibc" // link fix for cimgui-go, see package doc
	"gallop/app/jobs"
	"gallop/app/undo"
	"gallop/assets"
	"gallop/viewport"
)

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
}

// Key is a key press, with the modifiers held when it happened.
type Key struct {
	Key  giu.Key
	Mods giu.Modifier
}

// Tool is one interactive mode of the viewport.
type Tool interface {
	// Name is shown in the tool panel and keys the tool's saved state.
	Name() string
	// Help is a one-line description of how to use the tool.
	Help() string
	// Viewport handles mouse input over the viewport that is not camera
	// navigation; it may draw 2D overlays with Dear ImGui's draw lists.
	Viewport(h Host, in *viewport.Input)
	// Markers returns the point sets the tool wants drawn on the mesh.
	Markers(h Host) []viewport.PointSet
	// Display returns what the viewport shows for the active object
	// instead of its positions at the current frame (nil: those), and
	// per-vertex colours (nil: none; they override the View menu's heat
	// map).
	Display(h Host) (positions []assets.Vec3, colors [][3]float32)
	// Update runs once per UI frame while the tool is active, before the
	// layout: the place to take a running job's latest result.
	Update(h Host)
	// Shortcut offers the tool a key press over the window before the
	// application's own shortcuts; it returns true if it used the key.
	Shortcut(h Host, k Key) bool
	// Panel lays out the tool's properties in the right-hand panel.
	Panel(h Host) giu.Layout
	// State returns the tool's state for the project file (nil if none).
	State() (json.RawMessage, error)
	// Restore sets the tool's state from a project file.
	Restore(h Host, state json.RawMessage) error
}

// Extras is implemented by a tool that draws meshes of its own beside the
// document's objects, such as a result to compare with the original. The
// meshes are not in the document: they cannot be picked or saved.
type Extras interface {
	// ExtraItems returns the meshes to draw this frame (nil: none). Keys
	// must differ from the document's objects.
	ExtraItems(h Host) []viewport.Item
}

// Legend is implemented by a tool whose Display colours are a heat map of
// viewport.Turbo: the application draws its colour bar, from lo (bottom)
// to hi (top), in place of the View menu's.
type Legend interface {
	// Legend returns the heat map's title and range, and ok false when
	// the tool shows no heat map now.
	Legend(h Host) (title string, lo, hi float64, ok bool)
}

// errorColor is the colour of problems shown in a tool's panel.
var errorColor = color.RGBA{R: 255, G: 110, B: 100, A: 255}

// ErrorLabel is a line of text naming a problem in a tool's panel (bad
// settings, a run that failed), in the error colour.
func ErrorLabel(text string) giu.Widget {
	return giu.Style().SetColor(giu.StyleColorText, errorColor).To(giu.Label(text))
}
