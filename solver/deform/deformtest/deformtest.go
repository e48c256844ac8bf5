// Package deformtest holds a reference solver for tests of deform and the
// packages built on it: the Poisson problem of Sumner et al. Eq. 3 solved
// densely.
package deformtest

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"
)

// Operator is the gradient operator G of deform.Gradients: three rows per
// triangle over the unknowns (vertices and fourth vertices). It is an
// interface so that deform's own tests can use SolveDense without an
// import cycle.
type Operator interface {
	NumUnknowns() int
	NumRows() int
	NumTriangles() int
	// Row returns row c of triangle j: the unknowns it touches and their
	// coefficients.
	Row(j, c int) (cols [4]int, coef [4]float64)
}

// SolveDense solves min ‖G·x − f‖ over the unknowns not in fixed (those
// keep their values from x0), per coordinate, by dense QR: the slow,
// obviously right answer that sparse solvers are checked against.
func SolveDense(t testing.TB, g Operator, f []mgl64.Mat3, fixed []int, x0 []mgl64.Vec3) []mgl64.Vec3 {
	t.Helper()
	isFixed := make([]bool, g.NumUnknowns())
	for _, i := range fixed {
		isFixed[i] = true
	}
	col := make([]int, g.NumUnknowns()) // free unknown → column, or −1
	nfree := 0
	for i := range col {
		col[i] = -1
		if !isFixed[i] {
			col[i] = nfree
			nfree++
		}
	}
	a := mat.NewDense(g.NumRows(), nfree, nil)
	b := mat.NewDense(g.NumRows(), 3, nil)
	for j := 0; j < g.NumTriangles(); j++ {
		for c := 0; c < 3; c++ {
			row := 3*j + c
			cols, coef := g.Row(j, c)
			rhs := f[j].Col(c)
			for k, u := range cols {
				if col[u] >= 0 {
					a.Set(row, col[u], coef[k])
				} else {
					rhs = rhs.Sub(x0[u].Mul(coef[k]))
				}
			}
			for r := 0; r < 3; r++ {
				b.Set(row, r, rhs[r])
			}
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var sol mat.Dense
	if err := qr.SolveTo(&sol, false, b); err != nil {
		t.Fatal(err)
	}
	x := append([]mgl64.Vec3(nil), x0...)
	for i := range x {
		if col[i] >= 0 {
			x[i] = mgl64.Vec3{sol.At(col[i], 0), sol.At(col[i], 1), sol.At(col[i], 2)}
		}
	}
	return x
}
