package app

import (
	"testing"
	"time"

	"gallop/viewport"
)

// TestScriptedMousePath: the chain's mouse presses where its path starts,
// then reports in each frame where it went since the last one, every
// mouseEvery of the path's time with the button held, and releases.
func TestScriptedMousePath(t *testing.T) {
	m := pressAlong(func(t float64) (float64, float64) { return 100 * t, 7 })
	var in viewport.Input
	m.input(&in)
	if !in.Pressed[viewport.Left] || !in.Down[viewport.Left] || len(in.Path) != 1 || in.X > 1 || in.Y != 7 {
		t.Fatalf("the press: %+v", in)
	}
	time.Sleep(55 * time.Millisecond)
	m.input(&in)
	if in.Pressed[viewport.Left] || !in.Down[viewport.Left] || len(in.Path) < 5 {
		t.Fatalf("the drag: %+v", in)
	}
	for i, p := range in.Path {
		if !p.Down[viewport.Left] || i > 0 && (p.X <= in.Path[i-1].X || p.X-in.Path[i-1].X > 1.01) {
			t.Fatalf("the drag's path %+v, not a position every 10 ms with the button held", in.Path)
		}
	}
	if last := in.Path[len(in.Path)-1]; last.X != in.X || last.Y != in.Y {
		t.Fatalf("the path ends at %v, the cursor is at %v", last, in)
	}
	m.down = false
	m.input(&in)
	if !in.Released[viewport.Left] || in.Down[viewport.Left] || len(in.Dragged(viewport.Left)) != 0 {
		t.Fatalf("the release: %+v", in)
	}
}
