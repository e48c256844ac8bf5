package csp

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// variable is one τ_k: its costs Φ_k(τ) for τ = −TauMax … TauMax (index
// τ + TauMax), their argmin and the importance weights of LOCAL-SEARCH's
// line 2.
type variable struct {
	phi     []float64
	weight  []float64 // importance ∝ 1/Φ_k, see importance
	total   float64   // Σ weight
	argmin  int       // index of the unconstrained minimum (Eq. 5)
	movable bool      // Φ_k is finite at two values at least
}

func newVariable(p Program, k, tmax int) variable {
	v := variable{phi: make([]float64, 2*tmax+1)}
	finite := 0
	for i := range v.phi {
		f := p.Phi(k, i-tmax)
		if math.IsNaN(f) || f < 0 {
			panic(fmt.Sprintf("csp: Φ_%d(%d) = %v: want a number ≥ 0 or +Inf", k, i-tmax, f))
		}
		v.phi[i] = f
		if !math.IsInf(f, 1) {
			finite++
		}
		// Ties: the smaller |τ|, then the negative τ.
		if i == 0 || f < v.phi[v.argmin] || f == v.phi[v.argmin] && abs(i-tmax) < abs(v.argmin-tmax) {
			v.argmin = i
		}
	}
	v.movable = finite >= 2
	v.weight, v.total = importance(v.phi)
	return v
}

// importance returns weights w_i ∝ 1/Φ_i and their sum, the importance
// distribution of LOCAL-SEARCH's line 2 and of COMPUTE-MEMG-TRANSITION's
// line 4, with these guards:
//
//   - Φ_i = +Inf (an infeasible τ, or a j without a program): weight 0,
//     never drawn.
//   - Φ_i = 0 would take all the probability (1/0): it is weighted as the
//     smallest positive Φ of the list instead, the most likely value but
//     not a certain one, so that the walk stays random. If every finite
//     Φ is 0, all finite values weigh alike.
//   - The weights are Φ_min⁺/Φ_i ∈ (0, 1], Φ_min⁺ the smallest positive
//     Φ, so neither tiny nor huge Φ overflow the sum.
func importance(phi []float64) ([]float64, float64) {
	floor := math.Inf(1)
	for _, f := range phi {
		if f > 0 && f < floor {
			floor = f
		}
	}
	w := make([]float64, len(phi))
	var total float64
	for i, f := range phi {
		switch {
		case math.IsInf(f, 1):
		case f == 0 || math.IsInf(floor, 1):
			w[i] = 1
		default:
			w[i] = floor / f
		}
		total += w[i]
	}
	return w, total
}

// sample draws an index other than cur with probability ∝ weight, from
// rng. If the weights of the others sum to 0 (they underflowed next to a
// tiny Φ_min⁺), it draws uniformly among the other finite values. It
// returns cur only if no other value is finite.
func (v *variable) sample(rng *rand.Rand, cur int) int {
	return draw(rng, v.weight, v.total-v.weight[cur], cur, func(i int) bool { return !math.IsInf(v.phi[i], 1) })
}

// draw picks an index i ≠ skip with probability weight[i]/total, total
// being the sum of the weights but skip's; skip < 0 skips none. When the
// total is not positive it picks uniformly among the indices ≠ skip where
// ok holds, and returns skip if there are none.
func draw(rng *rand.Rand, weight []float64, total float64, skip int, ok func(int) bool) int {
	if total > 0 {
		r := rng.Float64() * total
		last := -1
		for i, w := range weight {
			if i == skip || w == 0 {
				continue
			}
			last = i
			if r < w {
				return i
			}
			r -= w
		}
		if last >= 0 {
			return last // rounding: r ran past the last weight
		}
	}
	n := 0
	for i := range weight {
		if i != skip && ok(i) {
			n++
		}
	}
	if n == 0 {
		return skip
	}
	r := rng.IntN(n)
	for i := range weight {
		if i != skip && ok(i) {
			if r == 0 {
				return i
			}
			r--
		}
	}
	return skip
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
