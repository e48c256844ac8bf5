package dense

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{5, 768}, {6, 1536}, {8, 1536}, {26, 1536}, {28, 1536}, {32, 1536}, {16, 4}, {48, 8}, {48, 16}, {128, 16}, {128, 64}, {400, 32}, {400, 128}} {
		n, k := sz[0], sz[1]
		a := make([]float64, n*k)
		for i := range a {
			a[i] = rng.Float64()
		}
		c := make([]float64, n*n)
		flops := float64(n) * float64(n+1) * float64(k)
		b.Run(fmt.Sprintf("syrk/own/n=%d/k=%d", n, k), func(b *testing.B) {
			for b.Loop() {
				SyrkLN(n, k, a, n, c, n, c, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
		})
		b.Run(fmt.Sprintf("syrk/gonum/n=%d/k=%d", n, k), func(b *testing.B) {
			for b.Loop() {
				blas64.Syrk(blas.Trans, -1, blas64.General{Rows: k, Cols: n, Stride: n, Data: a}, 1,
					blas64.Symmetric{N: n, Stride: n, Data: c, Uplo: blas.Upper})
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOPS")
		})
	}
}
