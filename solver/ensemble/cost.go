package ensemble

import (
	"math"

	"gallop/solver/rotation"
)

// D returns D_k(i, j), group k's cost of a transition from source frame i
// to source frame j (Eq. 3):
//
//	D_k(i, j) = ‖q_k(i) − q_k(j)‖² + β²‖q̇_k(i) − q̇_k(j)‖²
//
// plus, for a group with a frame of its own (see OwnFrame), the same two
// terms for its local frame:
//
//	v_k(‖O(i) − O(j)‖² + ρ_k²θ(i, j)²) + β²v_k(‖Ȯ(i) − Ȯ(j)‖² + ρ_k²‖ω(i) − ω(j)‖²)
//
// where O is the image of the rest centroid, θ(i, j) = |Log(R(i)ᵀR(j))|
// the angle between the rotations, ω the angular velocity, ρ_k the RMS
// radius of the rest shape about its centroid and v_k the number of
// vertices. The paper's frames follow from the parents' q (§2.1); ours
// are fitted, so a jump of the frame must cost, and v_k(‖ΔO‖² + ρ²θ²)
// is, for small θ, the squared vertex displacement of the rigid jump
// summed over the group, the units of ‖Δq‖² (U_k is orthonormal, so
// ‖Δq‖² is the summed squared displacement of the vertices). An attached
// group's frame follows its parent's patch and costs nothing of its own.
func (m *Model) D(k int, i, j State) float64 {
	return m.d(k, m.index(i), m.index(j))
}

// Distance returns Φ(0; i, j) = Σ_k D_k(i, j), the cost of the
// synchronous transition from i to j.
func (m *Model) Distance(i, j State) float64 {
	a, b := m.index(i), m.index(j)
	sum := 0.0
	for k := range m.groups {
		sum += m.d(k, a, b)
	}
	return sum
}

// d is D_k between state indices a and b.
func (m *Model) d(k, a, b int) float64 {
	g := &m.groups[k]
	r := g.Rank
	beta2 := m.opts.Beta * m.opts.Beta
	qa, qb := g.Q[a*r:(a+1)*r], g.Q[b*r:(b+1)*r]
	va, vb := g.QDot[a*r:(a+1)*r], g.QDot[b*r:(b+1)*r]
	pos, vel := 0.0, 0.0
	for c := range r {
		dq, dv := qa[c]-qb[c], va[c]-vb[c]
		pos += dq * dq
		vel += dv * dv
	}
	if g.Own {
		fa, fb := &g.frames[a], &g.frames[b]
		rho2, n := g.Radius*g.Radius, float64(g.Count)
		theta := rotation.Log(fa.R.Transpose().Mul3(fb.R)).Len()
		pos += n * (fa.O.Sub(fb.O).LenSqr() + rho2*theta*theta)
		vel += n * (fa.ODot.Sub(fb.ODot).LenSqr() + rho2*fa.Omega.Sub(fb.Omega).LenSqr())
	}
	return pos + beta2*vel
}

// phiTable returns Φ_k(τ) = D_k(a+τ, b+τ) (Eq. 4) for every group k and
// τ = −τ_max … τ_max, at [k·(2τ_max+1) + τ + τ_max]; +Inf where a+τ or
// b+τ falls outside its level.
func (m *Model) phiTable(a, b State) []float64 {
	T := m.opts.TauMax
	n := 2*T + 1
	out := make([]float64, len(m.groups)*n)
	for t := -T; t <= T; t++ {
		ia, ib := m.inLevel(a, t), m.inLevel(b, t)
		for k := range m.groups {
			v := math.Inf(1)
			if ia >= 0 && ib >= 0 {
				v = m.d(k, ia, ib)
			}
			out[k*n+t+T] = v
		}
	}
	return out
}

// inLevel returns the state index of s.Frame + ds in s's level, −1 when
// that frame does not exist.
func (m *Model) inLevel(s State, ds int) int {
	f := s.Frame + ds
	if s.Level < 0 || s.Level >= len(m.data.Levels) || f < 0 || f >= len(m.data.Levels[s.Level].Frames) {
		return -1
	}
	return m.levels[s.Level] + f
}

// minimize returns in tau the unconstrained minimum of the separable
// Φ(τ) = Σ_k Φ_k(τ_k) (Eq. 5: each τ_k minimises its own Φ_k; ties go to
// the smaller |τ|, then to the negative one) and Φ there.
func minimize(tau []int, phi []float64, T int) float64 {
	n := 2*T + 1
	sum := 0.0
	for k := range tau {
		row := phi[k*n : (k+1)*n]
		best := 0
		for _, t := range tauOrder(T) {
			if row[t+T] < row[best+T] {
				best = t
			}
		}
		tau[k] = best
		sum += row[best+T]
	}
	return sum
}

// tauOrder returns 0, −1, 1, −2, 2, … −T, T: offsets by increasing |τ|.
func tauOrder(T int) []int {
	out := make([]int, 0, 2*T+1)
	out = append(out, 0)
	for t := 1; t <= T; t++ {
		out = append(out, -t, t)
	}
	return out
}
