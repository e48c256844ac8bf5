package app

import (
	"fmt"
	"os"
	"unsafe"

	"github.com/AllenDang/cimgui-go/imgui"

	"gallop/viewport"
)

// The cursor's path between frames.
//
// GLFW reports every cursor motion the window system queued when the loop
// polls events, once per frame; Dear ImGui's GLFW backend (installed by
// cimgui-go with its callbacks) turns each report into a mouse-position
// event in Dear ImGui's input queue, and the frame's NewFrame applies the
// queue in order, keeping only the last position as io.MousePos. Dear
// ImGui records the events it applied in a frame in its context's
// InputEventsTrail ("to allow domain-specific applications to access e.g.
// a mouse trail"); mouseTrail reads them back, with the buttons held at
// each position.
//
// Why the trail and not a cursor-position callback of Gallop's own on the
// GLFW window: Dear ImGui trickles its queue (io.ConfigInputTrickleEvent-
// Queue: a button's press and release, or a key's, land in different
// frames), so when frames are slow its mouse state runs behind GLFW's
// reports, by seconds after a few key presses at 300 ms a frame. The
// positions a callback saw would then disagree with the press and release
// the frame reports (a stroke's motions arrived two frames before its
// press); the trail holds exactly the events this frame's state comes
// from.
//
// cimgui-go exposes the trail's events but not their payload, an
// anonymous union; its offset is taken from cimgui-go's own C
// declaration of ImGuiInputEvent (the union follows EventId, as
// imgui_internal.h declares it), and every frame checks that the last
// position read is io.MousePos: should a later Dear ImGui lay the event
// out otherwise, the path is turned off with a message after three
// frames that disagree, and tools see one position a frame as before.
type mouseTrail struct {
	down       [3]bool           // buttons held after the last frame's events
	broken     bool              // the trail did not match io.MousePos: unused
	mismatches int               // frames in a row it did not
	motions    []viewport.Motion // the last take's, reused
}

// The layout of Dear ImGui's ImGuiInputEvent as cimgui-go's C
// declarations give it: its size (the trail is an array of them) and the
// offset of its payload union.
const (
	inputEventSize = unsafe.Sizeof(*(*imgui.InputEvent)(nil).CData)
	payloadOffset  = unsafe.Offsetof((*imgui.InputEvent)(nil).CData.EventId) + unsafe.Sizeof((*imgui.InputEvent)(nil).CData.EventId)
	payloadEnd     = unsafe.Offsetof((*imgui.InputEvent)(nil).CData.AddedByTestEngine)
	mousePosSize   = unsafe.Sizeof(*(*imgui.InputEventMousePos)(nil).CData)
	mouseButtonSz  = unsafe.Sizeof(*(*imgui.InputEventMouseButton)(nil).CData)
	// Compile-time checks: the union holds a mouse position and a button
	// event (a negative constant does not convert to uint).
	_ = uint(payloadEnd - payloadOffset - mousePosSize)
	_ = uint(payloadEnd - payloadOffset - mouseButtonSz)
)

// offWindow is below any coordinate a position event can hold except
// Dear ImGui's "no mouse" (−FLT_MAX), sent when the cursor leaves the
// window.
const offWindow = -1e30

// take returns the cursor positions Dear ImGui applied in this frame, in
// order, in its coordinates (io.MousePos's), each with the buttons held
// when it was reported (the frame's button events replayed over the
// buttons held after the last frame). ok is false when the trail cannot
// be read (see mouseTrail): the caller then has only io.MousePos. The
// slice is reused by the next take.
func (t *mouseTrail) take() (path []viewport.Motion, ok bool) {
	io := imgui.CurrentIO()
	defer func() {
		held := io.MouseDown()
		copy(t.down[:], held[:])
	}()
	if t.broken {
		return nil, false
	}
	trail := imgui.CurrentContext().InputEventsTrail()
	t.motions = t.motions[:0]
	if trail.Size == 0 || trail.Data == nil || trail.Data.CData == nil {
		return t.motions, true
	}
	base := unsafe.Pointer(trail.Data.CData)
	down := t.down
	var lastX, lastY float32 // the last position event's, on the window or not
	seen := false
	for i := range trail.Size {
		e := unsafe.Add(base, uintptr(i)*inputEventSize)
		payload := unsafe.Add(e, payloadOffset)
		switch imgui.NewInputEventFromC(e).Type() {
		case imgui.InputEventTypeMousePos:
			m := imgui.NewInputEventMousePosFromC(payload)
			lastX, lastY, seen = m.PosX(), m.PosY(), true
			if x, y := float64(lastX), float64(lastY); x > offWindow && y > offWindow {
				t.motions = append(t.motions, viewport.Motion{X: x, Y: y, Down: down})
			}
		case imgui.InputEventTypeMouseButton:
			m := imgui.NewInputEventMouseButtonFromC(payload)
			if b := int(m.Button()); b >= 0 && b < len(down) {
				down[b] = m.Down()
			}
		}
	}
	// The check. Dear ImGui may also set the position itself after the
	// events (cleared to "no mouse" when the window loses the focus to a
	// dialog, say): only a valid position counts, and only a mismatch
	// frame after frame turns the path off.
	if pos := io.MousePos(); seen && !io.WantSetMousePos() && pos.X > offWindow && pos.Y > offWindow && (lastX != pos.X || lastY != pos.Y) {
		if t.mismatches++; t.mismatches >= 3 {
			t.broken = true
			fmt.Fprintf(os.Stderr, "gallop: Dear ImGui's input trail does not read as expected (last position %v, %v; the mouse is at %v, %v): tools see one cursor position a frame\n", lastX, lastY, pos.X, pos.Y)
		}
		return nil, false
	} else if seen {
		t.mismatches = 0
	}
	return t.motions, true
}
