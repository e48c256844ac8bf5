package panels

import (
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
)

// Trace is set by GALLOP_TRACE=1: tools then print their progress and the
// positions of marked widgets to stderr, for the GUI tests.
var Trace = os.Getenv("GALLOP_TRACE") != ""

// Marks records, with Trace on, the screen centres of chosen widgets so
// that GUI tests can click them. Its zero value is ready to use.
type Marks struct {
	where map[string][2]int
}

// Mark returns a widget that, with Trace on, records the screen centre of
// the widget laid out just before it under name.
func (m *Marks) Mark(name string) giu.Widget {
	return giu.Custom(func() {
		if !Trace {
			return
		}
		lo, hi := imgui.ItemRectMin(), imgui.ItemRectMax()
		if m.where == nil {
			m.where = map[string][2]int{}
		}
		m.where[name] = [2]int{int((lo.X + hi.X) / 2), int((lo.Y + hi.Y) / 2)}
	})
}

// Print writes one line per recorded widget, "prefix: widget NAME at X Y",
// sorted by name.
func (m *Marks) Print(w io.Writer, prefix string) {
	names := make([]string, 0, len(m.where))
	for n := range m.where {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "%s: widget %s at %d %d\n", prefix, n, m.where[n][0], m.where[n][1])
	}
}
