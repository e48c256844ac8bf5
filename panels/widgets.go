package panels

import (
	"encoding/json"
	"gallop/internal/atomicfile"
	"io"
	"maps"
	"os"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
)

// Trace is set by GALLOP_TRACE=1: tools then print their progress to
// stderr, for the GUI tests and for profiling.
var Trace = os.Getenv("GALLOP_TRACE") != ""

// Widget rectangles for GUI tests. With GALLOP_WIDGETS=FILE the window
// writes, after each frame whose named widgets moved, their screen
// rectangles to FILE as one JSON object {"name": [x0, y0, x1, y1], ...}
// (pixels, the window's top-left corner at 0, 0; written to a temporary
// file and renamed, so a reader never sees half of it). Tests find what
// they click by name there, whatever the layout. Names are scoped by the
// tool or panel ("tool Pose", "rig: start", "viewport", "properties").
// Two entries with empty rectangles report state rather than a widget:
// "keyboard: text input" while a text field has the keyboard, and
// "timeline: playing" while the timeline plays.
var widgetsPath = os.Getenv("GALLOP_WIDGETS")

// widgets are the rectangles recorded in this frame and those last
// written; only the UI thread touches them.
var widgets = struct {
	cur, written map[string][4]int
}{cur: map[string][4]int{}}

// Mark returns a widget that records, with GALLOP_WIDGETS set, the
// rectangle of the widget laid out just before it under name.
func Mark(name string) giu.Widget {
	return giu.Custom(func() {
		if widgetsPath != "" {
			RecordRect(name, imgui.ItemRectMin(), imgui.ItemRectMax())
		}
	})
}

// Marked builds w and marks it under name (see Mark): one widget, so that
// in a giu.Row the mark takes no place of its own (a Mark last in a Row
// left the row open, and the next widget went on the same line).
func Marked(name string, w giu.Widget) giu.Widget {
	return giu.Custom(func() {
		w.Build()
		Mark(name).Build()
	})
}

// RecordRect records, with GALLOP_WIDGETS set, a rectangle under name for
// this frame (a window's or a region's, which Mark cannot see).
func RecordRect(name string, lo, hi imgui.Vec2) {
	if widgetsPath != "" {
		widgets.cur[name] = [4]int{int(lo.X), int(lo.Y), int(hi.X), int(hi.Y)}
	}
}

// FlushWidgets ends the frame's record: with GALLOP_WIDGETS set it writes
// the frame's rectangles when they differ from the last written. The
// window calls it once per frame, after the layout.
func FlushWidgets() {
	if widgetsPath == "" {
		return
	}
	cur := widgets.cur
	widgets.cur = make(map[string][4]int, len(cur))
	if maps.Equal(cur, widgets.written) {
		return
	}
	b, err := json.Marshal(cur)
	if err != nil {
		return
	}
	if atomicfile.Write(widgetsPath, func(w io.Writer) error { _, err := w.Write(b); return err }) == nil {
		widgets.written = cur
	}
}
