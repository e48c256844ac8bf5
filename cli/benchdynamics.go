package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/solver/dynskin"
	"gallop/solver/ssdr"
	"gallop/tools/dynamics"
	"gallop/tools/rig"
)

// benchDynamics prints the Dynamics figures: the time of one simulation
// step per vertex on the tube (2,282 vertices, 3 bones), the horse
// (8,431, the 20-bone rig SSDR infers from horse-gallop) and the horse
// subdivided once (33,705, the same rig's weights carried over), median
// of runs passes over the 48-frame animation; and the fits on
// dynskin-tube train (both models, one run each) with their RMSE ratios
// on train and on test.
func benchDynamics(stdout io.Writer, data string, runs int) error {
	ctx := context.Background()
	// The tube: its train and test animations with their examples.
	type tubeAnim struct {
		rg      *dynamics.Rigging
		example [][]mgl64.Vec3
	}
	var tube [2]tubeAnim
	for k, anim := range []string{"train", "test"} {
		objs, err := assets.LoadGLTFAnimation(filepath.Join(data, "dynskin-tube", "rig.glb"), anim)
		if err != nil {
			return err
		}
		if tube[k].rg, err = dynamics.NewRigging(objs[0]); err != nil {
			return err
		}
		g := tube[k].rg.Goal
		if tube[k].example, err = dynamics.LoadExample(ctx, filepath.Join(data, "dynskin-tube", anim, "example"), objs[0], g.NumFrames(), g.FPS); err != nil {
			return err
		}
	}
	train, test := tube[0], tube[1]
	if err := benchStep(stdout, "tube", train.rg, runs); err != nil {
		return err
	}
	horse, sub, err := horseRiggings(ctx, data)
	if err != nil {
		return err
	}
	if err := benchStep(stdout, "horse", horse, runs); err != nil {
		return err
	}
	if err := benchStep(stdout, "horse_subdivided", sub, runs); err != nil {
		return err
	}
	// The fits.
	for _, kappa := range []bool{true, false} {
		name := "dynamics_fit_tube_kappa"
		if !kappa {
			name = "dynamics_fit_tube_paper"
		}
		start := time.Now()
		fit, err := dynskin.Fit(ctx, train.rg.Model, train.rg.Goal, train.example, dynskin.FitOptions{Kappa: kappa})
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		figure.Write(stdout, name+"_seconds", secs, "s")
		figure.Write(stdout, name+"_iterations", float64(len(fit.Energy)-1), "iterations")
		figure.Write(stdout, name+"_iteration_seconds", secs/float64(len(fit.Energy)), "s")
		figure.Write(stdout, name+"_train_ratio", fit.RMSE/dynskin.RMSE(train.rg.Goal.Positions, train.example), "of skinning's RMSE")
		sim, err := dynskin.Simulate(test.rg.Model, fit.Params, test.rg.Goal, dynskin.Options{})
		if err != nil {
			return fmt.Errorf("test: %w", err)
		}
		figure.Write(stdout, name+"_test_ratio", dynskin.RMSE(sim, test.example)/dynskin.RMSE(test.rg.Goal.Positions, test.example), "of skinning's RMSE")
	}
	return nil
}

// horseRiggings returns the step figures' horses: horse-gallop rigged
// with the 20 bones SSDR infers from its animation, and the same subdivided
// once (assets.SubdivideMidpoint) with the rig's weights carried over.
func horseRiggings(ctx context.Context, data string) (horse, sub *dynamics.Rigging, err error) {
	ref, clip, err := loadRigSet(data, "horse-gallop")
	if err != nil {
		return nil, nil, err
	}
	res, err := ssdr.Decompose(ctx, ref.Positions, ref.Triangles, clip.Frames, ssdr.Options{Bones: 20})
	if err != nil {
		return nil, nil, err
	}
	obj := rig.SkinnedObject(res, "gallop", clip.FPS, ref, ref.Positions)
	if horse, err = dynamics.NewRigging(obj); err != nil {
		return nil, nil, err
	}
	subObj := &assets.Object{Name: "horse subdivided", Mesh: assets.SubdivideMidpoint(ref), Skin: obj.Skin}
	subObj.Rig = assets.SubdivideMidpointRig(ref, obj.Rig)
	if sub, err = dynamics.NewRigging(subObj); err != nil {
		return nil, nil, err
	}
	return horse, sub, nil
}

// benchStep emits the median time of one step per vertex over runs passes
// through rg's goal with uniform mid-range parameters, after a first pass
// whose steps also put each goal frame in the model's vertex order (what
// playing a clip's first loop costs, emitted apart), and the median time
// of Start (each ring's polar decomposition, once per pass), which the
// step's figure does not count.
func benchStep(stdout io.Writer, mesh string, rg *dynamics.Rigging, runs int) error {
	name := "dynamics_step_" + mesh
	n := rg.Model.NumVertices()
	s, err := dynskin.NewSim(rg.Model, benchMaterials(n), rg.Goal, dynskin.Options{})
	if err != nil {
		return err
	}
	steps := rg.Goal.NumFrames() - 1
	start := make([]time.Duration, runs+1)
	pass := make([]time.Duration, runs+1)
	for r := range runs + 1 {
		t0 := time.Now()
		s.Start(0)
		t1 := time.Now()
		for f := 0; f < steps; f++ {
			if err := s.Advance(f + 1); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
		start[r], pass[r] = t1.Sub(t0), time.Since(t1)
	}
	first := pass[0].Seconds() / float64(steps)
	start, pass = start[1:], pass[1:]
	slices.Sort(start)
	slices.Sort(pass)
	perStep := pass[runs/2].Seconds() / float64(steps)
	figure.Write(stdout, name+"_ms", perStep*1e3, "ms per step")
	figure.Write(stdout, name+"_ns_per_vertex", perStep*1e9/float64(n), "ns per vertex per step")
	figure.Write(stdout, name+"_first_pass_ns_per_vertex", first*1e9/float64(n), "ns per vertex per step, goal frames first put in the model's order")
	figure.Write(stdout, name+"_vertices", float64(n), "vertices")
	figure.Write(stdout, "dynamics_start_"+mesh+"_ms", start[runs/2].Seconds()*1e3, "ms")
	return nil
}

// benchMaterials returns the step figures' parameters for n vertices:
// uniform and mid-range.
func benchMaterials(n int) []dynskin.Material {
	return dynskin.Uniform(n, dynskin.Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2})
}
