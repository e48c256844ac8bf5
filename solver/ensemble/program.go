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
// f = s + H, H = Margin()). It implements csp.Program.
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
// the same weight pose alike), two entries per (group, frame), least
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
// Work counts the (pair, frame) tests made in transition poses: every pair
// of set that Bad does not skip as a pure source, and every broad-phase
// candidate that New does not skip as known or pure. It depends only on
// the calls made, not on caches or timing, so a solver's time-out in
// Work units reproduces from run to run.
//
// A Program is not safe for concurrent use; make one per goroutine (the
// Model they share is).
type Program struct {
	m      *Model
	a, b   State
	ia, ib int // state indices of a and b
	tauMax int
	margin int
	phi    []float64
	clique map[csp.Pair][]int
	work   int64

	poser  *Poser
	slots  [][2]*posed // [k·Frames() + f]
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

// Program returns the program of the transition from a to b. It panics
// unless CanTransition holds for both (a programming error: the graph
// picks its candidates among such states).
func (m *Model) Program(a, b State) *Program {
	if !m.CanTransition(a) || !m.CanTransition(b) {
		panic(fmt.Sprintf("ensemble: no transition %+v → %+v: both need %d frames on either side in their level", a, b, m.margin))
	}
	G := len(m.groups)
	depth := 0
	for k := range m.groups {
		depth = max(depth, len(m.groups[k].path))
	}
	p := &Program{
		m: m, a: a, b: b, ia: m.index(a), ib: m.index(b),
		tauMax: m.opts.TauMax, margin: m.margin,
		phi:    m.phiTable(a, b),
		clique: map[csp.Pair][]int{},
		poser:  m.NewPoser(),
		slots:  make([][2]*posed, G*m.Frames()),
		meshes: make([]*collide.Mesh, G),
		holds:  make([]uint64, G),
		keys:   make([][]float64, depth),
		ents:   make([]*posed, G),
		boxes:  make([]bvh.AABB, G),
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

// TauMax returns τ_max.
func (p *Program) TauMax() int { return p.tauMax }

// Frames returns |T| = 2H + 1.
func (p *Program) Frames() int { return 2*p.margin + 1 }

// Phi returns Φ_k(τ) = D_k(a+τ, b+τ) (Eq. 4; see Model.D); +Inf where a
// frame falls outside its level or |τ| > τ_max.
func (p *Program) Phi(k, tau int) float64 {
	if tau < -p.tauMax || tau > p.tauMax {
		return math.Inf(1)
	}
	return p.phi[k*(2*p.tauMax+1)+tau+p.tauMax]
}

// Minimum writes into tau (grown to G) the unconstrained minimum of
// Φ(τ) = Σ_k Φ_k(τ_k) over |τ_k| ≤ τ_max, found group by group since Φ is
// separable (Eq. 5; ties go to the smaller |τ_k|, then the negative), and
// returns it with Φ there.
func (p *Program) Minimum(tau []int) ([]int, float64) {
	tau = slices.Grow(tau[:0], len(p.m.groups))[:len(p.m.groups)]
	return tau, minimize(tau, p.phi, p.tauMax)
}

// Clique returns ℵ_KL (see Model.Clique), cached. Do not modify it.
func (p *Program) Clique(pr csp.Pair) []int {
	c, ok := p.clique[pr]
	if !ok {
		if pr.K == pr.L {
			c = p.m.groups[pr.K].path // a group's step: it and its ancestors
		} else {
			c = p.m.Clique(pr.K, pr.L)
		}
		p.clique[pr] = c
	}
	return c
}

// Work returns the number of (pair, frame) tests made so far.
func (p *Program) Work() int64 { return p.work }

// Bad appends to dst the pairs of set that newly interpenetrate at frame f
// under tau, in set's order, and returns the extended slice.
func (p *Program) Bad(dst []csp.Pair, tau []int, f int, set []csp.Pair) []csp.Pair {
	s := f - p.margin
	for _, pr := range set {
		if pr.K == pr.L {
			if p.tooFast(pr.K, f, tau) {
				dst = append(dst, pr)
			}
			continue
		}
		if p.pure(pr, s, tau) {
			continue
		}
		ek, el := p.get(pr.K, f, tau), p.get(pr.L, f, tau)
		if p.bad(pr, s, ek, el) {
			dst = append(dst, pr)
		}
	}
	return dst
}

// New appends to dst the pairs for which known is false (known may be nil)
// that newly interpenetrate at frame f under tau, found by posing every
// group and testing the pairs whose boxes overlap (collide.Grid), by K
// then L; it returns the extended slice.
func (p *Program) New(dst []csp.Pair, tau []int, f int, known func(csp.Pair) bool) []csp.Pair {
	s := f - p.margin
	for k := range p.m.groups {
		p.ents[k] = p.get(k, f, tau)
		p.boxes[k] = p.ents[k].box
	}
	p.cand = p.grid.Pairs(p.cand[:0], p.boxes)
	for _, c := range p.cand {
		pr := csp.Pair{K: c[0], L: c[1]}
		if known != nil && known(pr) || p.pure(pr, s, tau) {
			continue
		}
		if p.bad(pr, s, p.ents[pr.K], p.ents[pr.L]) {
			dst = append(dst, pr)
		}
	}
	for k := range p.m.groups {
		pr := csp.Pair{K: k, L: k}
		if (known == nil || !known(pr)) && p.tooFast(k, f, tau) {
			dst = append(dst, pr)
		}
	}
	return dst
}

// tooFast reports whether group k moves further from frame f−1 to frame f
// under tau than any step of the model's source frames (StepLimits). The
// first frame, and a frame where k's path plays the same pure source at
// f−1 and f, are a source step and never too fast; they are not tested.
func (p *Program) tooFast(k, f int, tau []int) bool {
	if f == 0 {
		return false
	}
	s := f - p.margin
	path := p.m.groups[k].path
	w0 := p.m.Weight(s, tau[path[0]])
	if w0 == 0 || w0 == 1 {
		same := true
		for _, a := range path {
			same = same && p.m.Weight(s, tau[a]) == w0 && p.m.Weight(s-1, tau[a]) == w0
		}
		if same {
			return false
		}
	}
	p.work++
	x1 := p.get(k, f, tau).x
	return vertexStep(p.get(k, f-1, tau).x, x1) > p.m.stepLimit[k]
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

// pure reports whether every group of pr's clique has weight 0 at frame
// s under tau, or every one weight 1.
func (p *Program) pure(pr csp.Pair, s int, tau []int) bool {
	c := p.Clique(pr)
	w0 := p.m.Weight(s, tau[c[0]])
	if w0 != 0 && w0 != 1 {
		return false
	}
	for _, g := range c[1:] {
		if p.m.Weight(s, tau[g]) != w0 {
			return false
		}
	}
	return true
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
		p.meshes[k] = collide.NewMesh(e.x, p.m.groups[k].triangles)
	case p.holds[k] != e.serial:
		p.meshes[k].Refit(e.x)
	default:
		return
	}
	p.holds[k] = e.serial
}

// get returns group k posed at frame f under tau, from the cache or posed
// now (its ancestors first).
func (p *Program) get(k, f int, tau []int) *posed {
	m := p.m
	g := &m.groups[k]
	s := f - p.margin
	depth := len(g.path) - 1
	key := p.keys[depth][:0]
	for _, a := range g.path {
		key = append(key, m.Weight(s, tau[a]))
	}
	p.keys[depth] = key
	p.clock++
	slot := &p.slots[k*p.Frames()+f]
	for _, e := range slot {
		if e != nil && slices.Equal(e.key, key) {
			e.used = p.clock
			return e
		}
	}

	var pw *Rigid
	var px []mgl64.Vec3
	if g.parent >= 0 {
		pe := p.get(g.parent, f, tau)
		pw, px = &pe.world, pe.x
	}
	v := 0
	switch {
	case slot[0] == nil:
	case slot[1] == nil:
		v = 1
	case slot[1].used < slot[0].used:
		v = 1
	}
	e := slot[v]
	if e == nil {
		e = &posed{key: make([]float64, len(key)), x: make([]mgl64.Vec3, g.count)}
		slot[v] = e
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
