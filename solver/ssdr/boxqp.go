package ssdr

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// boxQP solves the convex problem of the joints,
//
//	min ½xᵀAx − bᵀx  s.t. lo ≤ x ≤ hi,
//
// A symmetric positive definite, by the primal active-set method (Nocedal
// and Wright, "Numerical Optimization", 2006, Algorithm 16.3, for bound
// constraints): with the working set W of coordinates held at a bound,
// the minimiser z of the free coordinates F (A_FF z = b_F − A_FW x_W, by
// Cholesky); if z is inside the box the iterate moves to it and the held
// coordinate whose multiplier has the wrong sign (the gradient g = Ax − b
// pointing into the box) is freed, the problem solved when none has;
// otherwise the iterate moves toward z until a free coordinate reaches its
// bound, which joins W. Every step lowers the objective, so the result is
// never worse than the start x, which must be inside the box (a
// coordinate whose bounds meet is fixed at them); x is
// replaced by the minimiser. It returns false when a free block is not
// positive definite (x is then the last iterate, inside the box).
func boxQP(a *mat.SymDense, b, lo, hi, x []float64) bool {
	n := len(b)
	held := make([]int8, n) // −1 at lo, +1 at hi, 0 free
	for i := range n {
		if lo[i] >= hi[i] {
			x[i], held[i] = lo[i], -1 // a coordinate the box fixes
		}
	}
	scale := 0.0
	for i := range n {
		scale = max(scale, math.Abs(b[i]))
	}
	tol := 1e-12 * max(scale, 1) // a multiplier below it counts as 0
	free := make([]int, 0, n)
	z := make([]float64, n)
	var ch mat.Cholesky
	for range 4*n + 8 {
		free = free[:0]
		for i := range n {
			if held[i] == 0 {
				free = append(free, i)
			}
		}
		if len(free) > 0 {
			af := mat.NewSymDense(len(free), nil)
			rf := mat.NewVecDense(len(free), nil)
			for p, i := range free {
				r := b[i]
				for c := range n {
					if held[c] != 0 {
						r -= a.At(i, c) * x[c]
					}
				}
				rf.SetVec(p, r)
				for q := p; q < len(free); q++ {
					af.SetSym(p, q, a.At(i, free[q]))
				}
			}
			if !ch.Factorize(af) {
				return false
			}
			var sol mat.VecDense
			if err := ch.SolveVecTo(&sol, rf); err != nil {
				return false
			}
			for p, i := range free {
				z[i] = sol.AtVec(p)
			}
		}
		// Step toward z, stopped by the first bound met.
		step, block := 1.0, -1
		for _, i := range free {
			d := z[i] - x[i]
			var s float64
			switch {
			case z[i] < lo[i] && d < 0:
				s = (lo[i] - x[i]) / d
			case z[i] > hi[i] && d > 0:
				s = (hi[i] - x[i]) / d
			default:
				continue
			}
			if s < step {
				step, block = max(s, 0), i
			}
		}
		for _, i := range free {
			x[i] += step * (z[i] - x[i])
		}
		if block >= 0 {
			if z[block] < lo[block] {
				x[block], held[block] = lo[block], -1
			} else {
				x[block], held[block] = hi[block], 1
			}
			continue
		}
		// At the free minimiser: free the worst held coordinate whose
		// gradient points into the box.
		release, worst := -1, 0.0
		for i := range n {
			if held[i] == 0 || lo[i] >= hi[i] {
				continue
			}
			g := -b[i]
			for c := range n {
				g += a.At(i, c) * x[c]
			}
			// At lo the objective must not fall as xᵢ rises (g ≥ 0); at
			// hi it must not fall as xᵢ drops (g ≤ 0).
			v := -g
			if held[i] > 0 {
				v = g
			}
			if v > tol && v > worst {
				release, worst = i, v
			}
		}
		if release < 0 {
			return true
		}
		held[release] = 0
	}
	return true
}
