package csp

import (
	"math"
	"slices"

	"gallop/internal/disjoint"
)

// repair is the systematic search that replaces LOCAL-SEARCH's random
// walk (Options.Search = Propagate): it finds offsets for the variables
// of the known contacts C that satisfy every constraint of C, the cheapest
// first, or proves that none exists.
//
// Why: where groups touch in both sources (dense grass, reeds), a pair's
// feasible offsets form a narrow band around τ_k − τ_l = const (the two
// must switch at nearly the same time, or pass through each other), and
// a contact graph of such pairs chains most groups together. LOCAL-SEARCH
// changes one variable at a time to a value drawn ∝ 1/Φ_k, ignoring the
// constraints, and keeps it only if no more pairs are bad: the draw almost
// never lands in every band of the variable at once, so the walk stalls
// with one to three bad pairs until it times out, on programs that are
// feasible. Forward checking alone thrashes too (a value that fits the
// bands of its set neighbours empties the domain of one further along the
// chain, found only there); what solves these programs without
// backtracking is arc consistency, which carries a band along the chain.
//
// The search is depth-first with maintained arc consistency (MAC; Sabin
// and Freuder 1994), AC-3 on the constraints whose cliques have at most
// two variables not yet set:
//
//   - The variables are those of the cliques of C; every other keeps its
//     current value (its unconstrained minimum), which no constraint of C
//     reads.
//   - The constraints split the variables into connected components
//     (clusters of groups that touch), which are independent problems and
//     are solved one after the other: a dead end in one never undoes
//     another. After new contacts are found, only the components that hold
//     a new constraint are solved again; the others keep their values.
//   - Each variable's domain is its values of finite Φ_k, tried in order of
//     increasing Φ_k (ties: the smaller |τ|, then the negative), so the
//     first solution found is cheap; but when a component is solved again,
//     each variable tries its previous value first, so that new contacts
//     move few offsets. The next variable is the one of the component with
//     the fewest values left (ties: the most constraints, then the lowest
//     index).
//   - Propagation: a constraint whose clique is all set is tested; with
//     one variable unset, that variable keeps the values that satisfy it;
//     with two, each keeps the values that have a support in the other's
//     domain (the last support found is tried first, as in AC-2001, since
//     the supports of neighbouring values are neighbours in a band); with
//     more, it waits. A domain that shrinks queues its other constraints.
//   - Branch and bound on the cutoff: a value whose cost, with every unset
//     variable at its cheapest remaining value, exceeds cutoff is not tried
//     (nor are the dearer values after it).
//
// Whether a constraint is bad under given values is tested over every
// transition frame (the frame where it was last bad first) through
// Program.Bad, which memoizes the tests; the answers for a binary
// constraint are also kept per pair of values. The search stops with
// repairTimeOut when the Program's work since the call began exceeds the
// budget.
type repair struct {
	s      *solver
	cutoff float64
	budget float64
	work0  int64

	vars   []int       // the variables of C's cliques, increasing
	pos    map[int]int // group → index in vars
	comp   []int       // per vars index, its component (the smallest vars index in it)
	cons   []Pair      // C
	cvars  [][]int     // per constraint, its clique as vars indices
	consOf [][]int     // per vars index, the indices of its constraints
	order  [][]int     // per vars index, its values (τ + TauMax) by increasing Φ_k
	alive  [][]bool
	count  []int // alive values per variable
	set    []bool
	trail  []prune
	memo   [][]pairMemo // per constraint, per pair of its clique asked about, its answers by pair of values
	last   []map[int]int
	queue  []int // constraints to revise
	queued []bool
	nodes  int
	bound  bool // a value was skipped by the cutoff
}

// prune is one value removed from a domain, for undoing.
type prune struct{ v, x int }

// pairMemo keeps a constraint's answers for pairs of values of two of its
// unset variables u < v, under the values ctx of the rest of its clique:
// 0 unknown, 1 good, 2 bad, at [x·D + y]. A constraint whose clique has
// more than two variables is asked about different pairs as the search
// sets them, in any order; each pair has its memo, and answers are only
// ever read for the pair and the context they were found under.
type pairMemo struct {
	u, v int
	ctx  []int
	ans  []int8
}

// repairResult is how a repair ended.
type repairResult uint8

const (
	repairOK   repairResult = iota
	repairNone              // no offsets satisfy C (Infeasible), or none within the cutoff (Cull)
	repairTimeOut
)

func newRepair(s *solver, cutoff, budget float64, work0 int64) *repair {
	r := &repair{s: s, cutoff: cutoff, budget: budget, work0: work0, pos: map[int]int{}, cons: s.c}
	for _, q := range s.c {
		for _, k := range s.clique(q) {
			if _, ok := r.pos[k]; !ok {
				r.pos[k] = -1
				r.vars = append(r.vars, k)
			}
		}
	}
	slices.Sort(r.vars)
	for i, k := range r.vars {
		r.pos[k] = i
	}
	n := len(r.vars)
	r.consOf = make([][]int, n)
	r.cvars = make([][]int, len(r.cons))
	for c, q := range r.cons {
		for _, k := range s.clique(q) {
			r.cvars[c] = append(r.cvars[c], r.pos[k])
			r.consOf[r.pos[k]] = append(r.consOf[r.pos[k]], c)
		}
	}
	r.memo = make([][]pairMemo, len(r.cons))
	r.last = make([]map[int]int, len(r.cons))
	r.queued = make([]bool, len(r.cons))
	r.order = make([][]int, n)
	r.alive = make([][]bool, n)
	r.count = make([]int, n)
	r.set = make([]bool, n)
	for i, k := range r.vars {
		v := &s.vars[k]
		for x, phi := range v.phi {
			if !math.IsInf(phi, 1) {
				r.order[i] = append(r.order[i], x)
			}
		}
		tmax := s.tmax
		slices.SortStableFunc(r.order[i], func(a, b int) int {
			switch {
			case v.phi[a] < v.phi[b]:
				return -1
			case v.phi[a] > v.phi[b]:
				return 1
			case abs(a-tmax) != abs(b-tmax):
				return abs(a-tmax) - abs(b-tmax)
			}
			return a - b
		})
		r.alive[i] = make([]bool, len(v.phi))
		for _, x := range r.order[i] {
			r.alive[i][x] = true
		}
		r.count[i] = len(r.order[i])
	}
	return r
}

// run solves the components that hold a constraint of index dirty or
// later in C (all of them for dirty = 0), keeping the current values of
// the others; on repairOK the solver's τ holds the solution.
func (r *repair) run(dirty int) (repairResult, error) {
	n := len(r.vars)
	sets := disjoint.New(n)
	for _, cv := range r.cvars {
		for _, j := range cv[1:] {
			sets.Union(cv[0], j)
		}
	}
	r.comp = make([]int, n)
	redo := make([]bool, n)
	for i := range r.vars {
		r.comp[i] = sets.Find(i) // the component's lowest variable
	}
	for c := dirty; c < len(r.cons); c++ {
		redo[r.comp[r.cvars[c][0]]] = true
	}
	for i := range r.vars {
		r.set[i] = !redo[r.comp[i]]
		if !r.set[i] && dirty > 0 {
			r.warm(i)
		}
	}
	for i := range r.vars {
		if r.comp[i] != i || !redo[i] {
			continue
		}
		for _, c := range r.compCons(i) {
			r.enqueue(c)
		}
		ok, err := r.propagate()
		if err != nil {
			return repairTimeOut, err
		}
		if !ok {
			return repairNone, nil
		}
		if res, err := r.dfs(i); res != repairOK || err != nil {
			return res, err
		}
	}
	return repairOK, nil
}

// compCons returns the constraints of component comp.
func (r *repair) compCons(comp int) []int {
	var out []int
	for c, cv := range r.cvars {
		if r.comp[cv[0]] == comp {
			out = append(out, c)
		}
	}
	return out
}

// warm moves variable i's current value to the front of its order.
func (r *repair) warm(i int) {
	cur := r.s.tau[r.vars[i]] + r.s.tmax
	o := r.order[i]
	if x := slices.Index(o, cur); x > 0 {
		copy(o[1:x+1], o[:x])
		o[0] = cur
	}
}

func (r *repair) overBudget() bool {
	return float64(r.s.p.Work()-r.work0) > r.budget
}

// dfs sets the next variable of component comp, trying its values in
// order, each followed by propagation.
func (r *repair) dfs(comp int) (repairResult, error) {
	if err := r.s.ctx.Err(); err != nil {
		return repairTimeOut, err
	}
	if r.overBudget() {
		return repairTimeOut, nil
	}
	i := r.next(comp)
	if i < 0 {
		return repairOK, nil
	}
	k := r.vars[i]
	base := r.lowerBound() - r.cheapest(i)
	for _, x := range slices.Clone(r.order[i]) {
		if !r.alive[i][x] {
			continue
		}
		if base+r.s.vars[k].phi[x] > r.cutoff {
			r.bound = true
			break // dearer values follow
		}
		r.nodes++
		mark := len(r.trail)
		r.set[i] = true
		r.s.tau[k] = x - r.s.tmax
		for _, y := range r.order[i] {
			if y != x && r.alive[i][y] {
				r.remove(i, y)
			}
		}
		for _, c := range r.consOf[i] {
			r.enqueue(c)
		}
		ok, err := r.propagate()
		if err != nil {
			return repairTimeOut, err
		}
		if ok {
			res, err := r.dfs(comp)
			if res != repairNone || err != nil {
				return res, err
			}
		}
		r.set[i] = false
		r.undo(mark)
		if r.overBudget() {
			return repairTimeOut, nil
		}
	}
	return repairNone, nil
}

// next returns the unset variable of component comp with the fewest
// values left (ties: the most constraints, then the first), −1 when all
// are set.
func (r *repair) next(comp int) int {
	best := -1
	for i := range r.vars {
		if r.set[i] || r.comp[i] != comp {
			continue
		}
		if best < 0 || r.count[i] < r.count[best] || r.count[i] == r.count[best] && len(r.consOf[i]) > len(r.consOf[best]) {
			best = i
		}
	}
	return best
}

// lowerBound returns Φ with every set variable at its value and every
// unset one at its cheapest value left, the variables outside the search
// at theirs.
func (r *repair) lowerBound() float64 {
	s := r.s
	var phi float64
	for k, t := range s.tau {
		if i, ok := r.pos[k]; ok && !r.set[i] {
			phi += r.cheapest(i)
			continue
		}
		phi += s.vars[k].phi[t+s.tmax]
	}
	return phi
}

// cheapest returns the smallest Φ among variable i's values left.
func (r *repair) cheapest(i int) float64 {
	for _, x := range r.order[i] {
		if r.alive[i][x] {
			return r.s.vars[r.vars[i]].phi[x]
		}
	}
	return math.Inf(1)
}

func (r *repair) enqueue(c int) {
	if !r.queued[c] {
		r.queued[c] = true
		r.queue = append(r.queue, c)
	}
}

// propagate revises the queued constraints until none is queued (arc
// consistency on those with at most two unset variables); it reports
// false, with the queue emptied, when a constraint fails or a domain
// empties.
func (r *repair) propagate() (bool, error) {
	fail := func() {
		for _, c := range r.queue {
			r.queued[c] = false
		}
		r.queue = r.queue[:0]
	}
	for len(r.queue) > 0 {
		c := r.queue[0]
		r.queue = r.queue[1:]
		r.queued[c] = false
		var unset [3]int
		n := 0
		for _, j := range r.cvars[c] {
			if !r.set[j] {
				if n < len(unset) {
					unset[n] = j
				}
				n++
			}
		}
		var changed [2]bool
		var err error
		ok := true
		switch n {
		case 0:
			var bad bool
			bad, err = r.bad(c)
			ok = !bad
		case 1:
			changed[0], err = r.reviseUnary(c, unset[0])
			ok = r.count[unset[0]] > 0
		case 2:
			u, v := unset[0], unset[1]
			if changed[0], err = r.reviseBinary(c, u, v); err == nil && r.count[u] > 0 {
				changed[1], err = r.reviseBinary(c, v, u)
			}
			ok = r.count[u] > 0 && r.count[v] > 0
		}
		if err != nil || !ok {
			fail()
			return false, err
		}
		if r.overBudget() {
			fail()
			return true, nil // dfs sees the budget
		}
		for x, ch := range changed[:min(n, 2)] {
			if !ch {
				continue
			}
			for _, d := range r.consOf[unset[x]] {
				if d != c {
					r.enqueue(d)
				}
			}
		}
	}
	return true, nil
}

// reviseUnary removes from variable u's domain the values under which
// constraint c (the rest of its clique set) is bad; it reports whether
// any was removed.
func (r *repair) reviseUnary(c, u int) (bool, error) {
	k := r.vars[u]
	old := r.s.tau[k]
	defer func() { r.s.tau[k] = old }()
	changed := false
	for _, x := range r.order[u] {
		if !r.alive[u][x] {
			continue
		}
		r.s.tau[k] = x - r.s.tmax
		bad, err := r.bad(c)
		if err != nil {
			return changed, err
		}
		if bad {
			r.remove(u, x)
			changed = true
		}
	}
	return changed, nil
}

// reviseBinary removes from variable u's domain the values with no
// support in v's under constraint c (the rest of its clique set); it
// reports whether any was removed. A value's support is looked for
// first where it was found last (AC-2001), then outward from the value at
// the same offset from u's value as the support found last: bands of
// feasible offsets are diagonal, so the supports of neighbouring values
// are neighbours.
func (r *repair) reviseBinary(c, u, v int) (bool, error) {
	changed := false
	if r.last[c] == nil {
		r.last[c] = map[int]int{}
	}
	D := len(r.alive[v])
	offset := 0
	for x, alive := range r.alive[u] {
		if !alive {
			continue
		}
		key := u*D + x
		if y, ok := r.last[c][key]; ok && r.alive[v][y] {
			// The last support, if it still is one (the rest of the
			// clique may have changed since).
			good, err := r.allowed(c, u, x, v, y)
			if err != nil {
				return changed, err
			}
			if good {
				offset = y - x
				continue
			}
		}
		supported := false
		c0 := min(max(x+offset, 0), D-1)
		for n := 0; n < 2*D && !supported; n++ {
			y := c0 + (n+1)/2*(1-2*(n%2)) // c0, c0−1, c0+1, c0−2, c0+2, …: every value within D of c0
			if y < 0 || y >= D || !r.alive[v][y] {
				continue
			}
			good, err := r.allowed(c, u, x, v, y)
			if err != nil {
				return changed, err
			}
			if good {
				r.last[c][key] = y
				offset = y - x
				supported = true
			}
		}
		if !supported {
			r.remove(u, x)
			changed = true
		}
	}
	return changed, nil
}

// allowed reports whether constraint c holds with variable u at x and v at
// y (the rest of its clique at its values), from the pair memo or tested.
func (r *repair) allowed(c, u, x, v, y int) (bool, error) {
	m := r.pairMemo(c, min(u, v), max(u, v))
	D := len(r.alive[u])
	if m.ans == nil || !r.sameContext(c, m) {
		m.ctx = m.ctx[:0]
		for _, j := range r.cvars[c] {
			if j != u && j != v {
				m.ctx = append(m.ctx, r.s.tau[r.vars[j]])
			}
		}
		if m.ans == nil {
			m.ans = make([]int8, D*D)
		} else {
			clear(m.ans)
		}
	}
	if u > v {
		u, v, x, y = v, u, y, x
	}
	at := x*D + y
	if a := m.ans[at]; a != 0 {
		return a == 1, nil
	}
	ku, kv := r.vars[u], r.vars[v]
	ou, ov := r.s.tau[ku], r.s.tau[kv]
	r.s.tau[ku], r.s.tau[kv] = x-r.s.tmax, y-r.s.tmax
	bad, err := r.bad(c)
	r.s.tau[ku], r.s.tau[kv] = ou, ov
	if err != nil {
		return false, err
	}
	m.ans[at] = 1
	if bad {
		m.ans[at] = 2
	}
	return !bad, nil
}

// pairMemo returns constraint c's memo for its variables u < v, made
// empty the first time the pair is asked about.
func (r *repair) pairMemo(c, u, v int) *pairMemo {
	ms := r.memo[c]
	for i := range ms {
		if ms[i].u == u && ms[i].v == v {
			return &ms[i]
		}
	}
	r.memo[c] = append(ms, pairMemo{u: u, v: v})
	return &r.memo[c][len(r.memo[c])-1]
}

// sameContext reports whether m's answers were found under the current
// values of c's clique but m's two variables.
func (r *repair) sameContext(c int, m *pairMemo) bool {
	n := 0
	for _, j := range r.cvars[c] {
		if j == m.u || j == m.v {
			continue
		}
		if n >= len(m.ctx) || m.ctx[n] != r.s.tau[r.vars[j]] {
			return false
		}
		n++
	}
	return n == len(m.ctx)
}

// bad reports whether constraint c is bad at some frame under the solver's
// τ (Program.Violated), testing first where it was last bad.
func (r *repair) bad(c int) (bool, error) {
	s := r.s
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	q := r.cons[c]
	hint, ok := s.hot[q]
	if !ok {
		hint = -1
	}
	bad, f := s.p.Violated(q, s.tau, hint)
	if bad {
		s.hot[q] = f
	}
	return bad, nil
}

func (r *repair) remove(v, x int) {
	r.alive[v][x] = false
	r.count[v]--
	r.trail = append(r.trail, prune{v, x})
}

// undo restores the domains pruned since mark.
func (r *repair) undo(mark int) {
	for _, p := range r.trail[mark:] {
		r.alive[p.v][p.x] = true
		r.count[p.v]++
	}
	r.trail = r.trail[:mark]
}
