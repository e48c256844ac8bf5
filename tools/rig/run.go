package rig

import (
	"context"
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/ssdr"
)

// Progress is what a run publishes after each iteration: immutable once
// published.
type Progress struct {
	Iteration int       // iterations done
	Total     int       // most iterations: the alternation's, then the polish rounds
	History   []float64 // RMSE after each iteration so far
}

// run is one decomposition job of an object's clip.
type run struct {
	obj      *assets.Object
	settings Settings
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
	var history []float64
	total := opts.MaxRounds()
	opts.Progress = func(it int, rmse float64) {
		history = append(history, rmse)
		r.task.Latest.Publish(&Progress{Iteration: it, Total: total, History: slices.Clone(history)})
		rep.Report(float64(it)/float64(total), fmt.Sprintf("iteration %d of at most %d, RMSE %.4g", it, total, rmse))
	}
	rep.Report(0, "clustering")
	res, err := ssdr.Decompose(ctx, rest, o.Mesh.Triangles, o.Clip.Frames, opts)
	if err != nil {
		return fmt.Errorf("rig %s: %w", o.Name, err)
	}
	r.res = newResult(o, r.settings, rest, res)
	return nil
}
