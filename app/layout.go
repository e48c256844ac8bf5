package app

import (
	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/panels"
)

// layout is the window's arrangement that the artist changes by hand and
// that is kept between sessions: the side panels' widths, dragged at
// their inner edges.
type layout struct {
	Left  float32 `json:"left"`  // the tools panel
	Right float32 `json:"right"` // the properties panel

	dragFrom  float32 // the mouse's x when a splitter drag began
	dragWidth float32 // the panel's width then
}

// Side panel widths: the defaults, and the range a drag keeps them in.
const (
	defaultLeft, defaultRight = 190, 290
	minPanel, maxPanel        = 150, 700
	minViewport               = 240
	splitterWidth             = 6
	bottomSpace               = 64 // timeline + status bar
)

// loadLayout reads the saved layout (layout.json), or the defaults when
// there is none or it is unreadable.
func loadLayout() layout {
	l := layout{Left: defaultLeft, Right: defaultRight}
	if !loadConfig("layout.json", &l) {
		l = layout{Left: defaultLeft, Right: defaultRight} // a half-read file gives the defaults
	}
	l.Left, l.Right = clampPanel(l.Left), clampPanel(l.Right)
	return l
}

// save keeps the layout for the next session.
func (l layout) save() { saveConfig("layout.json", l) }

func clampPanel(w float32) float32 {
	if !(w >= minPanel) { // NaN too
		return minPanel
	}
	return min(w, maxPanel)
}

// body lays out the panels around the viewport, with a splitter at each
// side panel's inner edge.
func (a *App) body(w, h float32) giu.Widget {
	return giu.Custom(func() {
		_, availH := giu.GetAvailableRegion()
		mid := availH - bottomSpace
		spacing := imgui.CurrentStyle().ItemSpacing().X
		// The viewport takes what the panels leave, at least minViewport:
		// a window too narrow for both panels shrinks them.
		room := w - 2*splitterWidth - 4*spacing - 16
		left, right := a.layout.Left, a.layout.Right
		if over := left + right + minViewport - room; over > 0 {
			left -= over * left / (left + right)
			right -= over * right / (left + right)
		}
		giu.Row(
			giu.Child().ID("tools").Size(left, mid).Layout(a.toolsPanel()),
			a.splitter("splitter: tools", mid, &a.layout.Left, 1),
			giu.Child().ID("viewport").Size(room-left-right, mid).Flags(giu.WindowFlagsNoScrollbar|giu.WindowFlagsNoScrollWithMouse|giu.WindowFlagsNoBackground).Layout(giu.Custom(a.viewportWidget)),
			a.splitter("splitter: properties", mid, &a.layout.Right, -1),
			giu.Child().ID("properties").Size(right, mid).Layout(a.propertiesPanel()),
		).Build()
		a.timeline().Build()
		a.statusBar().Build()
	})
}

// splitter is a thin vertical bar that resizes a side panel when dragged:
// the panel's width follows the mouse, growing with its motion times sign
// (1 for a panel on the left, -1 on the right). The layout is saved when
// the drag ends.
func (a *App) splitter(name string, height float32, width *float32, sign float32) giu.Widget {
	return giu.Custom(func() {
		imgui.InvisibleButton("##"+name, imgui.Vec2{X: splitterWidth, Y: height})
		panels.Mark(name).Build()
		x := imgui.MousePos().X
		if imgui.IsItemActivated() {
			a.layout.dragFrom, a.layout.dragWidth = x, *width
		}
		if imgui.IsItemHovered() || imgui.IsItemActive() {
			imgui.SetMouseCursor(imgui.MouseCursorResizeEW)
			lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
			imgui.WindowDrawList().AddRectFilled(lo, hi, imgui.ColorU32Vec4(imgui.Vec4{X: 0.35, Y: 0.55, Z: 0.85, W: 0.8}))
		}
		if imgui.IsItemActive() {
			*width = clampPanel(a.layout.dragWidth + sign*(x-a.layout.dragFrom))
		}
		if imgui.IsItemDeactivated() {
			a.layout.save()
		}
	})
}

// contentMark records, for the GUI tests, the rectangle the panel's
// content took ("NAME: content", from the top left of its work area to the
// farthest item) and its work area ("NAME: work"): content wider than the
// work area is text or a widget cut at the panel's edge.
func contentMark(name string) giu.Widget {
	return giu.Custom(func() {
		w := imgui.InternalCurrentWindow()
		work := w.WorkRect()
		dc := w.DC()
		max := dc.CursorMaxPos()
		panels.RecordRect(name+": work", work.Min, work.Max)
		panels.RecordRect(name+": content", work.Min, max)
	})
}
