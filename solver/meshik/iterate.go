package meshik

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/fault"
	"gallop/internal/finite"
	"gallop/internal/parallel"
)

// sums are the per-triangle sums of one linearisation, gathered in one
// pass (prepare): the objective and its weight gradient at the current
// iterate, and the small products of the normal equations with the
// fourth-vertex rows' share of the half-solve Gram sums (see gramY; those
// rows are final when prepare writes them) already subtracted.
type sums struct {
	f    float64   // ‖G·x − M(w)‖² (without the regularisers)
	grad []float64 // −2·Jᵀ(G·x − M(w))
	jy   []float64 // JᵀJ − Y₄ᵀY₄, l×l row-major, upper triangle
	jz   []float64 // Jᵀb − Y₄ᵀz₄
	bz   float64   // ‖b‖² − ‖z₄‖²
}

// Iterate performs one Gauss-Newton iteration from the current (x, w).
//
// As a safeguard the paper does not need on its examples but larger
// residuals do (left-out poses, far drags), the iteration is
// Levenberg-Marquardt: the weight system is damped, S + μ·diag(S), by a μ
// that the gain ratio ρ = (actual decrease of f) / (decrease the linear
// model predicted) of the previous step steers (Madsen, Nielsen and
// Tingleff 2004, Section 3.2): a step that increased f is undone and
// retaken with μ four times larger; ρ < 1/4 quadruples μ (at least 10⁻³),
// ρ > 3/4 divides it by three down to 0, pure Gauss-Newton, which is where
// a well-behaved solve stays. Without the damping Gauss-Newton can zig-zag
// across a flat valley forever (the lion with pose 7 left out did).
func (s *Solver) Iterate() (Stats, error) {
	if !s.ready {
		return Stats{}, errors.New("meshik: no constraints set (SetHandles)")
	}
	fault.At("solve")
	s.holdFixed()
	turned := s.turn()
	if turned >= rotationTol {
		// New targets: the objective is not comparable with the last.
		s.prevF, s.predicted = math.NaN(), 0
	}
	for {
		sm := s.prepare(s.main)
		f := sm.f
		bl := s.main
		for k, w := range bl.w {
			dw := w - bl.w0[k]
			f += bl.prior[k]*w*w + bl.temporal[k]*dw*dw
			sm.grad[k] += 2*bl.prior[k]*w + 2*bl.temporal[k]*dw
		}
		// Below rounding level (a converged iterate) the ratio is noise.
		if !math.IsNaN(s.prevF) && s.predicted > 1e-12*(1+f) {
			rho := (s.prevF - f) / s.predicted
			switch {
			case rho < 0 && s.mu >= maxDamping:
				// Even a step damped to nothing makes things worse: the
				// last iterate is a minimum to rounding. Keep it.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.predicted = 0
				return Stats{Iteration: s.iter, Objective: s.prevF, Damping: s.mu, Rotation: turned, Converged: turned < rotationTol}, nil
			case rho < 0:
				// The last step made things worse: undo it and damp.
				copy(s.x, s.prevX)
				copy(s.main.w, s.prevW)
				s.mu = max(4*s.mu, 1e-3)
				s.predicted = 0
				continue
			case rho < 0.25:
				s.mu = max(4*s.mu, 1e-3)
			case rho > 0.75:
				if s.mu /= 3; s.mu < 1e-8 {
					s.mu = 0
				}
			}
		}
		copy(s.prevX, s.x)
		copy(s.prevW, s.main.w)
		lastF := s.prevF
		s.prevF = f
		delta, model, err := s.step(s.main, sm, s.main.prior, s.main.temporal, s.mu)
		if err != nil {
			s.restore()
			return Stats{}, err
		}
		s.predicted = f - model
		s.iter++
		eps := s.opts.epsilon()
		st := Stats{Iteration: s.iter, Objective: f, Damping: s.mu, Rotation: turned}
		wmax := 0.0
		for k := range delta {
			st.Step = max(st.Step, math.Abs(delta[k]))
			st.Gradient = max(st.Gradient, math.Abs(sm.grad[k]))
			wmax = max(wmax, math.Abs(s.prevW[k]))
		}
		st.Converged = !math.IsNaN(lastF) &&
			math.Abs(f-lastF) < eps*(1+f) &&
			st.Gradient < math.Cbrt(eps)*(1+f) &&
			st.Step < math.Sqrt(eps)*(1+wmax) &&
			turned < rotationTol
		if !finiteIterate(s.x, s.main.w) {
			s.restore()
			return st, fmt.Errorf("%w: the step gave positions or weights that are not finite numbers", ErrDiverged)
		}
		return st, nil
	}
}

// maxDamping is the Marquardt μ past which a step that still increases
// the objective ends the solve at the last iterate.
const maxDamping = 1e8

// ErrIllPosed is returned (wrapped) by Iterate when the weights cannot be
// solved for: more than one blend of the examples fits the handles equally
// well (examples that do not vary where the handles are, uncompressed
// examples that repeat each other, no prior). The iterate is the last one.
var ErrIllPosed = errors.New("meshik: the handles do not determine the example weights")

// ErrDiverged is returned (wrapped) by Iterate when a step leaves the
// numbers' range; the iterate is the last finite one.
var ErrDiverged = errors.New("meshik: the solve diverged")

// holdFixed records the constrained vertices as they are, before prepare
// moves them to new targets: a failed step puts them back (restore), so
// that the pose is the last one solved, not one with its handles torn
// away from it.
func (s *Solver) holdFixed() {
	s.held = s.held[:0]
	for _, v := range s.fixedList {
		s.held = append(s.held, s.x[v])
	}
}

// restore puts the last accepted iterate back after a step that failed,
// its constrained vertices where they were when Iterate began, and
// forgets the damping history.
func (s *Solver) restore() {
	copy(s.x, s.prevX)
	copy(s.main.w, s.prevW)
	for i, v := range s.fixedList {
		s.x[v] = s.held[i]
	}
	s.resetConvergence()
}

// finiteIterate reports whether every position and weight is finite.
func finiteIterate(x []mgl64.Vec3, w []float64) bool {
	for _, p := range x {
		if !finite.Vec3(p) {
			return false
		}
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// rotationTol is the largest turn of a rotating group (radians) an
// iteration may make and still count as converged.
const rotationTol = 1e-6

// StartFromLinear replaces the weights with the best blend of the linear
// feature space for the current constraints (a convex problem: one exact
// step from its centre), expressed as nonlinear weights (linearToMain),
// which is where the nonlinear iterations start: the nonlinear
// space agrees with the linear one at the examples and near them, so this
// start lies in the right basin far more often than equal shares do (with
// equal shares the lion's pose 7 stalls in a local minimum). Positions are
// set to the linear solution. It does nothing for other spaces.
func (s *Solver) StartFromLinear() error {
	if s.lin == nil || !s.ready {
		return nil
	}
	s.lin.neutral()
	s.holdFixed()
	copy(s.prevX, s.x)
	copy(s.prevW, s.main.w)
	if _, _, err := s.step(s.lin, s.prepare(s.lin), s.lin.startPrior(), make([]float64, s.lin.l), 0); err != nil {
		s.restore()
		return err
	}
	if !finiteIterate(s.x, s.lin.w) {
		s.restore()
		return fmt.Errorf("%w: the start from the linear space is not finite", ErrDiverged)
	}
	s.linearToMain()
	s.resetConvergence()
	return nil
}

// reduceChunk is the number of items per partial sum of reduce: fixed, so
// sums do not depend on the number of cores.
const reduceChunk = 1024

// reduce runs fn over [0, n) in chunks of reduceChunk, in parallel, each
// chunk accumulating into its own zeroed slice of width numbers, and
// returns their sum taken in chunk order: a parallel reduction whose result
// does not depend on scheduling.
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

// prepare moves the constrained vertices to their targets and, in one
// parallel pass over the triangles, evaluates M(w) and ∂M/∂w into bl and
// computes the residual sums at the current iterate, b = M(w) − G·x̂, and
// each fourth vertex's row of the half-solved right-hand sides,
// y_j = d_j^{−1/2}·(Gᵀ·[J | b])_j, with its share of the Gram sums.
func (s *Solver) prepare(bl *spaceState) sums {
	l := bl.l
	w := l + 1
	for v := 0; v < s.n; v++ {
		if s.fixed[v] {
			s.x[v] = s.target[v]
		}
	}
	bd := bl.b.RawMatrix()
	width := 2 + 2*l + l*l
	acc := reduce(s.m, width, func(lo, hi int, acc []float64) {
		grad, jz, jy := acc[2:2+l], acc[2+l:2+2*l], acc[2+2*l:]
		var f, bz float64
		for j := lo; j < hi; j++ {
			if (j-lo)%evalBlock == 0 {
				bl.eval(s.frozen, s.fgrad, j, min(hi, j+evalBlock))
			}
			tri := s.grad.Triangle(j)
			cv, c4 := &s.cv[j], &s.c4[j]
			x0, x1, x2, x4 := s.x[tri[0]], s.x[tri[1]], s.x[tri[2]], s.x[s.n+j]
			f0, f1, f2 := s.fixed[tri[0]], s.fixed[tri[1]], s.fixed[tri[2]]
			t := &bl.t[j]
			var e, b mgl64.Mat3
			for c := 0; c < 3; c++ {
				a0, a1, a2, a4 := cv[c][0], cv[c][1], cv[c][2], c4[c]
				for r := 0; r < 3; r++ {
					p0, p1, p2 := a0*x0[r], a1*x1[r], a2*x2[r]
					fx := 0.0 // G·x̂: the constrained vertices' part
					if f0 {
						fx += p0
					}
					if f1 {
						fx += p1
					}
					if f2 {
						fx += p2
					}
					e[3*c+r] = (p0 + p1) + (p2 + a4*x4[r]) - t[3*c+r]
					b[3*c+r] = t[3*c+r] - fx
				}
			}
			s.b[j] = b
			d := bl.dt[j*l : (j+1)*l]
			f += dot9(&e, &e)
			// The fourth vertex's half-solved row, per coordinate r:
			// columns k < l from J, column l from b.
			row := bd.Data[(s.n+j)*bd.Stride : (s.n+j)*bd.Stride+3*w]
			sc := math.Sqrt(s.dinv[j])
			g0, g1, g2 := sc*c4[0], sc*c4[1], sc*c4[2]
			z0 := g0*b[0] + g1*b[3] + g2*b[6]
			z1 := g0*b[1] + g1*b[4] + g2*b[7]
			z2 := g0*b[2] + g1*b[5] + g2*b[8]
			row[l], row[w+l], row[2*w+l] = z0, z1, z2
			bz += dot9(&b, &b) - (z0*z0 + z1*z1 + z2*z2)
			for k := range d {
				dk := &d[k]
				y0 := g0*dk[0] + g1*dk[3] + g2*dk[6]
				y1 := g0*dk[1] + g1*dk[4] + g2*dk[7]
				y2 := g0*dk[2] + g1*dk[5] + g2*dk[8]
				row[k], row[w+k], row[2*w+k] = y0, y1, y2
				grad[k] -= 2 * dot9(dk, &e)
				jz[k] += dot9(dk, &b) - (y0*z0 + y1*z1 + y2*z2)
				for k2 := k; k2 < l; k2++ {
					d2 := &d[k2]
					// Y₄'s entries for k2 are recomputed rather than
					// read back: cheaper than the memory round trip.
					v0 := g0*d2[0] + g1*d2[3] + g2*d2[6]
					v1 := g0*d2[1] + g1*d2[4] + g2*d2[7]
					v2 := g0*d2[2] + g1*d2[5] + g2*d2[8]
					jy[k*l+k2] += dot9(dk, d2) - (y0*v0 + y1*v1 + y2*v2)
				}
			}
		}
		acc[0] += f
		acc[1] += bz
	})
	return sums{f: acc[0], bz: acc[1], grad: acc[2 : 2+l], jz: acc[2+l : 2+2*l], jy: acc[2+2*l:]}
}

// evalBlock is the number of triangles whose features and derivatives
// prepare evaluates at a time, to use them while they are in cache.
const evalBlock = 32

// dot9 is a·b with the sum taken as a tree, whose short dependency chains
// let the processor overlap the products.
func dot9(a, b *mgl64.Mat3) float64 {
	return ((a[0]*b[0] + a[1]*b[1]) + (a[2]*b[2] + a[3]*b[3])) +
		((a[4]*b[4] + a[5]*b[5]) + (a[6]*b[6] + a[7]*b[7])) + a[8]*b[8]
}

// startPrior returns the per-weight k² of the linear start: the space's
// own, at least 1e-6, which keeps the problem well posed when examples are
// nearly dependent and hardly moves the optimum.
func (bl *spaceState) startPrior() []float64 {
	kk := slices.Clone(bl.prior)
	for i := range kk {
		kk[i] = max(kk[i], 1e-6)
	}
	return kk
}

// step solves the linearised problem at bl's current (x, w), prepared in
// sm, with the per-weight regularisers kk (k² of the prior) and pp (p² of
// the temporal term) and Marquardt damping mu, and applies the step to x
// and bl.w. It returns δ and the value of the linearised objective at the
// new (x, w) (what the model predicts f will be).
func (s *Solver) step(bl *spaceState, sm sums, kk, pp []float64, mu float64) ([]float64, float64, error) {
	l := bl.l
	s.gather(bl)
	// Forward solves for all 3(l+1) columns of the vertex rows at once.
	vrows := bl.b.Slice(0, s.n, 0, 3*(l+1)).(*mat.Dense)
	s.ws.SolveLower(vrows, vrows)
	yty, ytz, zz := s.gramY(bl)

	// The l×l system for δ.
	delta := make([]float64, l)
	if l > 0 {
		sys := mat.NewSymDense(l, nil)
		rhs := mat.NewVecDense(l, nil)
		for a := 0; a < l; a++ {
			for c := a; c < l; c++ {
				v := sm.jy[a*l+c] - yty[a*l+c]
				if a == c {
					v = (v + kk[a] + pp[a]) * (1 + mu)
				}
				sys.SetSym(a, c, v)
			}
			rhs.SetVec(a, ytz[a]-sm.jz[a]-kk[a]*bl.w[a]-pp[a]*(bl.w[a]-bl.w0[a]))
		}
		var ch mat.Cholesky
		if !ch.Factorize(sys) {
			return nil, 0, fmt.Errorf("%w (the weight system is not positive definite)", ErrIllPosed)
		}
		if err := ch.SolveVecTo(mat.NewVecDense(l, delta), rhs); err != nil {
			return nil, 0, fmt.Errorf("%w (%v)", ErrIllPosed, err)
		}
	}
	s.backward(bl, delta)

	// The model's value at the new iterate, from sums already at hand:
	// min_x ‖G·x − (b + J·δ)‖² = ‖b + Jδ‖² − ‖z + Yδ‖² (the free rows).
	model := sm.bz - zz
	for a := 0; a < l; a++ {
		model += 2 * delta[a] * (sm.jz[a] - ytz[a])
		for c := 0; c < l; c++ {
			i, j := min(a, c), max(a, c)
			model += delta[a] * delta[c] * (sm.jy[i*l+j] - yty[i*l+j])
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

// gather fills the vertex rows of bl.b with the condensed right-hand sides
// Ĝᵀ·[J_r | b_r]: per coordinate r, columns r(l+1)+k hold J's column k and
// r(l+1)+l hold b; a constrained vertex's row holds 0 for J and its value
// for b (the Dirichlet system). (prepare wrote the fourth-vertex rows.)
// Rows are independent, so they are computed in parallel,
// deterministically.
func (s *Solver) gather(bl *spaceState) {
	l := bl.l
	w := 3 * (l + 1)
	bd := bl.b.RawMatrix()
	parallel.Chunks(s.n, 1024, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			row := bd.Data[u*bd.Stride : u*bd.Stride+w]
			clear(row)
			if s.fixed[u] {
				for r := 0; r < 3; r++ {
					row[r*(l+1)+l] = s.x[u][r]
				}
				continue
			}
			r0, r1, r2 := row[:l], row[l+1:2*l+1], row[2*(l+1):2*(l+1)+l]
			var z0, z1, z2 float64
			for p := s.incPtr[u]; p < s.incPtr[u+1]; p++ {
				j, a := int(s.incTri[p]), &s.incCoef[p]
				d := bl.dt[j*l : (j+1)*l]
				for k := range d {
					dk := &d[k]
					r0[k] += a[0]*dk[0] + a[1]*dk[3] + a[2]*dk[6]
					r1[k] += a[0]*dk[1] + a[1]*dk[4] + a[2]*dk[7]
					r2[k] += a[0]*dk[2] + a[1]*dk[5] + a[2]*dk[8]
				}
				bj := &s.b[j]
				z0 += a[0]*bj[0] + a[1]*bj[3] + a[2]*bj[6]
				z1 += a[0]*bj[1] + a[1]*bj[4] + a[2]*bj[7]
				z2 += a[0]*bj[2] + a[1]*bj[5] + a[2]*bj[8]
			}
			row[l], row[2*l+1], row[3*l+2] = z0, z1, z2
		}
	})
}

// gramY returns, from the half-solved vertex rows of bl.b,
// Σ_r Y_rᵀY_r (l×l, row-major, upper triangle filled), Σ_r Y_rᵀz_r and
// Σ_r ‖z_r‖² over the free rows (a fixed vertex's row holds its value, not
// a solve). The fourth-vertex rows' share comes from prepare.
func (s *Solver) gramY(bl *spaceState) (yty, ytz []float64, zz float64) {
	l := bl.l
	bd := bl.b.RawMatrix()
	width := l*l + l + 1
	acc := reduce(s.n, width, func(lo, hi int, acc []float64) {
		for u := lo; u < hi; u++ {
			row := bd.Data[u*bd.Stride : u*bd.Stride+3*(l+1)]
			free := !s.fixedPivot[u]
			for r := 0; r < 3; r++ {
				y := row[r*(l+1) : (r+1)*(l+1)]
				z := y[l]
				if free {
					acc[l*l+l] += z * z
				}
				for k := 0; k < l; k++ {
					yk := y[k]
					a := acc[k*l:]
					for k2 := k; k2 < l; k2++ {
						a[k2] += yk * y[k2]
					}
					acc[l*l+k] += yk * z
				}
			}
		}
	})
	return acc[:l*l], acc[l*l : l*l+l], acc[l*l+l]
}

// backward applies δ: the vertices from K's backward solve of z + Y·δ,
// then the fourth vertices from the diagonal block.
func (s *Solver) backward(bl *spaceState, delta []float64) {
	l, n := bl.l, s.n
	bd := bl.b.RawMatrix()
	xd := s.xs.RawMatrix()
	combine := func(u int, dst []float64) {
		row := bd.Data[u*bd.Stride:]
		for r := 0; r < 3; r++ {
			v := row[r*(l+1)+l]
			for a := 0; a < l; a++ {
				v += row[r*(l+1)+a] * delta[a]
			}
			dst[r] = v
		}
	}
	parallel.Chunks(n, 8192, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			combine(u, xd.Data[u*xd.Stride:u*xd.Stride+3])
		}
	})
	s.ws.SolveUpper(s.xs, s.xs)
	for u := 0; u < n; u++ {
		s.x[u] = mgl64.Vec3{xd.Data[u*xd.Stride], xd.Data[u*xd.Stride+1], xd.Data[u*xd.Stride+2]}
	}
	parallel.Chunks(s.m, 8192, func(lo, hi int) {
		var y [3]float64
		for j := lo; j < hi; j++ {
			combine(n+j, y[:])
			sc := math.Sqrt(s.dinv[j])
			tri := s.grad.Triangle(j)
			var x4 mgl64.Vec3
			for r := 0; r < 3; r++ {
				v := sc * y[r]
				for q := 0; q < 3; q++ {
					if !s.fixed[tri[q]] {
						v -= s.dinv[j] * s.e[j][q] * s.x[tri[q]][r]
					}
				}
				x4[r] = v
			}
			s.x[n+j] = x4
		}
	})
}

// Result summarises Solve.
type Result struct {
	Iterations int
	Objective  float64 // at the start of the last iteration
	Converged  bool
}

// Solve iterates until the convergence tests of Section 4.1 hold or the
// iteration cap is reached (then it returns ErrNotConverged, wrapped, with
// the last iterate in place). each, if not nil, is called after every
// iteration (the Pose tool publishes the iterate there) and may stop the
// solve by returning false.
func (s *Solver) Solve(each func(Stats) bool) (Result, error) {
	var res Result
	for res.Iterations < s.opts.maxIterations() {
		st, err := s.Iterate()
		if err != nil {
			return res, err
		}
		res.Iterations++
		res.Objective = st.Objective
		res.Converged = st.Converged
		if each != nil && !each(st) {
			return res, nil
		}
		if st.Converged {
			return res, nil
		}
	}
	return res, fmt.Errorf("%w after %d iterations (objective %.4g)", ErrNotConverged, res.Iterations, res.Objective)
}

// Reconstruct sets the weights to w and solves for the positions that best
// match M(w) with the constrained vertices at their targets (Eq. 3 with a
// prescribed blend: the paper's Figure 3). No weights are updated.
func (s *Solver) Reconstruct(w []float64) error {
	if err := s.SetWeights(w); err != nil {
		return err
	}
	if !s.ready {
		return errors.New("meshik: no constraints set (SetHandles)")
	}
	s.prepare(s.main)
	s.gather(s.main)
	l := s.main.l
	vrows := s.main.b.Slice(0, s.n, 0, 3*(l+1)).(*mat.Dense)
	s.ws.SolveLower(vrows, vrows)
	s.backward(s.main, make([]float64, l))
	return nil
}
