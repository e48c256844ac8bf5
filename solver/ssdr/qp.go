package ssdr

import "math"

// maxK bounds the number of candidate bones per vertex that simplexQP
// solves over without allocating.
const maxK = 16

// simplexQP solves the small convex problem of one vertex's weights,
//
//	min ½xᵀAx − bᵀx  s.t. x ≥ 0, Σx = 1,
//
// A symmetric positive semi-definite n×n, by the active-set method of
// Lawson and Hanson extended to the equality constraint (as Dem Bones'
// ConvexLS): on the passive set P the equality-constrained minimiser is
// z = A_PP⁻¹(b_P − μ1) with μ chosen so that Σz = 1; if z > 0 the iterate
// moves to z and the bone of largest KKT violation bᵢ − (Ax)ᵢ − μ > 0
// joins P, otherwise the iterate moves toward z until a weight reaches 0,
// which leaves P. It starts from the feasible x given (warm start).
type simplexQP struct {
	n       int
	a       []float64 // n×n, row-major
	b, x    []float64
	passive [maxK]bool
	buf     [2*maxK*maxK + 3*maxK]float64
}

// reset sizes the problem for n ≤ maxK unknowns and zeroes x.
func (q *simplexQP) reset(n int) {
	if n > maxK {
		panic("ssdr: more than 16 candidate bones per vertex")
	}
	q.n = n
	q.a = q.buf[:n*n]
	q.b = q.buf[maxK*maxK : maxK*maxK+n]
	q.x = q.buf[maxK*maxK+maxK : maxK*maxK+maxK+n]
	clear(q.x)
}

// solve replaces x, a feasible start, by the minimiser.
func (q *simplexQP) solve() {
	n := q.n
	if n == 1 {
		q.x[0] = 1
		return
	}
	z := q.buf[maxK*maxK+2*maxK : maxK*maxK+2*maxK+n]
	for i := range n {
		q.passive[i] = q.x[i] > 0
	}
	const tol = 1e-12
	for range 4 * n {
		mu := q.equality(z)
		feasible := true
		for i := range n {
			if q.passive[i] && z[i] <= 0 {
				feasible = false
			}
		}
		if feasible {
			copy(q.x, z)
			add, worst := -1, tol
			for i := range n {
				if q.passive[i] {
					continue
				}
				g := q.b[i] - mu
				for c := range n {
					g -= q.a[i*n+c] * q.x[c]
				}
				if g > worst {
					add, worst = i, g
				}
			}
			if add < 0 {
				return
			}
			q.passive[add] = true
			continue
		}
		// Move toward z until the first passive weight reaches 0.
		alpha, block := 1.0, -1
		for i := range n {
			if q.passive[i] && z[i] <= 0 {
				if t := q.x[i] / (q.x[i] - z[i]); t < alpha {
					alpha, block = t, i
				}
			}
		}
		left := 0
		for i := range n {
			if !q.passive[i] {
				continue
			}
			q.x[i] += alpha * (z[i] - q.x[i])
			if i == block || q.x[i] <= tol {
				q.x[i], q.passive[i] = 0, false
				continue
			}
			left++
		}
		if left == 0 { // cannot happen in exact arithmetic; keep x feasible
			q.x[block], q.passive[block] = 1, true
			return
		}
		q.normalise()
	}
}

// normalise rescales x to sum to 1.
func (q *simplexQP) normalise() {
	s := 0.0
	for _, v := range q.x {
		s += v
	}
	for i := range q.x {
		q.x[i] /= s
	}
}

// equality sets z (zero off P) to the minimiser on the passive set P under
// Σz = 1 and returns its multiplier μ: with A_PP·y = b_P and A_PP·e = 1,
// μ = (Σy − 1)/Σe and z = y − μe. A_PP is factored by Cholesky with its
// pivots floored at 10⁻¹³ of its largest diagonal, so a singular A (two
// bones moving alike) still gives a finite minimiser.
func (q *simplexQP) equality(z []float64) float64 {
	n := q.n
	var idx [maxK]int
	p := 0
	for i := range n {
		z[i] = 0
		if q.passive[i] {
			idx[p] = i
			p++
		}
	}
	l := q.buf[maxK*maxK+3*maxK : maxK*maxK+3*maxK+p*p]
	big := 0.0
	for r := range p {
		big = max(big, q.a[idx[r]*n+idx[r]])
	}
	floor := 1e-13*big + math.SmallestNonzeroFloat64
	for r := range p {
		for c := 0; c <= r; c++ {
			s := q.a[idx[r]*n+idx[c]]
			for e := range c {
				s -= l[r*p+e] * l[c*p+e]
			}
			if r == c {
				l[r*p+r] = math.Sqrt(max(s, floor))
			} else {
				l[r*p+c] = s / l[c*p+c]
			}
		}
	}
	var y, e [maxK]float64
	for r := range p {
		y[r], e[r] = q.b[idx[r]], 1
	}
	cholSolve(l, p, y[:p])
	cholSolve(l, p, e[:p])
	sy, se := 0.0, 0.0
	for r := range p {
		sy += y[r]
		se += e[r]
	}
	mu := (sy - 1) / se
	for r := range p {
		z[idx[r]] = y[r] - mu*e[r]
	}
	return mu
}

// cholSolve solves L·Lᵀ·x = v in place, L p×p lower triangular, row-major.
func cholSolve(l []float64, p int, v []float64) {
	for r := range p {
		s := v[r]
		for c := range r {
			s -= l[r*p+c] * v[c]
		}
		v[r] = s / l[r*p+r]
	}
	for r := p - 1; r >= 0; r-- {
		s := v[r]
		for c := r + 1; c < p; c++ {
			s -= l[c*p+r] * v[c]
		}
		v[r] = s / l[r*p+r]
	}
}
