package dynamics

import (
	"context"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/dynskin"
)

// tube loads dynskin-tube's rig with animation anim and its example.
func tube(t testing.TB, anim string) (*assets.Object, *Rigging, [][]mgl64.Vec3, [][]mgl64.Vec3) {
	t.Helper()
	objs, err := assets.LoadGLTFAnimation(shareddata.Path(t, "dynskin-tube", "rig.glb"), anim)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	rg, err := NewRigging(o)
	if err != nil {
		t.Fatal(err)
	}
	load := func(dir string) [][]mgl64.Vec3 {
		files, err := assets.ListOBJSequence(shareddata.Path(t, "dynskin-tube", anim, dir))
		if err != nil {
			t.Fatal(err)
		}
		_, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
		if err != nil {
			t.Fatal(err)
		}
		return clip.Frames
	}
	return o, rg, load("goal"), load("example")
}

// TestGoalMatchesBlender: Gallop's skinning of rig.glb reproduces
// Blender's armature deformation, train/goal and test/goal, within 1e-4
// of the diagonal on every frame (acceptance 2). The goal rebuilt from
// those OBJ frames alone (bones fitted per frame) gives the same
// simulation as the glTF animation's to 1e-3 of the diagonal.
func TestGoalMatchesBlender(t *testing.T) {
	for _, anim := range []string{"train", "test"} {
		o, rg, goal, _ := tube(t, anim)
		if len(goal) != rg.Goal.NumFrames() {
			t.Fatalf("%s: %d goal frames, the glb's animation has %d", anim, len(goal), rg.Goal.NumFrames())
		}
		worst := 0.0
		for f := range goal {
			for i := range goal[f] {
				worst = max(worst, goal[f][i].Sub(rg.Goal.Positions[f][i]).Len())
			}
		}
		t.Logf("%s: largest distance from Blender's goal %.3g (%.2g of the diagonal)", anim, worst, worst/rg.Model.Diagonal())
		if worst > 1e-4*rg.Model.Diagonal() {
			t.Errorf("%s: skinning differs from Blender's goal by %g", anim, worst)
		}
		fromOBJ, err := NewRiggingFromClip(o, &assets.Clip{Name: anim, FPS: 30, Frames: goal})
		if err != nil {
			t.Fatal(err)
		}
		p := dynskin.Uniform(rg.Model.NumVertices(), dynskin.Material{Alpha: 0.5, Beta: 0.5, Gamma: 0.5, Lambda: 0.2, Kappa: 0.3})
		a, err := dynskin.Simulate(rg.Model, p, rg.Goal, dynskin.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := dynskin.Simulate(fromOBJ.Model, p, fromOBJ.Goal, dynskin.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := dynskin.RMSE(a, b); d > 1e-3*rg.Model.Diagonal() {
			t.Errorf("%s: the goal from OBJ frames simulates %g (RMS) away from the glTF animation's", anim, d)
		}
	}
}

// TestRestSegments: the tube's chain Base → Mid → Top gives the segments
// joint to child for Base and Mid, and the principal axis of its vertices
// for the leaf Top (along y, above Mid).
func TestRestSegments(t *testing.T) {
	o, rg, _, _ := tube(t, "train")
	segs := rg.Model.RestSegments()
	want := []dynskin.Segment{{A: mgl64.Vec3{0, 0, 0}, B: mgl64.Vec3{0, 4.0 / 3, 0}}, {A: mgl64.Vec3{0, 4.0 / 3, 0}, B: mgl64.Vec3{0, 8.0 / 3, 0}}}
	for j, w := range want {
		if segs[j].A.Sub(w.A).Len() > 1e-4 || segs[j].B.Sub(w.B).Len() > 1e-4 {
			t.Errorf("%s: segment %v, want %v", o.Rig.Joints[j].Name, segs[j], w)
		}
	}
	top := segs[2]
	if ax := top.B.Sub(top.A).Normalize(); ax[1] < 0.99 || min(top.A[1], top.B[1]) < 2 {
		t.Errorf("Top: segment %v, want along y above 2", top)
	}
}
