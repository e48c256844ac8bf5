package sparse

import (
	"fmt"
	"slices"

	"gallop/internal/parallel"
)

// CSC is a sparse matrix in compressed sparse column form: the entries of
// column j are Val[ColPtr[j]:ColPtr[j+1]], in rows RowIdx[ColPtr[j]:ColPtr[j+1]].
//
// Invariants (checked by Check): len(ColPtr) = Cols+1, ColPtr[0] = 0,
// ColPtr is nondecreasing, len(RowIdx) = len(Val) = ColPtr[Cols], and within
// each column the row indices are strictly increasing and lie in [0, Rows).
// An entry may hold the value 0: it is still part of the pattern, which is
// what Analyze works from.
type CSC struct {
	Rows, Cols int
	ColPtr     []int
	RowIdx     []int
	Val        []float64
}

// NNZ returns the number of stored entries.
func (a *CSC) NNZ() int { return a.ColPtr[a.Cols] }

// At returns the entry at (i, j), 0 if it is not stored. It takes
// O(log nnz(column j)) time.
func (a *CSC) At(i, j int) float64 {
	if i < 0 || i >= a.Rows || j < 0 || j >= a.Cols {
		panic(fmt.Sprintf("sparse: At(%d, %d) out of range for %d×%d", i, j, a.Rows, a.Cols))
	}
	lo, hi := a.ColPtr[j], a.ColPtr[j+1]
	if k, ok := slices.BinarySearch(a.RowIdx[lo:hi], i); ok {
		return a.Val[lo+k]
	}
	return 0
}

// Check verifies the invariants documented on CSC and returns an error
// naming the first violation.
func (a *CSC) Check() error {
	if a.Rows < 0 || a.Cols < 0 {
		return fmt.Errorf("sparse: negative shape %d×%d", a.Rows, a.Cols)
	}
	if len(a.ColPtr) != a.Cols+1 {
		return fmt.Errorf("sparse: len(ColPtr) = %d, want Cols+1 = %d", len(a.ColPtr), a.Cols+1)
	}
	if a.ColPtr[0] != 0 {
		return fmt.Errorf("sparse: ColPtr[0] = %d, want 0", a.ColPtr[0])
	}
	nnz := a.ColPtr[a.Cols]
	if len(a.RowIdx) != nnz || len(a.Val) != nnz {
		return fmt.Errorf("sparse: ColPtr[Cols] = %d but len(RowIdx) = %d, len(Val) = %d", nnz, len(a.RowIdx), len(a.Val))
	}
	for j := 0; j < a.Cols; j++ {
		lo, hi := a.ColPtr[j], a.ColPtr[j+1]
		if hi < lo {
			return fmt.Errorf("sparse: ColPtr decreases at column %d", j)
		}
		prev := -1
		for _, i := range a.RowIdx[lo:hi] {
			if i <= prev || i >= a.Rows {
				return fmt.Errorf("sparse: column %d: row index %d out of order or out of range [0, %d)", j, i, a.Rows)
			}
			prev = i
		}
	}
	return nil
}

// MulVec computes dst = A·x. It panics if len(x) ≠ Cols or len(dst) ≠ Rows.
func (a *CSC) MulVec(dst, x []float64) {
	if len(x) != a.Cols || len(dst) != a.Rows {
		panic(fmt.Sprintf("sparse: MulVec shapes: A is %d×%d, len(x) = %d, len(dst) = %d", a.Rows, a.Cols, len(x), len(dst)))
	}
	clear(dst)
	for j, xj := range x {
		if xj == 0 {
			continue
		}
		for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
			dst[a.RowIdx[p]] += a.Val[p] * xj
		}
	}
}

// MulVecSym computes dst = A·x for a symmetric A of which only the lower
// triangle (entries with row ≥ column) is read, the convention of Analyze.
func (a *CSC) MulVecSym(dst, x []float64) {
	if a.Rows != a.Cols || len(x) != a.Cols || len(dst) != a.Rows {
		panic(fmt.Sprintf("sparse: MulVecSym shapes: A is %d×%d, len(x) = %d, len(dst) = %d", a.Rows, a.Cols, len(x), len(dst)))
	}
	clear(dst)
	for j := 0; j < a.Cols; j++ {
		xj := a.lowerStart(j)
		var s float64
		for p := xj; p < a.ColPtr[j+1]; p++ {
			i, v := a.RowIdx[p], a.Val[p]
			dst[i] += v * x[j]
			if i != j {
				s += v * x[i]
			}
		}
		dst[j] += s
	}
}

// lowerStart returns the index of the first entry of column j with row ≥ j.
func (a *CSC) lowerStart(j int) int {
	lo, hi := a.ColPtr[j], a.ColPtr[j+1]
	k, _ := slices.BinarySearch(a.RowIdx[lo:hi], j)
	return lo + k
}

// Transpose returns Aᵀ as a new matrix, with sorted row indices. The
// columns of A are split into one range per worker; each counts, then
// places, the entries of its range, at offsets that keep rows sorted.
func (a *CSC) Transpose() *CSC {
	m, n := a.Rows, a.Cols
	nnz := a.NNZ()
	t := &CSC{Rows: n, Cols: m, ColPtr: make([]int, m+1), RowIdx: make([]int, nnz), Val: make([]float64, nnz)}
	nc := 1
	if nnz > 1<<16 {
		nc = parallel.Workers()
	}
	bounds := make([]int, nc+1)
	for c := 0; c <= nc; c++ {
		bounds[c] = c * n / nc
	}
	// counts[c][i]: entries of row i in column range c; then the offset
	// of range c's first entry of row i in the result.
	counts := make([][]int, nc)
	parallel.For(nc, func(c int) {
		cnt := make([]int, m)
		for _, i := range a.RowIdx[a.ColPtr[bounds[c]]:a.ColPtr[bounds[c+1]]] {
			cnt[i]++
		}
		counts[c] = cnt
	})
	off := 0
	for i := 0; i < m; i++ {
		t.ColPtr[i] = off
		for c := 0; c < nc; c++ {
			k := counts[c][i]
			counts[c][i] = off
			off += k
		}
	}
	t.ColPtr[m] = off
	parallel.For(nc, func(c int) {
		next := counts[c]
		for j := bounds[c]; j < bounds[c+1]; j++ {
			for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
				i := a.RowIdx[p]
				q := next[i]
				next[i]++
				t.RowIdx[q] = j
				t.Val[q] = a.Val[p]
			}
		}
	})
	return t
}

// Triplet collects matrix entries in any order for conversion to CSC;
// entries added more than once at the same position are summed.
type Triplet struct {
	rows, cols int
	i, j       []int
	v          []float64
}

// NewTriplet returns an empty rows×cols triplet list with room for capacity
// entries.
func NewTriplet(rows, cols, capacity int) *Triplet {
	if rows < 0 || cols < 0 {
		panic(fmt.Sprintf("sparse: NewTriplet: negative shape %d×%d", rows, cols))
	}
	return &Triplet{rows: rows, cols: cols,
		i: make([]int, 0, capacity), j: make([]int, 0, capacity), v: make([]float64, 0, capacity)}
}

// Add appends the entry v at (i, j). It panics if (i, j) is out of range.
func (t *Triplet) Add(i, j int, v float64) {
	if i < 0 || i >= t.rows || j < 0 || j >= t.cols {
		panic(fmt.Sprintf("sparse: Triplet.Add(%d, %d) out of range for %d×%d", i, j, t.rows, t.cols))
	}
	t.i = append(t.i, i)
	t.j = append(t.j, j)
	t.v = append(t.v, v)
}

// Len returns the number of entries added.
func (t *Triplet) Len() int { return len(t.i) }

// CSC returns the matrix the triplets describe, duplicates summed, with
// sorted row indices. It takes O(rows + cols + entries) time (two counting
// sorts).
func (t *Triplet) CSC() *CSC {
	nt := len(t.i)
	// Sort by row (counting sort), then stably by column: the result is
	// column-major with increasing rows inside each column.
	rowPtr := make([]int, t.rows+1)
	for _, i := range t.i {
		rowPtr[i+1]++
	}
	for i := 0; i < t.rows; i++ {
		rowPtr[i+1] += rowPtr[i]
	}
	byRow := make([]int, nt)
	for k, i := range t.i {
		byRow[rowPtr[i]] = k
		rowPtr[i]++
	}
	colPtr := make([]int, t.cols+1)
	for _, j := range t.j {
		colPtr[j+1]++
	}
	for j := 0; j < t.cols; j++ {
		colPtr[j+1] += colPtr[j]
	}
	next := slices.Clone(colPtr[:t.cols])
	order := make([]int, nt)
	for _, k := range byRow {
		j := t.j[k]
		order[next[j]] = k
		next[j]++
	}
	a := &CSC{Rows: t.rows, Cols: t.cols, ColPtr: make([]int, t.cols+1),
		RowIdx: make([]int, 0, nt), Val: make([]float64, 0, nt)}
	for j := 0; j < t.cols; j++ {
		start := len(a.RowIdx)
		for _, k := range order[colPtr[j]:colPtr[j+1]] {
			if n := len(a.RowIdx); n > start && a.RowIdx[n-1] == t.i[k] {
				a.Val[n-1] += t.v[k]
				continue
			}
			a.RowIdx = append(a.RowIdx, t.i[k])
			a.Val = append(a.Val, t.v[k])
		}
		a.ColPtr[j+1] = len(a.RowIdx)
	}
	return a
}

// MulTransA returns AᵀA (Cols×Cols, symmetric, both triangles stored, sorted
// row indices). The pattern holds every (i, j) for which columns i and j of
// A share a stored row, even where the value cancels to 0, so the pattern
// depends on A's pattern only: the product of a matrix with new values has
// the same pattern, as Refactor requires.
//
// Columns of the result are computed in parallel (Gustavson's algorithm
// over the rows of A); the result does not depend on scheduling.
func MulTransA(a *CSC) *CSC {
	n := a.Cols
	if n >= 1<<30 {
		panic(fmt.Sprintf("sparse: MulTransA: %d columns, at most 2³⁰−1 supported", n))
	}
	at := a.Transpose() // row access to A: column r of at is row r of A
	c := &CSC{Rows: n, Cols: n, ColPtr: make([]int, n+1)}
	// At most Workers chunks run at once, so Workers workspaces suffice.
	type workspace struct {
		mark []int32
		acc  []float64
		tmp  []int
	}
	pool := make(chan *workspace, parallel.Workers())
	for range parallel.Workers() {
		pool <- nil
	}
	get := func() *workspace {
		w := <-pool
		if w == nil {
			w = &workspace{mark: make([]int32, n), acc: make([]float64, n), tmp: make([]int, n+1)}
			for i := range w.mark {
				w.mark[i] = -1
			}
		}
		return w
	}
	grain := max(256, n/(8*parallel.Workers()))
	// Pass 1: the number of entries of each column (mark stamp j).
	parallel.Chunks(n, grain, func(lo, hi int) {
		w := get()
		mark := w.mark
		for j := lo; j < hi; j++ {
			cnt := 0
			stamp := int32(j)
			for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
				r := a.RowIdx[p]
				for _, k := range at.RowIdx[at.ColPtr[r]:at.ColPtr[r+1]] {
					d := 0
					if mark[k] != stamp {
						d = 1
					}
					cnt += d
					mark[k] = stamp
				}
			}
			c.ColPtr[j+1] = cnt
		}
		pool <- w
	})
	for j := 0; j < n; j++ {
		c.ColPtr[j+1] += c.ColPtr[j]
	}
	nnz := c.ColPtr[n]
	c.RowIdx = make([]int, nnz)
	c.Val = make([]float64, nnz)
	// Pass 2: values, accumulated densely then gathered in row order
	// (mark stamp n+j, distinct from every stamp of pass 1).
	parallel.Chunks(n, grain, func(lo, hi int) {
		w := get()
		mark, acc, tmp := w.mark, w.acc, w.tmp
		for j := lo; j < hi; j++ {
			idx := c.RowIdx[c.ColPtr[j]:c.ColPtr[j+1]]
			stamp := int32(n + j)
			cnt := 0
			for p := a.ColPtr[j]; p < a.ColPtr[j+1]; p++ {
				r, arj := a.RowIdx[p], a.Val[p]
				lo, hi := at.ColPtr[r], at.ColPtr[r+1]
				rv := at.Val[lo:hi]
				for q, k := range at.RowIdx[lo:hi] {
					// Branch-free: a repeated k is written in the free
					// slot, which the next new index takes.
					tmp[cnt] = k
					d := 0
					if mark[k] != stamp {
						d = 1
					}
					cnt += d
					mark[k] = stamp
					acc[k] += arj * rv[q]
				}
			}
			copy(idx, tmp[:cnt])
			insertionSortInts(idx)
			val := c.Val[c.ColPtr[j]:c.ColPtr[j+1]]
			for t, k := range idx {
				val[t] = acc[k]
				acc[k] = 0
			}
		}
		pool <- w
	})
	return c
}

// insertionSortInts sorts short slices faster than slices.Sort; it falls back
// to slices.Sort for long ones.
func insertionSortInts(s []int) {
	if len(s) > 32 {
		slices.Sort(s)
		return
	}
	for i := 1; i < len(s); i++ {
		v := s[i]
		j := i
		for j > 0 && s[j-1] > v {
			s[j] = s[j-1]
			j--
		}
		s[j] = v
	}
}
