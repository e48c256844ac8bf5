package csp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Candidate is one j ∈ J that COMPUTE-MEMG-TRANSITION may try from i.
type Candidate struct {
	J    int     // the caller's label of j (returned in Result.J)
	Phi0 float64 // Φ(0; i, j), the synchronous transition's cost, ≥ 0 or +Inf
	// Program builds the (i, j) integer program; called at most once,
	// only if j is drawn.
	Program func() Program
}

// Result is what COMPUTE-MEMG-TRANSITION found.
type Result struct {
	Found     bool    // a feasible point was found; the fields below are set only then
	Candidate int     // index of the chosen candidate
	J         int     // its J
	Phi       float64 // φ_min = Φ(τ; i, j)
	Phi0      float64 // its Φ(0; i, j), for comparison
	Tau       []int   // the offsets
}

// Compute is COMPUTE-MEMG-TRANSITION(i, J) (§4.2): the feasible point of
// least cost among at most N_samples feasible points, each from a
// SATISFY-MEMG-CSP call on a j drawn from the candidates. The paper's
// listing of it is missing from the text; this is the function its prose
// describes ("the minimum φ sample of at most N_samples feasible points,
// ignoring NIL values", j drawn by "importance-based random sampling (line
// 4)", and "a cutoff (lines 5-6) slightly smaller than the best known
// minimum, φ_cutoff = α φ_min"):
//
//	COMPUTE-MEMG-TRANSITION(i, J)
//	 1  φ_min ← +∞; (j_min, τ_min) ← NIL
//	 2  for n ← 1 … N_samples
//	 3      if J = ∅ then break
//	 4      j ← importance sample J using 1/Φ(0; i, j);  J ← J − {j}
//	 5      φ_cutoff ← α·φ_min
//	 6      (φ, τ) ← SATISFY-MEMG-CSP(i, j, φ_cutoff)
//	 7      if (φ, τ) ≠ NIL and φ < φ_min
//	 8          then (φ_min, j_min, τ_min) ← (φ, j, τ)
//	 9  return (j_min, τ_min, φ_min)
//
// Decisions: j is drawn without replacement (a second call on the same j
// would solve the same program again, only with another random walk); "at
// most N_samples" counts SATISFY-MEMG-CSP calls (the integer programs of
// Table I's nIP), whether they succeed or not, as in Fig. 10, where each
// COMPUTE-MEMG-TRANSITION makes five calls; the importance weights follow
// the guards of LOCAL-SEARCH's sampling (Φ(0) = +Inf is never drawn,
// Φ(0) = 0 weighs as the smallest positive Φ(0)); with α < 1 a later
// feasible point is culled unless it is at least 3 % better, so φ_min is
// only improved, and ties keep the first.
//
// The Stats count this call (Computes = 1, Wins = 1 if found) and each
// Satisfy outcome. trace gets ComputeStart, the events of each Satisfy
// call (with Candidate and PhiMin set) and ComputeEnd. On cancellation
// Compute returns ctx.Err() with the best point found so far and the
// stats so far. It returns an error, before any work, for invalid Options
// or a Phi0 that is NaN or negative.
func Compute(ctx context.Context, candidates []Candidate, opts Options, rng *rand.Rand, trace func(Event)) (Result, Stats, error) {
	if err := opts.Validate(); err != nil {
		return Result{}, Stats{}, err
	}
	opts = opts.WithDefaults()
	phi0 := make([]float64, len(candidates))
	for n, c := range candidates {
		if math.IsNaN(c.Phi0) || c.Phi0 < 0 {
			return Result{}, Stats{}, fmt.Errorf("csp: candidate %d (j = %d) has Φ(0) = %v: want a number ≥ 0 or +Inf", n, c.J, c.Phi0)
		}
		phi0[n] = c.Phi0
	}
	weight, _ := importance(phi0)

	t0 := time.Now()
	var w0 int64 // the work counters are per Program: events count from each one's start
	emit := func(e Event) {
		if trace != nil {
			e.Seconds = time.Since(t0).Seconds()
			trace(e)
		}
	}
	emit(Event{Kind: ComputeStart, Phi: math.NaN(), PhiMin: math.Inf(1), Candidate: -1})

	var res Result
	stats := Stats{Computes: 1}
	phiMin := math.Inf(1)
	var err error
	for n := 0; n < opts.Samples; n++ { // line 2
		if err = ctx.Err(); err != nil {
			break
		}
		var total float64
		for _, w := range weight {
			total += w
		}
		if total == 0 { // line 3
			break
		}
		var c int
		if opts.Search == Walk {
			c = draw(rng, weight, total, -1, nil) // line 4
		} else {
			c = best(phi0, weight) // see Compute's decisions
		}
		weight[c] = 0
		cutoff := opts.Alpha * phiMin // line 5
		p := candidates[c].Program()
		if p == nil {
			panic(fmt.Sprintf("csp: candidate %d (j = %d) built a nil Program", c, candidates[c].J))
		}
		s := newSolver(ctx, p, opts, rng, trace, t0, p.Work()-w0)
		var o Outcome
		o, err = s.satisfy(cutoff, phiMin, c) // line 6
		stats.Add(o)
		w0 += o.Work
		if err != nil {
			break
		}
		if o.Status == OK && o.Phi < phiMin { // lines 7-8
			phiMin = o.Phi
			res = Result{Found: true, Candidate: c, J: candidates[c].J, Phi: o.Phi, Phi0: candidates[c].Phi0, Tau: o.Tau}
		}
	}
	if res.Found {
		stats.Wins = 1
	}
	emit(Event{Kind: ComputeEnd, Phi: math.NaN(), PhiMin: phiMin, Candidate: -1, Work: w0})
	return res, stats, err // line 9
}

// best returns the candidate of least Φ(0) among those of positive weight
// (not yet drawn, Φ(0) finite), the first of equal ones.
func best(phi0, weight []float64) int {
	c := -1
	for n, w := range weight {
		if w > 0 && (c < 0 || phi0[n] < phi0[c]) {
			c = n
		}
	}
	return c
}
