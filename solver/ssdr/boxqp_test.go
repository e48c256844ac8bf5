package ssdr

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestBoxQP checks boxQP's answers by the optimality conditions of the
// convex problem: at a coordinate strictly inside its bounds the gradient
// Ax − b vanishes, at a lower bound it is ≥ 0, at an upper bound ≤ 0; and
// that the objective never rises above the start's.
func TestBoxQP(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 1 + rng.IntN(30)
		g := mat.NewDense(n+3, n, nil)
		for i := range n + 3 {
			for j := range n {
				g.Set(i, j, rng.NormFloat64())
			}
		}
		a := mat.NewSymDense(n, nil)
		a.SymOuterK(1, g.T())
		for i := range n {
			a.SetSym(i, i, a.At(i, i)+1e-3)
		}
		b, lo, hi, x := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			b[i] = 10 * rng.NormFloat64()
			lo[i] = rng.NormFloat64()
			hi[i] = lo[i] + 2*rng.Float64()
			if trial%5 == 0 && i == 0 {
				hi[i] = lo[i] // a coordinate the box fixes
			}
			x[i] = lo[i] + rng.Float64()*(hi[i]-lo[i])
		}
		objective := func(x []float64) float64 {
			v := mat.NewVecDense(n, x)
			return 0.5*mat.Inner(v, a, v) - mat.Dot(v, mat.NewVecDense(n, b))
		}
		start := objective(x)
		if !boxQP(a, b, lo, hi, x) {
			t.Fatalf("trial %d: not solved", trial)
		}
		if got := objective(x); got > start+1e-9*math.Abs(start) {
			t.Errorf("trial %d: objective rose from %g to %g", trial, start, got)
		}
		for i := range n {
			if x[i] < lo[i] || x[i] > hi[i] {
				t.Fatalf("trial %d: x[%d] = %g outside [%g, %g]", trial, i, x[i], lo[i], hi[i])
			}
			grad := -b[i]
			for c := range n {
				grad += a.At(i, c) * x[c]
			}
			tol := 1e-7 * (1 + math.Abs(b[i]))
			switch {
			case lo[i] == hi[i]:
			case x[i] == lo[i] && grad < -tol, x[i] == hi[i] && grad > tol,
				x[i] > lo[i] && x[i] < hi[i] && math.Abs(grad) > tol:
				t.Errorf("trial %d: x[%d] = %g in [%g, %g] with gradient %g: not optimal", trial, i, x[i], lo[i], hi[i], grad)
			}
		}
	}
}
