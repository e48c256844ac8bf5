package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"gallop/assets"
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
	// The tube.
	tubeRig := filepath.Join(data, "dynskin-tube", "rig.glb")
	objs, err := assets.LoadGLTFAnimation(tubeRig, "train")
	if err != nil {
		return err
	}
	tube, err := dynamics.NewRigging(objs[0])
	if err != nil {
		return err
	}
	if err := benchStep(stdout, "dynamics_step_tube", tube, runs); err != nil {
		return err
	}
	// The horse with 20 SSDR bones, and subdivided.
	dir := filepath.Join(data, "horse-gallop")
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		return err
	}
	files, err := assets.ListOBJSequence(filepath.Join(dir, "frames"))
	if err != nil {
		return err
	}
	_, clip, err := assets.LoadOBJSequence(ctx, files, nil)
	if err != nil {
		return err
	}
	res, err := ssdr.Decompose(ctx, ref.Positions, ref.Triangles, clip.Frames, ssdr.Options{Bones: 20})
	if err != nil {
		return err
	}
	horse := rig.SkinnedObject(res, "gallop", clip.FPS, ref, ref.Positions)
	rg, err := dynamics.NewRigging(horse)
	if err != nil {
		return err
	}
	if err := benchStep(stdout, "dynamics_step_horse", rg, runs); err != nil {
		return err
	}
	sub := &assets.Object{Name: "horse subdivided", Mesh: assets.SubdivideMidpoint(ref), Skin: horse.Skin}
	sub.Rig = assets.SubdivideMidpointRig(ref, horse.Rig)
	if rg, err = dynamics.NewRigging(sub); err != nil {
		return err
	}
	if err := benchStep(stdout, "dynamics_step_horse_subdivided", rg, runs); err != nil {
		return err
	}
	// The fits.
	for _, kappa := range []bool{true, false} {
		name := "dynamics_fit_tube_kappa"
		if !kappa {
			name = "dynamics_fit_tube_paper"
		}
		ex, err := dynamics.LoadExample(ctx, filepath.Join(data, "dynskin-tube", "train", "example"), objs[0], tube.Goal.NumFrames(), tube.Goal.FPS)
		if err != nil {
			return err
		}
		start := time.Now()
		fit, err := dynskin.Fit(ctx, tube.Model, tube.Goal, ex, dynskin.FitOptions{Kappa: kappa})
		if err != nil {
			return err
		}
		secs := time.Since(start).Seconds()
		iters := len(fit.Energy) - 1
		emit(stdout, name+"_seconds", secs, "s")
		emit(stdout, name+"_iterations", float64(iters), "iterations")
		emit(stdout, name+"_iteration_seconds", secs/float64(len(fit.Energy)), "s")
		sim, err := dynskin.Simulate(tube.Model, fit.Params, tube.Goal, dynskin.Options{})
		if err != nil {
			return err
		}
		emit(stdout, name+"_train_ratio", dynskin.RMSE(sim, ex)/dynskin.RMSE(tube.Goal.Positions, ex), "of skinning's RMSE")
		tobjs, err := assets.LoadGLTFAnimation(tubeRig, "test")
		if err != nil {
			return err
		}
		trg, err := dynamics.NewRigging(tobjs[0])
		if err != nil {
			return err
		}
		tex, err := dynamics.LoadExample(ctx, filepath.Join(data, "dynskin-tube", "test", "example"), tobjs[0], trg.Goal.NumFrames(), trg.Goal.FPS)
		if err != nil {
			return err
		}
		if sim, err = dynskin.Simulate(trg.Model, fit.Params, trg.Goal, dynskin.Options{}); err != nil {
			return fmt.Errorf("test: %w", err)
		}
		emit(stdout, name+"_test_ratio", dynskin.RMSE(sim, tex)/dynskin.RMSE(trg.Goal.Positions, tex), "of skinning's RMSE")
	}
	return nil
}

// benchStep emits the median time of one step per vertex over runs passes
// through rg's goal with uniform mid-range parameters.
func benchStep(stdout io.Writer, name string, rg *dynamics.Rigging, runs int) error {
	n := rg.Model.NumVertices()
	p := make([]dynskin.Material, n)
	for i := range p {
		p[i] = dynskin.Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2}
	}
	s, err := dynskin.NewSim(rg.Model, p, rg.Goal.FPS, dynskin.Options{})
	if err != nil {
		return err
	}
	g := rg.Goal
	steps := g.NumFrames() - 1
	t, err := median(runs, func() error {
		s.Start(0, g.Positions[0], g.Positions[1])
		for f := 0; f < steps; f++ {
			if err := s.Advance(g.Positions[f], g.Positions[f+1], g.Bones[f], g.Bones[f+1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	// Start's polar decompositions are a small part of a pass; they are
	// counted, so the figure is an upper bound on a step's cost.
	perStep := t.Seconds() / float64(steps)
	emit(stdout, name+"_ms", perStep*1e3, "ms per step")
	emit(stdout, name+"_ns_per_vertex", perStep*1e9/float64(n), "ns per vertex per step")
	emit(stdout, name+"_vertices", float64(n), "vertices")
	return nil
}
