package rig

import (
	"context"
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/ssdr"
)

// progress is what a run publishes after each iteration: immutable once
// published.
type progress struct {
	iteration, total int
	history          []float64 // RMSE after each iteration so far
}

// run is one decomposition job of an object's clip.
type run struct {
	obj      *assets.Object
	settings Settings
	job      *jobs.Job
	latest   jobs.Latest[progress]
	res      *result // set by the job when it succeeds
	err      error   // the job's error, once done (nil if cancelled)
	finished bool
}

// start runs the decomposition as a job of runner; done runs on the UI
// thread when it ends.
func (r *run) start(runner *jobs.Runner, done func()) {
	r.job = runner.Start("Rig: "+r.obj.Name, r.work, func(err error) {
		r.finished = true
		if !jobs.IsCanceled(err) {
			r.err = err
		}
		done()
	})
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
		r.latest.Publish(&progress{iteration: it, total: total, history: slices.Clone(history)})
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
