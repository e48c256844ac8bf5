package sparse

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gallop/internal/parallel"
)

// Ordering names a fill-reducing ordering for Analyze.
type Ordering int

const (
	// OrderAMD is the approximate minimum degree ordering (the default).
	OrderAMD Ordering = iota
	// OrderNatural keeps the matrix's own order (P = I).
	OrderNatural
	// OrderGiven uses Options.Perm.
	OrderGiven
)

// Options tunes Analyze. The zero value (or a nil *Options) means the
// defaults documented on each field.
type Options struct {
	// Ordering selects the fill-reducing ordering; the default is OrderAMD.
	Ordering Ordering
	// Perm is the ordering used with OrderGiven: Perm[k] is the column of
	// A eliminated k-th. The factor's columns are then postordered along
	// the elimination tree, which changes neither fill nor flops.
	Perm []int
	// Dense sets AMD's dense-row threshold: nodes with more than
	// max(16, Dense·√n) neighbours are ordered last. 0 means 10, the
	// value of the AMD paper; a negative value disables the test.
	Dense float64
	// AMDOnly runs AMD on the whole graph instead of ordering the
	// simplicial nodes first (see orderAMD). The fill is then the one of
	// plain AMD (on the Mesh-Based IK matrices about 2% less), at about
	// twice the ordering time.
	AMDOnly bool
	// NoAmalgamation keeps the fundamental supernodes instead of merging
	// small ones with their parents (relaxed amalgamation, which adds
	// explicit zeros to L to get larger dense blocks).
	NoAmalgamation bool
	// Sequential runs everything on the calling goroutine. Results are
	// bitwise identical either way: the parallel schedule is planned from
	// the pattern alone, never from the number of cores or from timing.
	Sequential bool
}

// Symbolic is the symbolic analysis of a symmetric positive definite
// pattern: the fill-reducing permutation P, the elimination tree of P·A·Pᵀ,
// the column counts of its Cholesky factor L, the supernodes and the
// storage layout. It depends on the pattern only, so one analysis serves
// every matrix of that pattern (Factor, Factor.Refactor). A Symbolic is
// read-only after Analyze and may be shared by goroutines.
//
// Supernodes: the columns of L (in pivot order) are partitioned into ranges
// [first(s), first(s+1)) of columns whose nonzero rows, below the diagonal
// block, are the same set rows(s); column j ∈ s is stored with all rows of
// rows(s), so each supernode is a dense nr×ns block (column-major, nr =
// |rows(s)|, the first ns rows being its own columns). Supernodes are
// numbered in a postorder of the supernodal elimination tree, so the
// supernodes of a subtree are a contiguous range ending at its root.
type Symbolic struct {
	n          int
	perm, pinv []int

	// The pattern of A that was analysed (for Factor's check).
	colPtr, rowIdx []int

	parent   []int // elimination tree of P·A·Pᵀ (postordered)
	colCount []int // nnz of each column of L, diagonal included
	nnzL     int
	flops    float64

	nsuper     int
	maxM       int     // largest number of below-diagonal rows of a supernode
	maxNS      int     // largest number of columns of a supernode
	superStart []int   // nsuper+1: first column of each supernode
	superPar   []int   // supernodal etree, −1 for roots
	rowPtr     []int   // nsuper+1: rows of s are rows[rowPtr[s]:rowPtr[s+1]]
	rows       []int32 // sorted; the first ns of each are its own columns
	rel        []int32 // aligned with rows: position of each below-diagonal row in the parent's rows
	lPtr       []int   // nsuper+1: offset of each block in the factor's values
	childPtr   []int   // nsuper+1
	child      []int   // children of each supernode, in increasing order

	// Where each entry of A goes in the factor's values (−1: not read).
	amap []int

	seq        bool     // Options.Sequential
	sched      schedule // factorization: balanced by flops
	solveSched schedule // solves: balanced by the size of L
}

// N returns the order of the analysed matrix.
func (s *Symbolic) N() int { return s.n }

// Perm returns the permutation as a new slice: element k is the column of A
// that is the k-th pivot, so (P·A·Pᵀ)[k, l] = A[Perm[k], Perm[l]].
func (s *Symbolic) Perm() []int { return slices.Clone(s.perm) }

// NNZ returns the number of nonzeros of the Cholesky factor L, diagonal
// included (the exact count, before supernode amalgamation).
func (s *Symbolic) NNZ() int { return s.nnzL }

// StoredNNZ returns the number of entries of L the factor stores: NNZ plus
// the explicit zeros added by amalgamating supernodes, counting each
// supernode's diagonal block as a full lower triangle.
func (s *Symbolic) StoredNNZ() int {
	t := 0
	for k := 0; k < s.nsuper; k++ {
		ns := s.superStart[k+1] - s.superStart[k]
		nr := s.rowPtr[k+1] - s.rowPtr[k]
		t += ns*nr - ns*(ns-1)/2
	}
	return t
}

// Flops returns the number of floating-point operations of the
// factorization, Σⱼ cⱼ² with cⱼ the count of column j of L (one square root,
// cⱼ−1 divisions and cⱼ(cⱼ−1)/2 multiply-adds per column), without the
// operations on amalgamation zeros.
func (s *Symbolic) Flops() float64 { return s.flops }

// Supernodes returns the number of supernodes.
func (s *Symbolic) Supernodes() int { return s.nsuper }

// ETree returns the elimination tree of P·A·Pᵀ as a new slice: element j is
// the parent of column j (in pivot order), −1 for a root. It is
// postordered: the parent of j is greater than j.
func (s *Symbolic) ETree() []int { return slices.Clone(s.parent) }

// ColCounts returns the number of nonzeros of each column of L (pivot
// order, diagonal included), as a new slice.
func (s *Symbolic) ColCounts() []int { return slices.Clone(s.colCount) }

// Analyze computes the symbolic analysis of the symmetric matrix A. Only
// the pattern of its lower triangle (entries with row ≥ column) is read:
// either the full symmetric matrix or its lower triangle may be passed,
// and entries above the diagonal are ignored. The values are not read.
//
// The steps are: the fill-reducing ordering (AMD by default; see
// Options); the elimination tree of P·A·Pᵀ (Liu) and its postorder, which
// is folded into P; the column counts of L (Gilbert, Ng and Peyton);
// fundamental supernodes, then relaxed amalgamation (Ashcraft and Grimes
// 1989: a child supernode is merged into its parent when the merged block
// is small or has few explicit zeros); the supernodal row structures and
// the relative maps for the multifrontal extend-add; and the parallel
// schedule over subtrees.
//
// Analyze panics if A is not square or is not a valid CSC (see
// CSC.Check); it returns an error only for bad Options.
func Analyze(a *CSC, opts *Options) (*Symbolic, error) {
	if a.Rows != a.Cols {
		panic(fmt.Sprintf("sparse: Analyze: matrix is %d×%d, not square", a.Rows, a.Cols))
	}
	if err := a.Check(); err != nil {
		panic("sparse: Analyze: " + strings.TrimPrefix(err.Error(), "sparse: "))
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	n := a.Cols
	g := lowerGraph(a)

	var perm0 []int
	switch o.Ordering {
	case OrderAMD:
		perm0 = orderAMD(g, o.Dense, !o.AMDOnly)
	case OrderNatural:
		perm0 = make([]int, n)
		for i := range perm0 {
			perm0[i] = i
		}
	case OrderGiven:
		if err := checkPerm(o.Perm, n); err != nil {
			return nil, err
		}
		perm0 = slices.Clone(o.Perm)
	default:
		return nil, fmt.Errorf("sparse: Analyze: unknown ordering %d", o.Ordering)
	}

	// Elimination tree, postordered: the postorder is folded into P.
	pinv0 := invert(perm0)
	par0 := etree(g, perm0, pinv0)
	post := postorder(par0)
	postInv := invert(post)
	s := &Symbolic{n: n, perm: make([]int, n), parent: make([]int, n)}
	for k, j := range post {
		s.perm[k] = perm0[j]
		if p := par0[j]; p >= 0 {
			s.parent[k] = postInv[p]
		} else {
			s.parent[k] = -1
		}
	}
	s.pinv = invert(s.perm)
	s.colPtr = slices.Clone(a.ColPtr)
	s.rowIdx = slices.Clone(a.RowIdx[:a.NNZ()])

	s.colCount = colCounts(g, s.perm, s.pinv, s.parent)
	for _, c := range s.colCount {
		s.nnzL += c
		s.flops += float64(c) * float64(c)
	}

	s.findSupernodes(!o.NoAmalgamation)
	s.superRows(g)
	s.assemblyMap(a)
	s.seq = o.Sequential
	s.sched = makeSchedule(s, o.Sequential, s.superWork)
	s.solveSched = makeSchedule(s, o.Sequential, s.superSize)
	return s, nil
}

// orderAMD orders the simplicial nodes of g first (nodes whose neighbours
// are pairwise adjacent: eliminating them creates no fill and leaves the
// graph of the others unchanged, so they can go first without changing
// the fill of any ordering of the rest; the fourth vertices of the
// Mesh-Based IK matrices are such nodes), then the others by AMD on their
// induced subgraph. alpha is Options.Dense. Without simplicialFirst, AMD
// orders the whole graph.
func orderAMD(g graph, alpha float64, simplicialFirst bool) []int {
	n := g.n
	simp := make([]bool, n)
	if simplicialFirst {
		simp = simplicial(g, 8)
	}
	perm := make([]int, 0, n)
	newID := make([]int, n)
	for v := 0; v < n; v++ {
		if simp[v] {
			perm = append(perm, v)
			newID[v] = -1
		}
	}
	ns := len(perm)
	rest := make([]int, 0, n-ns)
	for v := 0; v < n; v++ {
		if !simp[v] {
			newID[v] = len(rest)
			rest = append(rest, v)
		}
	}
	m := len(rest)
	sub := graph{n: m, ptr: make([]int, m+1)}
	sub.adj = make([]int, 0, g.ptr[n])
	for i, v := range rest {
		for _, u := range g.adj[g.ptr[v]:g.ptr[v+1]] {
			if id := newID[u]; id >= 0 {
				sub.adj = append(sub.adj, id)
			}
		}
		sub.ptr[i+1] = len(sub.adj)
	}
	dense := -1
	if alpha >= 0 {
		if alpha == 0 {
			alpha = 10
		}
		dense = max(16, int(alpha*math.Sqrt(float64(m))))
	}
	for _, i := range amdOrder(m, sub.ptr, sub.adj, dense) {
		perm = append(perm, rest[i])
	}
	return perm
}

// simplicial marks the nodes of degree at most maxDeg whose neighbours
// form a clique.
func simplicial(g graph, maxDeg int) []bool {
	n := g.n
	simp := make([]bool, n)
	mark := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	for v := 0; v < n; v++ {
		nb := g.adj[g.ptr[v]:g.ptr[v+1]]
		if len(nb) == 0 || len(nb) > maxDeg {
			continue
		}
		for _, u := range nb {
			mark[u] = int32(v)
		}
		ok := true
		for _, u := range nb {
			cnt := 0
			for _, w := range g.adj[g.ptr[u]:g.ptr[u+1]] {
				if mark[w] == int32(v) {
					cnt++
				}
			}
			if cnt != len(nb)-1 {
				ok = false
				break
			}
		}
		simp[v] = ok
	}
	return simp
}

func invert(p []int) []int {
	q := make([]int, len(p))
	for k, j := range p {
		q[j] = k
	}
	return q
}

func checkPerm(p []int, n int) error {
	if len(p) != n {
		return fmt.Errorf("sparse: Analyze: len(Perm) = %d, want %d", len(p), n)
	}
	seen := make([]bool, n)
	for k, j := range p {
		if j < 0 || j >= n || seen[j] {
			return fmt.Errorf("sparse: Analyze: Perm[%d] = %d is out of range or repeated", k, j)
		}
		seen[j] = true
	}
	return nil
}

// findSupernodes partitions the columns into fundamental supernodes
// (column j+1 joins j when it is j's parent, j is its only child and
// count(j) = count(j+1)+1), then, if relax, merges each supernode with its
// parent when the parent's first column follows its last and the merged
// block is small or sparse enough.
func (s *Symbolic) findSupernodes(relax bool) {
	n := s.n
	nchild := make([]int, n)
	for _, p := range s.parent {
		if p >= 0 {
			nchild[p]++
		}
	}
	start := []int{}
	for j := 0; j < n; j++ {
		if j == 0 || !(s.parent[j-1] == j && nchild[j] == 1 && s.colCount[j-1] == s.colCount[j]+1) {
			start = append(start, j)
		}
	}
	start = append(start, n)
	ns := len(start) - 1
	if !relax || ns <= 1 {
		s.setSupernodes(start)
		return
	}
	// Fundamental supernode statistics: columns, rows, true nonzeros.
	sup := make([]int, n)
	for k := 0; k < ns; k++ {
		for j := start[k]; j < start[k+1]; j++ {
			sup[j] = k
		}
	}
	ncol := make([]int, ns)
	nrow := make([]int, ns)
	nz := make([]float64, ns)
	zeros := make([]float64, ns)
	for k := 0; k < ns; k++ {
		ncol[k] = start[k+1] - start[k]
		nrow[k] = s.colCount[start[k]]
		for j := start[k]; j < start[k+1]; j++ {
			nz[k] += float64(s.colCount[j])
		}
	}
	// merged[k] is true when k is absorbed into its parent supernode,
	// which then starts at k's first column.
	merged := make([]bool, ns)
	for k := 0; k < ns-1; k++ {
		lastCol := start[k+1] - 1
		pc := s.parent[lastCol]
		if pc != start[k+1] {
			continue // the parent supernode does not follow k
		}
		p := sup[pc]
		c := ncol[k] + ncol[p]
		r := ncol[k] + nrow[p]
		total := float64(c)*float64(r) - float64(c)*float64(c-1)/2
		z := total - nz[k] - nz[p]
		frac := z / total
		if c <= 4 || (c <= 16 && frac < 0.8) || (c <= 48 && frac < 0.1) || frac < 0.05 {
			merged[k] = true
			ncol[p], nrow[p], nz[p], zeros[p] = c, r, nz[k]+nz[p], z
		}
	}
	start2 := []int{}
	for k := 0; k < ns; k++ {
		if k == 0 || !merged[k-1] {
			start2 = append(start2, start[k])
		}
	}
	start2 = append(start2, n)
	s.setSupernodes(start2)
}

func (s *Symbolic) setSupernodes(start []int) {
	s.superStart = start
	s.nsuper = len(start) - 1
}

// superRows computes the row structure of each supernode, the supernodal
// tree, the children lists, the relative maps and the block offsets.
func (s *Symbolic) superRows(g graph) {
	n, ns := s.n, s.nsuper
	col2sup := make([]int, n)
	for k := 0; k < ns; k++ {
		for j := s.superStart[k]; j < s.superStart[k+1]; j++ {
			col2sup[j] = k
		}
	}
	s.superPar = make([]int, ns)
	s.childPtr = make([]int, ns+1)
	for k := 0; k < ns; k++ {
		s.superPar[k] = -1
		if p := s.parent[s.superStart[k+1]-1]; p >= 0 {
			s.superPar[k] = col2sup[p]
			s.childPtr[col2sup[p]+1]++
		}
	}
	for k := 0; k < ns; k++ {
		s.childPtr[k+1] += s.childPtr[k]
	}
	s.child = make([]int, s.childPtr[ns])
	next := slices.Clone(s.childPtr[:ns])
	for k := 0; k < ns; k++ {
		if p := s.superPar[k]; p >= 0 {
			s.child[next[p]] = k
			next[p]++
		}
	}

	mark := make([]int, n)
	pos := make([]int32, n)
	for i := range mark {
		mark[i] = -1
	}
	s.rowPtr = make([]int, ns+1)
	s.lPtr = make([]int, ns+1)
	rows := make([]int32, 0, s.nnzL/2+n)
	for k := 0; k < ns; k++ {
		f, l := s.superStart[k], s.superStart[k+1]
		base := len(rows)
		for j := f; j < l; j++ {
			rows = append(rows, int32(j))
			mark[j] = k
		}
		for j := f; j < l; j++ {
			for _, nb := range g.adj[g.ptr[s.perm[j]]:g.ptr[s.perm[j]+1]] {
				if i := s.pinv[nb]; i >= l && mark[i] != k {
					mark[i] = k
					rows = append(rows, int32(i))
				}
			}
		}
		for _, c := range s.child[s.childPtr[k]:s.childPtr[k+1]] {
			cf := s.rowPtr[c] + s.superStart[c+1] - s.superStart[c]
			for _, i := range rows[cf:s.rowPtr[c+1]] {
				if int(i) >= l && mark[i] != k {
					mark[i] = k
					rows = append(rows, i)
				}
			}
		}
		slices.Sort(rows[base+(l-f):])
		s.rowPtr[k+1] = len(rows)
		nr := len(rows) - base
		s.maxM = max(s.maxM, nr-(l-f))
		s.maxNS = max(s.maxNS, l-f)
		s.lPtr[k+1] = s.lPtr[k] + nr*(l-f)
	}
	s.rows = rows
	s.rel = make([]int32, len(rows))
	for k := 0; k < ns; k++ {
		for t, i := range rows[s.rowPtr[k]:s.rowPtr[k+1]] {
			pos[i] = int32(t)
		}
		for _, c := range s.child[s.childPtr[k]:s.childPtr[k+1]] {
			cf := s.rowPtr[c] + s.superStart[c+1] - s.superStart[c]
			for t := cf; t < s.rowPtr[c+1]; t++ {
				s.rel[t] = pos[rows[t]]
			}
		}
	}
}

// assemblyMap records where each entry of A's lower triangle goes in the
// factor's values: amap[p] is the offset for A.Val[p], −1 for entries
// above the diagonal (which are not read).
func (s *Symbolic) assemblyMap(a *CSC) {
	n, ns := s.n, s.nsuper
	col2sup := make([]int32, n)
	for k := 0; k < ns; k++ {
		for j := s.superStart[k]; j < s.superStart[k+1]; j++ {
			col2sup[j] = int32(k)
		}
	}
	// Position of each row within the rows of the supernode holding a
	// given column: rows are sorted, so binary search the block.
	s.amap = make([]int, a.NNZ())
	for J := 0; J < n; J++ {
		j := s.pinv[J]
		for p := a.ColPtr[J]; p < a.ColPtr[J+1]; p++ {
			I := a.RowIdx[p]
			if I < J {
				s.amap[p] = -1
				continue
			}
			i := s.pinv[I]
			r, c := max(i, j), min(i, j)
			k := int(col2sup[c])
			rows := s.rows[s.rowPtr[k]:s.rowPtr[k+1]]
			t, _ := slices.BinarySearch(rows, int32(r))
			s.amap[p] = s.lPtr[k] + (c-s.superStart[k])*len(rows) + t
		}
	}
}

// schedule assigns the supernodes to parallel tasks: each task is a
// subtree (a contiguous range of supernodes, ending at its root) factored
// sequentially with its own update-matrix stack; the remaining supernodes
// (top), ancestors of the task roots, are factored afterwards in order,
// with the dense kernels split across cores. The assignment is fixed at
// analysis time, so results do not depend on scheduling.
type schedule struct {
	tasks []task
	top   task // its range is unused: top lists its supernodes
	topSN []int

	topRows []int   // the columns of the top supernodes
	topIdx  []int32 // position of each column in topRows, −1 if not in the top
}

type task struct {
	lo, hi   int // supernodes [lo, hi]
	stack    int // peak update-matrix stack, in float64s
	front    int // largest m×m update block of a supernode with children
	work     float64
	parallel bool // top: split dense kernels across cores
}

// superWork estimates the cost of factoring supernode k, in flops, with a
// term for assembly.
func (s *Symbolic) superWork(k int) float64 {
	ns := float64(s.superStart[k+1] - s.superStart[k])
	nr := float64(s.rowPtr[k+1] - s.rowPtr[k])
	m := nr - ns
	return ns*ns*ns/3 + m*ns*ns + m*m*ns + 4*m*m + 20*nr
}

// superSize is the number of entries in supernode k's block: the cost of
// applying it in a solve.
func (s *Symbolic) superSize(k int) float64 {
	return float64(s.lPtr[k+1]-s.lPtr[k]) + 8
}

// scheduleBins is the number of equal shares the subtree tasks are
// balanced into.
const scheduleBins = 4

func makeSchedule(s *Symbolic, sequential bool, cost func(k int) float64) schedule {
	ns := s.nsuper
	work := make([]float64, ns) // subtree work
	first := make([]int, ns)    // first supernode of each subtree
	for k := 0; k < ns; k++ {
		first[k] = k
	}
	for k := 0; k < ns; k++ {
		work[k] += cost(k)
		if p := s.superPar[k]; p >= 0 {
			work[p] += work[k]
			first[p] = min(first[p], first[k])
		}
	}
	total := 0.0
	var roots []int
	for k := 0; k < ns; k++ {
		if s.superPar[k] < 0 {
			roots = append(roots, k)
			total += work[k]
		}
	}
	var sc schedule
	inTask := make([]bool, ns)
	cand := slices.Clone(roots)
	// The decomposition is planned for a fixed number of bins, not for the
	// cores of this machine, so that the order of every floating-point
	// operation, and so every bit of the results, depends on the pattern
	// alone; on two cores, four bins balance as well as two.
	const nw = scheduleBins
	{
		// Split the largest subtree until the subtrees can be spread
		// evenly over the workers (Geist and Ng 1989), keeping the top
		// small; tasks are then run largest first.
		for iter := 0; iter < 64; iter++ {
			slices.SortFunc(cand, func(x, y int) int {
				switch {
				case work[x] > work[y]:
					return -1
				case work[x] < work[y]:
					return 1
				}
				return x - y
			})
			bins := make([]float64, nw)
			sum := 0.0
			for _, c := range cand {
				b := slices.Index(bins, slices.Min(bins))
				bins[b] += work[c]
				sum += work[c]
			}
			if len(cand) == 0 || slices.Max(bins) <= 1.05*sum/float64(nw) || sum < 0.5*total {
				break
			}
			big := cand[0]
			nc := s.childPtr[big+1] - s.childPtr[big]
			if nc == 0 {
				break
			}
			cand = append(cand[1:], s.child[s.childPtr[big]:s.childPtr[big+1]]...)
		}
	}
	for _, c := range cand {
		t := task{lo: first[c], hi: c, work: work[c]}
		for k := t.lo; k <= t.hi; k++ {
			inTask[k] = true
		}
		sc.tasks = append(sc.tasks, t)
	}
	slices.SortStableFunc(sc.tasks, func(x, y task) int {
		switch {
		case x.work > y.work:
			return -1
		case x.work < y.work:
			return 1
		}
		return 0
	})
	for k := 0; k < ns; k++ {
		if !inTask[k] {
			sc.topSN = append(sc.topSN, k)
		}
	}
	sc.top.parallel = !sequential
	for i := range sc.tasks {
		sc.tasks[i].stack, sc.tasks[i].front = s.stackNeeds(sc.tasks[i].lo, sc.tasks[i].hi, nil, inTask, false)
	}
	sc.top.stack, sc.top.front = s.stackNeeds(0, 0, sc.topSN, inTask, true)
	sc.topIdx = make([]int32, s.n)
	for i := range sc.topIdx {
		sc.topIdx[i] = -1
	}
	for _, k := range sc.topSN {
		for j := s.superStart[k]; j < s.superStart[k+1]; j++ {
			sc.topIdx[j] = int32(len(sc.topRows))
			sc.topRows = append(sc.topRows, j)
		}
	}
	return sc
}

// stackNeeds simulates the multifrontal stack of a task: the supernodes
// lo..hi (or the list sns), in order. Update matrices of supernodes whose
// parent is in the same task are pushed; a supernode pops its children
// that are on this stack. A task root's update matrix stays at the bottom
// of its stack for the top to read.
func (s *Symbolic) stackNeeds(lo, hi int, sns []int, inTask []bool, isTop bool) (peak, front int) {
	if sns == nil {
		for k := lo; k <= hi; k++ {
			sns = append(sns, k)
		}
	}
	top := 0
	for _, k := range sns {
		m := s.rowPtr[k+1] - s.rowPtr[k] - (s.superStart[k+1] - s.superStart[k])
		for _, c := range s.child[s.childPtr[k]:s.childPtr[k+1]] {
			if inTask[c] == !isTop {
				mc := s.rowPtr[c+1] - s.rowPtr[c] - (s.superStart[c+1] - s.superStart[c])
				top -= mc * mc
			}
		}
		if s.childPtr[k+1] > s.childPtr[k] {
			front = max(front, m*m)
		}
		if s.superPar[k] >= 0 {
			top += m * m
			peak = max(peak, top)
		}
	}
	return peak, front
}

// pfor is parallel.For, or a plain loop under Options.Sequential.
func (s *Symbolic) pfor(n int, fn func(i int)) {
	if s.seq {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	parallel.For(n, fn)
}

// pchunks is parallel.Chunks, or one call under Options.Sequential.
func (s *Symbolic) pchunks(n, grain int, fn func(lo, hi int)) {
	if s.seq {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	parallel.Chunks(n, grain, fn)
}
