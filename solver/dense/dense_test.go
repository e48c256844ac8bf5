package dense

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestKernelsAgainstNaive checks GemmNT and SyrkLN against the sums
// written out, on sizes that exercise every tile and edge (8×4, 4×4 and
// scalar tiles, the small-block path of SyrkLN), with leading dimensions
// larger than the blocks.
func TestKernelsAgainstNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][3]int{{1, 1, 1}, {3, 5, 2}, {8, 4, 7}, {13, 9, 33}, {26, 26, 100}, {40, 7, 0}, {72, 13, 5}, {20, 3, 64}, {16, 6, 65}} {
		m, n, k := sz[0], sz[1], sz[2]
		lda, ldb, ldc := m+3, n+1, m+2
		a := make([]float64, max(k, 1)*lda)
		b := make([]float64, max(k, 1)*ldb)
		cin := make([]float64, n*ldc)
		for _, s := range [][]float64{a, b, cin} {
			for i := range s {
				s[i] = rng.NormFloat64()
			}
		}
		c := make([]float64, len(cin))
		GemmNT(m, n, k, a, lda, b, ldb, c, ldc, cin, ldc)
		for j := 0; j < n; j++ {
			for i := 0; i < m; i++ {
				want := cin[j*ldc+i]
				for p := 0; p < k; p++ {
					want -= a[p*lda+i] * b[p*ldb+j]
				}
				if d := math.Abs(c[j*ldc+i] - want); d > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("GemmNT %v: C[%d,%d] = %v, want %v", sz, i, j, c[j*ldc+i], want)
				}
			}
		}
		// SyrkLN of the m×k block A: the lower triangle of Cin − A·Aᵀ.
		cs := make([]float64, m*ldc)
		cinS := make([]float64, m*ldc)
		for i := range cinS {
			cinS[i] = rng.NormFloat64()
		}
		SyrkLN(m, k, a, lda, cs, ldc, cinS, ldc)
		for j := 0; j < m; j++ {
			for i := j; i < m; i++ {
				want := cinS[j*ldc+i]
				for p := 0; p < k; p++ {
					want -= a[p*lda+i] * a[p*lda+j]
				}
				if d := math.Abs(cs[j*ldc+i] - want); d > 1e-12*(1+math.Abs(want)) {
					t.Fatalf("SyrkLN %v: C[%d,%d] = %v, want %v", sz, i, j, cs[j*ldc+i], want)
				}
			}
		}
	}
}

// TestGemmTailSameBits checks that the last columns of GemmNT, padded
// to the 8×4 kernel, give the bits of the element-by-element sum in
// increasing p (what every tile computes), so that results do not depend
// on where a caller's blocks end.
func TestGemmTailSameBits(t *testing.T) {
	if !useFMA {
		t.Skip("no FMA kernels on this CPU")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sz := range [][3]int{{8, 1, 3}, {72, 13, 5}, {36, 7, 64}, {19, 6, 31}, {4, 7, 9}, {6, 3, 2}, {12, 5, 11}, {4, 3, 300}} {
		m, n, k := sz[0], sz[1], sz[2]
		a := make([]float64, k*m)
		b := make([]float64, k*n)
		cin := make([]float64, m*n)
		for _, s := range [][]float64{a, b, cin} {
			for i := range s {
				s[i] = rng.NormFloat64()
			}
		}
		c := make([]float64, m*n)
		GemmNT(m, n, k, a, m, b, n, c, m, cin, m)
		for j := 0; j < n; j++ {
			for i := 0; i < m; i++ {
				var want [1]float64
				gemmElemFMA(k, a[i:], m, b[j:], n, want[:], cin[j*m+i:])
				if c[j*m+i] != want[0] {
					t.Fatalf("GemmNT %v: C[%d,%d] = %v, the element sum %v", sz, i, j, c[j*m+i], want[0])
				}
			}
		}
	}
}

// TestSubScaled checks SubScaled against the portable loop, bit for bit,
// on every length up to 40 (the 8-, 4- and 1-wide parts of the kernel).
func TestSubScaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for n := 0; n <= 40; n++ {
		x := make([]float64, n+3)
		y := make([]float64, n)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for i := range y {
			y[i] = rng.NormFloat64()
		}
		a := rng.NormFloat64()
		want := append([]float64(nil), y...)
		for i := range want {
			want[i] -= float64(a * x[i])
		}
		SubScaled(y, a, x)
		for i := range y {
			if y[i] != want[i] {
				t.Fatalf("n = %d: y[%d] = %v, want %v", n, i, y[i], want[i])
			}
		}
	}
}

// gemmElemFMA, the reference of TestGemmTailSameBits, computes c[0] = cin[0] − Σ_p a[p·lda]·b[p·ldb] as the FMA
// kernels do.
func gemmElemFMA(k int, a []float64, lda int, b []float64, ldb int, c, cin []float64) {
	var s float64
	for p := 0; p < k; p++ {
		s = math.FMA(a[p*lda], b[p*ldb], s)
	}
	c[0] = cin[0] - s
}
