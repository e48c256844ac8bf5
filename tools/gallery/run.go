package gallery

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
	"gallop/viewport"
)

// Limits of what a run publishes.
const (
	maxThumbs   = 12                     // distinct samples shown
	plotPoints  = 2000                   // points per chain and plot line
	publishRate = 250 * time.Millisecond // snapshots per second: 4
	fps         = 30                     // frame rate of recorded samples
)

// sample is a distinct satisfying sample, recorded and ready to draw.
type sample struct {
	plausible.Entry
	State json.RawMessage // the scenario's state (Gallery.State), for favourites
	Anim  *assets.RigidAnimation
	Scene *viewport.RigidScene
}

// line is one chain's plot data, decimated to at most plotPoints points.
type line struct {
	Iteration, Value, Met, LogP []float64
}

// snapshot is what a run publishes for the UI: immutable once published.
type snapshot struct {
	done, total int
	lines       []line
	kept        []int // satisfying samples kept per chain
	samples     []*sample
	// final is set in the last snapshot, after the chains ended, with
	// their statistics.
	final bool
	stats []mcmc.Stats
}

// run is one sampling job: the gallery it runs and the snapshots it
// publishes.
type run struct {
	gallery    *plausible.Gallery
	scenario   string // its name
	settings   json.RawMessage
	iterations int
	job        *jobs.Job
	latest     jobs.Latest[snapshot]
	err        error // the job's error, once it is done (nil if cancelled)
	finished   bool
}

// start runs g as a job of runner; done runs on the UI thread when it
// ends.
func (r *run) start(runner *jobs.Runner, done func()) {
	r.job = runner.Start("Gallery: "+r.scenario, r.work, func(err error) {
		r.finished = true
		if !jobs.IsCanceled(err) {
			r.err = err
		}
		done()
	})
}

// work is the job: it runs the chains on a goroutine of their own and,
// every publishRate until they end, publishes a snapshot and reports
// progress. Recording distinct samples and decimating plots happen here,
// off the UI thread.
func (r *run) work(ctx context.Context, rep jobs.Reporter) error {
	var wg sync.WaitGroup
	var err error
	ended := make(chan struct{})
	wg.Go(func() {
		defer close(ended)
		_, err = r.gallery.Run(ctx)
	})
	recorded := map[[2]int]*sample{}
	var buf []plausible.Point
	tick := time.NewTicker(publishRate)
	defer tick.Stop()
	for {
		final := false
		select {
		case <-ended:
			final = true
		case <-tick.C:
		}
		snap, perr := r.snapshot(recorded, &buf)
		if perr != nil {
			<-ended
			return perr
		}
		if final {
			snap.final = true
			snap.stats, _, _ = r.gallery.Stats()
		}
		r.latest.Publish(snap)
		rep.Report(float64(snap.done)/float64(snap.total), fmt.Sprintf("%d of %d iterations, %d distinct samples", snap.done, snap.total, len(snap.samples)))
		if final {
			wg.Wait()
			return err
		}
	}
}

// snapshot gathers the gallery's state now; recorded caches the samples
// recorded so far, by key.
func (r *run) snapshot(recorded map[[2]int]*sample, buf *[]plausible.Point) (*snapshot, error) {
	g := r.gallery
	s := &snapshot{}
	s.done, s.total = g.Progress()
	for c := range g.Chains() {
		*buf = g.Series(c, *buf)
		s.lines = append(s.lines, decimate(*buf))
		s.kept = append(s.kept, g.Kept(c))
	}
	for _, e := range g.Distinct(maxThumbs) {
		k := [2]int{e.Chain, e.Iteration}
		smp := recorded[k]
		if smp == nil {
			state, err := g.State(e)
			if err != nil {
				return nil, err
			}
			anim, err := g.Record(e, fps)
			if err != nil {
				return nil, fmt.Errorf("recording chain %d, iteration %d: %w", e.Chain+1, e.Iteration, err)
			}
			anim.Name = fmt.Sprintf("%s chain %d iteration %d", anim.Name, e.Chain+1, e.Iteration)
			scene, err := viewport.NewRigidScene(anim)
			if err != nil {
				return nil, fmt.Errorf("recording chain %d, iteration %d: %w", e.Chain+1, e.Iteration, err)
			}
			smp = &sample{Entry: e, State: state, Anim: anim, Scene: scene}
			recorded[k] = smp
		}
		s.samples = append(s.samples, smp)
	}
	return s, nil
}

// decimate turns a chain's points into plot data of at most plotPoints
// points: every k-th point, and the last.
func decimate(ps []plausible.Point) line {
	k := max(1, (len(ps)+plotPoints-1)/plotPoints)
	var l line
	for i := 0; i < len(ps); i += k {
		l.add(ps[i])
	}
	if n := len(ps); n > 0 && (n-1)%k != 0 {
		l.add(ps[n-1])
	}
	return l
}

// add appends p; a log p of −∞ (an impossible world) becomes NaN, which
// the plot leaves out.
func (l *line) add(p plausible.Point) {
	logP := p.LogP
	if math.IsInf(logP, -1) {
		logP = math.NaN()
	}
	l.Iteration = append(l.Iteration, float64(p.Iteration))
	l.Value = append(l.Value, p.Value)
	l.Met = append(l.Met, float64(p.Met))
	l.LogP = append(l.LogP, logP)
}
