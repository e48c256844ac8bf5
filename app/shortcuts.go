package app

import "github.com/AllenDang/cimgui-go/imgui"

// shortcuts handles the keyboard, with Blender's keys where Blender has
// them. Keys are ignored while a text field has the keyboard.
func (a *App) shortcuts() {
	io := imgui.CurrentIO()
	if io.WantTextInput() {
		return
	}
	ctrl, shift, alt := io.KeyCtrl(), io.KeyShift(), io.KeyAlt()
	pressed := func(k imgui.Key) bool { return imgui.IsKeyPressedBoolV(k, false) }
	switch {
	case ctrl && shift && pressed(imgui.KeyZ):
		a.history.Redo()
	case ctrl && pressed(imgui.KeyZ):
		a.history.Undo()
	case ctrl && pressed(imgui.KeyY):
		a.history.Redo()
	case ctrl && shift && pressed(imgui.KeyS):
		a.cmdSaveAs()
	case ctrl && pressed(imgui.KeyS):
		a.cmdSave()
	case ctrl && pressed(imgui.KeyO):
		a.cmdOpen()
	case ctrl && pressed(imgui.KeyN):
		a.cmdNew()
	case ctrl && pressed(imgui.KeyQ):
		a.cmdQuit()
	case ctrl || a.modal.anyOpen():
		// no plain keys while Ctrl is held or a dialog is up
	case pressed(imgui.KeySpace):
		a.togglePlay()
	case pressed(imgui.KeyHome):
		a.frameAll()
	case pressed(imgui.KeyKeypadDecimal):
		a.frameSelected()
	case pressed(imgui.KeyKeypad5):
		a.view.Camera.Ortho = !a.view.Camera.Ortho
	case alt && pressed(imgui.KeyA):
		a.cmdSelectNone()
	case pressed(imgui.KeyA):
		a.cmdSelectAll()
	case shift && pressed(imgui.KeyZ):
		a.view.Style.Wireframe = !a.view.Style.Wireframe
	case shift && pressed(imgui.KeyLeftArrow):
		a.setFrame(0)
	case shift && pressed(imgui.KeyRightArrow):
		a.setFrame(a.doc.NumFrames() - 1)
	case pressed(imgui.KeyLeftArrow):
		a.stepFrame(-1)
	case pressed(imgui.KeyRightArrow):
		a.stepFrame(1)
	case pressed(imgui.KeyF1):
		a.modal.openShortcuts = true
	}
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
	{"Ctrl + Z, Ctrl + Shift + Z", "Undo, redo"},
	{"Ctrl + N, Ctrl + O", "New, open"},
	{"Ctrl + S, Ctrl + Shift + S", "Save, save as"},
	{"Ctrl + Q", "Quit"},
	{"F1", "This list"},
}
