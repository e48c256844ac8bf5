package app

import (
	"slices"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/panels"
)

// keyEvent is one key press as GLFW reported it, with the modifiers held
// at that moment. Reading them from the event, not from Dear ImGui's state
// at the end of the frame, keeps a fast Ctrl+S (both keys released within
// one frame) a Ctrl+S.
type keyEvent struct {
	key    giu.Key
	mods   giu.Modifier
	repeat bool
}

// onKey is giu's key callback; it runs on the main thread while events are
// polled, between frames, and only queues the press for shortcuts.
func (a *App) onKey(k giu.Key, m giu.Modifier, act giu.Action) {
	if act == giu.Release {
		return
	}
	a.keys = append(a.keys, keyEvent{key: k, mods: m & (giu.ModControl | giu.ModShift | giu.ModAlt), repeat: act == giu.Repeat})
}

// shortcuts handles the key presses queued since the last frame, with
// Blender's keys where Blender has them. Keys are ignored while a text
// field has the keyboard or a native file dialog is open; only Ctrl
// combinations work while a modal dialog is open.
func (a *App) shortcuts() {
	keys := a.keys
	a.keys = a.keys[:0]
	if imgui.CurrentIO().WantTextInput() || a.dialogs != nil && a.dialogs.isOpen() {
		return
	}
	for _, e := range keys {
		a.shortcut(e)
	}
}

func (a *App) shortcut(e keyEvent) {
	const (
		ctrl      = giu.ModControl
		ctrlShift = giu.ModControl | giu.ModShift
		shift     = giu.ModShift
		alt       = giu.ModAlt
		none      = giu.ModNone
	)
	is := func(k giu.Key, m giu.Modifier) bool { return e.key == k && e.mods == m }
	if e.repeat && !(is(giu.KeyLeft, none) || is(giu.KeyRight, none)) {
		return // only frame stepping repeats while held
	}
	if !a.modal.anyOpen() && a.tools[a.tool].Shortcut(a, panels.Key{Key: e.key, Mods: e.mods}) {
		return
	}
	if a.modal.errorOpen && (is(giu.KeyEnter, none) || is(giu.KeyEscape, none) || is(giu.KeyNumPadEnter, none)) {
		a.modal.dismiss = true // Enter or Escape closes the error message
		return
	}
	if a.modal.confirmOpen && is(giu.KeyEscape, none) {
		a.modal.dismiss = true // Escape cancels the unsaved-changes question
		return
	}
	switch {
	case is(giu.KeyZ, ctrlShift), is(giu.KeyY, ctrl):
		a.history.Redo()
	case is(giu.KeyZ, ctrl):
		a.history.Undo()
	case is(giu.KeyS, ctrlShift):
		a.cmdSaveAs()
	case is(giu.KeyS, ctrl):
		a.cmdSave()
	case is(giu.KeyO, ctrl):
		a.cmdOpen()
	case is(giu.KeyN, ctrl):
		a.cmdNew()
	case is(giu.KeyQ, ctrl):
		a.cmdQuit()
	case a.modal.anyOpen():
		// no plain keys while a dialog is up
	case is(giu.KeySpace, none):
		a.togglePlay()
	case is(giu.KeyHome, none):
		a.frameAll()
	case is(giu.KeyNumPadDecimal, none):
		a.frameSelected()
	case is(giu.KeyNumPad5, none):
		a.view.Camera.Ortho = !a.view.Camera.Ortho
	case is(giu.KeyA, alt):
		a.cmdSelectNone()
	case is(giu.KeyA, none):
		a.cmdSelectAll()
	case is(giu.KeyZ, shift):
		a.view.Style.Wireframe = !a.view.Style.Wireframe
	case is(giu.KeyH, none):
		if o := a.doc.Object(); o != nil {
			a.setHidden([]*assets.Object{o}, true)
		}
	case is(giu.KeyH, shift):
		var others []*assets.Object
		for i, o := range a.doc.Scene.Objects {
			if i != a.doc.Active {
				others = append(others, o)
			}
		}
		a.setHidden(others, true)
	case is(giu.KeyH, alt):
		a.setHidden(a.doc.Scene.Objects, false)
	case is(giu.KeyLeft, shift):
		a.setFrame(0)
	case is(giu.KeyRight, shift):
		a.setFrame(a.stage().NumFrames() - 1)
	case is(giu.KeyLeft, none):
		a.stepFrame(-1)
	case is(giu.KeyRight, none):
		a.stepFrame(1)
	case is(giu.KeyF1, none):
		a.modal.openShortcuts = true
	}
}

// shortcutRows are the rows of the F1 list: the window's keys, then each
// tool's own (panels.KeyHelp).
func (a *App) shortcutRows() [][2]string {
	rows := slices.Clone(shortcutTable)
	for _, t := range a.tools {
		if k, ok := t.(panels.KeyHelp); ok {
			rows = append(rows, k.KeyHelp()...)
		}
	}
	return rows
}

// shortcutTable is shown by Help > Shortcuts.
var shortcutTable = [][2]string{
	{"Middle drag / Alt + left drag", "Orbit"},
	{"Shift + middle drag", "Pan"},
	{"Ctrl + middle drag, wheel", "Zoom (the wheel zooms toward the cursor)"},
	{"Numpad 5", "Perspective / orthographic"},
	{"Home", "Frame all"},
	{"Numpad .", "Frame selected"},
	{"Click, Shift + click", "Select a vertex, add or remove one"},
	{"Drag", "Box select (Shift adds, Ctrl removes)"},
	{"A, Alt + A", "Select all, select none"},
	{"Space", "Play / pause"},
	{"Left, Right", "Previous, next frame"},
	{"Shift + Left, Shift + Right", "First, last frame"},
	{"Shift + Z", "Wireframe overlay"},
	{"H, Shift + H, Alt + H", "Hide the active object, hide the others, show all"},
	{"Ctrl + Z, Ctrl + Shift + Z", "Undo, redo"},
	{"Ctrl + N, Ctrl + O", "New, open"},
	{"Ctrl + S, Ctrl + Shift + S", "Save, save as"},
	{"Ctrl + Q", "Quit"},
	{"F1", "This list (Escape closes it)"},
}
