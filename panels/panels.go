// Package panels is the layer of Gallop's tool panels: the Tool interface
// the window drives (input over the viewport, shortcuts, the properties
// panel, what to draw), the select tool, and helpers the panels share. A
// panel lays out a tool model of package tools and turns what the artist
// does into calls on it; the model holds the state.
package panels

import (
	"encoding/json"
	"image/color"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	_ "gallop/internal/cimguilink" // link fix for cimgui-go, see package doc
	"gallop/tools"
	"gallop/viewport"
)

// Host is what the application offers a tool (see tools.Host).
type Host = tools.Host

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

// UnsavedWork is implemented by a tool that holds work which neither the
// document's undo history nor a file keeps until the project is saved
// (the Ensemble tool's motion graph, in its state): the application asks
// before quitting or opening another document, autosaves it, and tells
// the tool when a project holding it was saved.
type UnsavedWork interface {
	// UnsavedWork names the work no file keeps, in an artist's words, or
	// "" for none.
	UnsavedWork() string
	// WorkMark returns a mark of the tool's work as it is now;
	// SavedWork(mark) records that a project holding the work as of mark
	// was saved.
	WorkMark() uint64
	SavedWork(mark uint64)
}

// Extras is implemented by a tool that draws meshes of its own beside the
// document's objects, such as a result to compare with the original. The
// meshes are not in the document: they cannot be picked or saved.
type Extras interface {
	// ExtraItems returns the meshes to draw this frame (nil: none). Keys
	// must differ from the document's objects.
	ExtraItems(h Host) []viewport.Item
}

// ClipColors is implemented by a tool that colours the clip it shows in
// place of the scene (Host.ShowClip), such as an ensemble's groups.
type ClipColors interface {
	// ClipColors returns per-vertex colours of the shown clip at its
	// current frame (nil: none).
	ClipColors(h Host) [][3]float32
}

// Leaver is implemented by a tool that holds memory or work only while it
// is the active tool (a solver's factorization): Leave runs when another
// tool becomes active, and must keep everything the artist made (the
// state, the pose shown), so that coming back resumes.
type Leaver interface {
	Leave(h Host)
}

// KeyHelp is implemented by a tool with keys of its own: its rows of the
// F1 list (keys, what they do), named as they are pressed.
type KeyHelp interface {
	KeyHelp() [][2]string
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

// ErrorLabel is text naming a problem in a tool's panel (bad settings, a
// run that failed), in the error colour, wrapped at the panel's edge.
func ErrorLabel(text string) giu.Widget {
	return giu.Style().SetColor(giu.StyleColorText, errorColor).To(Text(text))
}

// Text is a paragraph of a panel: wrapped at the panel's edge, however
// narrow the artist made it, never cut.
func Text(text string) giu.Widget { return giu.Label(text).Wrapped(true) }

// Room returns the width to give a widget labelled label so that the
// widget and its label fill the panel's row and no more: negative, as
// Dear ImGui reads an item width (the row's width minus the label's).
func Room(label string) float32 {
	return -(imgui.CalcTextSizeV(label, true, -1).X + imgui.CurrentStyle().ItemInnerSpacing().X + 1)
}

// DrawLabels writes labels (a tool's names for what the viewport shows,
// such as the two animations side by side) into the viewport window's draw
// list, each centred above its point on a dark backing so it reads over
// the grid, and records each rectangle as mark+text for the GUI tests.
func DrawLabels(h tools.Host, in *viewport.Input, mark string, labels []tools.Label) {
	dl := imgui.WindowDrawList()
	for _, l := range labels {
		x, y, ok := h.View().ToScreen(l.At)
		if !ok {
			continue
		}
		size := imgui.CalcTextSize(l.Text)
		at := imgui.Vec2{X: float32(in.OriginX+x) - size.X/2, Y: float32(in.OriginY+y) - size.Y - 8}
		dl.AddRectFilledV(imgui.Vec2{X: at.X - 4, Y: at.Y - 2}, imgui.Vec2{X: at.X + size.X + 4, Y: at.Y + size.Y + 2}, imgui.ColorU32Vec4(imgui.Vec4{W: 0.6}), 3, 0)
		dl.AddTextVec2(at, imgui.ColorU32Vec4(imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1}), l.Text)
		RecordRect(mark+l.Text, at, imgui.Vec2{X: at.X + size.X, Y: at.Y + size.Y})
	}
}
