package plausible

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"gallop/solver/mcmc"
)

// TestGalleryBall2D runs four chains of the paper's 2D ball and checks what
// a gallery shows: a full series per chain, distinct entries that satisfy
// the constraint and lie farther apart than Same, and entries that replay.
func TestGalleryBall2D(t *testing.T) {
	b := NewBall2D()
	const iterations = 2000
	g, err := NewGallery[Ball2DState, Ball2DOutcome](b, []uint64{1, 2, 3, 4}, iterations)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := g.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 4 {
		t.Fatalf("%d stats, want 4", len(stats))
	}
	if done, total := g.Progress(); done != total || total != 4*iterations {
		t.Errorf("progress %d of %d, want %d of %d", done, total, 4*iterations, 4*iterations)
	}
	if g.PlotLabel() != b.PlotLabel() {
		t.Errorf("plot label %q", g.PlotLabel())
	}
	for c := range 4 {
		s := g.Series(c, nil)
		if len(s) != iterations+1 {
			t.Fatalf("chain %d: %d points, want %d (the initial state and one per iteration)", c, len(s), iterations+1)
		}
		for i, p := range s {
			if p.Iteration != i || p.Of != 1 {
				t.Fatalf("chain %d point %d: %+v", c, i, p)
			}
			if p.Satisfied != (math.Abs(p.Value-b.Target) <= b.Tolerance) {
				t.Fatalf("chain %d point %d: landing %v but satisfied %v", c, i, p.Value, p.Satisfied)
			}
		}
		if g.Kept(c) == 0 {
			t.Errorf("chain %d kept no satisfying sample (first satisfied at %d)", c, stats[c].FirstSatisfied)
		}
	}
	if _, ok, err := g.Stats(); !ok || err != nil {
		t.Errorf("Stats after Run: ok %v, err %v", ok, err)
	}
	entries := g.Distinct(10)
	if len(entries) < 5 {
		t.Fatalf("%d distinct entries, want at least 5", len(entries))
	}
	outcome := func(e Entry) Ball2DOutcome { return e.kept.(mcmc.Kept[Ball2DState, Ball2DOutcome]).Outcome }
	for i, e := range entries {
		o := outcome(e)
		if !b.Constraint(o).Satisfied {
			t.Errorf("entry %d (chain %d, iteration %d) lands at %v: not satisfying", i, e.Chain, e.Iteration, o.Landing())
		}
		for j := range i {
			if d := b.Distance(o, outcome(entries[j])); d <= b.Same() {
				t.Errorf("entries %d and %d are %v apart, at most Same = %v", j, i, d, b.Same())
			}
		}
	}
	anim, err := g.Record(entries[0], 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := anim.Validate(); err != nil {
		t.Fatal(err)
	}
	last := anim.Bodies[0].Positions[anim.NumFrames()-1]
	if want := outcome(entries[0]).Landing() * Ball2DDiameter; math.Abs(last[0]-want) > 1e-9 {
		t.Errorf("the replayed ball lands at x = %v, the sample at %v", last[0], want)
	}
	if _, err := g.Run(context.Background()); err == nil {
		t.Error("a second Run was accepted")
	}
	raw, err := g.State(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	var st Ball2DState
	if err := json.Unmarshal(raw, &st); err != nil || st != entries[0].kept.(mcmc.Kept[Ball2DState, Ball2DOutcome]).State {
		t.Errorf("state %s does not round-trip: %v", raw, err)
	}
	if _, err := g.Record(Entry{}, 30); err == nil {
		t.Error("an entry the gallery did not make was replayed")
	}
}

// TestGallerySeriesCap: a series longer than SeriesMax keeps at most
// SeriesMax points, evenly spaced over the whole run up to its end.
func TestGallerySeriesCap(t *testing.T) {
	iterations := SeriesMax*3 + 1000
	s := series{stride: 1}
	for it := 0; it <= iterations; it++ {
		s.add(Point{Iteration: it})
	}
	if len(s.points) > SeriesMax || len(s.points) < SeriesMax/2 {
		t.Fatalf("%d points, want between %d and %d", len(s.points), SeriesMax/2, SeriesMax)
	}
	for i, p := range s.points {
		if p.Iteration != i*s.stride {
			t.Fatalf("point %d is iteration %d, want %d (stride %d)", i, p.Iteration, i*s.stride, s.stride)
		}
	}
	if last := s.points[len(s.points)-1].Iteration; iterations-last >= s.stride {
		t.Errorf("the series ends at iteration %d of %d (stride %d)", last, iterations, s.stride)
	}
}

// TestGalleryCancel: cancelling the context stops the chains early, and
// the snapshots read while they run are consistent (run with -race).
func TestGalleryCancel(t *testing.T) {
	const iterations = 50_000_000
	g, err := NewGallery[Ball2DState, Ball2DOutcome](NewBall2D(), []uint64{1, 2}, iterations)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { _, runErr = g.Run(ctx) })
	var buf []Point
	// Read snapshots while the chains run, until they are a few thousand
	// iterations in (no time limit: go test's -timeout bounds a hang).
	for done, _ := g.Progress(); done < 4000; done, _ = g.Progress() {
		for c := range 2 {
			buf = g.Series(c, buf)
			for i := 1; i < len(buf); i++ {
				if buf[i].Iteration <= buf[i-1].Iteration {
					t.Fatalf("chain %d: iterations out of order in a snapshot", c)
				}
			}
			g.Kept(c)
		}
		g.Progress()
		for _, e := range g.Distinct(6) {
			if _, err := g.Record(e, 30); err != nil {
				t.Fatal(err)
			}
		}
		if _, ok, _ := g.Stats(); ok {
			t.Fatal("Stats reports done while the chains run")
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	wg.Wait() // a Run that ignored the cancel would hang here
	if !errors.Is(runErr, context.Canceled) {
		t.Errorf("Run after cancel: %v", runErr)
	}
	done, total := g.Progress()
	if done == 0 || done >= total {
		t.Errorf("progress %d of %d after an early cancel", done, total)
	}
	stats, ok, err := g.Stats()
	if !ok || !errors.Is(err, context.Canceled) || len(stats) != 2 {
		t.Errorf("Stats after cancel: %d stats, err %v, ok %v", len(stats), err, ok)
	}
}

// TestGalleryErrors: no chains, no iterations and bad proposal weights are
// refused with a message that says what is wrong.
func TestGalleryErrors(t *testing.T) {
	b := NewBall2D()
	if _, err := NewGallery[Ball2DState, Ball2DOutcome](b, nil, 10); err == nil || !strings.Contains(err.Error(), "no chains") {
		t.Errorf("no seeds: %v", err)
	}
	if _, err := NewGallery[Ball2DState, Ball2DOutcome](b, []uint64{1}, 0); err == nil || !strings.Contains(err.Error(), "0 iterations") {
		t.Errorf("0 iterations: %v", err)
	}
	for _, w := range [][]float64{{}, {0}, {-1}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := Reweight[Ball2DState, Ball2DOutcome](b, w); err == nil {
			t.Errorf("weights %v accepted", w)
		}
	}
	r, err := Reweight[Ball2DState, Ball2DOutcome](b, []float64{3})
	if err != nil {
		t.Fatal(err)
	}
	if k := r.Kernels(); len(k) != 1 || k[0].Weight != 3 {
		t.Errorf("reweighted kernels %+v", k)
	}
	g, err := NewGallery(r, []uint64{1}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if g.PlotLabel() != b.PlotLabel() {
		t.Errorf("a reweighted scenario lost its plot label: %q", g.PlotLabel())
	}
}
