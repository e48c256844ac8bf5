package sparse

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randSPD returns a random symmetric positive definite n×n matrix (full
// storage) with about density·n off-diagonal entries per column, made
// diagonally dominant. Extra shapes: "arrow" adds a dense last row and
// column, "blocks" makes c disconnected components.
func randSPD(rng *rand.Rand, n int, density float64, shape string) *CSC {
	t := NewTriplet(n, n, 0)
	diag := make([]float64, n)
	add := func(i, j int, v float64) {
		t.Add(i, j, v)
		t.Add(j, i, v)
		diag[i] += math.Abs(v)
		diag[j] += math.Abs(v)
	}
	comp := func(i int) int { return 0 }
	if shape == "blocks" {
		comp = func(i int) int { return i % 3 }
	}
	nnzPer := density * float64(n)
	for j := 0; j < n; j++ {
		for e := 0; e < int(nnzPer)+1; e++ {
			if rng.Float64() > nnzPer/float64(int(nnzPer)+1) {
				continue
			}
			i := rng.IntN(n)
			if i == j || comp(i) != comp(j) {
				continue
			}
			add(i, j, rng.Float64()*2-1)
		}
	}
	if shape == "arrow" && n > 1 {
		for i := 0; i < n-1; i++ {
			add(n-1, i, rng.Float64()*2-1)
		}
	}
	for i := 0; i < n; i++ {
		t.Add(i, i, diag[i]+0.5+rng.Float64())
	}
	return t.CSC()
}

func toDense(a *CSC) *mat.Dense {
	d := mat.NewDense(max(a.Rows, 1), max(a.Cols, 1), nil)
	for j := 0; j < a.Cols; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			d.Set(a.RowIdx[p], j, a.Val[p])
		}
	}
	return d
}

// lowerOf returns the lower triangle of a.
func lowerOf(a *CSC) *CSC {
	t := NewTriplet(a.Rows, a.Cols, a.NNZ())
	for j := 0; j < a.Cols; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			if a.RowIdx[p] >= j {
				t.Add(a.RowIdx[p], j, a.Val[p])
			}
		}
	}
	return t.CSC()
}

func randDense(rng *rand.Rand, r, c int) *mat.Dense {
	d := mat.NewDense(r, c, nil)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			d.Set(i, j, rng.NormFloat64())
		}
	}
	return d
}

// residual returns ‖A·X − B‖_F / ‖B‖_F for a symmetric A stored in full.
func residual(a *CSC, x, b *mat.Dense) float64 {
	n, k := b.Dims()
	ax := make([]float64, n)
	xc := make([]float64, n)
	var num, den float64
	for c := 0; c < k; c++ {
		mat.Col(xc, c, x)
		a.MulVec(ax, xc)
		for i := 0; i < n; i++ {
			d := ax[i] - b.At(i, c)
			num += d * d
			den += b.At(i, c) * b.At(i, c)
		}
	}
	return math.Sqrt(num / den)
}

type testCase struct {
	name string
	a    *CSC
}

func testMatrices() []testCase {
	rng := rand.New(rand.NewPCG(7, 11))
	var cs []testCase
	one := NewTriplet(1, 1, 1)
	one.Add(0, 0, 4)
	cs = append(cs, testCase{"1x1", one.CSC()})
	diag := NewTriplet(7, 7, 7)
	for i := 0; i < 7; i++ {
		diag.Add(i, i, float64(i+1))
	}
	cs = append(cs, testCase{"diagonal", diag.CSC()})
	for _, n := range []int{2, 5, 17, 64, 150, 400} {
		for _, d := range []float64{0.01, 0.05, 0.3} {
			cs = append(cs, testCase{fmt.Sprintf("n=%d/d=%g", n, d), randSPD(rng, n, d, "")})
		}
		cs = append(cs, testCase{fmt.Sprintf("n=%d/dense", n), randSPD(rng, n, 0.9, "")})
		cs = append(cs, testCase{fmt.Sprintf("n=%d/arrow", n), randSPD(rng, n, 0.02, "arrow")})
		cs = append(cs, testCase{fmt.Sprintf("n=%d/blocks", n), randSPD(rng, n, 0.05, "blocks")})
	}
	cs = append(cs, testCase{"n=3000/d=0.002", randSPD(rng, 3000, 0.002, "")})
	cs = append(cs, testCase{"n=2000/arrow", randSPD(rng, 2000, 0.001, "arrow")})
	return cs
}

func TestAgainstDenseCholesky(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, tc := range testMatrices() {
		for _, lower := range []bool{false, true} {
			name := tc.name
			if lower {
				name += "/lower"
			}
			t.Run(name, func(t *testing.T) {
				a := tc.a
				in := a
				if lower {
					in = lowerOf(a)
				}
				n := a.Rows
				sym, err := Analyze(in, nil)
				if err != nil {
					t.Fatal(err)
				}
				fac, err := sym.Factor(in)
				if err != nil {
					t.Fatal(err)
				}
				// Three right-hand sides (the positions' solves: four
				// columns, one of padding) and thirteen (sixteen, split
				// across cores at the top of the tree).
				k := 3
				if lower {
					k = 13
				}
				b := randDense(rng, n, k)
				x := mat.NewDense(n, k, nil)
				fac.Solve(x, b)
				if r := residual(a, x, b); r > 1e-10 {
					t.Errorf("residual %g", r)
				}
				// Against gonum's dense Cholesky.
				if n <= 400 {
					var ch mat.Cholesky
					if !ch.Factorize(mat.NewSymDense(n, toDense(a).RawMatrix().Data)) {
						t.Fatal("gonum: not positive definite")
					}
					want := mat.NewDense(n, k, nil)
					if err := ch.SolveTo(want, b); err != nil {
						t.Fatal(err)
					}
					if !mat.EqualApprox(x, want, 1e-9*mat.Norm(want, math.Inf(1))) {
						t.Errorf("solution differs from gonum's Cholesky")
					}
					wantLD := ch.LogDet()
					if got := fac.LogDet(); math.Abs(got-wantLD) > 1e-9*math.Max(1, math.Abs(wantLD)) {
						t.Errorf("LogDet = %g, want %g", got, wantLD)
					}
				}
				// L·Lᵀ = P·A·Pᵀ entrywise.
				if n <= 150 {
					checkLLT(t, sym, fac, a)
				}
			})
		}
	}
}

func checkLLT(t *testing.T, sym *Symbolic, fac *Factor, a *CSC) {
	t.Helper()
	n := a.Rows
	l := toDense(fac.L())
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if l.At(i, j) != 0 {
				t.Fatalf("L[%d,%d] = %g above the diagonal", i, j, l.At(i, j))
			}
		}
	}
	var llt mat.Dense
	llt.Mul(l, l.T())
	perm := sym.Perm()
	ad := toDense(a)
	scale := mat.Norm(ad, math.Inf(1))
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if d := math.Abs(llt.At(i, j) - ad.At(perm[i], perm[j])); d > 1e-12*scale {
				t.Fatalf("(L·Lᵀ)[%d,%d] = %g, (P·A·Pᵀ) = %g", i, j, llt.At(i, j), ad.At(perm[i], perm[j]))
			}
		}
	}
}

func TestOrderingIsPermutation(t *testing.T) {
	for _, tc := range testMatrices() {
		sym, err := Analyze(tc.a, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := sym.Perm()
		q := slices.Clone(p)
		slices.Sort(q)
		for i, v := range q {
			if v != i {
				t.Fatalf("%s: perm is not a permutation of 0..%d: %v", tc.name, len(p)-1, p)
			}
		}
	}
}

// bruteSymbolic eliminates the pattern of P·A·Pᵀ densely and returns the
// elimination tree and the column counts of L.
func bruteSymbolic(a *CSC, perm []int) (parent, count []int) {
	n := a.Rows
	pinv := invert(perm)
	nz := make([][]bool, n)
	for i := range nz {
		nz[i] = make([]bool, n)
		nz[i][i] = true
	}
	for j := 0; j < n; j++ {
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			i := a.RowIdx[p]
			if i >= j {
				pi, pj := pinv[i], pinv[j]
				nz[pi][pj], nz[pj][pi] = true, true
			}
		}
	}
	parent = make([]int, n)
	count = make([]int, n)
	for k := 0; k < n; k++ {
		parent[k] = -1
		for i := k + 1; i < n; i++ {
			if !nz[i][k] {
				continue
			}
			if parent[k] < 0 {
				parent[k] = i
			}
			for j := k + 1; j <= i; j++ {
				if nz[j][k] {
					nz[i][j], nz[j][i] = true, true
				}
			}
		}
		for i := k; i < n; i++ {
			if nz[i][k] {
				count[k]++
			}
		}
	}
	return parent, count
}

func TestETreeColCountsBruteForce(t *testing.T) {
	for _, tc := range testMatrices() {
		if tc.a.Rows > 400 {
			continue
		}
		for _, ord := range []Ordering{OrderAMD, OrderNatural} {
			sym, err := Analyze(tc.a, &Options{Ordering: ord})
			if err != nil {
				t.Fatal(err)
			}
			parent, count := bruteSymbolic(tc.a, sym.Perm())
			if got := sym.ETree(); !slices.Equal(got, parent) {
				t.Errorf("%s/ord=%d: etree %v, want %v", tc.name, ord, got, parent)
			}
			if got := sym.ColCounts(); !slices.Equal(got, count) {
				t.Errorf("%s/ord=%d: column counts %v, want %v", tc.name, ord, got, count)
			}
			nnz := 0
			for _, c := range count {
				nnz += c
			}
			if sym.NNZ() != nnz {
				t.Errorf("%s: NNZ = %d, want %d", tc.name, sym.NNZ(), nnz)
			}
		}
	}
}

func TestNotPositiveDefinite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	a := randSPD(rng, 200, 0.02, "")
	// Make column 37 indefinite: a large negative shift on its diagonal.
	const bad = 37
	for p := a.ColPtr[bad]; p < a.ColPtr[bad+1]; p++ {
		if a.RowIdx[p] == bad {
			a.Val[p] = -1
		}
	}
	sym, err := Analyze(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sym.Factor(a)
	var npd *NotPositiveDefiniteError
	if !errors.As(err, &npd) {
		t.Fatalf("Factor error = %v, want *NotPositiveDefiniteError", err)
	}
	if npd.Column != bad {
		t.Errorf("error names column %d, want %d (%v)", npd.Column, bad, err)
	}
	if sym.Perm()[npd.Step] != npd.Column {
		t.Errorf("Step %d is not the pivot position of column %d", npd.Step, npd.Column)
	}
	// A good matrix on the same pattern refactors, and a bad one fails
	// again with the same report.
	good := randSPD(rand.New(rand.NewPCG(1, 1)), 200, 0.02, "")
	fac, err := sym.Factor(good)
	if err != nil {
		t.Fatal(err)
	}
	if err := fac.Refactor(a); !errors.As(err, &npd) || npd.Column != bad {
		t.Errorf("Refactor error = %v", err)
	}
	if err := fac.Refactor(good); err != nil {
		t.Errorf("Refactor after failure: %v", err)
	}
}

func TestSolveHalvesAndGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	a := randSPD(rng, 500, 0.01, "arrow")
	sym, _ := Analyze(a, nil)
	fac, err := sym.Factor(a)
	if err != nil {
		t.Fatal(err)
	}
	n, k := 500, 7
	b := randDense(rng, n, k)
	y := mat.NewDense(n, k, nil)
	x := mat.NewDense(n, k, nil)
	x2 := mat.NewDense(n, k, nil)
	fac.SolveLower(y, b)
	fac.SolveUpper(x, y)
	fac.Solve(x2, b)
	if !mat.EqualApprox(x, x2, 1e-12) {
		t.Errorf("SolveUpper(SolveLower(B)) ≠ Solve(B)")
	}
	// Gram identity: Yᵀ·Y = Bᵀ·A⁻¹·B.
	var g1, g2 mat.Dense
	g1.Mul(y.T(), y)
	g2.Mul(b.T(), x2)
	if !mat.EqualApprox(&g1, &g2, 1e-9*mat.Norm(&g2, math.Inf(1))) {
		t.Errorf("Yᵀ·Y ≠ Bᵀ·A⁻¹·B")
	}
	// Vector versions agree with the matrix ones, and dst may alias b.
	bc := mat.Col(nil, 2, b)
	v := slices.Clone(bc)
	fac.SolveVec(v, v)
	if !floatsEqualApprox(v, mat.Col(nil, 2, x2), 1e-12) {
		t.Errorf("SolveVec differs from Solve")
	}
	yv := make([]float64, n)
	fac.SolveLowerVec(yv, bc)
	if !floatsEqualApprox(yv, mat.Col(nil, 2, y), 1e-12) {
		t.Errorf("SolveLowerVec differs from SolveLower")
	}
	fac.SolveUpperVec(yv, yv)
	if !floatsEqualApprox(yv, v, 1e-12) {
		t.Errorf("SolveUpperVec differs")
	}
	// In place on a matrix.
	bb := mat.DenseCopyOf(b)
	fac.Solve(bb, bb)
	if !mat.Equal(bb, x2) {
		t.Errorf("in-place Solve differs")
	}
	// The right-hand sides at their pivot positions, at the solves' own
	// stride, solved in place: Y, row for row.
	ks := RowStride(k)
	piv := make([]float64, n*ks)
	for i := 0; i < n; i++ {
		copy(piv[sym.PivotOf(i)*ks:], b.RawRowView(i))
	}
	fac.NewWorkspace().SolveLowerPivoted(piv, ks)
	for i := 0; i < n; i++ {
		if got, want := piv[i*ks:i*ks+k], y.RawRowView(i); !slices.Equal(got, want) {
			t.Fatalf("SolveLowerPivoted row %d = %v, SolveLower %v", i, got, want)
		}
	}
}

func floatsEqualApprox(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestTripletSumsDuplicates(t *testing.T) {
	tr := NewTriplet(3, 2, 0)
	tr.Add(2, 1, 1)
	tr.Add(0, 1, 2)
	tr.Add(2, 1, 3)
	tr.Add(1, 0, 5)
	a := tr.CSC()
	if err := a.Check(); err != nil {
		t.Fatal(err)
	}
	if a.NNZ() != 3 || a.At(2, 1) != 4 || a.At(0, 1) != 2 || a.At(1, 0) != 5 || a.At(0, 0) != 0 {
		t.Errorf("got %+v", a)
	}
	at := a.Transpose()
	if at.Rows != 2 || at.Cols != 3 || at.At(1, 2) != 4 || at.At(0, 1) != 5 {
		t.Errorf("transpose %+v", at)
	}
}

func TestMulTransA(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	tr := NewTriplet(300, 120, 0)
	for r := 0; r < 300; r++ {
		for range 4 {
			tr.Add(r, rng.IntN(120), rng.NormFloat64())
		}
	}
	a := tr.CSC()
	c := MulTransA(a)
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	var want mat.Dense
	ad := toDense(a)
	want.Mul(ad.T(), ad)
	if !mat.EqualApprox(toDense(c), &want, 1e-12) {
		t.Errorf("AᵀA differs from the dense product")
	}
	x := make([]float64, 120)
	y1 := make([]float64, 120)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	c.MulVec(y1, x)
	y2 := make([]float64, 120)
	lowerOf(c).MulVecSym(y2, x)
	if !floatsEqualApprox(y1, y2, 1e-12) {
		t.Errorf("MulVecSym of the lower triangle differs from MulVec")
	}
}

func TestDeterminism(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	a := randSPD(rng, 1500, 0.002, "arrow")
	b := randDense(rng, 1500, 5)
	var first []float64
	var firstX *mat.Dense
	for run := 0; run < 6; run++ {
		sym, err := Analyze(a, &Options{Sequential: run == 5})
		if err != nil {
			t.Fatal(err)
		}
		fac, err := sym.Factor(a)
		if err != nil {
			t.Fatal(err)
		}
		x := mat.NewDense(1500, 5, nil)
		fac.Solve(x, b)
		if run == 0 {
			first, firstX = slices.Clone(fac.lx), x
			continue
		}
		if !slices.Equal(first, fac.lx) {
			t.Errorf("run %d: factor differs bitwise", run)
		}
		if !mat.Equal(firstX, x) {
			t.Errorf("run %d: solution differs bitwise", run)
		}
	}
}

func TestShapePanics(t *testing.T) {
	a := randSPD(rand.New(rand.NewPCG(1, 2)), 10, 0.2, "")
	sym, _ := Analyze(a, nil)
	fac, _ := sym.Factor(a)
	mustPanic(t, "Solve shape", func() { fac.Solve(mat.NewDense(10, 2, nil), mat.NewDense(9, 2, nil)) })
	mustPanic(t, "non-square", func() { Analyze(&CSC{Rows: 2, Cols: 3, ColPtr: make([]int, 4)}, nil) })
	other := randSPD(rand.New(rand.NewPCG(9, 2)), 10, 0.3, "")
	mustPanic(t, "pattern", func() { fac.Refactor(other) })
}

func mustPanic(t *testing.T, what string, fn func()) {
	t.Helper()
	defer func() {
		if r := recover(); r == nil {
			t.Errorf("%s: no panic", what)
		} else if s, ok := r.(string); !ok || len(s) < 7 || s[:7] != "sparse:" {
			t.Errorf("%s: panic %v without the sparse: prefix", what, r)
		}
	}()
	fn()
}

func TestOptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	a := randSPD(rng, 300, 0.01, "arrow")
	n := a.Rows
	rev := make([]int, n)
	for i := range rev {
		rev[i] = n - 1 - i
	}
	b := randDense(rng, n, 4)
	for name, o := range map[string]*Options{
		"natural":        {Ordering: OrderNatural},
		"given":          {Ordering: OrderGiven, Perm: rev},
		"noAmalgamation": {NoAmalgamation: true},
		"noDense":        {Dense: -1},
		"dense1":         {Dense: 1},
		"sequential":     {Sequential: true},
		"amdOnly":        {AMDOnly: true},
	} {
		sym, err := Analyze(a, o)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		fac, err := sym.Factor(a)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		x := mat.NewDense(n, 4, nil)
		fac.Solve(x, b)
		if r := residual(a, x, b); r > 1e-10 {
			t.Errorf("%s: residual %g", name, r)
		}
	}
	if _, err := Analyze(a, &Options{Ordering: OrderGiven, Perm: rev[1:]}); err == nil {
		t.Errorf("short Perm accepted")
	}
	bad := slices.Clone(rev)
	bad[0] = bad[1]
	if _, err := Analyze(a, &Options{Ordering: OrderGiven, Perm: bad}); err == nil {
		t.Errorf("repeated Perm entry accepted")
	}
}

// TestAMDFill checks that AMD reduces fill where it must: on a 2D grid
// Laplacian it gives far less fill than the natural (banded) order, and on
// an arrowhead matrix whose dense row comes first it moves that row last
// (no fill at all).
func TestAMDFill(t *testing.T) {
	const g = 40
	tr := NewTriplet(g*g, g*g, 0)
	for i := 0; i < g; i++ {
		for j := 0; j < g; j++ {
			v := i*g + j
			tr.Add(v, v, 4.5)
			if i+1 < g {
				tr.Add(v+g, v, -1)
				tr.Add(v, v+g, -1)
			}
			if j+1 < g {
				tr.Add(v+1, v, -1)
				tr.Add(v, v+1, -1)
			}
		}
	}
	a := tr.CSC()
	amd, _ := Analyze(a, nil)
	nat, _ := Analyze(a, &Options{Ordering: OrderNatural})
	t.Logf("40×40 grid: nnz(L) AMD %d, natural %d", amd.NNZ(), nat.NNZ())
	if amd.NNZ() > nat.NNZ()*7/10 {
		t.Errorf("AMD fill %d is not well below the natural order's %d", amd.NNZ(), nat.NNZ())
	}
	// Arrowhead with the dense row first: the natural order fills in
	// completely, AMD (dense row ordered last) not at all.
	const n = 500
	ar := NewTriplet(n, n, 0)
	for i := 0; i < n; i++ {
		ar.Add(i, i, float64(n))
		if i > 0 {
			ar.Add(i, 0, 1)
			ar.Add(0, i, 1)
		}
	}
	arrow := ar.CSC()
	sym, _ := Analyze(arrow, nil)
	if sym.NNZ() != 2*n-1 {
		t.Errorf("arrowhead: nnz(L) = %d, want %d", sym.NNZ(), 2*n-1)
	}
	if p := sym.Perm(); p[n-1] != 0 {
		t.Errorf("arrowhead: dense node ordered at %d, want last", slices.Index(p, 0))
	}
}
