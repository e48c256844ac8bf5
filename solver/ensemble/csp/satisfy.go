package csp

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Satisfy is SATISFY-MEMG-CSP(i, j, φ_cutoff), the paper's (11): it looks
// for a feasible point of the integer program p (Eq. 6) whose cost stays
// at most cutoff, starting from the unconstrained minimum and repairing
// the interpenetrations that collision detection finds by randomized local
// search. Pass cutoff = +Inf for no cutoff.
//
//	SATISFY-MEMG-CSP(i, j, φ_cutoff)
//	 1  t_start ← TIME()
//	 2  (φ, τ) ← unconstrained minimization of Φ
//	 3  if φ > φ_cutoff
//	 4      then return NIL                                       → Cull
//	 5  C ← ∅
//	 6  A_k ← ∅ ∀k
//	 7  B ← detect all contacts in τ-transition (EXPENSIVE)      → t_CD
//	 8  UPDATE-CONTACTS(C, B, A_*)
//	 9  while B ≠ ∅
//	10      if φ > φ_cutoff or TIME() − t_start > t_cutoff
//	11          then return NIL                                   → Cull / TimeOut
//	12      (φ, τ) ← LOCAL-SEARCH(C, B, A_*, φ, τ)
//	13  return (φ, τ)                                             → OK
//
// The sets (§4.3.2): C, every contact (pair of groups k < l) found bad so
// far; B ⊂ C, the contacts known to be bad now; A_k ⊂ C, the contacts
// whose kinematic clique ℵ_kl contains k, i.e. those a change of τ_k can
// make or unmake (Eq. 9). UPDATE-CONTACTS (10) adds new contacts to C and
// to A_m for every m of their clique. B is exactly the bad part of C at
// all times: every change of τ_k retests all of A_k.
//
// Decisions (the paper leaves them open):
//
//   - Line 2 (Eq. 5): τ_k = argmin Φ_k over [−TauMax, TauMax] for each k
//     separately; ties go to the smaller |τ|, then to the negative τ.
//   - Line 7 is a scan of every frame in increasing order with
//     Program.New, the pairs already found being passed as known (B is a
//     set: a pair found bad needs no second test). Its collision work is
//     t_CD in Program.Work units, its wall time t_CD in seconds.
//   - Time-out (line 10): the work since line 1, p.Work() − Work at start,
//     exceeds η·max(t_CD, 1) work units; wall time plays no part, so a
//     call is reproducible for a given rng state. The time-out is in work
//     units because Program.Work is deterministic; the paper's wall-clock
//     rule would make the answer depend on the machine and its load.
//     Work must grow whenever Bad or New report a pair, else an
//     infeasible program runs until ctx is cancelled.
//   - A feasible point found with φ > φ_cutoff (LOCAL-SEARCH may raise φ
//     in the step that empties B) is reported as Cull, not OK: line 10
//     would have culled it one step later, and Compute could not use it.
//   - LOCAL-SEARCH (12), line 2: τ_k is redrawn among the values other
//     than the current one (redrawing it would change nothing), with
//     probability ∝ 1/Φ_k(τ); a τ with Φ_k = +Inf is never drawn, and
//     Φ_k = 0 (which would take all the probability) weighs as the
//     variable's smallest positive Φ_k, so the walk stays random.
//   - SELECT-VARIABLE (13): the bad pair is drawn uniformly from B; only
//     variables of its clique that can move (Φ_m finite at another
//     value) are candidates, with p_m ∝ C^−|A_m| computed as
//     C^−(|A_m| − min |A|) (no underflow). If none can move, the pair is
//     bad whatever τ (Eq. 9): the search is stuck and ends at once as
//     TimeOut (the program is infeasible).
//   - GET-BAD-CONTACTS (14): each pair is tested first at its hot frame
//     (where it was last found bad), then at the other frames in
//     increasing order; within LOCAL-SEARCH it stops as soon as more than
//     |B_k| pairs are bad, the step being rejected whatever the rest.
//     Both change the cost, never the result.
//   - DETECT-NEW-CONTACTS (15): frames in a uniformly random order (a
//     permutation from rng); the contacts of the first frame with any.
//   - ctx is checked before every collision query (every frame of a
//     scan); on cancellation Satisfy returns ctx.Err() with the outcome so
//     far (Status TimeOut).
//
// The listings of (10), (12)–(15) are on the functions that implement
// them (updateContacts, localSearch, selectVariable, getBad, detectNew).
//
// rng (not nil) drives every random choice: equal seeds and programs give
// equal outcomes (but for the seconds). trace, if not nil, is called on the calling
// goroutine with the events of Fig. 10 (SatisfyStart, Scanned, one Step per
// LOCAL-SEARCH, SatisfyEnd); it must be quick (append to a buffer, or a
// non-blocking send) and must not call back into p.
//
// Satisfy panics with a "csp:" message if p breaks its contract: a
// negative TauMax, a Φ_k that is NaN or negative, a clique without its
// pair's groups or with a group out of range, or a pair out of range or
// not ordered K ≤ L.
func Satisfy(ctx context.Context, p Program, cutoff float64, opts Options, rng *rand.Rand, trace func(Event)) (Outcome, error) {
	if err := opts.Validate(); err != nil {
		return Outcome{}, err
	}
	if math.IsNaN(cutoff) {
		return Outcome{}, fmt.Errorf("csp: the cutoff is NaN")
	}
	s := newSolver(ctx, p, opts.WithDefaults(), rng, trace, time.Now(), p.Work())
	return s.satisfy(cutoff, math.Inf(1), -1)
}

// solver is the state of one SATISFY-MEMG-CSP call.
type solver struct {
	ctx   context.Context
	p     Program
	opts  Options
	rng   *rand.Rand
	trace func(Event)
	t0    time.Time // the outermost call's start, for events
	w0    int64     // p.Work() at the outermost call's start, for events

	g, tmax, frames int
	vars            []variable // per group k: Φ_k and its importance weights

	tau []int
	phi float64 // Φ(τ)

	inC     map[Pair]struct{} // C
	c       []Pair            // C in order of discovery
	b       []Pair            // B
	bAt     map[Pair]int      // index of each pair of B in b
	a       [][]Pair          // A_k
	hot     map[Pair]int      // the frame where each contact was last found bad
	cliques map[Pair][]int    // ℵ_kl, cached
	local   int               // LOCAL-SEARCH calls

	// scratch of getBad
	found   map[Pair]int // index in S of each pair of S, per call
	state   []int8       // per pair of S: 0 untested, 1 bad
	set     []Pair
	dst     []Pair
	byFrame []int
	weights []float64
}

func newSolver(ctx context.Context, p Program, opts Options, rng *rand.Rand, trace func(Event), t0 time.Time, w0 int64) *solver {
	g, tmax, frames := p.Groups(), p.TauMax(), p.Frames()
	if g < 0 || tmax < 0 || frames < 0 {
		panic(fmt.Sprintf("csp: Program with %d groups, TauMax %d, %d frames", g, tmax, frames))
	}
	s := &solver{
		ctx: ctx, p: p, opts: opts, rng: rng, trace: trace, t0: t0, w0: w0,
		g: g, tmax: tmax, frames: frames,
		vars:    make([]variable, g),
		tau:     make([]int, g),
		inC:     map[Pair]struct{}{},
		bAt:     map[Pair]int{},
		a:       make([][]Pair, g),
		hot:     map[Pair]int{},
		cliques: map[Pair][]int{},
		found:   map[Pair]int{},
	}
	for k := range s.vars {
		s.vars[k] = newVariable(p, k, tmax)
	}
	return s
}

// satisfy runs (11) with the given cutoff; phiMin and cand only label the
// events.
func (s *solver) satisfy(cutoff, phiMin float64, cand int) (Outcome, error) {
	start := time.Now()
	work0 := s.p.Work()
	s.emit(Event{Kind: SatisfyStart, Phi: math.NaN(), PhiMin: phiMin, Candidate: cand})

	// Line 2: the unconstrained minimum (Eq. 5).
	for k := range s.vars {
		s.tau[k] = s.vars[k].argmin - s.tmax
	}
	s.phi = s.cost()

	o := Outcome{Status: Cull}
	finish := func(st Status, err error) (Outcome, error) {
		o.Status = st
		o.Phi = s.phi
		o.Tau = slices.Clone(s.tau)
		o.Local = s.local
		o.Contacts = len(s.c)
		o.Bad = len(s.b)
		o.Work = s.p.Work() - work0
		o.Seconds = time.Since(start).Seconds()
		s.emit(Event{Kind: SatisfyEnd, Phi: s.phi, PhiMin: phiMin, Bad: len(s.b), Contacts: len(s.c), Candidate: cand, Status: st})
		return o, err
	}

	// Lines 3-4.
	if s.phi > cutoff || math.IsInf(s.phi, 1) {
		return finish(Cull, nil)
	}

	// Lines 5-8.
	scanStart := time.Now()
	bad, err := s.scan()
	if err != nil {
		return finish(TimeOut, err)
	}
	o.Scanned = true
	o.CDWork = s.p.Work() - work0
	o.CDSeconds = time.Since(scanStart).Seconds()
	s.setB(bad)
	s.updateContacts(bad)
	s.emit(Event{Kind: Scanned, Phi: s.phi, PhiMin: phiMin, Bad: len(s.b), Contacts: len(s.c), Candidate: cand})

	budget := s.opts.Eta * float64(max(o.CDWork, 1))
	walk := budget
	if s.opts.Search == Hybrid {
		walk = min(budget, HybridWalk*float64(max(o.CDWork, 1)))
	}
	if s.opts.Search != Propagate {
		st, err := s.walk(cutoff, walk, work0, phiMin, cand)
		if err != nil || st != TimeOut || s.opts.Search == Walk {
			return finish(st, err)
		}
		if float64(s.p.Work()-work0) > budget {
			return finish(TimeOut, nil)
		}
	}
	st, err := s.propagate(cutoff, budget, work0, phiMin, cand)
	return finish(st, err)
}

// walk is lines 9-13 of (11) as the paper has them: LOCAL-SEARCH until B
// is empty (OK), φ exceeds the cutoff (Cull), the work since work0
// exceeds budget or the search is stuck (TimeOut).
func (s *solver) walk(cutoff, budget float64, work0 int64, phiMin float64, cand int) (Status, error) {
	for len(s.b) > 0 { // line 9
		if s.phi > cutoff { // line 10
			return Cull, nil
		}
		if float64(s.p.Work()-work0) > budget {
			return TimeOut, nil
		}
		if err := s.ctx.Err(); err != nil {
			return TimeOut, err
		}
		stuck, err := s.localSearch() // line 12
		if err != nil {
			return TimeOut, err
		}
		if stuck {
			return TimeOut, nil
		}
		s.emit(Event{Kind: Step, Phi: s.phi, PhiMin: phiMin, Bad: len(s.b), Contacts: len(s.c), Candidate: cand})
	}
	if s.phi > cutoff {
		return Cull, nil
	}
	return OK, nil // line 13
}

// cost returns Φ(τ) = Σ_k Φ_k(τ_k) (Eq. 4), summed afresh in group order
// (no drift from running updates).
func (s *solver) cost() float64 {
	var phi float64
	for k, t := range s.tau {
		phi += s.vars[k].phi[t+s.tmax]
	}
	return phi
}

// scan is line 7 of (11): every contact that is bad at some frame under τ,
// frames in increasing order, each pair tested until found bad.
func (s *solver) scan() ([]Pair, error) {
	var bad []Pair
	known := map[Pair]struct{}{}
	isKnown := func(q Pair) bool { _, ok := known[q]; return ok }
	for f := 0; f < s.frames; f++ {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		n := len(bad)
		bad = s.p.New(bad, s.tau, f, isKnown)
		for _, q := range bad[n:] {
			s.checkPair(q)
			known[q] = struct{}{}
			s.hot[q] = f
		}
	}
	return dedup(bad), nil
}

// localSearch is LOCAL-SEARCH(C, B, A_*, φ, τ), the paper's (12):
//
//	LOCAL-SEARCH(C, B, A_*, φ, τ)
//	 1  k ← SELECT-VARIABLE(B, A_*)
//	 2  (φ', τ') ← importance sample τ_k using 1/Φ_k
//	 3  B_k ← B ∩ A_k
//	 4  B'_k ← GET-BAD-CONTACTS(A_k, τ')
//	 5  if |B'_k| ≤ |B_k|
//	 6      then (φ, τ) ← (φ', τ')
//	 7           B ← (B − B_k) + B'_k
//	 8           if B = ∅
//	 9               then B ← DETECT-NEW-CONTACTS(C, τ)
//	10                    UPDATE-CONTACTS(C, B, A_*)
//	11  return (φ, τ)
//
// Line 2 draws a value other than the current τ_k (see variable.sample):
// redrawing the current one changes nothing. Line 4 stops as soon as more
// than |B_k| pairs are bad, since the step is then rejected whatever the
// rest; the outcome is the same as the full test's. It reports stuck when
// SELECT-VARIABLE finds no variable that can move.
func (s *solver) localSearch() (stuck bool, err error) {
	s.local++
	k := s.selectVariable() // line 1
	if k < 0 {
		return true, nil
	}
	old := s.tau[k]
	s.tau[k] = s.vars[k].sample(s.rng, old+s.tmax) - s.tmax // line 2

	nk := 0 // line 3: |B_k|
	for _, q := range s.a[k] {
		if _, ok := s.bAt[q]; ok {
			nk++
		}
	}
	badK, over, err := s.getBad(s.a[k], nk) // line 4
	if err != nil || over {                 // line 5
		s.tau[k] = old
		return false, err
	}
	s.phi = s.cost() // line 6
	for _, q := range s.a[k] {
		s.removeB(q) // line 7
	}
	for _, q := range badK {
		s.addB(q)
	}
	if len(s.b) == 0 { // lines 8-10
		d, err := s.detectNew()
		if err != nil {
			return false, err
		}
		s.setB(d)
		s.updateContacts(d)
	}
	return false, nil
}

// selectVariable is SELECT-VARIABLE(B ≠ ∅, A_*), the paper's (13):
//
//	SELECT-VARIABLE(B ≠ ∅, A_*)
//	 1  (k, l) ← random collision pair ∈ B
//	 2  return variable m ∈ ℵ_kl with probability p_m ∝ C^−|A_m|
//
// The pair is drawn uniformly from B. Only variables that can move (Φ_m
// finite at some value other than the current τ_m) are candidates: a
// variable with a single finite value would be a wasted step. The weights
// are computed as C^−(|A_m| − min |A|) over the clique, the same
// distribution without underflow for large |A_m|. If no variable of the
// clique can move, the pair stays bad whatever τ (Eq. 9): it returns −1
// and the search is stuck.
func (s *solver) selectVariable() int {
	q := s.b[s.rng.IntN(len(s.b))]
	clique := s.clique(q)
	minA := math.MaxInt
	for _, m := range clique {
		if s.vars[m].movable {
			minA = min(minA, len(s.a[m]))
		}
	}
	if minA == math.MaxInt {
		return -1
	}
	s.weights = s.weights[:0]
	var total float64
	for _, m := range clique {
		w := 0.0
		if s.vars[m].movable {
			w = math.Pow(s.opts.C, -float64(len(s.a[m])-minA))
		}
		s.weights = append(s.weights, w)
		total += w
	}
	r := s.rng.Float64() * total
	last := -1
	for i, w := range s.weights {
		if w == 0 {
			continue
		}
		last = i
		if r < w {
			return clique[i]
		}
		r -= w
	}
	return clique[last] // rounding: r ran past the last weight
}

// getBad is GET-BAD-CONTACTS(S, τ), the paper's (14):
//
//	GET-BAD-CONTACTS(S, τ)
//	 1  S_bad ← ∅
//	 2  S_left ← S
//	 3  for frame ∈ transitionFrames(τ)
//	 4      P ← detect S_left collisions in frame
//	 5      S_bad ← S_bad ∪ P
//	 6      S_left ← S_left − P
//	 7  return S_bad
//
// The frame order is the only freedom, and it decides only the cost:
// first each pair is tested at its hot frame (where it was last found
// bad: a contact tends to stay bad where it was), frames in increasing
// order, then every other frame in increasing order for the pairs left.
// The loop ends when S_left is empty, or, with over = true, as soon as
// more than limit pairs are bad (LOCAL-SEARCH then rejects the step and
// needs no more).
func (s *solver) getBad(set []Pair, limit int) (bad []Pair, over bool, err error) {
	clear(s.found)
	s.state = s.state[:0]
	s.byFrame = s.byFrame[:0]
	for i, q := range set {
		s.found[q] = i
		s.state = append(s.state, 0)
		if h, ok := s.hot[q]; ok {
			s.byFrame = append(s.byFrame, h)
		}
	}
	slices.Sort(s.byFrame)
	s.byFrame = slices.Compact(s.byFrame)
	left := len(set)
	var out []Pair
	test := func(f int, pick func(q Pair) bool) error {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		s.set = s.set[:0]
		for i, q := range set {
			if s.state[i] == 0 && pick(q) {
				s.set = append(s.set, q)
			}
		}
		if len(s.set) == 0 {
			return nil
		}
		s.dst = s.p.Bad(s.dst[:0], s.tau, f, s.set)
		for _, q := range s.dst {
			i, ok := s.found[q]
			if !ok || s.state[i] != 0 {
				continue // not asked, or reported twice
			}
			s.state[i] = 1
			s.hot[q] = f
			out = append(out, q)
			left--
		}
		return nil
	}
	hotAt := func(q Pair) int {
		if h, ok := s.hot[q]; ok {
			return h
		}
		return -1
	}
	for _, h := range s.byFrame {
		if err := test(h, func(q Pair) bool { return hotAt(q) == h }); err != nil {
			return nil, false, err
		}
		if len(out) > limit {
			return out, true, nil
		}
		if left == 0 {
			return out, false, nil
		}
	}
	// The hot frames of pairs found above have changed, but those pairs
	// are no longer tested; the others keep the hot frame they were
	// tested at.
	for f := 0; f < s.frames && left > 0; f++ {
		if err := test(f, func(q Pair) bool { return hotAt(q) != f }); err != nil {
			return nil, false, err
		}
		if len(out) > limit {
			return out, true, nil
		}
	}
	return out, false, nil
}

// detectNew is DETECT-NEW-CONTACTS(C, τ), the paper's (15):
//
//	DETECT-NEW-CONTACTS(C, τ)
//	 1  for frame ∈ randomizedTransitionFrames(τ)
//	 2      D ← detect new contacts in frame (ignoring C)
//	 3      if D ≠ ∅
//	 4          then return D
//	 5  return ∅
//
// The frames are visited in a uniformly random order (a permutation drawn
// from rng); the contacts returned are those of the first frame with any.
// An empty answer means no pair outside C is bad at any frame, and B = ∅
// means no pair of C is: τ is feasible.
func (s *solver) detectNew() ([]Pair, error) {
	isKnown := func(q Pair) bool { _, ok := s.inC[q]; return ok }
	for _, f := range s.rng.Perm(s.frames) {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		d := s.p.New(nil, s.tau, f, isKnown)
		if len(d) == 0 {
			continue
		}
		d = dedup(d)
		for _, q := range d {
			s.checkPair(q)
			s.hot[q] = f
		}
		return d, nil
	}
	return nil, nil
}

// updateContacts is UPDATE-CONTACTS(C, B, A_*), the paper's (10):
//
//	UPDATE-CONTACTS(C, B, A_*)
//	 1  C ← C ∪ B
//	 2  for (m, n) ∈ B
//	 3      for k ∈ ℵ_mn
//	 4          A_k ← A_k ∪ (m, n)
//
// Pairs already in C are skipped (they are in the A_k of their clique).
func (s *solver) updateContacts(b []Pair) {
	for _, q := range b {
		if _, ok := s.inC[q]; ok {
			continue
		}
		s.inC[q] = struct{}{}
		s.c = append(s.c, q)
		for _, k := range s.clique(q) {
			s.a[k] = append(s.a[k], q)
		}
	}
}

// clique returns ℵ_q from the Program, checked and cached.
func (s *solver) clique(q Pair) []int {
	if c, ok := s.cliques[q]; ok {
		return c
	}
	c := slices.Clone(s.p.Clique(q))
	hasK, hasL := false, false
	for _, m := range c {
		if m < 0 || m >= s.g {
			panic(fmt.Sprintf("csp: the clique of %v holds group %d, outside [0, %d)", q, m, s.g))
		}
		hasK = hasK || m == q.K
		hasL = hasL || m == q.L
	}
	if !hasK || !hasL {
		panic(fmt.Sprintf("csp: the clique %v of %v lacks one of its groups", c, q))
	}
	slices.Sort(c)
	c = slices.Compact(c)
	s.cliques[q] = c
	return c
}

func (s *solver) checkPair(q Pair) {
	if q.K < 0 || q.K > q.L || q.L >= s.g {
		panic(fmt.Sprintf("csp: Program reported pair %v: want 0 ≤ K ≤ L < %d", q, s.g))
	}
}

func (s *solver) setB(b []Pair) {
	for _, q := range s.b {
		delete(s.bAt, q)
	}
	s.b = s.b[:0]
	for _, q := range b {
		s.addB(q)
	}
}

func (s *solver) addB(q Pair) {
	if _, ok := s.bAt[q]; ok {
		return
	}
	s.bAt[q] = len(s.b)
	s.b = append(s.b, q)
}

// removeB removes q from B if there, moving B's last pair into its place.
func (s *solver) removeB(q Pair) {
	i, ok := s.bAt[q]
	if !ok {
		return
	}
	last := s.b[len(s.b)-1]
	s.b[i] = last
	s.bAt[last] = i
	s.b = s.b[:len(s.b)-1]
	delete(s.bAt, q)
}

func (s *solver) emit(e Event) {
	if s.trace == nil {
		return
	}
	e.Seconds = time.Since(s.t0).Seconds()
	e.Work = s.p.Work() - s.w0
	s.trace(e)
}

// dedup removes repeated pairs, keeping the first of each.
func dedup(ps []Pair) []Pair {
	if len(ps) < 2 {
		return ps
	}
	seen := make(map[Pair]struct{}, len(ps))
	out := ps[:0]
	for _, q := range ps {
		if _, ok := seen[q]; !ok {
			seen[q] = struct{}{}
			out = append(out, q)
		}
	}
	return out
}

// propagate is lines 9-13 of (11) with the known contacts repaired
// exactly (see repair) instead of by LOCAL-SEARCH: while B ≠ ∅, find the
// cheapest offsets that satisfy every constraint of C (Infeasible if there
// are none, Cull if none within the cutoff), then test every frame for
// contacts outside C (the global test of DETECT-NEW-CONTACTS over all
// frames, so that one re-solve takes all of them); B is what it finds.
func (s *solver) propagate(cutoff, budget float64, work0 int64, phiMin float64, cand int) (Status, error) {
	dirty := 0
	for len(s.b) > 0 {
		if float64(s.p.Work()-work0) > budget {
			return TimeOut, nil
		}
		r := newRepair(s, cutoff, budget, work0)
		res, err := r.run(dirty)
		dirty = len(s.c)
		s.local += r.nodes
		if err != nil {
			return TimeOut, err
		}
		switch res {
		case repairTimeOut:
			s.phi = s.cost()
			return TimeOut, nil
		case repairNone:
			s.phi = s.cost()
			if r.bound {
				return Cull, nil
			}
			return Infeasible, nil
		}
		s.phi = s.cost()
		s.setB(nil)
		d, err := s.detectAll()
		if err != nil {
			return TimeOut, err
		}
		s.setB(d)
		s.updateContacts(d)
		s.emit(Event{Kind: Step, Phi: s.phi, PhiMin: phiMin, Bad: len(s.b), Contacts: len(s.c), Candidate: cand})
	}
	if s.phi > cutoff {
		return Cull, nil
	}
	return OK, nil
}

// detectAll returns every pair outside C that is bad at some frame under
// τ, frames in increasing order.
func (s *solver) detectAll() ([]Pair, error) {
	isKnown := func(q Pair) bool { _, ok := s.inC[q]; return ok }
	var d []Pair
	for f := 0; f < s.frames; f++ {
		if err := s.ctx.Err(); err != nil {
			return nil, err
		}
		n := len(d)
		d = s.p.New(d, s.tau, f, isKnown)
		for _, q := range d[n:] {
			s.checkPair(q)
			if _, ok := s.hot[q]; !ok {
				s.hot[q] = f
			}
		}
	}
	return dedup(d), nil
}
