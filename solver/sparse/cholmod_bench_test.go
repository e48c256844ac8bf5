//go:build cholmod

package sparse

import (
	"fmt"
	"math"
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

// TestCholmodAgrees checks this package against CHOLMOD on the lion's
// system: the same solution of a random right-hand side (to 1e-9
// relative), and a fill of L within 1.5× of CHOLMOD's (both order with
// approximate minimum degree).
func TestCholmodAgrees(t *testing.T) {
	_, a, _ := benchSystemT(t, "lion")
	r := newRef(a)
	defer r.Free()
	r.Analyze()
	if err := r.Factorize(); err != nil {
		t.Fatal(err)
	}
	sym, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("nnz(L): CHOLMOD %g, this package %d", r.LNZ(), sym.NNZ())
	if float64(sym.NNZ()) > 1.5*r.LNZ() {
		t.Errorf("nnz(L) %d, more than 1.5× CHOLMOD's %g", sym.NNZ(), r.LNZ())
	}
	rng := rand.New(rand.NewPCG(5, 6))
	b := make([]float64, a.Rows)
	for i := range b {
		b[i] = rng.NormFloat64()
	}
	want := r.Solve(b, 1)
	got := make([]float64, len(b))
	f.SolveVec(got, b)
	var diff, norm float64
	for i := range got {
		diff = max(diff, math.Abs(got[i]-want[i]))
		norm = max(norm, math.Abs(want[i]))
	}
	if diff > 1e-9*norm {
		t.Errorf("solutions differ by %g (largest entry %g)", diff, norm)
	}
}

func benchSystemT(t *testing.T, name string) (*meshSystem, *CSC, *CSC) {
	ms := loadMesh(t, name)
	return ms, withDirichlet(ms.gtg, handles(ms.nv, 97, 0)), withDirichlet(ms.gtg, handles(ms.nv, 50, 13))
}
