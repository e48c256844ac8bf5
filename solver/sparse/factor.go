package sparse

import (
	"fmt"
	"math"
	"slices"

	"gallop/internal/hugepage"
	"gallop/internal/parallel"
	"gallop/solver/dense"
)

// NotPositiveDefiniteError reports that the matrix is not (numerically)
// positive definite: the pivot of column Column of A (Step-th in pivot
// order) was not positive after the updates of the earlier columns, or not
// finite. Of all failing pivots, the one earliest in pivot order is
// reported, whatever the scheduling.
type NotPositiveDefiniteError struct {
	Column int     // column of A (original numbering)
	Step   int     // position of that column in the pivot order
	Pivot  float64 // the offending pivot value, d in L[k,k] = √d
}

func (e *NotPositiveDefiniteError) Error() string {
	return fmt.Sprintf("sparse: matrix not positive definite: pivot %g at column %d (step %d)", e.Pivot, e.Column, e.Step)
}

// Factor is the numeric Cholesky factorization P·A·Pᵀ = L·Lᵀ of a
// symmetric positive definite matrix, on the layout of its Symbolic. It
// holds the supernodal blocks of L and the workspaces of the
// multifrontal method, which Refactor reuses. A Factor must not be used
// concurrently with Refactor; its solve methods may run concurrently
// when each call has its own Workspace.
type Factor struct {
	sym *Symbolic
	lx  []float64 // supernodal blocks, column-major

	stacks [][]float64 // update-matrix stacks: one per task, the last for the top
	fronts [][]float64 // assembly scratch of each task (m×m of the largest front)
	uoff   []int       // offset of each supernode's update matrix in its stack
	ustack []int32     // which stack holds it
	errs   []error

	ws *Workspace // default workspace of the solve methods
	ok bool
}

// Factor computes the numeric factorization of A, whose pattern must be the
// one analysed (the same ColPtr and RowIdx; only entries on or below the
// diagonal are read). It returns a *NotPositiveDefiniteError if a pivot is
// not positive. It panics if A's pattern differs from the analysed one.
func (s *Symbolic) Factor(a *CSC) (*Factor, error) {
	f := &Factor{sym: s, lx: hugepage.Make[float64](s.lPtr[s.nsuper])}
	nt := len(s.sched.tasks)
	f.stacks = make([][]float64, nt+1)
	f.fronts = make([][]float64, nt+1)
	for t, tk := range s.sched.tasks {
		f.stacks[t] = make([]float64, tk.stack)
		f.fronts[t] = make([]float64, tk.front)
	}
	f.stacks[nt] = make([]float64, s.sched.top.stack)
	f.fronts[nt] = make([]float64, s.sched.top.front)
	f.uoff = make([]int, s.nsuper)
	f.ustack = make([]int32, s.nsuper)
	f.errs = make([]error, nt+1)
	if err := f.Refactor(a); err != nil {
		return nil, err
	}
	return f, nil
}

// Symbolic returns the analysis the factor was computed on.
func (f *Factor) Symbolic() *Symbolic { return f.sym }

// Refactor recomputes the factorization for a matrix with the analysed
// pattern and new values, reusing the factor's memory (it allocates
// nothing but the goroutines of the parallel loops). On error the factor
// is invalid until a successful Refactor; using it panics.
func (f *Factor) Refactor(a *CSC) error {
	s := f.sym
	if a.Rows != s.n || a.Cols != s.n || len(a.RowIdx) < len(s.rowIdx) || len(a.Val) < len(s.rowIdx) ||
		!slices.Equal(a.ColPtr, s.colPtr) || !slices.Equal(a.RowIdx[:len(s.rowIdx)], s.rowIdx) {
		panic("sparse: Refactor: the matrix's pattern is not the analysed one")
	}
	f.ok = false
	// Scatter A into the zeroed blocks, in A's storage order.
	s.pchunks(len(f.lx), 1<<16, func(lo, hi int) { clear(f.lx[lo:hi]) })
	s.pchunks(s.n, max(1024, s.n/(4*parallel.Workers())), func(lo, hi int) {
		for p := a.ColPtr[lo]; p < a.ColPtr[hi]; p++ {
			if d := s.amap[p]; d >= 0 {
				f.lx[d] = a.Val[p]
			}
		}
	})
	nt := len(s.sched.tasks)
	for t := range f.errs {
		f.errs[t] = nil
	}
	s.pfor(nt, func(t int) {
		tk := s.sched.tasks[t]
		top := 0
		for k := tk.lo; k <= tk.hi; k++ {
			var err error
			if top, err = f.factorSuper(k, t, top, false); err != nil {
				f.errs[t] = err
				return
			}
		}
	})
	if err := f.firstError(); err != nil {
		return err
	}
	top := 0
	for _, k := range s.sched.topSN {
		var err error
		if top, err = f.factorSuper(k, nt, top, s.sched.top.parallel); err != nil {
			return err
		}
	}
	f.ok = true
	return nil
}

// firstError returns the task error earliest in pivot order.
func (f *Factor) firstError() error {
	var first *NotPositiveDefiniteError
	for _, err := range f.errs {
		if e, ok := err.(*NotPositiveDefiniteError); ok && (first == nil || e.Step < first.Step) {
			first = e
		}
	}
	if first == nil {
		return nil
	}
	return first
}

// factorSuper assembles and factors supernode k, task t, whose update
// stack's top is at top; it returns the new top.
//
// The multifrontal step (Duff and Reid 1983; Liu, "The multifrontal method
// for sparse matrix solution", SIAM Review 34, 1992): the frontal matrix
// of k is [F11 F21ᵀ; F21 F22], rows(k) × rows(k). Its first ns columns are
// assembled in place in k's block of L from A and from the children's
// update matrices (extend-add through the relative maps); F22 only from
// the children. Then F11 = L11·L11ᵀ (Potrf), L21 = F21·L11⁻ᵀ (trsm), and the
// update matrix U = F22 − L21·L21ᵀ (syrk) is pushed for the parent.
func (f *Factor) factorSuper(k int, t, top int, par bool) (int, error) {
	s := f.sym
	fc := s.superStart[k]
	ns := s.superStart[k+1] - fc
	nr := s.rowPtr[k+1] - s.rowPtr[k]
	m := nr - ns
	blk := f.lx[s.lPtr[k]:s.lPtr[k+1]] // A's entries are already there
	kids := s.child[s.childPtr[k]:s.childPtr[k+1]]
	var fu []float64
	if len(kids) > 0 && m > 0 {
		fu = f.fronts[t][:m*m]
		clear(fu)
	}
	newTop := top
	for _, c := range kids {
		mc := s.rowPtr[c+1] - s.rowPtr[c] - (s.superStart[c+1] - s.superStart[c])
		if mc == 0 {
			continue
		}
		st := int(f.ustack[c])
		u := f.stacks[st][f.uoff[c] : f.uoff[c]+mc*mc]
		if st == t {
			newTop = min(newTop, f.uoff[c])
		}
		rel := s.rel[s.rowPtr[c+1]-mc : s.rowPtr[c+1]]
		extendAdd(u, mc, rel, blk, nr, fu, m, ns)
	}
	top = newTop

	if info := dense.Potrf(ns, blk, nr, par); info >= 0 {
		return top, &NotPositiveDefiniteError{Column: s.perm[fc+info], Step: fc + info, Pivot: blk[info*nr+info]}
	}
	if m == 0 {
		return top, nil
	}
	l21 := blk[ns:]
	dense.TrsmRLT(m, ns, blk, nr, l21, nr, par)
	if s.superPar[k] < 0 {
		return top, nil
	}
	u := f.stacks[t][top : top+m*m]
	f.uoff[k], f.ustack[k] = top, int32(t)
	top += m * m
	if fu == nil {
		fu = u
		clear(u)
	}
	if par {
		dense.SyrkLNPar(m, ns, l21, nr, u, m, fu, m)
	} else {
		dense.SyrkLN(m, ns, l21, nr, u, m, fu, m)
	}
	return top, nil
}

// extendAdd adds the lower triangle of the child's mc×mc update matrix u
// into the parent's front: rows and columns map through rel (positions in
// the parent's rows); columns that are the parent's own (rel < ns) go to
// its block of L (nr rows), the others to fu (m×m, indices shifted by ns).
func extendAdd(u []float64, mc int, rel []int32, blk []float64, nr int, fu []float64, m, ns int) {
	for j := 0; j < mc; j++ {
		pj := int(rel[j])
		col := u[j*mc+j : j*mc+mc]
		rj := rel[j:mc]
		if pj < ns {
			dst := blk[pj*nr : pj*nr+nr]
			for i, v := range col {
				dst[rj[i]] += v
			}
		} else {
			base := (pj-ns)*m - ns
			for i, v := range col {
				fu[base+int(rj[i])] += v
			}
		}
	}
}

// LogDet returns log det(A) = 2·Σ log L[k,k].
func (f *Factor) LogDet() float64 {
	f.check()
	s := f.sym
	var sum float64
	for k := 0; k < s.nsuper; k++ {
		ns := s.superStart[k+1] - s.superStart[k]
		nr := s.rowPtr[k+1] - s.rowPtr[k]
		blk := f.lx[s.lPtr[k]:]
		for j := 0; j < ns; j++ {
			sum += math.Log(blk[j*nr+j])
		}
	}
	return 2 * sum
}

func (f *Factor) check() {
	if !f.ok {
		panic("sparse: factor is invalid after a failed Refactor")
	}
}

// L returns the factor L (n×n lower triangular, in pivot order, so that
// L·Lᵀ = P·A·Pᵀ) as a new CSC matrix, amalgamation zeros included. It is
// meant for tests and inspection.
func (f *Factor) L() *CSC {
	f.check()
	s := f.sym
	t := NewTriplet(s.n, s.n, s.StoredNNZ())
	for k := 0; k < s.nsuper; k++ {
		fc := s.superStart[k]
		ns := s.superStart[k+1] - fc
		rows := s.rows[s.rowPtr[k]:s.rowPtr[k+1]]
		nr := len(rows)
		blk := f.lx[s.lPtr[k]:]
		for j := 0; j < ns; j++ {
			for i := j; i < nr; i++ {
				t.Add(int(rows[i]), fc+j, blk[j*nr+i])
			}
		}
	}
	return t.CSC()
}
