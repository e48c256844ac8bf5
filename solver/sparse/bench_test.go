package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The benchmarks run on the Mesh-Based IK matrix GᵀG (with fourth
// vertices, handles every 97th vertex made Dirichlet by values) of the
// lion (5,000 + 9,996 unknowns), the horse (8,431 + 16,843) and the horse
// midpoint-subdivided once (33,705 + 67,372 = 101,077 unknowns).
var benchMeshes = []string{"lion", "horse", "horse-sub"}

func benchSystem(b *testing.B, name string) (*meshSystem, *CSC, *CSC) {
	ms := loadMesh(b, name)
	return ms, withDirichlet(ms.gtg, handles(ms.nv, 97, 0)), withDirichlet(ms.gtg, handles(ms.nv, 50, 13))
}

func reportFill(b *testing.B, sym *Symbolic) {
	b.ReportMetric(float64(sym.NNZ()), "nnz(L)")
	b.ReportMetric(sym.Flops()/1e6, "Mflop")
}

// BenchmarkAnalyze measures the symbolic analysis, with the default
// ordering and with Options.AMDOnly.
func BenchmarkAnalyze(b *testing.B) {
	for _, opt := range []struct {
		name string
		opts *Options
	}{{"default", nil}, {"amd-only", &Options{AMDOnly: true}}} {
		for _, name := range benchMeshes {
			b.Run(opt.name+"/"+name, func(b *testing.B) {
				_, a, _ := benchSystem(b, name)
				var sym *Symbolic
				for b.Loop() {
					sym, _ = Analyze(a, opt.opts)
				}
				reportFill(b, sym)
			})
		}
	}
}

func BenchmarkFactor(b *testing.B) {
	for _, name := range benchMeshes {
		b.Run(name, func(b *testing.B) {
			_, a, _ := benchSystem(b, name)
			sym, _ := Analyze(a, nil)
			for b.Loop() {
				if _, err := sym.Factor(a); err != nil {
					b.Fatal(err)
				}
			}
			reportFill(b, sym)
		})
	}
}

func BenchmarkAnalyzeFactor(b *testing.B) {
	for _, name := range benchMeshes {
		b.Run(name, func(b *testing.B) {
			_, a, _ := benchSystem(b, name)
			for b.Loop() {
				sym, _ := Analyze(a, nil)
				if _, err := sym.Factor(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRefactor alternates between two handle sets on one factor: the
// per-handle-set path of the Pose tool.
func BenchmarkRefactor(b *testing.B) {
	for _, name := range benchMeshes {
		b.Run(name, func(b *testing.B) {
			_, a1, a2 := benchSystem(b, name)
			sym, _ := Analyze(a1, nil)
			fac, err := sym.Factor(a1)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				a := a1
				if i%2 == 1 {
					a = a2
				}
				i++
				if err := fac.Refactor(a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchSolve(b *testing.B, k int, lower bool) {
	for _, name := range benchMeshes {
		b.Run(fmt.Sprintf("%s/k=%d", name, k), func(b *testing.B) {
			_, a, _ := benchSystem(b, name)
			sym, _ := Analyze(a, nil)
			fac, err := sym.Factor(a)
			if err != nil {
				b.Fatal(err)
			}
			n := a.Rows
			rhs := randDense(rand.New(rand.NewPCG(1, 1)), n, k)
			dst := mat.NewDense(n, k, nil)
			b.ReportAllocs()
			for b.Loop() {
				if lower {
					fac.SolveLower(dst, rhs)
				} else {
					fac.Solve(dst, rhs)
				}
			}
		})
	}
}

func BenchmarkSolveLower(b *testing.B) {
	benchSolve(b, 12, true)
	benchSolve(b, 40, true)
}

func BenchmarkSolve(b *testing.B) {
	benchSolve(b, 3, false)
	benchSolve(b, 1, false)
}

func BenchmarkMulTransA(b *testing.B) {
	for _, name := range benchMeshes {
		b.Run(name, func(b *testing.B) {
			ms := loadMesh(b, name)
			for b.Loop() {
				MulTransA(ms.g)
			}
		})
	}
}
