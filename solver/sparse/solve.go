package sparse

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"gallop/internal/hugepage"
	"gallop/internal/parallel"
	"gallop/solver/dense"
)

// Workspace is the scratch memory of the triangular solves: a row-major
// n×k block, and a small buffer per parallel task. A
// Workspace grows to the largest number of right-hand sides it has seen
// and then allocates nothing. The Factor's own solve methods use a
// Workspace held by the factor, so they must not run concurrently on one
// Factor; goroutines that solve concurrently each need their own
// Workspace (NewWorkspace) and call its methods.
type Workspace struct {
	f    *Factor
	x    []float64 // n×k, row-major, pivot order
	acc  []float64 // per solve task: its updates to the rows of the top
	pool chan []float64
	k    int // the number of columns the pool's buffers are sized for
}

// scratch returns a buffer for the gemm path of the solves with k
// columns: at most Workers goroutines hold one at a time.
func (w *Workspace) scratch() []float64 { return <-w.pool }

// NewWorkspace returns an empty workspace for solves with f.
func (f *Factor) NewWorkspace() *Workspace { return &Workspace{f: f} }

func (f *Factor) workspace() *Workspace {
	if f.ws == nil {
		f.ws = f.NewWorkspace()
	}
	return f.ws
}

// Solve computes dst = A⁻¹·B (B and dst n×k; dst may be B). The solves
// use every core (independent subtrees of the elimination tree in
// parallel, then the top of the tree with the right-hand sides split),
// and handle all k columns at once in each supernode. The result does not
// depend on scheduling.
func (f *Factor) Solve(dst, b *mat.Dense) { f.workspace().Solve(dst, b) }

// SolveLower computes the half solve dst = L⁻¹·P·B (B and dst n×k; dst may
// be B). The rows of dst are in pivot order. With Y = L⁻¹·P·B,
// Bᵀ·A⁻¹·B = Yᵀ·Y.
func (f *Factor) SolveLower(dst, b *mat.Dense) { f.workspace().SolveLower(dst, b) }

// SolveUpper computes dst = Pᵀ·L⁻ᵀ·Y (Y and dst n×k, the rows of Y in pivot
// order; dst may be Y), so that SolveUpper(SolveLower(B)) = A⁻¹·B.
func (f *Factor) SolveUpper(dst, y *mat.Dense) { f.workspace().SolveUpper(dst, y) }

// SolveVec computes dst = A⁻¹·b (dst may be b).
func (f *Factor) SolveVec(dst, b []float64) { f.workspace().SolveVec(dst, b) }

// SolveLowerVec computes dst = L⁻¹·P·b (dst may be b).
func (f *Factor) SolveLowerVec(dst, b []float64) { f.workspace().SolveLowerVec(dst, b) }

// SolveUpperVec computes dst = Pᵀ·L⁻ᵀ·y (dst may be y).
func (f *Factor) SolveUpperVec(dst, y []float64) { f.workspace().SolveUpperVec(dst, y) }

// Solve is Factor.Solve with this workspace.
func (w *Workspace) Solve(dst, b *mat.Dense) { w.solve(dst, b, true, true) }

// SolveLower is Factor.SolveLower with this workspace.
func (w *Workspace) SolveLower(dst, b *mat.Dense) { w.solve(dst, b, true, false) }

// SolveUpper is Factor.SolveUpper with this workspace.
func (w *Workspace) SolveUpper(dst, y *mat.Dense) { w.solve(dst, y, false, true) }

// SolveVec is Factor.SolveVec with this workspace.
func (w *Workspace) SolveVec(dst, b []float64) { w.solveVec(dst, b, true, true) }

// SolveLowerVec is Factor.SolveLowerVec with this workspace.
func (w *Workspace) SolveLowerVec(dst, b []float64) { w.solveVec(dst, b, true, false) }

// SolveUpperVec is Factor.SolveUpperVec with this workspace.
func (w *Workspace) SolveUpperVec(dst, y []float64) { w.solveVec(dst, y, false, true) }

func (w *Workspace) solveVec(dst, b []float64, lower, upper bool) {
	n := w.f.sym.n
	if len(b) != n || len(dst) != n {
		panic(fmt.Sprintf("sparse: solve: len(b) = %d, len(dst) = %d, want %d", len(b), len(dst), n))
	}
	w.run(dst, 1, b, 1, 1, lower, upper)
}

func (w *Workspace) solve(dst, b *mat.Dense, lower, upper bool) {
	n := w.f.sym.n
	br, bc := b.Dims()
	dr, dc := dst.Dims()
	if br != n || dr != n || bc != dc {
		panic(fmt.Sprintf("sparse: solve: B is %d×%d and dst %d×%d, want %d×k", br, bc, dr, dc, n))
	}
	if bc == 0 {
		return
	}
	braw, draw := b.RawMatrix(), dst.RawMatrix()
	w.run(draw.Data, draw.Stride, braw.Data, braw.Stride, bc, lower, upper)
}

// run solves for k right-hand sides held row-major in b (stride ldb) into
// dst (stride ldd). The right-hand sides are gathered (permuted when
// lower) into one row-major n×k block x, solved there (solveBlock) and
// copied out (permuted back when upper).
func (w *Workspace) run(dst []float64, ldd int, b []float64, ldb, k int, lower, upper bool) {
	f := w.f
	f.check()
	s := f.sym
	n := s.n
	// x's rows are padded to a multiple of 4 columns when that adds at
	// most a third, so that the 4-column FMA tiles cover them (k = 3).
	kb := k
	k = padCols(k)
	if cap(w.x) < n*k {
		w.x = hugepage.Make[float64](n * k)
	}
	x := w.x[:n*k]
	grain := max(1024, n/(4*parallel.Workers()))
	// Rows of B are read in order and written to their pivot positions
	// (scattered stores do not stall the way scattered loads do).
	s.pchunks(n, grain, func(lo, hi int) {
		for src := lo; src < hi; src++ {
			i := src
			if lower {
				i = s.pinv[src]
			}
			xi := x[i*k : i*k+k]
			copy(xi, b[src*ldb:src*ldb+kb])
			clear(xi[kb:])
		}
	})
	w.solveBlock(x, k, lower, upper)
	s.pchunks(n, grain, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			d := i
			if upper {
				d = s.perm[i]
			}
			copy(dst[d*ldd:d*ldd+kb], x[i*k:i*k+kb])
		}
	})
}

// RowStride returns the row length at which the solves work on k
// right-hand sides: k, or k padded to a multiple of 4 when that adds at
// most a third. Callers that keep their right-hand sides in pivot order
// at this stride solve them in place (SolveLowerPivoted).
func RowStride(k int) int { return padCols(k) }

// PivotOf returns the position of row i of A in pivot order (the row of
// P·B that row i of B becomes).
func (s *Symbolic) PivotOf(i int) int { return s.pinv[i] }

// SolveLowerPivoted computes Y = L⁻¹·Z in place for k right-hand sides
// held row-major in x (n rows of k numbers) whose rows are already in
// pivot order, Z = P·B (row PivotOf(i) of x holds row i of B); Y's rows
// are in pivot order too. It is SolveLower without gathering the
// right-hand sides into the workspace and copying them back: for callers
// that build their right-hand sides at their pivot positions, at the
// stride RowStride gives.
func (w *Workspace) SolveLowerPivoted(x []float64, k int) {
	w.f.check()
	if n := w.f.sym.n; len(x) < n*k || k <= 0 {
		panic(fmt.Sprintf("sparse: solve: %d numbers for %d rows of %d", len(x), n, k))
	}
	w.solveBlock(x[:w.f.sym.n*k], k, true, false)
}

// solveBlock solves in place for the k right-hand sides of x (n rows of
// k, pivot order), all k columns per supernode:
//
// forward (L·Y = P·B): the independent subtrees of the solve schedule run
// in parallel; updates a subtree makes to rows of the top of the tree
// (ancestors of several subtrees) go to a buffer of its own, and the
// buffers are added to x in a fixed order once all subtrees are done;
// then the top supernodes run in order, the columns of x split across
// cores. Backward (Lᵀ·X = Y): the top first (columns split), then the
// subtrees in parallel, which only read the top's rows.
func (w *Workspace) solveBlock(x []float64, k int, lower, upper bool) {
	f := w.f
	s := f.sym
	sc := &s.solveSched
	nt := len(sc.tasks)
	ntop := len(sc.topRows)
	if cap(w.acc) < nt*ntop*k {
		w.acc = hugepage.Make[float64](nt * ntop * k)
	}
	acc := w.acc[:nt*ntop*k]
	if w.pool == nil || w.k < k {
		nw := parallel.Workers()
		w.pool = make(chan []float64, nw)
		for range nw {
			w.pool <- make([]float64, s.maxM*(k+s.maxNS))
		}
		w.k = k
	}
	// The top supernodes split the columns of x across cores, in shares
	// of at least 4 (the kernels' tile width): a share of fewer columns
	// costs a core as much as 4 would.
	ng := max(1, min(k/4, parallel.Workers()))
	if lower {
		clear(acc)
		s.pfor(nt, func(t int) {
			tk := sc.tasks[t]
			at := acc[t*ntop*k : (t+1)*ntop*k]
			scr := w.scratch()
			defer func() { w.pool <- scr }()
			for sn := tk.lo; sn <= tk.hi; sn++ {
				f.forward(sn, x, k, 0, k, k, sc.topIdx, at, scr)
			}
		})
		s.pchunks(ntop, max(64, ntop/(4*parallel.Workers())), func(lo, hi int) {
			for q := lo; q < hi; q++ {
				r := sc.topRows[q]
				xr := x[r*k : r*k+k]
				for t := 0; t < nt; t++ {
					a := acc[(t*ntop+q)*k : (t*ntop+q)*k+k]
					for c := range xr {
						xr[c] += a[c]
					}
				}
			}
		})
		s.pfor(ng, func(g int) {
			c0, c1 := g*k/ng, (g+1)*k/ng
			scr := w.scratch()
			defer func() { w.pool <- scr }()
			for _, sn := range sc.topSN {
				f.forward(sn, x, k, c0, c1-c0, k, nil, nil, scr)
			}
		})
	}
	if upper {
		s.pfor(ng, func(g int) {
			c0, c1 := g*k/ng, (g+1)*k/ng
			scr := w.scratch()
			defer func() { w.pool <- scr }()
			for q := len(sc.topSN) - 1; q >= 0; q-- {
				f.backward(sc.topSN[q], x, k, c0, c1-c0, k, scr)
			}
		})
		s.pfor(nt, func(t int) {
			tk := sc.tasks[t]
			scr := w.scratch()
			defer func() { w.pool <- scr }()
			for sn := tk.hi; sn >= tk.lo; sn-- {
				f.backward(sn, x, k, 0, k, k, scr)
			}
		})
	}
}

// padCols returns the row length of the solve workspace for k right-hand
// sides.
func padCols(k int) int {
	if kp := (k + 3) &^ 3; 3*(kp-k) <= k {
		return kp
	}
	return k
}

// gemmSolveMin is the size m·ns of L21 from which a supernode's update in
// the solves is done by gathering rows and calling the gemm kernel, when
// there are at least 4 right-hand sides. The choice depends on the
// supernode and on the call's k only, so every column of x takes the same
// arithmetic path whatever the split of the columns across cores.
const gemmSolveMin = 48

// trsmPanel is the width of the panels in which the solves with a
// supernode's diagonal block L11 go, when there are at least 4
// right-hand sides: within a panel column by column, and from one panel
// to the rest of the block by the gemm kernel.
const trsmPanel = 8

// target returns the row of x that the update of row r goes to: row
// topIdx[r] of acc when topIdx is not nil and r is a top row, else row r
// of x; columns c0..c0+kc.
func target(x, acc []float64, topIdx []int32, r, ld, c0, kc int) []float64 {
	if topIdx != nil && topIdx[r] >= 0 {
		q := int(topIdx[r])
		return acc[q*ld+c0 : q*ld+c0+kc]
	}
	return x[r*ld+c0 : r*ld+c0+kc]
}

// forward applies supernode sn to columns c0..c0+kc of x (n rows, row
// stride ld, pivot order; k is the call's number of right-hand sides): it solves L11·X1 = X1 on its own rows, then
// X2 −= L21·X1 on its other rows. When topIdx is not nil, the update of a
// row r with topIdx[r] ≥ 0 goes to row topIdx[r] of acc (stride ld)
// instead. scr is scratch for the gemm path.
func (f *Factor) forward(sn int, x []float64, ld, c0, kc, k int, topIdx []int32, acc []float64, scr []float64) {
	s := f.sym
	fc := s.superStart[sn]
	ns := s.superStart[sn+1] - fc
	rows := s.rows[s.rowPtr[sn]:s.rowPtr[sn+1]]
	nr := len(rows)
	m := nr - ns
	blk := f.lx[s.lPtr[sn]:s.lPtr[sn+1]]
	if kc%4 == 0 && kc >= 8 && ns <= rowsMaxNS {
		forwardRows(ns, fc, rows, blk, x, ld, c0, kc, k, topIdx, acc)
		return
	}
	if ns == 1 {
		// One column (most supernodes of mesh matrices): axpys.
		xj := x[fc*ld+c0 : fc*ld+c0+kc]
		d := 1 / blk[0]
		for c := range xj {
			xj[c] *= d
		}
		for t := 1; t < nr; t++ {
			xr := target(x, acc, topIdx, int(rows[t]), ld, c0, kc)
			subScaled(xr, blk[t], xj)
		}
		return
	}
	solveDiagonal(ns, nr, fc, blk, x, ld, c0, kc, k)
	if m == 0 {
		return
	}
	if m*ns >= gemmSolveMin && k >= 4 {
		// T = X2ᵀ (kc×m column-major: X2's rows gathered whole, no
		// transposition); T −= X1ᵀ·L21ᵀ, that is X2 −= L21·X1; scatter.
		t := scr[:m*kc]
		for q, r := range rows[ns:] {
			copy(t[q*kc:(q+1)*kc], target(x, acc, topIdx, int(r), ld, c0, kc))
		}
		dense.GemmNT(kc, m, ns, x[fc*ld+c0:], ld, blk[ns:], nr, t, kc, t, kc)
		for q, r := range rows[ns:] {
			copy(target(x, acc, topIdx, int(r), ld, c0, kc), t[q*kc:(q+1)*kc])
		}
		return
	}
	// X2 −= L21·X1, column by column of L21 (contiguous), each an axpy
	// into the rows of the supernode.
	for j := 0; j < ns; j++ {
		col := blk[j*nr+ns : j*nr+nr]
		xj := x[(fc+j)*ld+c0 : (fc+j)*ld+c0+kc]
		for q, r := range rows[ns:] {
			subScaled(target(x, acc, topIdx, int(r), ld, c0, kc), col[q], xj)
		}
	}
}

// solveDiagonal sets X1 = L11⁻¹·X1 for the supernode with ns columns from
// fc (nr rows, block blk), by panels of trsmPanel columns when k ≥ 4: a
// panel's triangle column by column, then the supernode's rows after it
// updated by one product, X1[j1:] −= L11[j1:, j0:j1]·X1[j0:j1].
func solveDiagonal(ns, nr, fc int, blk, x []float64, ld, c0, kc, k int) {
	pw := ns
	if k >= 4 {
		pw = trsmPanel
	}
	for j0 := 0; j0 < ns; j0 += pw {
		j1 := min(j0+pw, ns)
		for j := j0; j < j1; j++ {
			col := blk[j*nr : j*nr+ns]
			xj := x[(fc+j)*ld+c0 : (fc+j)*ld+c0+kc]
			r := 1 / col[j]
			for c := range xj {
				xj[c] *= r
			}
			for i := j + 1; i < j1; i++ {
				subScaled(x[(fc+i)*ld+c0:(fc+i)*ld+c0+kc], col[i], xj)
			}
		}
		if j1 < ns {
			xr := x[(fc+j1)*ld+c0:]
			dense.GemmNT(kc, ns-j1, j1-j0, x[(fc+j0)*ld+c0:], ld, blk[j0*nr+j1:], nr, xr, ld, xr, ld)
		}
	}
}

// rowsMaxNS is the widest supernode whose update of the rows below it in
// a forward solve goes row by row (dense.SubRows: each row read and
// written once, no copies), rather than gathered into a block for the
// gemm kernel, whose register tiles reuse more of what they load.
const rowsMaxNS = 16

// forwardRows is forward for kc a multiple of 4, at least 8, on the
// supernode with ns columns from fc, rows and factor block blk: L11 by
// panels, then the rows below updated in place by dense.SubRows. Inside a
// subtree task the rows below that belong to the top of the tree (topIdx
// ≥ 0) come last (they are ancestors of the task's root, numbered after
// it) and go to acc.
func forwardRows(ns, fc int, rows []int32, blk, x []float64, ld, c0, kc, k int, topIdx []int32, acc []float64) {
	nr := len(rows)
	m := nr - ns
	solveDiagonal(ns, nr, fc, blk, x, ld, c0, kc, k)
	below := rows[ns:]
	split := m
	if topIdx != nil {
		for split > 0 && topIdx[below[split-1]] >= 0 {
			split--
		}
	}
	x1 := x[fc*ld+c0:]
	dense.SubRows(split, ns, kc, blk[ns:], nr, below[:split], x[c0:], x1, ld)
	// The top rows' places in acc, 64 rows at a time.
	var ti [64]int32
	for q0 := split; q0 < m; q0 += len(ti) {
		q1 := min(q0+len(ti), m)
		for q, r := range below[q0:q1] {
			ti[q] = topIdx[r]
		}
		dense.SubRows(q1-q0, ns, kc, blk[ns+q0:], nr, ti[:q1-q0], acc[c0:], x1, ld)
	}
}

// backward applies supernode sn to columns c0..c0+kc of x in the solve
// with Lᵀ: X1 −= L21ᵀ·X2, then it solves L11ᵀ·X1 = X1. scr is scratch for
// the gemm path.
func (f *Factor) backward(sn int, x []float64, ld, c0, kc, k int, scr []float64) {
	s := f.sym
	fc := s.superStart[sn]
	ns := s.superStart[sn+1] - fc
	rows := s.rows[s.rowPtr[sn]:s.rowPtr[sn+1]]
	nr := len(rows)
	m := nr - ns
	blk := f.lx[s.lPtr[sn]:s.lPtr[sn+1]]
	below := rows[ns:]
	if kc == 4 {
		backward4(ns, fc, rows, blk, x[c0:], ld)
		return
	}
	if ns == 1 {
		xj := x[fc*ld+c0 : fc*ld+c0+kc]
		for t, r := range below {
			subScaled(xj, blk[1+t], x[int(r)*ld+c0:int(r)*ld+c0+kc])
		}
		d := 1 / blk[0]
		for c := range xj {
			xj[c] *= d
		}
		return
	}
	switch {
	case m == 0:
	case m*ns >= gemmSolveMin && k >= 4:
		// X1ᵀ −= X2ᵀ·L21: A = X2ᵀ (kc×m, gathered), B = L21ᵀ (ns×m,
		// transposed copy).
		xt := scr[:m*kc]
		lt := scr[m*kc : m*kc+m*ns]
		for q, r := range below {
			copy(xt[q*kc:q*kc+kc], x[int(r)*ld+c0:int(r)*ld+c0+kc])
		}
		for j := 0; j < ns; j++ {
			col := blk[j*nr+ns : j*nr+nr]
			for q, v := range col {
				lt[q*ns+j] = v
			}
		}
		x1 := x[fc*ld+c0:]
		dense.GemmNT(kc, ns, m, xt, kc, lt, ns, x1, ld, x1, ld)
	default:
		for j := 0; j < ns; j++ {
			col := blk[j*nr+ns : j*nr+nr]
			col = col[:len(below)]
			xj := x[(fc+j)*ld+c0 : (fc+j)*ld+c0+kc]
			c := 0
			for ; c+4 <= kc; c += 4 {
				var a0, a1, a2, a3 float64
				for t, r := range below {
					l := col[t]
					xr := x[int(r)*ld+c0+c : int(r)*ld+c0+c+4 : int(r)*ld+c0+c+4]
					a0 += l * xr[0]
					a1 += l * xr[1]
					a2 += l * xr[2]
					a3 += l * xr[3]
				}
				o := xj[c : c+4 : c+4]
				o[0] -= a0
				o[1] -= a1
				o[2] -= a2
				o[3] -= a3
			}
			for ; c < kc; c++ {
				var a float64
				for t, r := range below {
					a += col[t] * x[int(r)*ld+c0+c]
				}
				xj[c] -= a
			}
		}
	}
	// X1 = L11⁻ᵀ·X1: for j from the last, X1[j] −= Σ_{i>j} L[i,j]·X1[i], /L[j,j].
	for j := ns - 1; j >= 0; j-- {
		col := blk[j*nr : j*nr+ns]
		xj := x[(fc+j)*ld+c0 : (fc+j)*ld+c0+kc]
		for i := j + 1; i < ns; i++ {
			subScaled(xj, col[i], x[(fc+i)*ld+c0:(fc+i)*ld+c0+kc])
		}
		r := 1 / col[j]
		for c := range xj {
			xj[c] *= r
		}
	}
}

// backward4 is backward for four right-hand sides (the positions' solves:
// three coordinates padded to four), on the supernode with ns columns
// from fc, rows and factor block blk; x's rows are ld apart from the
// first of the four columns. Each column of L21, and of L11 below its
// diagonal, is dotted with the rows it pairs with, four numbers a row,
// gathered in registers (dense.GatherDots4): no copies and no transposed
// block, which for four columns cost more than the products.
func backward4(ns, fc int, rows []int32, blk, x []float64, ld int) {
	nr := len(rows)
	m := nr - ns
	var acc [16]float64
	if m > 0 {
		for j0 := 0; j0 < ns; j0 += 4 {
			nj := min(4, ns-j0)
			dense.GatherDots4(m, nj, blk[j0*nr+ns:], nr, rows[ns:], x, ld, acc[:])
			for j := 0; j < nj; j++ {
				xj := x[(fc+j0+j)*ld:][:4]
				for c := range xj {
					xj[c] -= acc[4*j+c]
				}
			}
		}
	}
	// X1 = L11⁻ᵀ·X1: for j from the last, X1[j] −= Σ_{i>j} L[i,j]·X1[i], /L[j,j].
	for j := ns - 1; j >= 0; j-- {
		xj := x[(fc+j)*ld:][:4]
		if j+1 < ns {
			dense.GatherDots4(ns-j-1, 1, blk[j*nr+j+1:], nr, rows[j+1:ns], x, ld, acc[:])
			for c := range xj {
				xj[c] -= acc[c]
			}
		}
		r := 1 / blk[j*nr+j]
		for c := range xj {
			xj[c] *= r
		}
	}
}

// subScaled computes y −= a·x (len(y) elements), each product rounded
// before its subtraction: inline for the few columns of a vector solve,
// by dense.SubScaled's vector kernel for the many of a block of
// right-hand sides. Either way the same bits.
func subScaled(y []float64, a float64, x []float64) {
	if len(y) >= 8 {
		dense.SubScaled(y, a, x)
		return
	}
	x = x[:len(y)]
	for c, v := range x {
		y[c] -= float64(a * v)
	}
}
