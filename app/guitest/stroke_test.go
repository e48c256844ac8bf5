package guitest

import (
	"fmt"
	"image"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gallop/assets"
)

// TestDynamicsFastStrokeSlowFrames (issue 32, item 5): on a big mesh,
// where a UI frame is slow, a quick stroke kept only its first dab. Here
// every frame of the real binary is slowed to 300 ms (GALLOP_SLOW_FRAME);
// on dynskin-tube, in the Dynamics tool, a 20-pixel Jelly brush draws a
// stroke along the tube in one quick gesture: pressed at 12% of its
// length on screen, out to 88% and back to the middle in six jumps of the
// mouse (each three or four brush radii long), 30 ms apart, released at
// once, all inside one or two frames. The project saved then has painted
// vertices in every 4% of the tube's length from 25% to 75% (measured
// along the tube's long axis on the mesh itself, which makes the check
// the same whichever way the tube lies on screen), and none near its
// ends. The turn at 88% is reached only in the middle of the gesture: a
// stroke that saw only the cursor positions of the frames (the press and
// the middle) would miss it even if it joined them with dabs, and one
// that dabbed only at the positions reported would leave gaps.
func TestDynamicsFastStrokeSlowFrames(t *testing.T) {
	s := newSession(t)
	data := filepath.Join(s.root, "..", "shared", "data", "dynskin-tube")
	project := filepath.Join(t.TempDir(), "stroke.gallop")
	cmd := s.startEnv([]string{"GALLOP_TRACE=1", "GALLOP_SLOW_FRAME=300ms"}, "--save-to", project, filepath.Join(data, "rig.glb"))
	defer func() {
		if t.Failed() {
			s.screenshot("stroke-failed")
			t.Logf("output:\n%s", lastLines(cmd.output(), 30))
		}
	}()
	s.waitFor("rig.glb to load", 60*time.Second, func() bool { return strings.Contains(s.windowName(), "tube") })
	s.clickUntil("tool Dynamics", "dynamics: simulation")
	s.simulated(cmd, "the stiff simulation", 0, 0, 0)
	s.clickAt(s.widgetInView("dynamics: heat None"))
	s.clickAt(s.widgetInView("dynamics: preset Jelly"))
	view := s.widget("viewport")
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	s.showFrame(1)
	for range 7 { // [ shrinks the brush by a tenth: 40 px / 1.1⁷ ≈ 20.5 px
		s.xdo("key", "bracketleft")
	}
	still := s.waitStill("stroke-1-before", 30*time.Second)
	box := tubeBounds(still, view)
	if box.Dx() < 200 && box.Dy() < 200 {
		t.Fatalf("the tube is not in view at a useful size: %v", box)
	}
	horizontal := box.Dx() >= box.Dy()
	c := centre(box)
	along := func(f float64) image.Point {
		if horizontal {
			return image.Pt(box.Min.X+int(f*float64(box.Dx())), c.Y)
		}
		return image.Pt(c.X, box.Min.Y+int(f*float64(box.Dy())))
	}
	start := along(0.12)
	if !isMesh(still.RGBAAt(start.X, start.Y)) {
		t.Fatalf("the stroke's start %v is not on the tube", start)
	}
	t.Logf("the tube on screen: %v; the stroke from %v to %v and back to %v", box, start, along(0.88), along(0.5))

	// Hover at the start for a few frames, then the gesture in one
	// xdotool run: press, six jumps 30 ms apart, release.
	s.moveTo(start)
	time.Sleep(1500 * time.Millisecond)
	args := []string{"mousedown", "1"}
	for _, f := range []float64{0.27, 0.42, 0.57, 0.72, 0.88, 0.5} {
		p := along(f)
		args = append(args, "sleep", "0.03", "mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y))
	}
	args = append(args, "mouseup", "1")
	began := time.Now()
	s.xdo(args...)
	t.Logf("the gesture took %v", time.Since(began).Round(time.Millisecond))
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	painted := s.simulated(cmd, "the painted simulation", 0, 1, 1<<30)
	t.Logf("%d vertices painted", painted)
	s.waitStill("stroke-2-painted", 30*time.Second)
	s.saveAndQuit(cmd, project)

	// The saved materials, and where each painted vertex lies along the
	// tube at the frame shown.
	objs, err := assets.LoadGLTF(filepath.Join(data, "rig.glb"))
	if err != nil {
		t.Fatal(err)
	}
	pos := objs[0].PositionsAt(0)
	lo, hi := assets.Bounds(pos)
	axis := 0
	for k := range 3 {
		if hi[k]-lo[k] > hi[axis]-lo[axis] {
			axis = k
		}
	}
	var u []float64
	for i, m := range savedMaterials(t, project, len(pos)) {
		if m != [5]float64{1, 0, 0, 0, 1} { // Stiff, the unpainted material
			u = append(u, (pos[i][axis]-lo[axis])/(hi[axis]-lo[axis]))
		}
	}
	if len(u) == 0 {
		t.Fatal("the saved project has no painted vertex")
	}
	slices.Sort(u)
	t.Logf("%d painted vertices saved, from %.3f to %.3f of the tube's length", len(u), u[0], u[len(u)-1])
	// Every 4% of the length between 25% and 75% holds a painted vertex.
	const bin = 0.04
	var empty []string
	for b := 0.25; b < 0.75-1e-9; b += bin {
		i, _ := slices.BinarySearch(u, b)
		if i == len(u) || u[i] >= b+bin {
			empty = append(empty, fmt.Sprintf("%.2f-%.2f", b, b+bin))
		}
	}
	if len(empty) > 0 {
		t.Errorf("the stroke left the tube unpainted at %s of its length (painted from %.3f to %.3f)", strings.Join(empty, ", "), u[0], u[len(u)-1])
	}
	if u[0] < 0.03 || u[len(u)-1] > 0.97 {
		t.Errorf("painted from %.3f to %.3f of the tube's length; the stroke stayed between 0.12 and 0.88 of it on screen", u[0], u[len(u)-1])
	}
}

// savedMaterials reads the Dynamics tool's materials of the one object
// in a saved project: five parameters (α, β, γ, λ, κ) per vertex, n
// vertices.
func savedMaterials(t *testing.T, project string, n int) [][5]float64 {
	t.Helper()
	var st struct {
		Objects []struct{ Name, Params string }
	}
	toolState(t, project, "Dynamics", &st)
	if len(st.Objects) != 1 {
		t.Fatalf("the project's Dynamics state has %d objects, want 1", len(st.Objects))
	}
	v, err := assets.DecodeFloat64s(st.Objects[0].Params, "materials")
	if err != nil || len(v) != 5*n {
		t.Fatalf("materials: %d values (%v), want %d", len(v), err, 5*n)
	}
	out := make([][5]float64, n)
	for i := range out {
		copy(out[i][:], v[5*i:])
	}
	return out
}
