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
// two Gram matrices over every row, while the rest of the step needs
// only the gradient, which three-column solves give exactly:
//
//	x_b = K⁻¹·Ǧᵀ·b̃             (the best positions for the current w)
//	r   = D̃ᵀ·(Ǧ·x_b − b̃)       (= Yᵀz − D̃ᵀb̃, the step's right-hand side)
//	δ   = S̄⁻¹·(r − k²w − p²(w − w₀))
//	x   = K⁻¹·Ǧᵀ·(b̃ + D̃·δ)      (the positions for w + δ, as a full step's)
//
// with S̄ the weight system of the last full iteration. D̃ᵀ(·) and D̃·δ
// come from the space's AdjointRange and DirectionalRange, a blend each
// per triangle, without the Jacobian. The step is the full one's but for
// S̄ in place of S: its fixed point is the same (the gradient is exact),
// and while the weights move little between iterations, as during a drag,
// S̄ ≈ S and the iterations converge nearly as fast for a fraction of the
// cost (reuseIterations). A full iteration forms S again after
// maxReuse reusing ones, whenever a step falls short of the decrease the
// model promised (the Levenberg-Marquardt gain ratio ρ below
// reuseRatio, or damping at work), and after anything that changes S
// or jumps the weights (SetHandles, SetFrozen, SetWeights, FitWeights,
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
func (s *Solver) invalidateSystem() { s.sys = nil }

// reusing reports whether the next iteration may reuse the weight system.
func (s *Solver) reusing() bool {
	return !s.opts.Exact && s.main.l >= minReuseWeights && s.sys != nil && !s.confirm && s.mu == 0 &&
		s.sysAge < maxReuse && s.lastRho >= reuseRatio
}

// minReuseWeights is the fewest weights for which iterations reuse the
// weight system. With few weights a full iteration's solves have few
// columns, and the two three-column solves and three passes over the
// triangles of a reusing one cost as much or more (the horse with 4
// examples: 21 ms per drag update reusing, 16 ms not; the lion with 9:
// 16 ms and 22 ms; horse-gallop with 47, 24 weights: 44 ms and 70 ms).
const minReuseWeights = 8

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
	s.sysAge, s.lastRho, s.confirm = 0, 1, false
}

// reuseSums are what a reusing iteration's first passes give: the
// objective ẽᵀẽ, its gradient −2·D̃ᵀẽ and the step's right-hand side
// D̃ᵀ(Ǧ·x_b − b̃) (without regularisers).
type reuseSums struct {
	f          float64
	grad, rhs  []float64
	bt, et, vt []float64 // per triangle six numbers: b̃, ẽ, and (later) v = b̃ + D̃δ
	lin        []float64 // the space's linearisation per triangle (LinSize numbers)
}

// field6 is the storage of one number per projected row: six per
// triangle, laid out as triangleRows lays a row's b̃ (2r + a).
func (s *Solver) field6(k int) []float64 { return s.rows[6*s.m*k : 6*s.m*(k+1)] }

// reusePrepare moves the constrained vertices to their targets and makes
// a reusing iteration's sums: b̃ and ẽ per triangle (one evaluation of
// M(w)), x_b, then the gradient and the right-hand side (two adjoints).
func (s *Solver) reusePrepare(bl *spaceState) reuseSums {
	for _, v := range s.fixedList {
		s.x[v] = s.target[v]
	}
	l := bl.l
	rs := reuseSums{bt: s.field6(0), et: s.field6(1), vt: s.field6(2)}
	ls := 0
	if bl.space != nil {
		ls = bl.space.LinSize()
	}
	rs.lin = s.rows[18*s.m : (18+ls)*s.m]
	// b̃ and ẽ, and the objective; the linearisation kept.
	fs := reduce(s.m, 1, func(lo, hi int, acc []float64) {
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
				acc[0] += s.residual6(jj, &t[jj-j], rs.bt[6*jj:6*jj+6], rs.et[6*jj:6*jj+6])
			}
		}
	})
	rs.f = fs[0]
	// x_b = K⁻¹·Ǧᵀ·b̃ over the free vertices (the constrained rows 0).
	xb := s.solveField(rs.bt)
	// r = D̃ᵀ·(Ǧ·x_b − b̃) and D̃ᵀ·ẽ, through the cotangents H·(·) of
	// each triangle (zero on frozen ones, whose features do not move).
	gs := reduce(s.m, 2*l, func(lo, hi int, acc []float64) {
		var vr, ve [evalBlock]mgl64.Mat3
		for j := lo; j < hi; j += evalBlock {
			je := min(hi, j+evalBlock)
			for jj := j; jj < je; jj++ {
				if s.frozen[jj] {
					vr[jj-j], ve[jj-j] = mgl64.Mat3{}, mgl64.Mat3{}
					continue
				}
				var r [6]float64
				tri, g := s.grad.Triangle(jj), &s.gp[jj]
				b := rs.bt[6*jj : 6*jj+6]
				for rr := 0; rr < 3; rr++ {
					for a := 0; a < 2; a++ {
						r[2*rr+a] = g[3*a]*xb[3*tri[0]+rr] + g[3*a+1]*xb[3*tri[1]+rr] + g[3*a+2]*xb[3*tri[2]+rr] - b[2*rr+a]
					}
				}
				s.cotangent(jj, r[:], &vr[jj-j])
				s.cotangent(jj, rs.et[6*jj:6*jj+6], &ve[jj-j])
			}
			if bl.space != nil {
				bl.space.AdjointRange(rs.lin[j*ls:je*ls], [][]mgl64.Mat3{vr[:je-j], ve[:je-j]}, [][]float64{acc[:l], acc[l:]}, j, je)
			}
		}
	})
	rs.rhs, rs.grad = gs[:l], gs[l:]
	for k := range rs.grad {
		rs.grad[k] *= -2
	}
	return rs
}

// residual6 writes triangle j's b̃ and ẽ (see triangleRows) for its
// features t and returns ‖ẽ‖².
func (s *Solver) residual6(j int, t *mgl64.Mat3, b, e []float64) float64 {
	tri := s.grad.Triangle(j)
	g, h := &s.gp[j], &s.hp[j]
	x0, x1, x2 := s.x[tri[0]], s.x[tri[1]], s.x[tri[2]]
	f0, f1, f2 := s.fixed[tri[0]], s.fixed[tri[1]], s.fixed[tri[2]]
	sum := 0.0
	for r := 0; r < 3; r++ {
		for a := 0; a < 2; a++ {
			tau := h[a]*t[r] + h[2+a]*t[3+r] + h[4+a]*t[6+r]
			p0, p1, p2 := g[3*a]*x0[r], g[3*a+1]*x1[r], g[3*a+2]*x2[r]
			fx := 0.0
			if f0 {
				fx += p0
			}
			if f1 {
				fx += p1
			}
			if f2 {
				fx += p2
			}
			b[2*r+a] = tau - fx
			ev := (p0 + p1 + p2) - tau
			e[2*r+a] = ev
			sum += ev * ev
		}
	}
	return sum
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
// vertices, whose rows the Dirichlet system decouples), leaving Ǧᵀ·p in
// s.half's first 3n numbers.
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

// reuseStep is step with the last full iteration's weight system (see
// reusePrepare): δ, the positions for w + δ, and the linear model's value
// there, ‖v‖² − (Ǧᵀv)ᵀ·K⁻¹·Ǧᵀv + regularisers for v = b̃ + D̃δ.
func (s *Solver) reuseStep(bl *spaceState, rs reuseSums, kk, pp []float64) ([]float64, float64, error) {
	l := bl.l
	delta := make([]float64, l)
	if l > 0 {
		sys := mat.NewSymDense(l, nil)
		rhs := mat.NewVecDense(l, nil)
		for a := 0; a < l; a++ {
			for c := a; c < l; c++ {
				e := s.sys[a*l+c]
				if a == c {
					e += kk[a] + pp[a]
				}
				sys.SetSym(a, c, e)
			}
			rhs.SetVec(a, rs.rhs[a]-kk[a]*bl.w[a]-pp[a]*(bl.w[a]-bl.w0[a]))
		}
		if !solveSystem(sys, rhs, delta) {
			// The kept system was positive definite only with the
			// damping of its own step: form it anew.
			return nil, 0, errStale
		}
	}
	// v = b̃ + D̃δ.
	vv := reduce(s.m, 1, func(lo, hi int, acc []float64) {
		var dt [evalBlock]mgl64.Mat3
		for j := lo; j < hi; j += evalBlock {
			je := min(hi, j+evalBlock)
			if bl.space != nil {
				ls := bl.space.LinSize()
				bl.space.DirectionalRange(rs.lin[j*ls:je*ls], delta, dt[:je-j], j, je)
			}
			for jj := j; jj < je; jj++ {
				v, b := rs.vt[6*jj:6*jj+6], rs.bt[6*jj:6*jj+6]
				h := &s.hp[jj]
				d := &dt[jj-j]
				for r := 0; r < 3; r++ {
					for a := 0; a < 2; a++ {
						x := b[2*r+a]
						if !s.frozen[jj] && bl.space != nil {
							x += h[a]*d[r] + h[2+a]*d[3+r] + h[4+a]*d[6+r]
						}
						v[2*r+a] = x
						acc[0] += x * x
					}
				}
			}
		}
	})
	x := s.solveField(rs.vt)
	rhs := s.half[:3*s.n]
	proj := 0.0
	for i, v := range rhs {
		proj += v * x[i]
	}
	for u := 0; u < s.n; u++ {
		if !s.fixed[u] {
			s.x[u] = mgl64.Vec3{x[3*u], x[3*u+1], x[3*u+2]}
		}
	}
	model := max(vv[0]-proj, 0)
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
