package plausible

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"gallop/solver/mcmc"
)

// Point is one sample of a chain as a gallery's plots show it: the
// iteration, log p, how many constraints it meets of how many, the
// scenario's plotted value (Plotter; 0 without one), whether it satisfies
// every constraint and whether its candidate was accepted.
type Point struct {
	Iteration int
	LogP      float64
	Met, Of   int
	Value     float64
	Satisfied bool
	Accepted  bool
}

// Plotter is implemented by scenarios with a quantity worth plotting per
// iteration, such as the 2D ball's landing position (the paper's
// Figure 2).
type Plotter[O any] interface {
	// PlotValue returns the quantity for an outcome.
	PlotValue(o O) float64
	// PlotLabel names it, with its unit.
	PlotLabel() string
}

// Entry is a satisfying sample a Gallery kept: its chain (0-based), the
// iteration that produced it and its log p. Gallery.Record replays it.
type Entry struct {
	Chain, Iteration int
	LogP             float64

	kept any // the mcmc.Kept[S, O] of the gallery's scenario
}

// SeriesMax is the most points a Gallery stores per chain. When a series
// reaches it, every second point is dropped and from then on only every
// second iteration is stored (then every fourth, and so on), so a series
// always covers the whole run at an even stride with at most SeriesMax
// points.
const SeriesMax = 1 << 15

// series is one chain's stored points: the iterations that are multiples
// of stride.
type series struct {
	points []Point
	stride int
}

// add appends p when its iteration is on the stride, halving the series
// (and doubling the stride) when it is full.
func (s *series) add(p Point) {
	if p.Iteration%s.stride != 0 {
		return
	}
	if len(s.points) == SeriesMax {
		s.stride *= 2
		k := 0
		for _, q := range s.points {
			if q.Iteration%s.stride == 0 {
				s.points[k] = q
				k++
			}
		}
		s.points = s.points[:k]
		if p.Iteration%s.stride != 0 {
			return
		}
	}
	s.points = append(s.points, p)
}

// Gallery runs MCMC chains of one scenario and collects what a gallery of
// its solutions shows: each chain's series of points, the satisfying
// samples kept over all chains and per chain, and the chains' statistics.
// It hides the scenario's state and outcome types, so UI code need not be
// generic. Run runs the chains once; the other methods are safe to call
// from any goroutine while it runs and give snapshots.
type Gallery struct {
	chains, iterations int
	label              string
	run                func(ctx context.Context, each func(chain int, p Point)) ([]mcmc.Stats, error)
	distinct           func(n int) []Entry
	kept               func(chain int) int
	keptIn             func(chain int) any
	distinctIn         func(chain, n int) int
	record             func(e Entry, fps float64) (*Recording, error)
	state              func(e Entry) (json.RawMessage, error)

	done atomic.Int64 // iterations finished over all chains
	ran  atomic.Bool

	mu     sync.Mutex
	series []series
	stats  []mcmc.Stats
	err    error
	ended  bool
}

// NewGallery returns a gallery of sc with one chain per seed, each of the
// given number of iterations, proposing with sc.Kernels(). Satisfying
// samples are kept once per accepted state in one mcmc.Keeper per chain,
// with sc's Distance and Same and the keeper's default bound; Distinct
// selects from the chains' kept samples in chain order, so that its
// result does not depend on how the chains' goroutines interleave.
func NewGallery[S, O any](sc Scenario[S, O], seeds []uint64, iterations int) (*Gallery, error) {
	if len(seeds) == 0 {
		return nil, errors.New("gallery: no chains to run (want at least 1)")
	}
	if iterations < 1 {
		return nil, fmt.Errorf("gallery: %d iterations, want at least 1", iterations)
	}
	g := &Gallery{chains: len(seeds), iterations: iterations, series: make([]series, len(seeds))}
	for c := range g.series {
		g.series[c].stride = 1
	}
	newKeeper := func() *mcmc.Keeper[S, O] {
		return &mcmc.Keeper[S, O]{Distance: sc.Distance, Same: sc.Same()}
	}
	per := make([]*mcmc.Keeper[S, O], len(seeds))
	for c := range per {
		per[c] = newKeeper()
	}
	plot := plotterOf(sc)
	if plot != nil {
		g.label = plot.PlotLabel()
	}
	kernels := sc.Kernels()
	g.run = func(ctx context.Context, each func(chain int, p Point)) ([]mcmc.Stats, error) {
		return mcmc.Chains(ctx, sc, kernels, seeds, iterations, func(c int, s mcmc.Sample[S, O]) bool {
			p := Point{Iteration: s.Iteration, LogP: s.LogP, Met: s.Score.Met, Of: s.Score.Of,
				Satisfied: s.Score.Satisfied, Accepted: s.Accepted}
			if plot != nil {
				p.Value = plot.PlotValue(s.Outcome)
			}
			per[c].Offer(c, s)
			each(c, p)
			return true
		})
	}
	g.distinct = func(n int) []Entry {
		var all []mcmc.Kept[S, O]
		for _, k := range per {
			all = append(all, k.All()...)
		}
		ks := mcmc.Distinct(all, n, sc.Distance, sc.Same())
		out := make([]Entry, len(ks))
		for i, k := range ks {
			out[i] = Entry{Chain: k.Chain, Iteration: k.Iteration, LogP: k.LogP, kept: k}
		}
		return out
	}
	g.kept = func(c int) int { return per[c].Len() }
	g.keptIn = func(c int) any { return per[c].All() }
	g.distinctIn = func(c, n int) int { return len(per[c].Distinct(n)) }
	kept := func(e Entry) (mcmc.Kept[S, O], error) {
		k, ok := e.kept.(mcmc.Kept[S, O])
		if !ok {
			return k, fmt.Errorf("gallery: entry (chain %d, iteration %d) is not one of this gallery's", e.Chain+1, e.Iteration)
		}
		return k, nil
	}
	g.record = func(e Entry, fps float64) (*Recording, error) {
		k, err := kept(e)
		if err != nil {
			return nil, err
		}
		return sc.Record(k.State, fps)
	}
	g.state = func(e Entry) (json.RawMessage, error) {
		k, err := kept(e)
		if err != nil {
			return nil, err
		}
		return json.Marshal(k.State)
	}
	return g, nil
}

// Chains returns the number of chains.
func (g *Gallery) Chains() int { return g.chains }

// Iterations returns the number of iterations per chain.
func (g *Gallery) Iterations() int { return g.iterations }

// PlotLabel names Point.Value (the scenario's Plotter), or "" when the
// scenario has no plotted value.
func (g *Gallery) PlotLabel() string { return g.label }

// Run runs the chains concurrently (mcmc.Chains) until each has done its
// iterations or ctx is cancelled, and returns their statistics in chain
// order and the error of mcmc.Chains (ctx's error when cancelled). It may
// be called once; a second call returns an error.
func (g *Gallery) Run(ctx context.Context) ([]mcmc.Stats, error) {
	if g.ran.Swap(true) {
		return nil, errors.New("gallery: Run called twice")
	}
	stats, err := g.run(ctx, func(c int, p Point) {
		if p.Iteration > 0 {
			g.done.Add(1)
		}
		g.mu.Lock()
		g.series[c].add(p)
		g.mu.Unlock()
	})
	g.mu.Lock()
	g.stats, g.err, g.ended = stats, err, true
	g.mu.Unlock()
	return stats, err
}

// Series appends chain c's stored points to dst[:0] and returns it (see
// SeriesMax for which iterations are stored).
func (g *Gallery) Series(c int, dst []Point) []Point {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append(dst[:0], g.series[c].points...)
}

// Progress returns the iterations done over all chains and the total to
// do.
func (g *Gallery) Progress() (done, total int) {
	return int(g.done.Load()), g.chains * g.iterations
}

// Distinct returns up to n kept samples of all chains, the most different
// ones (mcmc.Distinct over the chains' kept samples, chain by chain, each
// chain's in the order kept): pairwise farther apart than the scenario's
// Same.
func (g *Gallery) Distinct(n int) []Entry { return g.distinct(n) }

// Kept returns how many satisfying samples chain c has kept so far.
func (g *Gallery) Kept(c int) int { return g.kept(c) }

// KeptIn returns chain c's kept samples, in the order kept, of g, a
// gallery of a scenario with state S and outcome O.
func KeptIn[S, O any](g *Gallery, c int) ([]mcmc.Kept[S, O], error) {
	k, ok := g.keptIn(c).([]mcmc.Kept[S, O])
	if !ok {
		return nil, fmt.Errorf("gallery: its scenario's samples are not %T", k)
	}
	return k, nil
}

// DistinctIn returns how many of chain c's kept samples are distinct
// animations, looking for at most n (as Distinct does over all chains).
func (g *Gallery) DistinctIn(c, n int) int { return g.distinctIn(c, n) }

// Stats returns, once Run has returned (done), the chains' statistics and
// Run's error; before, done is false.
func (g *Gallery) Stats() (stats []mcmc.Stats, done bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats, g.ended, g.err
}

// Record replays entry e, one of this gallery's, as a rigid animation at
// fps frames per second (the scenario's Record).
func (g *Gallery) Record(e Entry, fps float64) (*Recording, error) {
	return g.record(e, fps)
}

// State returns entry e's state (the scenario's random variables) as
// JSON, to be kept and replayed later, for example by unmarshalling it
// into the scenario's state type and calling its Record.
func (g *Gallery) State(e Entry) (json.RawMessage, error) { return g.state(e) }

// Reweight returns sc with its proposal kernels' weights replaced by
// weights, one per kernel of sc.Kernels() in order; each must be finite
// and non-negative and at least one positive.
func Reweight[S, O any](sc Scenario[S, O], weights []float64) (Scenario[S, O], error) {
	ks := sc.Kernels()
	if len(weights) != len(ks) {
		return nil, fmt.Errorf("%d proposal weights for %d kernels", len(weights), len(ks))
	}
	total := 0.0
	for i, w := range weights {
		if !(w >= 0) || w > 1e300 {
			return nil, fmt.Errorf("proposal %q: weight %v, want a finite number ≥ 0", ks[i].Name, w)
		}
		ks[i].Weight = w
		total += w
	}
	if total <= 0 {
		return nil, errors.New("every proposal weight is 0: give at least one a positive weight")
	}
	return reweighted[S, O]{sc, ks}, nil
}

// plotterOf returns sc's Plotter (looking through Reweight), or nil.
func plotterOf[S, O any](sc Scenario[S, O]) Plotter[O] {
	if r, ok := sc.(reweighted[S, O]); ok {
		sc = r.Scenario
	}
	p, _ := sc.(Plotter[O])
	return p
}

// reweighted is a scenario with its own kernel mixture.
type reweighted[S, O any] struct {
	Scenario[S, O]
	kernels []mcmc.Kernel[S]
}

// Kernels implements Scenario.
func (r reweighted[S, O]) Kernels() []mcmc.Kernel[S] { return r.kernels }

var _ Plotter[Ball2DOutcome] = (*Ball2D)(nil)
