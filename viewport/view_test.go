package viewport

import (
	"math"
	"testing"

	"gallop/assets"
)

// barView frames the demo bar in a 800x600 view seen from the front (+z).
func barView(t *testing.T) (*View, *assets.Mesh) {
	t.Helper()
	bar := assets.DemoBar()
	v := NewView()
	v.Width, v.Height = 800, 600
	v.Camera.Yaw, v.Camera.Pitch = 0, 0
	v.SetMesh(bar.Positions, bar.Triangles)
	v.FramePoints(bar.Positions)
	return v, bar
}

func TestPickVertexFindsVisibleVertex(t *testing.T) {
	v, bar := barView(t)
	hits := 0
	for i, p := range bar.Positions {
		if p[2] < 0.45 { // only vertices on the side facing the camera
			continue
		}
		x, y, ok := v.ToScreen(p)
		if !ok {
			t.Fatalf("vertex %d does not project", i)
		}
		got, ok := v.PickVertex(x, y)
		if !ok {
			t.Fatalf("clicking on vertex %d at (%.1f, %.1f) hit nothing", i, x, y)
		}
		if got != i {
			q := bar.Positions[got]
			if q.Sub(p).Len() > 1e-9 {
				t.Fatalf("clicking on vertex %d picked %d", i, got)
			}
		}
		hits++
	}
	if hits == 0 {
		t.Fatal("no front-facing vertices tested")
	}
	if _, ok := v.PickVertex(5, 5); ok {
		t.Fatal("a click in the empty corner picked a vertex")
	}
}

func TestPickFollowsAnimatedPositions(t *testing.T) {
	v, bar := barView(t)
	tip := 12*10 + 0 // a vertex of the last ring
	x, y, _ := v.ToScreen(bar.Positions[tip])
	moved := make([]assets.Vec3, len(bar.Positions))
	for i, p := range bar.Positions {
		moved[i] = p.Add(assets.Vec3{0, 10, 0}) // the whole bar lifted out of view
	}
	v.SetMesh(moved, bar.Triangles)
	if got, ok := v.PickVertex(x, y); ok {
		t.Fatalf("picked vertex %d where the bar was before it moved", got)
	}
	v.SetMesh(bar.Positions, bar.Triangles)
	if _, ok := v.PickVertex(x, y); !ok {
		t.Fatal("pick missed after the bar moved back")
	}
}

func TestVerticesInRectVisibility(t *testing.T) {
	v, bar := barView(t)
	all := v.VerticesInRect(0, 0, v.Width, v.Height, false)
	if len(all) != len(bar.Positions) {
		t.Fatalf("x-ray box over the whole view selected %d of %d", len(all), len(bar.Positions))
	}
	visible := v.VerticesInRect(0, 0, v.Width, v.Height, true)
	if len(visible) == 0 || len(visible) >= len(all) {
		t.Fatalf("visible-only box selected %d of %d: hidden back vertices should be left out", len(visible), len(all))
	}
	for _, i := range visible {
		if bar.Positions[i][2] < -0.3 {
			t.Fatalf("vertex %d on the back (z=%.2f) counted as visible", i, bar.Positions[i][2])
		}
	}
	if got := v.VerticesInRect(10, 10, 20, 20, false); len(got) != 0 {
		t.Fatalf("empty corner box selected %v", got)
	}
}

func TestNavigate(t *testing.T) {
	v, _ := barView(t)
	c0 := v.Camera
	// Middle drag orbits.
	v.Navigate(&Input{Hovered: true, Pressed: [3]bool{Middle: true}, Down: [3]bool{Middle: true}, X: 400, Y: 300})
	if !v.Navigate(&Input{Hovered: true, Down: [3]bool{Middle: true}, DX: 40, X: 440, Y: 300}) {
		t.Fatal("a middle drag is navigation")
	}
	if v.Camera.Yaw == c0.Yaw || math.Abs(v.Camera.Distance-c0.Distance) > 1e-9 {
		t.Fatalf("orbit: yaw %v -> %v, distance %v -> %v", c0.Yaw, v.Camera.Yaw, c0.Distance, v.Camera.Distance)
	}
	// Shift + middle drag pans.
	c1 := v.Camera
	v.Navigate(&Input{Hovered: true, Down: [3]bool{Middle: true}, DX: 30, Shift: true})
	if v.Camera.Target == c1.Target || v.Camera.Yaw != c1.Yaw {
		t.Fatal("shift + middle drag should pan, not orbit")
	}
	// Release ends navigation; a plain left click then belongs to the tool.
	v.Navigate(&Input{Hovered: true})
	if v.Navigate(&Input{Hovered: true, Pressed: [3]bool{Left: true}, Down: [3]bool{Left: true}}) {
		t.Fatal("a plain left click is not navigation")
	}
	v.Navigate(&Input{Hovered: true, Released: [3]bool{Left: true}})
	// Alt + left drag orbits (touchpads).
	c2 := v.Camera
	v.Navigate(&Input{Hovered: true, Alt: true, Pressed: [3]bool{Left: true}, Down: [3]bool{Left: true}})
	v.Navigate(&Input{Hovered: true, Alt: true, Down: [3]bool{Left: true}, DY: 25})
	if v.Camera.Pitch == c2.Pitch {
		t.Fatal("alt + left drag should orbit")
	}
	v.Navigate(&Input{Hovered: true})
	// The wheel zooms in.
	d := v.Camera.Distance
	v.Navigate(&Input{Hovered: true, Wheel: 1, X: 400, Y: 300})
	if !(v.Camera.Distance < d) {
		t.Fatalf("wheel up: distance %v -> %v", d, v.Camera.Distance)
	}
	// No zoom when the cursor is elsewhere.
	d = v.Camera.Distance
	v.Navigate(&Input{Hovered: false, Wheel: 1})
	if v.Camera.Distance != d {
		t.Fatal("wheel zoomed without the cursor over the viewport")
	}
}

func TestGridStep(t *testing.T) {
	for _, c := range []struct{ size, want float64 }{{2.5, 1}, {25, 10}, {0.25, 0.1}, {0, 1}, {math.Inf(1), 1}, {math.NaN(), 1}} {
		if got := GridStep(c.size); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("GridStep(%v) = %v, want %v", c.size, got, c.want)
		}
	}
}

// TestVerticesNearMatchesBruteForce: VerticesNear reports each vertex of
// the bar within the distance once, with its distance, and no other,
// for balls small and large, twice over (the marks of one call do not
// hide a vertex from the next).
func TestVerticesNearMatchesBruteForce(t *testing.T) {
	v, bar := barView(t)
	for _, r := range []float64{0, 0.05, 0.3, 1, 100} {
		for _, ci := range []int{0, len(bar.Positions) / 2, len(bar.Positions) - 1} {
			c := bar.Positions[ci].Add(assets.Vec3{0.01, -0.02, 0.03})
			for round := range 2 {
				got := map[int]float64{}
				v.VerticesNear(c, r, func(i int, d float64) {
					if _, dup := got[i]; dup {
						t.Fatalf("r %g, round %d: vertex %d reported twice", r, round, i)
					}
					got[i] = d
				})
				want := 0
				for i, p := range bar.Positions {
					d := p.Sub(c).Len()
					if d > r {
						if _, ok := got[i]; ok {
							t.Fatalf("r %g: vertex %d at %g reported", r, i, d)
						}
						continue
					}
					want++
					if g, ok := got[i]; !ok || math.Abs(g-d) > 1e-12 {
						t.Fatalf("r %g: vertex %d at %g reported %v (%v)", r, i, d, g, ok)
					}
				}
				if len(got) != want {
					t.Fatalf("r %g: %d reported, want %d", r, len(got), want)
				}
			}
		}
	}
	if v.PickPositions() == nil || len(v.PickPositions()) != len(bar.Positions) {
		t.Error("PickPositions is not SetMesh's positions")
	}
}
