package gallery

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
	"gallop/viewport"
)

// Limits of what a run publishes.
const (
	maxThumbs   = 12                     // distinct samples shown
	plotPoints  = 2000                   // points per chain and plot Line
	publishRate = 250 * time.Millisecond // snapshots per second: 4
	fps         = 30                     // frame rate of recorded samples
)

// Sample is a distinct satisfying sample, recorded and ready to draw.
type Sample struct {
	plausible.Entry
	State json.RawMessage // the scenario's state (Gallery.State), for favourites
	Anim  *assets.RigidAnimation
	Scene *viewport.RigidScene
}

// newSample is the sample of entry e with its state and its recorded
// animation, which it names after the entry and readies for the viewport.
func newSample(e plausible.Entry, state json.RawMessage, anim *assets.RigidAnimation) (*Sample, error) {
	anim.Name = fmt.Sprintf("%s chain %d iteration %d", anim.Name, e.Chain+1, e.Iteration)
	scene, err := viewport.NewRigidScene(anim)
	if err != nil {
		return nil, err
	}
	return &Sample{Entry: e, State: state, Anim: anim, Scene: scene}, nil
}

// Caption names the sample in words, under its thumbnail: the chain that
// found it and when ("chain 2, iteration 1,466").
func (s *Sample) Caption() string {
	return fmt.Sprintf("chain %d, iteration %s", s.Chain+1, words.Int(s.Iteration))
}

// Line is one chain's plot data, decimated to at most plotPoints points.
type Line struct {
	Iteration, Value, Met, LogP []float64
}

// Snapshot is what a run publishes for the UI: immutable once published.
type Snapshot struct {
	Done, Total int    // iterations done and to do, over every chain
	Lines       []Line // per chain
	Kept        []int  // satisfying samples kept per chain
	Samples     []*Sample
	// Final is set in the last snapshot, after the chains ended, with
	// their statistics.
	Final bool
	Stats []mcmc.Stats
}

// run is one sampling job: the gallery it runs and the snapshots it
// publishes.
type run struct {
	gallery    *plausible.Gallery
	scenario   string // its name
	settings   json.RawMessage
	iterations int
	task       jobs.Task[Snapshot]
	// unsatisfied holds a line per chain that ended without ever
	// satisfying the constraints (set when the run ends).
	unsatisfied []string

	// record makes a sample's animation: the gallery's own recording
	// unless the tool sets another.
	record func(e plausible.Entry, fps float64) (*assets.RigidAnimation, error)
	// chains runs the sampling: the gallery's Run unless a test sets
	// another.
	chains func(context.Context) ([]mcmc.Stats, error)
}

// start runs g as a job of runner; done runs on the UI thread when it
// ends.
func (r *run) start(runner *jobs.Runner, done func()) {
	if r.record == nil {
		r.record = func(e plausible.Entry, fps float64) (*assets.RigidAnimation, error) {
			rec, err := r.gallery.Record(e, fps)
			if err != nil {
				return nil, err
			}
			return Animation(rec)
		}
	}
	if r.chains == nil {
		r.chains = r.gallery.Run
	}
	r.task.Start(runner, "Gallery: "+r.scenario, r.work, done)
}

// work is the job: it runs the chains on a goroutine of their own and,
// every publishRate until they end, publishes a snapshot and reports
// progress. Recording distinct samples and decimating plots happen here,
// off the UI thread. A panic in the chains' goroutine becomes the job's
// error; a sample that cannot be recorded stops the chains at once and is
// the job's error.
func (r *run) work(ctx context.Context, rep jobs.Reporter) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var err error
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("internal error in the chains: %v", p)
			}
		}()
		_, err = r.chains(ctx)
	}()
	recorded := map[[2]int]*Sample{}
	var shown []*Sample
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
		snap, perr := r.snapshot(recorded, &shown, &buf)
		if perr != nil {
			cancel()
			<-ended
			return perr
		}
		if final {
			snap.Final = true
			snap.Stats, _, _ = r.gallery.Stats()
		}
		r.task.Latest.Publish(snap)
		rep.Report(float64(snap.Done)/float64(snap.Total), fmt.Sprintf("%d of %d iterations, %d distinct samples", snap.Done, snap.Total, len(snap.Samples)))
		if final {
			return err
		}
	}
}

// snapshot gathers the gallery's state now; recorded holds the samples
// recorded so far, by key, and shown the same in the order they are shown.
func (r *run) snapshot(recorded map[[2]int]*Sample, shown *[]*Sample, buf *[]plausible.Point) (*Snapshot, error) {
	g := r.gallery
	s := &Snapshot{}
	s.Done, s.Total = g.Progress()
	for c := range g.Chains() {
		*buf = g.Series(c, *buf)
		s.Lines = append(s.Lines, decimate(*buf))
		s.Kept = append(s.Kept, g.Kept(c))
	}
	// Once shown, a sample keeps its place (an artist clicks what is
	// under the mouse); new ones fill the free places, in the order of
	// the current most-different set.
	for _, e := range g.Distinct(maxThumbs) {
		k := [2]int{e.Chain, e.Iteration}
		if recorded[k] != nil {
			continue
		}
		if len(*shown) == maxThumbs {
			break
		}
		state, err := g.State(e)
		if err != nil {
			return nil, err
		}
		anim, err := r.record(e, fps)
		if err != nil {
			return nil, fmt.Errorf("recording chain %d, iteration %d: %w", e.Chain+1, e.Iteration, err)
		}
		smp, err := newSample(e, state, anim)
		if err != nil {
			return nil, fmt.Errorf("recording chain %d, iteration %d: %w", e.Chain+1, e.Iteration, err)
		}
		recorded[k] = smp
		*shown = append(*shown, smp)
	}
	s.Samples = slices.Clone(*shown)
	return s, nil
}

// decimate turns a chain's points into plot data of at most plotPoints
// points: every k-th point, and the last.
func decimate(ps []plausible.Point) Line {
	k := max(1, (len(ps)+plotPoints-1)/plotPoints)
	var l Line
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
func (l *Line) add(p plausible.Point) {
	logP := p.LogP
	if math.IsInf(logP, -1) {
		logP = math.NaN()
	}
	l.Iteration = append(l.Iteration, float64(p.Iteration))
	l.Value = append(l.Value, p.Value)
	l.Met = append(l.Met, float64(p.Met))
	l.LogP = append(l.LogP, logP)
}
