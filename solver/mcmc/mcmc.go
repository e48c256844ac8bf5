package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"gallop/internal/parallel"
)

// Model is a world model with random variables S and outcomes O.
// Implementations must be safe for concurrent use by several chains (they
// hold no per-chain state) and their Simulate must be deterministic.
type Model[S, O any] interface {
	// Init draws a chain's first state.
	Init(rng *rand.Rand) S
	// LogPrior returns log p_w(s) up to an additive constant.
	LogPrior(s S) float64
	// Simulate runs the simulator on s. It may return an error for a state
	// the simulator cannot handle; the chain then stops with that error.
	Simulate(s S) (O, error)
	// Constraint scores an outcome: log p_c up to an additive constant,
	// and how many of how many constraints it meets.
	Constraint(o O) Score
}

// Score is how well an outcome meets the constraints.
type Score struct {
	LogLikelihood float64 // log p_c(A) up to a constant
	Met, Of       int     // constraints met, out of (for plots and k of λ^k)
	Satisfied     bool    // every constraint fully met: a sample to show
}

// Kernel is one proposal strategy of a mixture.
type Kernel[S any] struct {
	Name   string
	Weight float64 // relative probability of choosing this kernel (> 0)
	// Propose returns a candidate made from cur, which it must not modify,
	// and log q(cur|cand) − log q(cand|cur) (0 for a symmetric kernel).
	Propose func(rng *rand.Rand, cur S) (cand S, logRatio float64)
}

// Sample is one step of a chain: the chain's state after iteration
// Iteration (a repeat of the previous state when the candidate was
// rejected).
type Sample[S, O any] struct {
	Iteration int // 0 for the initial state
	State     S
	Outcome   O
	Score     Score
	LogPrior  float64
	LogP      float64 // LogPrior + Score.LogLikelihood
	Accepted  bool    // the candidate of this iteration was accepted (true for iteration 0)
	Kernel    int     // index of the kernel that proposed it (-1 for iteration 0)
	// AcceptanceRate is the fraction of accepted candidates so far.
	AcceptanceRate float64
}

// Stats summarises a finished chain.
type Stats struct {
	Iterations     int
	Accepted       int
	AcceptanceRate float64
	// FirstSatisfied is the first iteration whose state satisfies the
	// constraints, -1 if none did.
	FirstSatisfied int
	// SatisfiedAfter is the fraction of iterations after FirstSatisfied
	// (inclusive) whose state satisfies the constraints (0 if none).
	SatisfiedAfter float64
	// BestMet is the most constraints a state of the chain met, out of
	// Of: how close a chain that never satisfied them came.
	BestMet, Of int
	// Proposed and Taken count, per kernel, the candidates proposed and
	// accepted.
	Proposed, Taken []int
	Wall            time.Duration
}

// ErrNoKernel is returned when no proposal kernel has a positive weight.
var ErrNoKernel = errors.New("mcmc: no proposal kernel with a positive weight")

// NewRand returns the random source of the chain with the given seed.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// Run runs one chain of the given number of iterations from seed. each, if
// not nil, is called with the initial sample and after every iteration and
// may stop the chain early by returning false. Run returns when the chain
// ends, ctx is cancelled (then with ctx's error and the statistics so
// far), or the simulator fails.
func Run[S, O any](ctx context.Context, m Model[S, O], kernels []Kernel[S], seed uint64, iterations int, each func(Sample[S, O]) bool) (Stats, error) {
	start := time.Now()
	st := Stats{FirstSatisfied: -1, Proposed: make([]int, len(kernels)), Taken: make([]int, len(kernels))}
	total := 0.0
	for _, k := range kernels {
		if k.Weight < 0 || math.IsNaN(k.Weight) || math.IsInf(k.Weight, 0) {
			return st, fmt.Errorf("mcmc: kernel %q has weight %v", k.Name, k.Weight)
		}
		total += k.Weight
	}
	if total <= 0 {
		return st, ErrNoKernel
	}
	rng := NewRand(seed)
	cur := Sample[S, O]{State: m.Init(rng), Kernel: -1, Accepted: true}
	var err error
	if cur.Outcome, err = m.Simulate(cur.State); err != nil {
		return st, fmt.Errorf("initial state: %w", err)
	}
	cur.Score = m.Constraint(cur.Outcome)
	cur.LogPrior = m.LogPrior(cur.State)
	cur.LogP = cur.LogPrior + cur.Score.LogLikelihood
	cur.AcceptanceRate = 1
	satisfied := 0
	note := func(s Sample[S, O]) {
		if s.Score.Met > st.BestMet || s.Iteration == 0 {
			st.BestMet, st.Of = s.Score.Met, s.Score.Of
		}
		if s.Score.Satisfied {
			if st.FirstSatisfied < 0 {
				st.FirstSatisfied = s.Iteration
			}
			satisfied++
		}
	}
	note(cur)
	finish := func() Stats {
		st.Wall = time.Since(start)
		if st.Iterations > 0 {
			st.AcceptanceRate = float64(st.Accepted) / float64(st.Iterations)
		}
		if st.FirstSatisfied >= 0 {
			st.SatisfiedAfter = float64(satisfied) / float64(st.Iterations-st.FirstSatisfied+1)
		}
		return st
	}
	if each != nil && !each(cur) {
		return finish(), nil
	}
	for it := 1; it <= iterations; it++ {
		if err := ctx.Err(); err != nil {
			return finish(), err
		}
		// Choose a kernel from the mixture.
		u := rng.Float64() * total
		ki := len(kernels) - 1
		for i, k := range kernels {
			if u < k.Weight {
				ki = i
				break
			}
			u -= k.Weight
		}
		cand, logRatio := kernels[ki].Propose(rng, cur.State)
		st.Proposed[ki]++
		next := Sample[S, O]{Iteration: it, State: cand, Kernel: ki}
		if next.Outcome, err = m.Simulate(cand); err != nil {
			return finish(), fmt.Errorf("iteration %d: %w", it, err)
		}
		next.Score = m.Constraint(next.Outcome)
		next.LogPrior = m.LogPrior(cand)
		next.LogP = next.LogPrior + next.Score.LogLikelihood
		// Metropolis-Hastings: accept with min(1, exp(Δ)). u is drawn
		// even when Δ ≥ 0 so that the random stream does not depend on
		// the outcome's value, only on the sequence of decisions.
		a := next.LogP - cur.LogP + logRatio
		u = rng.Float64()
		st.Iterations = it
		if !math.IsNaN(a) && (a >= 0 || math.Log(u) < a) {
			next.Accepted = true
			st.Accepted++
			st.Taken[ki]++
			cur = next
		} else {
			cur.Iteration, cur.Accepted, cur.Kernel = it, false, ki
		}
		cur.AcceptanceRate = float64(st.Accepted) / float64(it)
		note(cur)
		if each != nil && !each(cur) {
			break
		}
	}
	return finish(), nil
}

// Chains runs one chain per seed, each on a goroutine of its own at
// background priority (parallel.Background), and returns their statistics
// in seed order. each, if not nil, is called from the chains' goroutines
// (concurrently: it must synchronise) with the chain's index. The first
// error of a chain cancels the others and is returned; a panic in a
// chain (a bug in the model, a kernel or each) is such an error, so it
// stops the run instead of the process.
func Chains[S, O any](ctx context.Context, m Model[S, O], kernels []Kernel[S], seeds []uint64, iterations int, each func(chain int, s Sample[S, O]) bool) ([]Stats, error) {
	if len(seeds) == 0 {
		return nil, errors.New("mcmc: no chains to run")
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stats := make([]Stats, len(seeds))
	var wg sync.WaitGroup
	for c, seed := range seeds {
		wg.Go(func() {
			parallel.Background()
			var fn func(Sample[S, O]) bool
			if each != nil {
				fn = func(s Sample[S, O]) bool { return each(c, s) }
			}
			st, err := runRecovered(ctx, m, kernels, seed, iterations, fn)
			stats[c] = st
			if err != nil && !errors.Is(err, context.Canceled) {
				cancel(fmt.Errorf("chain %d (seed %d): %w", c, seed, err))
			}
		})
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return stats, err
	}
	return stats, ctx.Err()
}

// runRecovered is Run with a panic recovered as the chain's error.
func runRecovered[S, O any](ctx context.Context, m Model[S, O], kernels []Kernel[S], seed uint64, iterations int, each func(Sample[S, O]) bool) (st Stats, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error (panic): %v", p)
		}
	}()
	return Run(ctx, m, kernels, seed, iterations, each)
}
