package meshik

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSecantUpdate checks the kept weight system's correction on random
// systems: after it S̄·δ = y (the secant equation), S̄ stays symmetric
// positive definite, and a pair with yᵀδ ≤ 0 leaves S̄ as it was.
func TestSecantUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := 0; trial < 50; trial++ {
		l := 2 + rng.IntN(20)
		a := mat.NewDense(l, l, nil)
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				a.Set(i, j, rng.NormFloat64())
			}
		}
		var spd mat.Dense
		spd.Mul(a.T(), a)
		s := &Solver{sys: make([]float64, l*l)}
		for i := 0; i < l; i++ {
			for j := 0; j < l; j++ {
				s.sys[i*l+j] = spd.At(i, j)
			}
			s.sys[i*l+i] += 0.1
		}
		delta, y := make([]float64, l), make([]float64, l)
		for i := range delta {
			delta[i] = rng.NormFloat64()
			y[i] = rng.NormFloat64()
		}
		ys := 0.0
		for i := range y {
			ys += y[i] * delta[i]
		}
		if ys <= 0 { // make yᵀδ > 0
			for i := range y {
				y[i] = -y[i]
			}
		}
		// rhs before − rhs after = y.
		s.secStep = delta
		s.secRHS = make([]float64, l)
		after := make([]float64, l)
		for i := range after {
			s.secRHS[i] = rng.NormFloat64()
			after[i] = s.secRHS[i] - y[i]
		}
		s.secantUpdate(after)
		sym := mat.NewSymDense(l, nil)
		for i := 0; i < l; i++ {
			sd := 0.0
			for j := 0; j < l; j++ {
				sd += s.sys[i*l+j] * delta[j]
				if d := math.Abs(s.sys[i*l+j] - s.sys[j*l+i]); d > 1e-9*(1+math.Abs(s.sys[i*l+j])) {
					t.Fatalf("trial %d: not symmetric at (%d, %d): %v", trial, i, j, d)
				}
				if j >= i {
					sym.SetSym(i, j, s.sys[i*l+j])
				}
			}
			if math.Abs(sd-y[i]) > 1e-8*(1+math.Abs(y[i])) {
				t.Fatalf("trial %d: (S̄δ)[%d] = %v, y = %v", trial, i, sd, y[i])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			t.Fatalf("trial %d: no longer positive definite", trial)
		}
		// A pair of negative curvature is skipped.
		before := slices.Clone(s.sys)
		for i := range after {
			after[i] = s.secRHS[i] + y[i]
		}
		s.secantUpdate(after)
		if !slices.Equal(before, s.sys) {
			t.Fatalf("trial %d: a pair with yᵀδ < 0 changed the system", trial)
		}
	}
}
