package dynamics

import (
	"context"
	"testing"
	"time"

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

func TestTubeExperiment(t *testing.T) {
	_, rg, goal, ex := tube(t, "train")
	t.Logf("frames %d goal %d ex %d", rg.Goal.NumFrames(), len(goal), len(ex))
	worst := 0.0
	for f := range goal {
		for i := range goal[f] {
			worst = max(worst, goal[f][i].Sub(rg.Goal.Positions[f][i]).Len())
		}
	}
	t.Logf("goal reproduction max %g (diag %g)", worst, rg.Model.Diagonal())
	lbs := dynskin.RMSE(goal, ex)
	for _, kappa := range []bool{false, true} {
		start := time.Now()
		res, err := dynskin.Fit(context.Background(), rg.Model, rg.Goal, ex, dynskin.FitOptions{Kappa: kappa, Iterations: 200, Tolerance: 1e-7})
		if err != nil {
			t.Log(err)
		}
		sim, err := dynskin.Simulate(rg.Model, res.Params, rg.Goal, dynskin.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("kappa %v: %d iterations best %d in %v; rmse lbs %g dyn %g ratio %.3f", kappa, len(res.Energy), res.Best, time.Since(start), lbs, dynskin.RMSE(sim, ex), dynskin.RMSE(sim, ex)/lbs)
		for k := 0; k < len(res.Energy); k += 10 {
			t.Logf("  E[%d] = %.1f", k, res.Energy[k])
		}
		_, rt, gt, et := tube(t, "test")
		st, err := dynskin.Simulate(rt.Model, res.Params, rt.Goal, dynskin.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("  test: lbs %g dyn %g ratio %.3f", dynskin.RMSE(gt, et), dynskin.RMSE(st, et), dynskin.RMSE(st, et)/dynskin.RMSE(gt, et))
	}
}
