package app

import (
	"testing"

	"github.com/AllenDang/cimgui-go/imgui"

	"gallop/viewport"
)

// TestMouseTrailReadsImGuiEvents: in a Dear ImGui context of its own (no
// window), a frame's mouse events (positions, a press between them, then
// the next frame a release after more positions) read back as the path
// with the buttons held at each position, in order, and agree with
// io.MousePos: the layout mouseTrail assumes is cimgui-go's.
func TestMouseTrailReadsImGuiEvents(t *testing.T) {
	ctx := imgui.CreateContext()
	defer imgui.DestroyContextV(ctx)
	io := imgui.CurrentIO()
	io.SetIniFilename("") // no imgui.ini left behind
	io.SetDisplaySize(imgui.Vec2{X: 800, Y: 600})
	io.SetDeltaTime(1.0 / 60)
	io.SetBackendFlags(io.BackendFlags() | imgui.BackendFlagsRendererHasTextures)
	frame := func() {
		imgui.NewFrame()
		imgui.Render()
	}
	var tr mouseTrail
	frame()
	if p, ok := tr.take(); !ok || len(p) != 0 {
		t.Fatalf("no events: path %v (%v)", p, ok)
	}

	// Frame 1: two moves, the press; the moves after it wait for the next
	// frame (Dear ImGui trickles events after a button change).
	io.AddMousePosEvent(10, 20)
	io.AddMousePosEvent(30, 40)
	io.AddMouseButtonEvent(0, true)
	io.AddMousePosEvent(50, 60)
	io.AddMousePosEvent(70, 80)
	io.AddMouseButtonEvent(0, false)
	io.AddMousePosEvent(90, 100)
	frame()
	p, ok := tr.take()
	want := []viewport.Motion{{X: 10, Y: 20}, {X: 30, Y: 40}}
	check := func(n int) {
		t.Helper()
		if !ok || len(p) != len(want) {
			t.Fatalf("frame %d: path %v (%v), want %v", n, p, ok, want)
		}
		for i := range want {
			if p[i] != want[i] {
				t.Fatalf("frame %d: path %v, want %v", n, p, want)
			}
		}
	}
	check(1)
	if !imgui.IsMouseDown(0) {
		t.Fatal("frame 1: the button is not down")
	}
	// Frame 2: the moves with the button held, then the release.
	frame()
	p, ok = tr.take()
	held := [3]bool{true, false, false}
	want = []viewport.Motion{{X: 50, Y: 60, Down: held}, {X: 70, Y: 80, Down: held}}
	check(2)
	// Frame 3: the last move, the button up.
	frame()
	p, ok = tr.take()
	want = []viewport.Motion{{X: 90, Y: 100}}
	check(3)
	if m := io.MousePos(); m.X != 90 || m.Y != 100 || tr.broken {
		t.Fatalf("io.MousePos %v, broken %v", m, tr.broken)
	}
}
