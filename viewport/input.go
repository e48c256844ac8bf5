package viewport

// Mouse buttons, in Dear ImGui's order.
const (
	Left = iota
	Right
	Middle
)

// Input is one UI frame's mouse and modifier state over the viewport, in
// viewport pixels with the origin at the top-left corner. The application
// fills it from Dear ImGui; tests fill it by hand.
type Input struct {
	X, Y    float64 // cursor position
	DX, DY  float64 // cursor motion since the last frame
	Wheel   float64 // wheel steps this frame, positive away from the user
	Hovered bool    // the cursor is over the viewport and not over another window

	Pressed  [3]bool // went down this frame (over the viewport)
	Down     [3]bool // is held
	Released [3]bool // went up this frame

	Shift, Ctrl, Alt bool

	// OriginX, OriginY are the viewport's top-left corner in screen
	// coordinates, for tools that draw 2D overlays.
	OriginX, OriginY float64
}
