package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRows9 checks Combine9 and AddDots9 against plain sums for every
// length from 0 to 13 (the kernels' unrolled blocks and their tails).
func TestRows9(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 0; n <= 13; n++ {
		w := make([]float64, n)
		f := make([]float64, 9*n+5) // longer than needed
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		var p [9]float64
		for i := range p {
			p[i] = rng.NormFloat64()
		}
		dst := [9]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
		Combine9(&dst, w, f)
		for e := 0; e < 9; e++ {
			want, scale := 0.0, 0.0
			for k := 0; k < n; k++ {
				want += w[k] * f[9*k+e]
				scale += math.Abs(w[k] * f[9*k+e])
			}
			if math.Abs(dst[e]-want) > 1e-14*(1+scale) {
				t.Errorf("Combine9 n=%d: element %d = %v, want %v", n, e, dst[e], want)
			}
		}
		g := make([]float64, n)
		for k := range g {
			g[k] = float64(k)
		}
		AddDots9(g, f, &p)
		for k := 0; k < n; k++ {
			want, scale := float64(k), 0.0
			for e := 0; e < 9; e++ {
				want += f[9*k+e] * p[e]
				scale += math.Abs(f[9*k+e] * p[e])
			}
			if math.Abs(g[k]-want) > 1e-14*(1+scale) {
				t.Errorf("AddDots9 n=%d: g[%d] = %v, want %v", n, k, g[k], want)
			}
		}
	}
}
