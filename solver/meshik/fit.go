package meshik

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// FitWeights sets the weights to those whose features best match the
// current pose, the positions held where they are (SetPositions):
//
//	w = argmin_w Σ_j Σ_r ‖Ǧ_j·x_r − H_jᵀ·τ_jr(w)‖² + Σ_k k_k²·w_k²
//
// the solver's own objective (see Solver) with x fixed: the deformation
// gradients of the pose against M(w), each triangle's fourth vertex
// wherever suits it best, over the triangles that are not frozen (k the
// prior of Eq. 5, see Options.Prior), by Levenberg-Marquardt from the
// linear space's best fit, which is solved exactly. It returns the
// relative residual √(Σ ‖Ǧx − Hᵀτ(w)‖² / Σ ‖Ǧx‖²): 0 when the pose is a
// blend of the examples.
//
// This is where a solve should start from a pose the artist sees, rather
// than from the constraints alone (StartFromLinear): when the pose is a
// blend, the first Gauss-Newton step with the constrained vertices where
// they are is zero, and nothing moves until the constraints do. At a
// converged solve (x*, w*) the gradient of f in w vanishes, so w* is a
// stationary point of this fit too and FitWeights keeps it.
func (s *Solver) FitWeights() float64 {
	if s.lin != nil {
		// As in StartFromLinear, a small prior keeps the linear problem
		// well posed when examples are nearly dependent. It is linear
		// least squares: one step solves it.
		s.lin.neutral()
		s.fitSpace(s.lin, s.lin.startPrior(), 0)
		s.linearToMain()
	}
	return s.RefineWeights()
}

// RefineWeights is FitWeights from the current weights instead of the
// linear space's fit: for a pose whose weights are known (those that
// produced it, set with SetExampleWeights), when the refinement takes a
// pass or two over the mesh where the linear fit and the refinement from
// it take several.
func (s *Solver) RefineWeights() float64 {
	norm := 0.0
	for j := 0; j < s.m; j++ {
		if s.frozen[j] {
			continue
		}
		tri := s.grad.Triangle(j)
		gx := gradCorners(&s.gp[j], &[3]mgl64.Vec3{s.x[tri[0]], s.x[tri[1]], s.x[tri[2]]})
		for a := 0; a < 2; a++ {
			for r := 0; r < 3; r++ {
				norm += gx[2*r+a] * gx[2*r+a]
			}
		}
	}
	f := s.fitSpace(s.main, s.main.prior, 100)
	s.invalidateSystem()
	s.resetConvergence()
	if norm == 0 {
		return math.Sqrt(f)
	}
	return math.Sqrt(f / norm)
}

// fitSpace minimises the data term of FitWeights plus Σ_k kk_k·w_k² over
// bl's weights, from bl.w, by at most iterations Levenberg-Marquardt
// steps, and returns the data term. With iterations 0 the problem is
// taken for linear (the linear space's): its one Gauss-Newton step is
// taken as its solution, and the data term returned is that before it.
func (s *Solver) fitSpace(bl *spaceState, kk []float64, iterations int) float64 {
	l := bl.l
	prior := func() float64 {
		p := 0.0
		for k, v := range bl.w {
			p += kk[k] * v * v
		}
		return p
	}
	sm := s.prepare(bl, false, false)
	total := sm.f + prior()
	mu := 0.0
	old := make([]float64, l)
	delta := make([]float64, l)
	exact := iterations == 0
	for it := 0; (it < iterations || exact && it == 0) && l > 0; it++ {
		if it > 0 && s.interrupt != nil && s.interrupt() {
			break
		}
		// (D̃ᵀD̃ + k²)·δ = D̃ᵀẽ − k²·w, with D̃ᵀẽ = −grad/2.
		rhs := make([]float64, l)
		for a := range rhs {
			rhs[a] = -sm.grad[a]/2 - kk[a]*bl.w[a]
		}
		if !solveWeights(l, func(a, c int) float64 { return sm.jj[a*l+c] }, kk, mu, rhs, delta) {
			break // examples that do not vary: keep the weights
		}
		// The decrease the linear model promises, 2δᵀr − δᵀ(D̃ᵀD̃ + k²)δ
		// (r the right-hand side): below rounding, the fit has converged
		// and further steps would only be rejected, each costing a pass.
		pred, step, wmax := 0.0, 0.0, 0.0
		for a := 0; a < l; a++ {
			q := 0.0
			for c := 0; c < l; c++ {
				q += sm.jj[a*l+c] * delta[c]
			}
			pred += delta[a] * (2*rhs[a] - q - kk[a]*delta[a])
			step, wmax = max(step, math.Abs(delta[a])), max(wmax, math.Abs(bl.w[a]))
		}
		if exact {
			for a := range delta {
				bl.w[a] += delta[a]
			}
			break
		}
		if pred <= 1e-12*total || step <= 1e-10*(1+wmax) {
			break
		}
		copy(old, bl.w)
		for a := range delta {
			bl.w[a] += delta[a]
		}
		sm2 := s.prepare(bl, false, false)
		total2 := sm2.f + prior()
		if total2 <= total {
			decrease := total - total2
			sm, total = sm2, total2
			if mu /= 3; mu < 1e-8 {
				mu = 0
			}
			if decrease <= 1e-13*(1+total) {
				break
			}
			continue
		}
		copy(bl.w, old)
		if mu = max(4*mu, 1e-3); mu > 1e8 {
			break
		}
	}
	return sm.f
}

// linearToMain sets the nonlinear weights from the linear space's: the
// same example weights (exampleWeights), which give the same blend where
// the two agree (at the examples, and for rotations that commute).
func (s *Solver) linearToMain() {
	s.main.setExampleWeights(s.lin.exampleWeights())
}
