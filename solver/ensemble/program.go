package ensemble

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
	"gallop/solver/collide"
	"gallop/solver/ensemble/csp"
)

// Program is one transition a → b as the constraint solver sees it (the
// integer program of Eq. 6): the separable cost Φ_k(τ) = D_k(a+τ, b+τ)
// and the collision oracle of its frames s = −H … H (frame index
// f = s + H, H = Margin()). It implements csp.Program, whose variables
// are values that each stand for an offset and a blend length (see
// values.go: Model.Values, Model.Offsets); Φ does not depend on the blend.
//
// A pair of groups (K, L) is bad at frame f under τ when, in the
// transition pose, a triangle of K intersects a triangle of L (collide's
// exact test, touching included, sewn-vertex pairs excepted; see
// Model.SourceContacts), and the pair interpenetrates neither in the
// reconstructed source frame a+s nor in b+s (pre-existing contacts are not
// the transition's fault). Where every group of the clique ℵ_KL has weight
// 0, or every one weight 1, the pair's relative pose is that of a source
// frame, and the pair is never bad there; it is not even tested.
//
// Posing is cheap and collision detection the bottleneck, so each group's
// pose at each frame is cached, keyed by the blend weights of the groups
// on its path from the root (the only offsets it depends on; offsets with
// the same weight pose alike), poseWays entries per (group, frame), least
// recently used replaced; the narrow phase refits one collide.Mesh per
// group to the cached positions it needs.
//
// Besides contacts, a Program has one constraint per group, the pair
// (k, k): group k must not move further from one transition frame to the
// next than in any step of the model's source frames (StepLimits). A child takes
// its frame from its parent's pose, so a child playing source B under a
// parent still playing A moves by the sum of two motions that never met
// in the data; the paper's §3.4 offers boolean constraints for such
// physics, and this one keeps every step of the output within the data's
// own. A step is the largest distance a vertex of the group moves. Its
// clique is the group's path from the root.
//
// A test's answer depends only on the frame and the blend weights of the
// groups whose poses it reads (a contact: both groups' paths from the
// root; a step: the group's path at f−1 and f), and τ values that give
// equal weights give equal answers (the paper's §4.3.7 notes that the
// solver re-tests such τ). So every answer is memoized under that key:
// a repeated test costs a map lookup. Work is in units of one test: every
// (pair, frame) test made in a transition pose (each pair of set that Bad
// does not skip as a pure source, each broad-phase candidate that New
// does not skip as known or pure) counts 1 when made and 1/memoHitCost
// when answered from the memo. It depends only on the calls made on the
// Program, not on timing, so a solver's time-out in Work units reproduces
// from run to run, and a search that only revisits known answers still
// runs into its time-out.
//
// A Program is not safe for concurrent use; make one per goroutine (the
// Model they share is).
type Program struct {
	m      *Model
	a, b   State
	ia, ib int // state indices of a and b
	vmax   int // values are in [−vmax, vmax]
	margin int
	// stepScale multiplies the step bound (BuildOptions.StepTolerance).
	stepScale float64
	phi       []float64 // [k·(2vmax+1) + v + vmax]
	decTau    []int     // [v + vmax]: the offset of value v
	decBlend  []int     // [v + vmax]: its blend length, 0 for a value of no pair
	clique    map[csp.Pair][]int
	work      int64 // tests made
	hits      int64 // tests answered from the memo
	memo      memo

	poser  *Poser
	slots  [][]*posed // [k·Frames() + f], at most ways entries each
	ways   int
	meshes []*collide.Mesh
	holds  []uint64 // serial of the posed entry each mesh holds
	serial uint64
	clock  uint64
	keys   [][]float64 // scratch keys by depth
	ents   []*posed
	boxes  []bvh.AABB
	grid   collide.Grid
	cand   [][2]int
}

// posed is a group posed at one transition frame.
type posed struct {
	key    []float64 // the weights of the groups on the path from the root
	x      []mgl64.Vec3
	world  Rigid
	box    bvh.AABB
	serial uint64
	used   uint64
}

var _ csp.Program = (*Program)(nil)

// Program returns the program of the transition from a to b, its step
// bound the model's (StepLimits), every offset and blend length allowed.
// It panics unless CanTransition holds for both (a programming error: the
// graph picks its candidates among such states).
func (m *Model) Program(a, b State) *Program { return m.program(a, b, 1, m.margin, nil, nil) }

// program is Program with the step bound scaled by tolerance and only the
// values whose blend stays within reach of the transition's centre,
// |τ| + ⌈b/2⌉ ≤ reach (reach = Margin() allows all), and, where inA or
// inB is set, only those that keep the transition's Start in inA (frames
// of a's level) and its Landing in inB (see Transition.Blends: Start is the
// least of a + s0_k − 1 over the groups, Landing the greatest of b +
// s1_k + 1, so asking it of every group's value asks it of the
// transition); Φ_k is +Inf for the others.
func (m *Model) program(a, b State, tolerance float64, reach int, inA, inB []bool) *Program {
	if !m.CanTransition(a) || !m.CanTransition(b) {
		panic(fmt.Sprintf("ensemble: no transition %+v → %+v: both need %d frames on either side in their level", a, b, m.margin))
	}
	G := len(m.groups)
	depth := 0
	for k := range m.groups {
		depth = max(depth, len(m.groups[k].Path))
	}
	p := &Program{
		m: m, a: a, b: b, ia: m.index(a), ib: m.index(b),
		vmax: m.valueMax(), margin: m.margin, stepScale: tolerance,
		clique: map[csp.Pair][]int{},
		poser:  m.NewPoser(),
		slots:  make([][]*posed, G*m.Frames()),
		ways:   poseWays(len(m.data.Rest), m.Frames()),
		meshes: make([]*collide.Mesh, G),
		holds:  make([]uint64, G),
		keys:   make([][]float64, depth),
		ents:   make([]*posed, G),
		boxes:  make([]bvh.AABB, G),
	}
	nv := 2*p.vmax + 1
	p.decTau, p.decBlend = make([]int, nv), make([]int, nv)
	for v := -p.vmax; v <= p.vmax; v++ {
		t, bl, ok := m.decodeValue(v)
		if !ok || abs(t)+(bl+1)/2 > reach {
			continue
		}
		s0, s1 := blendSpan(t, bl)
		if inA != nil && !inA[a.Frame+s0-1] || inB != nil && !inB[b.Frame+s1+1] {
			continue
		}
		p.decTau[v+p.vmax], p.decBlend[v+p.vmax] = t, bl
	}
	base := m.phiTable(a, b)
	T := m.opts.TauMax
	p.phi = make([]float64, G*nv)
	for k := range G {
		for x := range nv {
			v := math.Inf(1)
			if p.decBlend[x] > 0 {
				v = base[k*(2*T+1)+p.decTau[x]+T]
			}
			p.phi[k*nv+x] = v
		}
	}
	for d := range p.keys {
		p.keys[d] = make([]float64, 0, d+1)
	}
	return p
}

// A returns the source the transition leaves.
func (p *Program) A() State { return p.a }

// B returns the source the transition enters.
func (p *Program) B() State { return p.b }

// Groups returns G.
func (p *Program) Groups() int { return len(p.m.groups) }

// TauMax returns V: the values are in [−V, V] (see values.go).
func (p *Program) TauMax() int { return p.vmax }

// tb returns the offset and blend length of value v (blend 0: no pair).
func (p *Program) tb(v int) (tau, blend int) {
	return p.decTau[v+p.vmax], p.decBlend[v+p.vmax]
}

// weight returns the weight of a group with value v at transition frame s.
func (p *Program) weight(s, v int) float64 {
	t, b := p.tb(v)
	return p.m.Weight(s, t, max(b, 1))
}

// weightStep returns weight as Model.weightStep.
func (p *Program) weightStep(s, v int) uint8 {
	t, b := p.tb(v)
	return p.m.weightStep(s, t, max(b, 1))
}

// Frames returns |T| = 2H + 1.
func (p *Program) Frames() int { return 2*p.margin + 1 }

// Phi returns Φ_k(τ) = D_k(a+τ, b+τ) (Eq. 4; see Model.D) for value v
// standing for τ; +Inf where a frame falls outside its level, for a value
// of no pair or out of the program's reach, and for |v| > V.
func (p *Program) Phi(k, v int) float64 {
	if v < -p.vmax || v > p.vmax {
		return math.Inf(1)
	}
	return p.phi[k*(2*p.vmax+1)+v+p.vmax]
}

// Minimum writes into tau (grown to G) the unconstrained minimum of
// Φ(τ) = Σ_k Φ_k(τ_k) over |τ_k| ≤ τ_max, found group by group since Φ is
// separable (Eq. 5; ties go to the smaller |τ_k|, then the negative), and
// returns it with Φ there.
func (p *Program) Minimum(tau []int) ([]int, float64) {
	tau = slices.Grow(tau[:0], len(p.m.groups))[:len(p.m.groups)]
	return tau, minimize(tau, p.phi, p.vmax)
}

// Clique returns ℵ_KL (see Model.Clique), cached. Do not modify it.
func (p *Program) Clique(pr csp.Pair) []int {
	c, ok := p.clique[pr]
	if !ok {
		if pr.K == pr.L {
			c = p.m.groups[pr.K].Path // a group's step: it and its ancestors
		} else {
			c = p.m.Clique(pr.K, pr.L)
		}
		p.clique[pr] = c
	}
	return c
}

// Work returns the tests made so far, the memo's answers counting
// 1/memoHitCost each.
func (p *Program) Work() int64 { return p.work + p.hits/memoHitCost }

// Bad appends to dst the pairs of set that newly interpenetrate at frame f
// under tau, in set's order, and returns the extended slice.
func (p *Program) Bad(dst []csp.Pair, tau []int, f int, set []csp.Pair) []csp.Pair {
	for _, pr := range set {
		if p.test(pr, f, tau, nil, nil) {
			dst = append(dst, pr)
		}
	}
	return dst
}

// Violated reports whether pr is bad at some frame under tau, and the
// first such frame found: frame hint first (if in range), then the others
// in increasing order, only those where pr's clique is not pure (for a
// step, where it is pure at neither f−1 nor f), all other frames being a
// source's and never bad. The answer is that of Bad at every frame.
func (p *Program) Violated(pr csp.Pair, tau []int, hint int) (bool, int) {
	m := p.m
	lo, hi := math.MaxInt, math.MinInt
	widen := func(path []int) {
		for _, a := range path {
			t, b := p.tb(tau[a])
			lo, hi = min(lo, 2*t-b), max(hi, 2*t+b)
		}
	}
	pk := m.groups[pr.K].Path
	if pr.K == pr.L {
		widen(pk)
	} else {
		pl := m.groups[pr.L].Path
		from := max(commonPrefix(pk, pl)-1, 0)
		widen(pk[from:])
		widen(pl[from:])
	}
	// Some weight is not pure, or two differ, exactly where
	// min(2τ − b) < 2s < max(2τ + b) (>> 1 is the floor of a half).
	first := lo>>1 + 1 + p.margin
	last := -((-hi) >> 1) - 1 + p.margin
	if pr.K == pr.L {
		last++ // the step into the first pure frame
	}
	first, last = max(first, 0), min(last, p.Frames()-1)
	if hint >= first && hint <= last && p.test(pr, hint, tau, nil, nil) {
		return true, hint
	}
	for f := first; f <= last; f++ {
		if f != hint && p.test(pr, f, tau, nil, nil) {
			return true, f
		}
	}
	return false, -1
}

// New appends to dst the pairs for which known is false (known may be nil)
// that newly interpenetrate at frame f under tau, found by posing every
// group and testing the pairs whose boxes overlap (collide.Grid), by K
// then L; it returns the extended slice.
func (p *Program) New(dst []csp.Pair, tau []int, f int, known func(csp.Pair) bool) []csp.Pair {
	for k := range p.m.groups {
		p.ents[k] = p.get(k, f, tau)
		p.boxes[k] = p.ents[k].box
	}
	p.cand = p.grid.Pairs(p.cand[:0], p.boxes)
	for _, c := range p.cand {
		pr := csp.Pair{K: c[0], L: c[1]}
		if known != nil && known(pr) {
			continue
		}
		if p.test(pr, f, tau, p.ents[pr.K], p.ents[pr.L]) {
			dst = append(dst, pr)
		}
	}
	for k := range p.m.groups {
		pr := csp.Pair{K: k, L: k}
		if (known == nil || !known(pr)) && p.test(pr, f, tau, nil, nil) {
			dst = append(dst, pr)
		}
	}
	return dst
}

// test is Bad for one pair at frame f: a step (K = L) or a contact, from
// the memo or tested (and memoized); ek and el, if set, are the pair's
// posed entries at f. Pure frames are not tested: a contact whose clique
// plays one source there, a step whose group's path plays one source at
// f−1 and f, and the first frame's step.
func (p *Program) test(pr csp.Pair, f int, tau []int, ek, el *posed) bool {
	s := f - p.margin
	if pr.K == pr.L {
		if f == 0 || p.pureStep(pr.K, s, tau) {
			return false
		}
	} else if p.pure(pr, s, tau) {
		return false
	}
	ans, slot := p.memo.lookup(p, pr, f, tau)
	if ans != 0 {
		p.hits++
		return ans == memoBad
	}
	var bad bool
	if pr.K == pr.L {
		p.work++
		x1 := p.get(pr.K, f, tau).x
		bad = vertexStep(p.get(pr.K, f-1, tau).x, x1) > p.stepScale*p.m.stepLimit[pr.K]
	} else {
		if ek == nil {
			ek, el = p.get(pr.K, f, tau), p.get(pr.L, f, tau)
		}
		bad = p.bad(pr, s, ek, el)
	}
	p.memo.store(slot, bad)
	return bad
}

// pureStep reports whether group k's path plays one source, purely, at
// transition frames s−1 and s.
func (p *Program) pureStep(k, s int, tau []int) bool {
	m := p.m
	path := m.groups[k].Path
	w0 := p.weightStep(s, tau[path[0]])
	if w0 != 0 && int(w0) != 2*m.opts.maxBlend() {
		return false
	}
	for _, a := range path {
		if p.weightStep(s, tau[a]) != w0 || p.weightStep(s-1, tau[a]) != w0 {
			return false
		}
	}
	return true
}

// Interpenetrations returns the distinct pairs of groups that newly
// interpenetrate in some frame of the transition under tau, by K then L,
// and the number of (pair, frame)s: New over every frame (so it adds to
// Work), steps left out.
func (p *Program) Interpenetrations(tau []int) (pairs []csp.Pair, pairFrames int) {
	return p.InterpenetrationsBy(tau, nil)
}

// InterpenetrationsBy is Interpenetrations that also calls each, if set,
// for every frame f with the contacts newly interpenetrating there (a
// scratch slice, valid during the call).
func (p *Program) InterpenetrationsBy(tau []int, each func(f int, contacts []csp.Pair)) (pairs []csp.Pair, pairFrames int) {
	var found []csp.Pair
	seen := map[csp.Pair]bool{}
	for f := range p.Frames() {
		found = slices.DeleteFunc(p.New(found[:0], tau, f, nil), func(pr csp.Pair) bool { return pr.K == pr.L }) // steps are not contacts
		pairFrames += len(found)
		for _, pr := range found {
			if !seen[pr] {
				seen[pr] = true
				pairs = append(pairs, pr)
			}
		}
		if each != nil {
			each(f, found)
		}
	}
	slices.SortFunc(pairs, func(a, b csp.Pair) int {
		if a.K != b.K {
			return a.K - b.K
		}
		return a.L - b.L
	})
	return pairs, pairFrames
}

// pure reports whether every group of pr's clique (the paths from the
// lowest common ancestor down to K and to L) has weight 0 at frame s under
// tau, or every one weight 1.
func (p *Program) pure(pr csp.Pair, s int, tau []int) bool {
	m := p.m
	pk, pl := m.groups[pr.K].Path, m.groups[pr.L].Path
	from := max(commonPrefix(pk, pl)-1, 0)
	w0 := p.weightStep(s, tau[pk[from]])
	if w0 != 0 && int(w0) != 2*m.opts.maxBlend() {
		return false
	}
	for _, a := range pk[from+1:] {
		if p.weightStep(s, tau[a]) != w0 {
			return false
		}
	}
	for _, a := range pl[from:] {
		if p.weightStep(s, tau[a]) != w0 {
			return false
		}
	}
	return true
}

// commonPrefix returns the length of the common beginning of two paths
// from the root.
func commonPrefix(a, b []int) int {
	c := 0
	for c < len(a) && c < len(b) && a[c] == b[c] {
		c++
	}
	return c
}

// bad tests pr in the transition pose (entries ek, el) and against the
// source frames a+s and b+s.
func (p *Program) bad(pr csp.Pair, s int, ek, el *posed) bool {
	p.work++
	if !ek.box.Overlaps(el.box) {
		return false
	}
	p.hold(pr.K, ek)
	p.hold(pr.L, el)
	if !p.m.intersect(pr.K, pr.L, p.meshes[pr.K], p.meshes[pr.L]) {
		return false
	}
	return !hasPair(p.m.sourcePairs(p.ia+s), pr) && !hasPair(p.m.sourcePairs(p.ib+s), pr)
}

// hold makes group k's mesh hold the positions of entry e.
func (p *Program) hold(k int, e *posed) {
	switch {
	case p.meshes[k] == nil:
		p.meshes[k] = collide.NewMesh(e.x, p.m.groups[k].Triangles)
	case p.holds[k] != e.serial:
		p.meshes[k].Refit(e.x)
	default:
		return
	}
	p.holds[k] = e.serial
}

// poseCacheBytes bounds the positions a Program caches: each group keeps
// up to poseWays poses per transition frame (one per blend weight for a
// root with τ_blend = 10, so that a search that tries every offset of a
// group poses it once), fewer on a large ensemble.
const poseCacheBytes = 192 << 20

// poseWays returns how many poses per group and frame a Program keeps for
// an ensemble of n vertices and frames transition frames: 2 to 12.
func poseWays(n, frames int) int {
	return min(max(poseCacheBytes/(24*max(n, 1)*frames), 2), 48)
}

// get returns group k posed at frame f under tau, from the cache or posed
// now (its ancestors first); a full cache entry replaces its least
// recently used pose.
func (p *Program) get(k, f int, tau []int) *posed {
	m := p.m
	g := &m.groups[k]
	s := f - p.margin
	depth := len(g.Path) - 1
	key := p.keys[depth][:0]
	for _, a := range g.Path {
		key = append(key, p.weight(s, tau[a]))
	}
	p.keys[depth] = key
	p.clock++
	slot := &p.slots[k*p.Frames()+f]
	for _, e := range *slot {
		if slices.Equal(e.key, key) {
			e.used = p.clock
			return e
		}
	}

	var pw *Rigid
	var px []mgl64.Vec3
	if g.Parent >= 0 {
		pe := p.get(g.Parent, f, tau)
		pw, px = &pe.world, pe.x
	}
	var e *posed
	if len(*slot) < p.ways {
		e = &posed{key: make([]float64, len(key)), x: make([]mgl64.Vec3, g.Count)}
		*slot = append(*slot, e)
	} else {
		e = (*slot)[0]
		for _, o := range (*slot)[1:] {
			if o.used < e.used {
				e = o
			}
		}
	}
	copy(e.key, p.keys[depth])
	w := e.key[depth]
	ia, ib := -1, -1
	if w < 1 {
		ia = p.ia + s
	}
	if w > 0 {
		ib = p.ib + s
	}
	e.world = p.poser.poseGroup(k, ia, ib, w, pw, px, e.x)
	e.box = bvh.EmptyAABB()
	for _, x := range e.x {
		e.box = e.box.Include(x)
	}
	p.serial++
	e.serial = p.serial
	e.used = p.clock
	return e
}
