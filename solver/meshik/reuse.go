package meshik

import (
	"errors"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/parallel"
)

// Iterations that reuse the weight system (Gallop's; the paper forms it
// anew every iteration).
//
// The weight system of a Gauss-Newton step, S = D̃ᵀD̃ − YᵀY (see Solver),
// depends on the weights w only (and on the handle set and the frozen
// triangles): not on the positions or the targets. Forming it is most of
// an iteration's cost, 3(l + 1) columns through the triangular solves and
// two Gram matrices over every row. A reusing iteration keeps the last
// full one's S̄ and works on the objective with the positions eliminated,
// f(w) = min_x ‖Ǧ·x − b̃(w)‖² (variable projection: Golub and Pereyra
// 1973, in Kaufman's 1975 Gauss-Newton form, whose normal matrix
// D̃ᵀ(I − Ǧ·K⁻¹Ǧᵀ)D̃ is exactly S):
//
//	x_b = K⁻¹·Ǧᵀ·b̃(w)          (the best positions for w: one three-column solve)
//	r   = D̃ᵀ·(Ǧ·x_b − b̃)       (−½ of f's gradient, the step's right-hand side)
//	δ   = S̄⁻¹·(r − k²w − p²(w − w₀))
//
// one evaluation of M(w) and one adjoint per triangle (the space's
// LineariseRange and AdjointRange, no Jacobian). The positions shown are
// x_b, the best for the weights the iteration started from; the next
// iteration puts them at the best for w + δ. The step is the full one's
// but for S̄ in place of S: its fixed point is the same (the gradient is
// exact), and while the weights move little between iterations, as during
// a drag, S̄ ≈ S and the iterations converge nearly as fast for a
// fraction of the cost. Between two reusing iterations for the same
// targets S̄ is corrected along the step just taken (secantUpdate), so
// that it follows S as the weights move. The gain ratio ρ compares f's
// decrease with the decrease the step's model f − 2rᵀδ + δᵀS̄δ promised,
// and so judges S̄ too: a full iteration forms S again after maxReuse
// reusing ones, whenever a step falls short (ρ below reuseRatio, or
// damping at work), and after anything that changes S or jumps the
// weights (SetHandles, SetFrozen, SetWeights, FitWeights,
// StartFromLinear, Reconstruct). Options.Exact turns the reuse off.

// errStale is reuseStep's report that the kept weight system cannot be
// used for this step; Iterate then takes a full one.
var errStale = errors.New("meshik: the kept weight system does not solve")

// maxReuse is the most iterations in a row that reuse a weight system.
const maxReuse = 8

// reuseRatio is the gain ratio a step must reach for the next to reuse
// its weight system.
const reuseRatio = 0.5

// invalidateSystem forgets the last full iteration's weight system.
func (s *Solver) invalidateSystem() { s.sys, s.secOK = nil, false }

// reusing reports whether the next iteration may reuse the weight system.
func (s *Solver) reusing() bool {
	return !s.opts.Exact && s.main.l >= minReuseWeights && s.sys != nil && !s.confirm && s.mu == 0 &&
		s.sysAge < maxReuse && s.lastRho >= reuseRatio
}

// minReuseWeights is the fewest weights for which iterations reuse the
// weight system. With few weights a full iteration's solves have few
// columns and cost about what the three-column solve and two passes over
// the triangles of a reusing one do; at 4 weights reusing is already
// faster (a drag update of the horse with 4 examples 7.6-8.2 ms against
// 8.1-9.6 ms, the horse subdivided once 30-37 ms against 36-44 ms).
const minReuseWeights = 4

// PrepareSystem forms the weight system at the current weights and
// handles, as a full iteration would, without taking a step: for a solver
// that waits for a drag (the Pose tool after Make handle), whose first
// iteration can then reuse it. It does nothing when iterations would not
// reuse a system (Options.Exact, few weights) or there are no handles.
func (s *Solver) PrepareSystem() {
	bl := s.main
	if !s.ready || s.opts.Exact || bl.l < minReuseWeights {
		return
	}
	sm := s.prepare(bl, true, true)
	s.keepSystem(bl.l, sm, s.halfSolve(bl))
}

// keepSystem keeps the weight system S = D̃ᵀD̃ − YᵀY of a full
// linearisation (sm, and gy from halfSolve) for the iterations that reuse
// it, which start anew from it.
func (s *Solver) keepSystem(l int, sm sums, gy []float64) {
	v := l + 1
	if len(s.sys) != l*l {
		s.sys = make([]float64, l*l)
	}
	for a := 0; a < l; a++ {
		for c := 0; c < l; c++ {
			s.sys[a*l+c] = sm.jj[a*l+c] - gy[a*v+c]
		}
	}
	s.sysAge, s.lastRho, s.confirm, s.secOK = 0, 1, false, false
}

// secantUpdate corrects the kept weight system along the last reusing
// step (Broyden-Fletcher-Goldfarb-Shanno): with δ that step and
// y = r_before − r the change it made to the right-hand side (r is −½ the
// gradient of f's data term, so y ≈ S·δ),
//
//	S̄ ← S̄ + y·yᵀ/(yᵀδ) − (S̄δ)(S̄δ)ᵀ/(δᵀS̄δ),
//
// which keeps S̄ symmetric positive definite when yᵀδ > 0 (skipped
// otherwise) and makes it agree with the objective's curvature along δ.
// S depends on the weights only, and the correction carries its change
// between full iterations along the path the weights take (a drag's),
// the reason reused steps fall short.
func (s *Solver) secantUpdate(rhs []float64) {
	l := len(rhs)
	y := make([]float64, l)
	sd := make([]float64, l)
	ys, dsd := 0.0, 0.0
	for a := 0; a < l; a++ {
		y[a] = s.secRHS[a] - rhs[a]
		ys += y[a] * s.secStep[a]
		v := 0.0
		for c := 0; c < l; c++ {
			v += s.sys[a*l+c] * s.secStep[c]
		}
		sd[a] = v
		dsd += v * s.secStep[a]
	}
	if dsd <= 0 || ys <= 1e-10*dsd {
		return
	}
	for a := 0; a < l; a++ {
		for c := 0; c < l; c++ {
			s.sys[a*l+c] += y[a]*y[c]/ys - sd[a]*sd[c]/dsd
		}
	}
}

// reuseSums are what a reusing iteration's passes give: the objective at
// the best positions for the current weights, f = ‖Ǧ·x_b − b̃‖², and the
// step's right-hand side D̃ᵀ(Ǧ·x_b − b̃) (without regularisers), which is
// −½ of f's gradient.
type reuseSums struct {
	f   float64
	rhs []float64
	bt  []float64 // per triangle six numbers: b̃, laid out as triangleRows lays a row's (2r + a)
	lin []float64 // the space's linearisation per triangle (ls numbers)
	ls  int       // the space's LinSize
}

// reusePrepare puts the pose at the best positions for the current
// weights (bestPositions) and takes the residual there through the
// space's adjoint: the objective and the right-hand side of reuseSums.
func (s *Solver) reusePrepare(bl *spaceState) reuseSums {
	l := bl.l
	rs := s.bestPositions(bl)
	xb := s.xs.RawMatrix().Data[:3*s.n]
	ls := rs.ls
	// Rotating groups turn with the weights (turnJacobian).
	turning := len(s.groups) > 0 && l > 0 && bl == s.main
	if turning {
		s.turnJacobian()
	}
	// r = Ǧ·x_b − b̃ per triangle, ‖r‖² and D̃ᵀ·r through the cotangents
	// H·r of each triangle (zero on frozen ones, whose features do not
	// move), plus the turn's share of a triangle with a corner in a
	// rotating group (turnColumns' columns applied to r).
	gs := reduce(s.m, 1+l, func(lo, hi int, acc []float64) {
		var vr [evalBlock]mgl64.Mat3
		for j := lo; j < hi; j += evalBlock {
			je := min(hi, j+evalBlock)
			for jj := j; jj < je; jj++ {
				tri, g := s.grad.Triangle(jj), &s.gp[jj]
				b := rs.bt[6*jj : 6*jj+6]
				var xt [3]mgl64.Vec3
				for c, v := range tri {
					xt[c] = mgl64.Vec3{xb[3*v], xb[3*v+1], xb[3*v+2]}
				}
				r := gradCorners(g, &xt)
				for i := range r {
					r[i] -= b[i]
					acc[0] += r[i] * r[i]
				}
				if turning && s.gtri[jj] {
					s.turnAdjoint(tri, g, r[:], acc[1:])
				}
				if s.frozen[jj] {
					vr[jj-j] = mgl64.Mat3{}
					continue
				}
				s.cotangent(jj, r[:], &vr[jj-j])
			}
			if bl.space != nil {
				bl.space.AdjointRange(rs.lin[j*ls:je*ls], vr[:je-j], acc[1:], j, je)
			}
		}
	})
	rs.f, rs.rhs = gs[0], gs[1:]
	return rs
}

// bestPositions moves the constrained vertices to their targets,
// evaluates M(w) once (b̃ per triangle into rs.bt, the space's
// linearisation into rs.lin) and puts the free vertices at
// x_b = K⁻¹·Ǧᵀ·b̃, the best positions for the current weights (also left
// in s.xs). rs.f and rs.rhs are not set.
func (s *Solver) bestPositions(bl *spaceState) reuseSums {
	for _, v := range s.fixedList {
		s.x[v] = s.target[v]
	}
	rs := reuseSums{bt: s.rows[:6*s.m]}
	if bl.space != nil {
		rs.ls = bl.space.LinSize()
	}
	ls := rs.ls
	rs.lin = s.rows[6*s.m : (6+ls)*s.m]
	parallel.Chunks(s.m, reduceChunk, func(lo, hi int) {
		var t [evalBlock]mgl64.Mat3
		for j := lo; j < hi; j += evalBlock {
			je := min(hi, j+evalBlock)
			if bl.space != nil {
				bl.space.LineariseRange(bl.w, t[:je-j], rs.lin[j*ls:je*ls], j, je)
			} else {
				for jj := j; jj < je; jj++ {
					t[jj-j] = mgl64.Ident3()
				}
			}
			for jj := j; jj < je; jj++ {
				if s.frozen[jj] {
					t[jj-j] = s.fgrad[jj]
				}
				var cr corners
				s.cornersOf(jj, &cr)
				s.target6(jj, &t[jj-j], &cr, rs.bt[6*jj:6*jj+6])
			}
		}
	})
	xb := s.solveField(rs.bt)
	for u := 0; u < s.n; u++ {
		if !s.fixed[u] {
			s.x[u] = mgl64.Vec3{xb[3*u], xb[3*u+1], xb[3*u+2]}
		}
	}
	return rs
}

// Place puts the constrained vertices at their targets (a rotating
// group turned as the weights turn it) and the free ones
// at the best positions for the current weights: Eq. 3 at fixed weights,
// min_x ‖Ǧx − M(w)‖², one evaluation of M(w) and one three-column solve
// (no derivatives, no weight system). Coarse uses it to show, on the full
// mesh, the weights a coarse solve found. The next Iterate starts from
// there.
func (s *Solver) Place() error {
	if !s.ready {
		return errors.New("meshik: no constraints set (SetHandles)")
	}
	s.turn()
	s.bestPositions(s.main)
	s.resetConvergence()
	return nil
}

// target6 writes triangle j's b̃ (see triangleRows) for its features t and
// corners cr: the projected rows of t less the constrained corners' share.
func (s *Solver) target6(j int, t *mgl64.Mat3, cr *corners, b []float64) {
	g, h := &s.gp[j], &s.hp[j]
	b = b[:6]
	for r := 0; r < 3; r++ {
		b[2*r] = h[0]*t[r] + h[2]*t[3+r] + h[4]*t[6+r]
		b[2*r+1] = h[1]*t[r] + h[3]*t[3+r] + h[5]*t[6+r]
	}
	if cr.fixed == [3]bool{} {
		return
	}
	// The constrained corners' share, with the free corners at 0.
	var xc [3]mgl64.Vec3
	for c := range xc {
		if cr.fixed[c] {
			xc[c] = cr.x[c]
		}
	}
	fx := gradCorners(g, &xc)
	for i := range b {
		b[i] -= fx[i]
	}
}

// cotangent sets v to the features' cotangent H·ρ of six projected
// numbers ρ of triangle j: v[3c + r] = Σ_a H[c][a]·ρ[2r + a], so that
// ⟨dT, v⟩ = Σ ρ·(Hᵀ-projected dT).
func (s *Solver) cotangent(j int, rho []float64, v *mgl64.Mat3) {
	h := &s.hp[j]
	for c := 0; c < 3; c++ {
		for r := 0; r < 3; r++ {
			v[3*c+r] = h[2*c]*rho[2*r] + h[2*c+1]*rho[2*r+1]
		}
	}
}

// solveField returns K⁻¹·Ǧᵀ·p for a field p of six numbers per triangle,
// as n positions (3n numbers, vertex order; 0 for the constrained
// vertices, whose rows the Dirichlet system decouples).
func (s *Solver) solveField(p []float64) []float64 {
	rhs := s.half[:3*s.n]
	parallel.Chunks(s.n, 1024, func(lo, hi int) {
		for _, u32 := range s.gatherOrder[lo:hi] {
			u := int(u32)
			row := rhs[3*u : 3*u+3]
			row[0], row[1], row[2] = 0, 0, 0
			if s.fixed[u] {
				continue
			}
			for q := s.incPtr[u]; q < s.incPtr[u+1]; q++ {
				j, c := int(s.incTri[q]), s.incCoef[q]
				f := p[6*j : 6*j+6]
				row[0] += c[0]*f[0] + c[1]*f[1]
				row[1] += c[0]*f[2] + c[1]*f[3]
				row[2] += c[0]*f[4] + c[1]*f[5]
			}
		}
	})
	dst := s.xs.RawMatrix().Data[:3*s.n]
	s.ws.Solve(mat.NewDense(s.n, 3, dst), mat.NewDense(s.n, 3, rhs))
	return dst
}

// reuseStep is step with the last full iteration's weight system S̄ (see
// reusePrepare): δ = S̄⁻¹·(r − k²w − p²(w − w₀)), and the value there of
// the model the step minimises, f − 2rᵀδ + δᵀS̄δ + regularisers (the
// linearised objective with the positions eliminated, S̄ for S). The
// positions stay x_b, the best for the weights the step left; the next
// iteration puts them at the best for the new weights.
func (s *Solver) reuseStep(bl *spaceState, rs reuseSums, kk, pp []float64) ([]float64, float64, error) {
	l := bl.l
	delta := make([]float64, l)
	model := rs.f
	if l > 0 {
		reg, rhs := make([]float64, l), make([]float64, l)
		for a := range rhs {
			reg[a] = kk[a] + pp[a]
			rhs[a] = rs.rhs[a] - kk[a]*bl.w[a] - pp[a]*(bl.w[a]-bl.w0[a])
		}
		if !solveWeights(l, func(a, c int) float64 { return s.sys[a*l+c] }, reg, 0, rhs, delta) {
			// The kept system was positive definite only with the
			// damping of its own step: form it anew.
			return nil, 0, errStale
		}
		for a := 0; a < l; a++ {
			sd := 0.0
			for c := 0; c < l; c++ {
				sd += s.sys[a*l+c] * delta[c]
			}
			model += delta[a] * (sd - 2*rs.rhs[a])
		}
	}
	model = max(model, 0)
	for a := range delta {
		bl.w[a] += delta[a]
		dw := bl.w[a] - bl.w0[a]
		model += kk[a]*bl.w[a]*bl.w[a] + pp[a]*dw*dw
	}
	return delta, model, nil
}

// reduceChunk is the number of items per partial sum of reduce: fixed, so
// sums do not depend on the number of cores.
const reduceChunk = 1024

// reduce runs fn over [0, n) in chunks of reduceChunk, in parallel, each
// chunk accumulating into its own zeroed slice of width numbers, and
// returns their sum taken in chunk order: a parallel reduction whose
// result does not depend on scheduling.
func reduce(n, width int, fn func(lo, hi int, acc []float64)) []float64 {
	nc := (n + reduceChunk - 1) / reduceChunk
	part := make([]float64, nc*width)
	parallel.For(nc, func(c int) {
		fn(c*reduceChunk, min(n, (c+1)*reduceChunk), part[c*width:(c+1)*width])
	})
	sum := make([]float64, width)
	for c := 0; c < nc; c++ {
		for i, v := range part[c*width : (c+1)*width] {
			sum[i] += v
		}
	}
	return sum
}
