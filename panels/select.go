package panels

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/viewport"
)

// Select is the vertex selection tool: click a vertex to select it,
// Shift-click to add or remove it, drag a box to select what it encloses
// (Shift adds to the selection, Ctrl removes from it). Clicking empty space
// clears the selection. With X-ray off, a box selects only vertices not
// hidden behind the surface.
type Select struct {
	XRay bool `json:"xray"`

	pressed        bool
	boxing         bool
	pressX, pressY float64
}

// dragThreshold is how far, in pixels, the mouse moves before a press
// becomes a box drag rather than a click.
const dragThreshold = 4

// SelectionColor is the colour of selected vertices (Blender's orange).
var SelectionColor = [4]float32{1, 0.63, 0.1, 1}

// Name implements Tool.
func (s *Select) Name() string { return "Select" }

// Help implements Tool.
func (s *Select) Help() string {
	return "Click a vertex to select it, Shift-click to add. Drag a box to select (Shift adds, Ctrl removes)."
}

// Viewport implements Tool.
func (s *Select) Viewport(h Host, in *viewport.Input) {
	if in.Pressed[viewport.Left] && in.Hovered && !in.Alt {
		s.pressed, s.boxing = true, false
		s.pressX, s.pressY = in.X, in.Y
	}
	if !s.pressed {
		return
	}
	if in.Down[viewport.Left] {
		if math.Hypot(in.X-s.pressX, in.Y-s.pressY) > dragThreshold {
			s.boxing = true
		}
		if s.boxing {
			dl := imgui.WindowDrawList() // the viewport window's: popups stay above it
			a := imgui.Vec2{X: float32(in.OriginX + s.pressX), Y: float32(in.OriginY + s.pressY)}
			b := imgui.Vec2{X: float32(in.OriginX + in.X), Y: float32(in.OriginY + in.Y)}
			dl.AddRectFilled(a, b, imgui.ColorU32Vec4(imgui.Vec4{X: 1, Y: 1, Z: 1, W: 0.08}))
			dl.AddRect(a, b, imgui.ColorU32Vec4(imgui.Vec4{X: 1, Y: 1, Z: 1, W: 0.7}))
		}
		return
	}
	if !in.Released[viewport.Left] {
		return
	}
	s.pressed = false
	cur := h.Selection()
	if s.boxing {
		s.boxing = false
		box := h.View().VerticesInRect(s.pressX, s.pressY, in.X, in.Y, !s.XRay)
		switch {
		case in.Shift:
			h.SetSelection(union(cur, box))
		case in.Ctrl:
			h.SetSelection(difference(cur, box))
		default:
			h.SetSelection(box)
		}
		return
	}
	v, ok := h.View().PickVertex(in.X, in.Y)
	switch {
	case !ok && !in.Shift:
		if len(cur) > 0 {
			h.SetSelection(nil)
		}
	case !ok:
	case in.Shift:
		if _, found := slices.BinarySearch(cur, v); found {
			h.SetSelection(difference(cur, []int{v}))
		} else {
			h.SetSelection(union(cur, []int{v}))
		}
	default:
		if !(len(cur) == 1 && cur[0] == v) {
			h.SetSelection([]int{v})
		}
	}
}

// Markers implements Tool: the selected vertices.
func (s *Select) Markers(h Host) []viewport.PointSet {
	sel := h.Selection()
	if len(sel) == 0 {
		return nil
	}
	idx := make([]uint32, len(sel))
	for i, v := range sel {
		idx[i] = uint32(v)
	}
	return []viewport.PointSet{{Indices: idx, Color: SelectionColor, Size: 7}}
}

// Display implements Tool: the Select tool shows the document as it is.
func (s *Select) Display(Host) ([]assets.Vec3, [][3]float32) { return nil, nil }

// Update implements Tool.
func (s *Select) Update(Host) {}

// Shortcut implements Tool: the Select tool has no keys of its own.
func (s *Select) Shortcut(Host, Key) bool { return false }

// Panel implements Tool.
func (s *Select) Panel(h Host) giu.Layout {
	sel := h.Selection()
	o := h.Object()
	n := 0
	if o != nil {
		n = o.Mesh.NumVertices()
	}
	var first giu.Widget = giu.Dummy(0, 0)
	if len(sel) > 0 {
		p := h.Positions()[sel[0]]
		first = giu.Labelf("First: #%d (%.4g, %.4g, %.4g)", sel[0], p[0], p[1], p[2])
	}
	return giu.Layout{
		giu.Label(fmt.Sprintf("%s of %s selected", words.Int(len(sel)), words.Count(n, "vertex", "vertices"))),
		first,
		giu.Checkbox("X-ray (box selects hidden vertices)", &s.XRay),
		giu.Row(
			giu.Button("All").OnClick(func() { h.SetSelection(allVertices(n)) }),
			giu.Button("None").OnClick(func() { h.SetSelection(nil) }),
			giu.Button("Invert").OnClick(func() { h.SetSelection(difference(allVertices(n), sel)) }),
		),
	}
}

// State implements Tool.
func (s *Select) State() (json.RawMessage, error) { return json.Marshal(s) }

// Restore implements Tool.
func (s *Select) Restore(h Host, state json.RawMessage) error {
	if err := json.Unmarshal(state, s); err != nil {
		return fmt.Errorf("select tool state: %w", err)
	}
	return nil
}

func allVertices(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

// union merges two sorted sets.
func union(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// difference returns the sorted set a \ b.
func difference(a, b []int) []int {
	out := make([]int, 0, len(a))
	j := 0
	for _, x := range a {
		for j < len(b) && b[j] < x {
			j++
		}
		if j < len(b) && b[j] == x {
			continue
		}
		out = append(out, x)
	}
	return out
}
