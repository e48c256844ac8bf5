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

	// Path is every cursor position the window system reported that this
	// frame took in, oldest first, in the viewport's pixels (the last is
	// normally X, Y): a quick drag crosses the viewport in a few events between
	// two slow frames, and X, Y is only where the frame leaves the
	// cursor. A brush lays its dabs along Path so that a stroke has no
	// gaps however slow the frames. The window may keep events after a
	// press or a release for the next frame (Dear ImGui trickles them),
	// so that Path always agrees with Pressed, Down and Released. Empty
	// when the cursor did not move.
	Path []Motion
}

// Motion is one cursor position the window system reported, with the
// buttons held at that moment: a press or a release between two frames
// splits the frame's Path into the part before and the part after it.
type Motion struct {
	X, Y float64
	Down [3]bool
}

// Dragged returns the positions of Path reported while button b was
// held, in order: where a drag with b went since the last frame.
func (in *Input) Dragged(b int) [][2]float64 {
	var pts [][2]float64
	for _, m := range in.Path {
		if m.Down[b] {
			pts = append(pts, [2]float64{m.X, m.Y})
		}
	}
	return pts
}
