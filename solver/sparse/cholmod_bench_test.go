//go:build cholmod

package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gallop/solver/sparse/cholmodref"
)

func newRef(a *CSC) *cholmodref.Ref {
	return cholmodref.New(a.Rows, a.ColPtr, a.RowIdx, a.Val, true)
}

// BenchmarkCholmod runs CHOLMOD (supernodal, its default ordering) on the
// benchmark matrices, for comparison: go test -tags cholmod -bench Cholmod.
func BenchmarkCholmod(b *testing.B) {
	for _, name := range benchMeshes {
		_, a, _ := benchSystem(b, name)
		b.Run(name+"/analyze", func(b *testing.B) {
			r := newRef(a)
			defer r.Free()
			for b.Loop() {
				r.Analyze()
			}
			b.ReportMetric(r.LNZ(), "nnz(L)")
		})
		b.Run(name+"/factor", func(b *testing.B) {
			r := newRef(a)
			defer r.Free()
			r.Analyze()
			for b.Loop() {
				if err := r.Factorize(); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, k := range []int{3, 12, 15} {
			b.Run(fmt.Sprintf("%s/solve/k=%d", name, k), func(b *testing.B) {
				r := newRef(a)
				defer r.Free()
				r.Analyze()
				if err := r.Factorize(); err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(1, 1))
				rhs := make([]float64, a.Rows*k)
				for i := range rhs {
					rhs[i] = rng.NormFloat64()
				}
				for b.Loop() {
					r.Solve(rhs, k)
				}
			})
		}
	}
}

// TestCholmodAgrees checks the reference against this package on the lion.
func TestCholmodAgrees(t *testing.T) {
	_, a, _ := benchSystemT(t, "lion")
	r := newRef(a)
	defer r.Free()
	r.Analyze()
	if err := r.Factorize(); err != nil {
		t.Fatal(err)
	}
	sym, _ := Analyze(a, nil)
	t.Logf("nnz(L): CHOLMOD %g, this package %d", r.LNZ(), sym.NNZ())
}

func benchSystemT(t *testing.T, name string) (*meshSystem, *CSC, *CSC) {
	ms := loadMesh(t, name)
	return ms, withDirichlet(ms.gtg, handles(ms.nv, 97, 0)), withDirichlet(ms.gtg, handles(ms.nv, 50, 13))
}
