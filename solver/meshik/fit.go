package meshik

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/parallel"
)

// FitWeights sets the weights to those whose features best match the
// current pose, the positions held where they are (SetPositions):
//
//	w = argmin_w Σ_j ‖T_j(x) − M_j(w)‖² + Σ_k k_k²·w_k²
//
// over the triangles that are not frozen (T_j(x) the deformation gradients
// of the current positions, k the prior of Eq. 5, see Options.Prior), by Levenberg-Marquardt
// from the linear space's best fit, which is solved exactly. It returns
// the relative residual √(Σ_j ‖T_j − M_j(w)‖² / Σ_j ‖T_j‖²): 0 when the
// pose is a blend of the examples.
//
// This is where a solve should start from a pose the artist sees, rather
// than from the constraints alone (StartFromLinear): when the pose is a
// blend, the first Gauss-Newton step with the constrained vertices where
// they are is zero, and nothing moves until the constraints do. At a
// converged solve (x*, w*) the gradient of f in w vanishes, so w* is a
// stationary point of this fit too and FitWeights keeps it.
func (s *Solver) FitWeights() float64 {
	feats := make([]mgl64.Mat3, s.m)
	parallel.Chunks(s.m, 4096, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			feats[j] = s.gradientAt(j)
		}
	})
	if s.lin != nil {
		// As in StartFromLinear, a small prior keeps the linear problem
		// well posed when examples are nearly dependent.
		s.lin.neutral()
		s.fitSpace(s.lin, feats, s.lin.startPrior(), 1)
		s.linearToMain()
	}
	res := s.fitSpace(s.main, feats, s.main.prior, 100)
	s.resetConvergence()
	return res
}

// fitSpace minimises Σ_j ‖T_j − M_j(w)‖² + Σ_k kk_k·w_k² over bl's
// weights, from bl.w, by at most iterations Levenberg-Marquardt steps, and
// returns the relative residual of the data term.
func (s *Solver) fitSpace(bl *spaceState, feats []mgl64.Mat3, kk []float64, iterations int) float64 {
	l := bl.l
	// eval returns the data term, Σ‖T‖², Jᵀr and JᵀJ (upper triangle,
	// row-major) at bl.w, r = T − M(w).
	eval := func() (f, norm float64, jtr, jtj []float64) {
		width := 2 + l + l*l
		acc := reduce(s.m, width, func(lo, hi int, acc []float64) {
			jr, jj := acc[2:2+l], acc[2+l:]
			for j := lo; j < hi; j++ {
				if (j-lo)%evalBlock == 0 {
					bl.eval(s.frozen, s.fgrad, j, min(hi, j+evalBlock))
				}
				if s.frozen[j] {
					continue
				}
				var r mgl64.Mat3
				for i := range r {
					r[i] = feats[j][i] - bl.t[j][i]
				}
				acc[0] += dot9(&r, &r)
				acc[1] += dot9(&feats[j], &feats[j])
				d := bl.dt[j*l : (j+1)*l]
				for a := range d {
					jr[a] += dot9(&d[a], &r)
					for c := a; c < l; c++ {
						jj[a*l+c] += dot9(&d[a], &d[c])
					}
				}
			}
		})
		return acc[0], acc[1], acc[2 : 2+l], acc[2+l:]
	}
	prior := func() float64 {
		p := 0.0
		for k, v := range bl.w {
			p += kk[k] * v * v
		}
		return p
	}
	f, norm, jtr, jtj := eval()
	total := f + prior()
	mu := 0.0
	old := make([]float64, l)
	delta := make([]float64, l)
	for it := 0; it < iterations && l > 0; it++ {
		sys := mat.NewSymDense(l, nil)
		rhs := mat.NewVecDense(l, nil)
		for a := 0; a < l; a++ {
			for c := a; c < l; c++ {
				v := jtj[a*l+c]
				if a == c {
					v = (v + kk[a]) * (1 + mu)
				}
				sys.SetSym(a, c, v)
			}
			rhs.SetVec(a, jtr[a]-kk[a]*bl.w[a])
		}
		var ch mat.Cholesky
		if !ch.Factorize(sys) || ch.SolveVecTo(mat.NewVecDense(l, delta), rhs) != nil {
			break // examples that do not vary: keep the weights
		}
		copy(old, bl.w)
		for a := range delta {
			bl.w[a] += delta[a]
		}
		f2, norm2, jtr2, jtj2 := eval()
		total2 := f2 + prior()
		if total2 <= total {
			decrease := total - total2
			f, norm, jtr, jtj, total = f2, norm2, jtr2, jtj2, total2
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
	if norm == 0 {
		return math.Sqrt(f)
	}
	return math.Sqrt(f / norm)
}

// linearToMain sets the nonlinear weights from the linear space's: the
// same example weights (exampleWeights), which give the same blend where
// the two agree (at the examples, and for rotations that commute).
func (s *Solver) linearToMain() {
	s.main.setExampleWeights(s.lin.exampleWeights())
}
