package dynamics

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/tools/toolstest"
)

// simulate runs the tool's updates until its simulation of the active
// object is complete and current.
func simulate(t *testing.T, d *Dynamics, h *toolstest.Host) *snapshot {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		h.Runner.Poll()
		d.Update(h)
		if st := d.Status(h); st.Current && st.Err == nil && st.Total > 0 && st.Frames == st.Total {
			return d.snapshot(h)
		} else if st.Err != nil {
			t.Fatalf("simulation: %v", st.Err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the simulation did not complete in 60 s")
	return nil
}

// largest returns the largest distance between two animations' vertices,
// and the largest over the vertices in only.
func largest(a, b [][]assets.Vec3, only map[int]bool) (all, in float64) {
	for f := range a {
		for i := range a[f] {
			d := a[f][i].Sub(b[f][i]).Len()
			all = math.Max(all, d)
			if only[i] {
				in = math.Max(in, d)
			}
		}
	}
	return all, in
}

// TestToolPaintSimulateBake drives the model as the panel does, on the
// tube: unpainted (Stiff) it reproduces the skinning exactly; jelly filled
// in the middle moves the middle and nothing else; one undo step per
// fill; the preview is the same at every frame however often it is
// restarted; the bake is the preview frame for frame and undoes; the
// saved state brings the materials back.
func TestToolPaintSimulateBake(t *testing.T) {
	o, _, _, _ := tube(t, "train")
	h := toolstest.New(o)
	d := &Dynamics{}
	s := simulate(t, d, h)
	if all, _ := largest(s.frames, s.rig.Goal.Positions, nil); all > 1e-9*s.rig.Model.Diagonal() {
		t.Fatalf("stiff everywhere: %g from the skinning, want none", all)
	}
	// The middle third along the tube's long axis.
	lo, hi := s.rig.bounds()
	axis := 0
	for k := range 3 {
		if hi[k]-lo[k] > hi[axis]-lo[axis] {
			axis = k
		}
	}
	mid := map[int]bool{}
	for i, p := range o.Mesh.Positions {
		if u := (p[axis] - lo[axis]) / (hi[axis] - lo[axis]); u > 1.0/3 && u < 2.0/3 {
			mid[i] = true
			h.Sel = append(h.Sel, i)
		}
	}
	d.Brush.Channel, d.Brush.Preset = ChannelMaterial, 2 // jelly
	d.Fill(h, false)
	if h.Stack.Position() != 1 {
		t.Fatalf("the fill made %d undo steps, want 1", h.Stack.Position())
	}
	s = simulate(t, d, h)
	all, in := largest(s.frames, s.rig.Goal.Positions, mid)
	t.Logf("jelly in the middle: largest distance from skinning %.3g, in the middle %.3g (diagonal %.3g)", all, in, s.rig.Model.Diagonal())
	if in < 1e-3*s.rig.Model.Diagonal() {
		t.Errorf("jelly moved the middle by only %g", in)
	}
	for f := range s.frames {
		for i := range s.frames[f] {
			if !mid[i] && s.frames[f][i].Sub(s.rig.Goal.Positions[f][i]).Len() > 1e-9*s.rig.Model.Diagonal() {
				t.Fatalf("frame %d, vertex %d outside the painted middle moved off the skinning", f, i)
			}
		}
	}
	first := s.frames

	// Bake: the clip becomes the preview's frames; undo brings back the
	// clip before.
	before := o.Clip
	d.Bake(h)
	if o.Clip == before || !assets.Same(o.Clip.Frames, first) {
		t.Fatal("the bake is not the preview's frames")
	}
	h.Stack.Undo()
	if o.Clip != before {
		t.Fatal("undoing the bake did not bring the clip back")
	}

	// Saved and restored, the materials come back, and the simulation
	// gives the same frames bit for bit.
	raw, err := d.State()
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d2 := &Dynamics{}
	if err := d2.Restore(h, raw); err != nil {
		t.Fatal(err)
	}
	s2 := simulate(t, d2, h)
	for f := range first {
		for i := range first[f] {
			if first[f][i] != s2.frames[f][i] {
				t.Fatalf("restored: frame %d vertex %d is %v, was %v", f, i, s2.frames[f][i], first[f][i])
			}
		}
	}
	// Undo of the fill: stiff again.
	h.Stack.Undo()
	if p := d.Params(h); p[h.Sel[0]] != Presets[0].Material {
		t.Errorf("after undo vertex %d has %v, want Stiff", h.Sel[0], p[h.Sel[0]])
	}
	d2.Close()
}

// TestRestoreRefusesBadState: state with parameters out of range or
// unknown names is refused with a message saying which.
func TestRestoreRefusesBadState(t *testing.T) {
	bad := func(v []float64) string { return assets.EncodeFloat64s(v) }
	for raw, want := range map[string]string{
		`{"show": "sideways"}`: "unknown display",
		`{"settings": {"substeps": 0, "iterations": 10, "infer_bones": 5}, "show": "dynamic", "heat": "none"}`:                    "substeps",
		`{"show": "dynamic", "heat": "none", "objects": [{"name": "tube", "params": "` + bad([]float64{1, 0, 0, 0.6, 0}) + `"}]}`: "vertex 0: lambda = 0.6",
		`{"show": "dynamic", "heat": "none", "objects": [{"name": "tube", "params": "` + bad([]float64{1, 0, 0}) + `"}]}`:         "not groups of 5",
	} {
		d := &Dynamics{}
		err := d.Restore(toolstest.New(nil), json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error with %q", raw, err, want)
		}
	}
}
