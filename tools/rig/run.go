package rig

import (
	"context"
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/ssdr"
)

// Progress is what a run publishes after each round: immutable once
// published.
type Progress struct {
	Iteration int       // rounds done: iterations, then polish rounds, then skeleton rounds
	Polish    int       // polish rounds done (they follow the iterations, however early those stopped)
	Skeleton  int       // skeleton rounds done (they follow the polish)
	History   []float64 // RMSE after each round so far
	// Asked, PolishRounds and SkeletonRounds are the most rounds of each
	// stage (ssdr.Options.StageRounds).
	Asked, PolishRounds, SkeletonRounds int
}

// Fraction is how far the run has come, in [0, 1]: rounds done over the
// most there can be, a stage counted as all done once the next has begun.
func (p *Progress) Fraction() float64 {
	done := p.Iteration
	switch {
	case p.Skeleton > 0:
		done = p.Asked + p.PolishRounds + p.Skeleton
	case p.Polish > 0:
		done = p.Asked + p.Polish
	}
	return float64(done) / float64(max(1, p.Asked+p.PolishRounds+p.SkeletonRounds))
}

// Text says how far the run has come in words: "iteration 37 of at most
// 100, then 5 polish rounds", "polish 2 of 5 after 42 iterations", or
// "skeleton round 3 of at most 40".
func (p *Progress) Text() string {
	if p.Skeleton > 0 {
		return fmt.Sprintf("skeleton round %d of at most %d", p.Skeleton, p.SkeletonRounds)
	}
	if p.Polish > 0 {
		return fmt.Sprintf("polish %d of %d after %s", p.Polish, p.PolishRounds, words.Count(p.Iteration-p.Polish, "iteration", "iterations"))
	}
	s := fmt.Sprintf("iteration %d of at most %d", p.Iteration, p.Asked)
	if p.PolishRounds > 0 {
		s += ", then " + words.Count(p.PolishRounds, "polish round", "polish rounds")
	}
	if p.SkeletonRounds > 0 {
		s += " and the skeleton"
	}
	return s
}

// run is one decomposition job of an object's clip.
type run struct {
	obj      *assets.Object
	settings Settings
	fitTo    string // a glTF skin whose skeleton to fit ("": infer the rig)
	task     jobs.Task[Progress]
	res      *Result // set by the job when it succeeds
}

// start runs the decomposition as a job of runner; done runs on the UI
// thread when it ends.
func (r *run) start(runner *jobs.Runner, done func()) {
	r.task.Start(runner, "Rig: "+r.obj.Name, r.work, done)
}

// work is the job: SSDR on the object's rest pose and clip, publishing
// each iteration's RMSE, then the result evaluated for display.
func (r *run) work(ctx context.Context, rep jobs.Reporter) error {
	o := r.obj
	rest := o.Mesh.Positions
	opts := r.settings.options()
	var given *Given
	if r.fitTo != "" {
		var err error
		if given, err = LoadSkeleton(r.fitTo, len(rest)); err != nil {
			return err
		}
		opts = given.fit(opts)
	}
	var history []float64
	asked, polishRounds, skeletonRounds := opts.StageRounds(len(rest))
	polish, skeleton := 0, 0
	opts.Progress = func(it int, rmse float64, stage ssdr.Stage) {
		history = append(history, rmse)
		switch stage {
		case ssdr.StagePolish:
			polish++
		case ssdr.StageSkeleton:
			skeleton++
		}
		p := &Progress{Iteration: it, Polish: polish, Skeleton: skeleton, History: slices.Clone(history),
			Asked: asked, PolishRounds: polishRounds, SkeletonRounds: skeletonRounds}
		r.task.Latest.Publish(p)
		rep.Report(p.Fraction(), fmt.Sprintf("%s, RMSE %.4g", p.Text(), rmse))
	}
	rep.Report(0, "clustering")
	res, err := ssdr.Decompose(ctx, rest, o.Mesh.Triangles, o.Clip.Frames, opts)
	if err != nil {
		return fmt.Errorf("rig %s: %w", o.Name, err)
	}
	r.res = newResult(o, r.settings, rest, res)
	if given != nil {
		r.res.names = given.Names
	}
	return nil
}
