package dynskin

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// qpSums accumulates one vertex's least-squares problem (Eq. 16): with the
// columns cₖ (h² times the vertex's forces, see columns) and the residual
// r = p − a (the example position minus the position with no internal
// force), ‖Σₖ πₖcₖ − r‖² = πᵀQπ − 2bᵀπ + rr with Q = Σ cₖcₗ, b = Σ cₖ·r.
type qpSums struct {
	q  [nParams * nParams]float64 // symmetric; only k ≤ l are summed
	b  [nParams]float64
	rr float64
}

func (s *qpSums) add(c *columns, base, target mgl64.Vec3) {
	r := [3]float64{target[0] - base[0], target[1] - base[1], target[2] - base[2]}
	for k := 0; k < nParams; k++ {
		for l := k; l < nParams; l++ {
			s.q[k*nParams+l] += c[k][0]*c[l][0] + c[k][1]*c[l][1] + c[k][2]*c[l][2]
		}
		s.b[k] += c[k][0]*r[0] + c[k][1]*r[1] + c[k][2]*r[2]
	}
	s.rr += r[0]*r[0] + r[1]*r[1] + r[2]*r[2]
}

// solveQP minimises πᵀQπ − 2bᵀπ over the first n parameters (the others
// held at 0) subject to 0 ≤ π ≤ hi and the stability bound
// Σₖ wₖπₖ ≤ StabilityLimit (Material.Stability), exactly. A convex
// quadratic over a polytope has a minimiser in the relative interior of
// some face (each variable free, at its lower or at its upper bound; the
// bound active or not) at which the objective restricted to the face's
// affine hull has a unique minimiser (along a null direction of Q within
// the face the objective is linear, so it can be followed to a smaller
// face), and there it is that minimiser: the solution of the face's KKT
// system. solveQP enumerates the 3ⁿ faces of the box, skipping singular
// systems and keeping the feasible minimiser of least objective; if that
// one satisfies the bound it is optimal, else the optimum lies on the
// bound's hyperplane and the 3ⁿ faces are enumerated again with the bound
// as an equality. With n ≤ 5 that is at most 486 systems of at most 6
// unknowns.
func solveQP(s *qpSums, n int) (x [nParams]float64) {
	scale := 0.0
	for k := 0; k < n; k++ {
		scale = max(scale, s.q[k*nParams+k])
	}
	if !(scale > 0) {
		return x // no force moves this vertex: any parameters do; keep 0
	}
	faces := 1
	for range n {
		faces *= 3
	}
	for _, bound := range []bool{false, true} {
		best := math.Inf(1)
		found := false
		for face := 0; face < faces; face++ {
			var y [nParams]float64
			if !solveFace(s, n, face, bound, scale, &y) {
				continue
			}
			if obj := objective(s, n, &y); obj < best {
				best, x, found = obj, y, true
				if face == 0 && !bound {
					break // the unconstrained minimiser is feasible
				}
			}
		}
		if found && materialOf(&x).Stability() <= StabilityLimit*(1+1e-12) {
			return x
		}
	}
	return x
}

// solveFace solves the KKT system of one face (face in base 3: digit k 0
// free, 1 at 0, 2 at upper[k]; with bound, the stability bound as an
// equality) by Gaussian elimination with partial pivoting, and reports
// whether it is non-singular and its solution feasible.
func solveFace(s *qpSums, n, face int, bound bool, scale float64, y *[nParams]float64) bool {
	var state [nParams]int8
	var free [nParams]int
	nf := 0
	for k := 0; k < n; k++ {
		state[k] = int8(face % 3)
		face /= 3
		switch state[k] {
		case 0:
			free[nf] = k
			nf++
		case 2:
			y[k] = upper[k]
		}
	}
	if nf == 0 { // a vertex of the box: feasible for the box alone, on the bound only exactly
		return !bound || math.Abs(materialOf(y).Stability()-StabilityLimit) <= 1e-12*StabilityLimit
	}
	// Rows: Q_FF y_F (+ w_F ν) = b_F − Q_FB y_B; w_F·y_F = limit − w_B·y_B.
	const w = nParams + 2
	var a [(nParams + 1) * w]float64
	dim := nf
	if bound {
		dim++
	}
	for p := 0; p < nf; p++ {
		k := free[p]
		r := s.b[k]
		for l := 0; l < n; l++ {
			if state[l] != 0 {
				r -= qAt(s, k, l) * y[l]
			}
		}
		for q := 0; q < nf; q++ {
			a[p*w+q] = qAt(s, k, free[q])
		}
		if bound {
			a[p*w+nf] = stabilityWeights[k] * scale
		}
		a[p*w+dim] = r
	}
	if bound {
		r := StabilityLimit
		for l := 0; l < n; l++ {
			if state[l] != 0 {
				r -= stabilityWeights[l] * y[l]
			}
		}
		for q := 0; q < nf; q++ {
			a[nf*w+q] = stabilityWeights[free[q]] * scale
		}
		a[nf*w+dim] = r * scale
	}
	for c := 0; c < dim; c++ {
		piv := c
		for r := c + 1; r < dim; r++ {
			if math.Abs(a[r*w+c]) > math.Abs(a[piv*w+c]) {
				piv = r
			}
		}
		if !(math.Abs(a[piv*w+c]) > 1e-12*scale) {
			return false
		}
		if piv != c {
			for k := c; k <= dim; k++ {
				a[c*w+k], a[piv*w+k] = a[piv*w+k], a[c*w+k]
			}
		}
		for r := c + 1; r < dim; r++ {
			f := a[r*w+c] / a[c*w+c]
			for k := c; k <= dim; k++ {
				a[r*w+k] -= f * a[c*w+k]
			}
		}
	}
	var sol [nParams + 1]float64
	for r := dim - 1; r >= 0; r-- {
		v := a[r*w+dim]
		for k := r + 1; k < dim; k++ {
			v -= a[r*w+k] * sol[k]
		}
		sol[r] = v / a[r*w+r]
	}
	for p := 0; p < nf; p++ {
		k := free[p]
		if !(sol[p] >= 0 && sol[p] <= upper[k]) {
			return false
		}
		y[k] = sol[p]
	}
	return true
}

func qAt(s *qpSums, k, l int) float64 {
	if k > l {
		k, l = l, k
	}
	return s.q[k*nParams+l]
}

// objective returns yᵀQy − 2bᵀy + rr (≥ 0 up to rounding).
func objective(s *qpSums, n int, y *[nParams]float64) float64 {
	v := s.rr
	for k := 0; k < n; k++ {
		v -= 2 * s.b[k] * y[k]
		for l := 0; l < n; l++ {
			v += y[k] * qAt(s, k, l) * y[l]
		}
	}
	return v
}
