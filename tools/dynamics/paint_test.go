package dynamics

import (
	"math"
	"testing"

	"gallop/assets"
	"gallop/tools/toolstest"
)

// TestDabsAlong: dabs lie every spacing pixels of the way along the
// cursor's path (its length, corners included), carrying the way since
// the last dab across calls; a repeated point is no trouble; more than
// the cap are spread evenly over the way.
func TestDabsAlong(t *testing.T) {
	near := func(a, b [2]float64) bool { return math.Hypot(a[0]-b[0], a[1]-b[1]) < 1e-9 }

	// A straight path of 100 pixels in three uneven steps, from a dab.
	dabs, rest := DabsAlong(0, 0, 0, [][2]float64{{15, 0}, {70, 0}, {100, 0}}, 10, 1000)
	if len(dabs) != 10 || math.Abs(rest) > 1e-9 {
		t.Fatalf("straight: %d dabs, rest %g; want 10 and 0", len(dabs), rest)
	}
	for k, d := range dabs {
		if !near(d, [2]float64{10 * float64(k+1), 0}) {
			t.Fatalf("straight: dab %d at %v, want (%d, 0)", k, d, 10*(k+1))
		}
	}

	// Carried over: 7 pixels since the last dab, the next comes 3 on.
	dabs, rest = DabsAlong(0, 0, 7, [][2]float64{{25, 0}}, 10, 1000)
	if len(dabs) != 3 || !near(dabs[0], [2]float64{3, 0}) || !near(dabs[2], [2]float64{23, 0}) || math.Abs(rest-2) > 1e-9 {
		t.Fatalf("carried: dabs %v, rest %g; want (3, 0), (13, 0), (23, 0) and 2", dabs, rest)
	}
	// Too short for a dab: the way adds up.
	dabs, rest = DabsAlong(0, 0, 2, [][2]float64{{3, 4}}, 10, 1000)
	if len(dabs) != 0 || math.Abs(rest-7) > 1e-9 {
		t.Fatalf("short: dabs %v, rest %g; want none and 7", dabs, rest)
	}

	// Round a corner: the way is the polyline's, 30 along x then 40 up
	// (where the straight distance to the end is 50).
	dabs, _ = DabsAlong(0, 0, 0, [][2]float64{{30, 0}, {30, 40}}, 10, 1000)
	want := [][2]float64{{10, 0}, {20, 0}, {30, 0}, {30, 10}, {30, 20}, {30, 30}, {30, 40}}
	if len(dabs) != len(want) {
		t.Fatalf("corner: dabs %v, want %v", dabs, want)
	}
	for k := range want {
		if !near(dabs[k], want[k]) {
			t.Fatalf("corner: dab %d at %v, want %v", k, dabs[k], want[k])
		}
	}

	// The way out and back: the dabs go out to the turn, then back.
	dabs, _ = DabsAlong(0, 0, 0, [][2]float64{{50, 0}, {20, 0}}, 10, 1000)
	if len(dabs) != 8 || !near(dabs[4], [2]float64{50, 0}) || !near(dabs[7], [2]float64{20, 0}) {
		t.Fatalf("out and back: dabs %v", dabs)
	}

	// Repeated points (no motion) lay nothing and make no NaN.
	dabs, rest = DabsAlong(5, 5, 3, [][2]float64{{5, 5}, {5, 5}}, 10, 1000)
	if len(dabs) != 0 || rest != 3 {
		t.Fatalf("still: dabs %v, rest %g; want none and 3", dabs, rest)
	}
	// Past a due dab (the radius shrank mid-stroke), the next dab is at
	// once.
	dabs, _ = DabsAlong(5, 5, 30, [][2]float64{{5, 5}}, 10, 1000)
	if len(dabs) != 1 || !near(dabs[0], [2]float64{5, 5}) {
		t.Fatalf("overdue: dabs %v, want one at (5, 5)", dabs)
	}

	// The cap: 5,000 pixels at a spacing of 1 are 1,024 dabs, evenly.
	dabs, _ = DabsAlong(0, 0, 0, [][2]float64{{2000, 0}, {2000, 3000}}, 1, 1024)
	if len(dabs) != 1024 {
		t.Fatalf("capped: %d dabs, want 1024", len(dabs))
	}
	step := 5000.0 / 1024
	if !near(dabs[0], [2]float64{step, 0}) || !near(dabs[1023], [2]float64{2000, 3000}) {
		t.Fatalf("capped: first dab %v, last %v; want (%g, 0) and (2000, 3000)", dabs[0], dabs[1023], step)
	}
	if DabSpacing(40) != 10 || DabSpacing(2) != 1 {
		t.Errorf("spacing: %g for a radius of 40, %g for 2; want 10 and 1", DabSpacing(40), DabSpacing(2))
	}
}

// sheet returns a flat w x h grid of unit squares (two triangles each)
// in the z = 0 plane, centred on the origin.
func sheet(w, h int) *assets.Mesh {
	m := &assets.Mesh{Name: "sheet"}
	for j := 0; j <= h; j++ {
		for i := 0; i <= w; i++ {
			m.Positions = append(m.Positions, assets.Vec3{float64(i) - float64(w)/2, float64(j) - float64(h)/2, 0})
		}
	}
	at := func(i, j int) int { return j*(w+1) + i }
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			m.Triangles = append(m.Triangles, [3]int{at(i, j), at(i+1, j), at(i+1, j+1)}, [3]int{at(i, j), at(i+1, j+1), at(i, j+1)})
		}
	}
	return m
}

// TestStrokeAlongPathCoversTheWay: a stroke whose cursor crosses a sheet
// in four big steps (out to the right and back, far more than the brush
// is wide, as between two slow frames) paints every point of its way, and
// nothing well away from it, as one undo step; the dabs are a quarter of
// the radius apart, no more.
func TestStrokeAlongPathCoversTheWay(t *testing.T) {
	mesh := sheet(200, 40)
	o := &assets.Object{Name: "sheet", Mesh: mesh}
	h := toolstest.New(o)
	v := h.View()
	v.Width, v.Height = 1000, 600
	v.Camera.Yaw, v.Camera.Pitch = 0, 0
	v.SetMesh(mesh.Positions, mesh.Triangles)
	v.FramePoints(mesh.Positions)

	d := &Dynamics{}
	d.Brush = DefaultBrush()
	d.Brush.Radius = 8
	// The sheet's left and right ends on screen, along its middle.
	lx, ly, _ := v.ToScreen(assets.Vec3{-90, 0, 0})
	rx, _, _ := v.ToScreen(assets.Vec3{90, 0, 0})
	if rx-lx < 400 {
		t.Fatalf("the sheet is %g pixels wide on screen, want more than 400", rx-lx)
	}
	at := func(f float64) [2]float64 { return [2]float64{lx + f*(rx-lx), ly} }
	start := at(0)
	path := [][2]float64{at(0.3), at(0.6), at(1), at(0.5)}
	if !d.BeginStroke(h, start[0], start[1], false) {
		t.Fatal("the stroke did not start on the sheet")
	}
	d.ContinueStroke(h, path, false)
	dabs := d.stroke.dabs
	d.EndStroke(h)
	if h.Stack.Position() != 1 {
		t.Fatalf("the stroke made %d undo steps, want 1", h.Stack.Position())
	}
	// The way is 1.5 widths: at a quarter of the radius, one dab every 2
	// pixels, fewer where two dabs fall on one vertex.
	if most := int(1.5*(rx-lx)/DabSpacing(d.Brush.Radius)) + 2; dabs > most || dabs < most/4 {
		t.Errorf("%d dabs, want at most %d (and not far fewer)", dabs, most)
	}
	p := d.Params(h)
	painted := func(i int) bool { return p[i] != Presets[0].Material }
	// Every point of the way, every 2 pixels, has its vertex painted.
	for f := 0.0; f <= 1; f += 2 / (rx - lx) {
		x, y := at(f)[0], at(f)[1]
		i, ok := v.PickVertex(x, y)
		if !ok {
			t.Fatalf("nothing under (%.0f, %.0f)", x, y)
		}
		if !painted(i) {
			t.Fatalf("the vertex under (%.0f, %.0f), %.0f%% of the way across, is not painted", x, y, 100*f)
		}
	}
	// Nothing farther than two radii from the way is painted.
	n := 0
	for i, q := range mesh.Positions {
		x, y, _ := v.ToScreen(q)
		dx := max(0, lx-x, x-rx)
		if math.Hypot(dx, y-ly) > 2*d.Brush.Radius && painted(i) {
			t.Fatalf("vertex %d at (%.0f, %.0f), away from the way, is painted", i, x, y)
		}
		if painted(i) {
			n++
		}
	}
	t.Logf("%d dabs painted %d of %d vertices", dabs, n, len(mesh.Positions))
	h.Stack.Undo()
	p = d.Params(h)
	for i := range mesh.Positions {
		if painted(i) {
			t.Fatalf("after undo vertex %d is still painted", i)
		}
	}
}
