package csp

import (
	"math"
	"math/rand/v2"
	"slices"
)

// lineProgram is a synthetic Program without meshes: G groups are
// intervals on a line, group k centred at pos(k, f, τ) with radius r_k at
// frame f; two groups interpenetrate when their open intervals overlap.
// Work counts one unit per pair tested, like the mesh model's narrow
// phase.
type lineProgram struct {
	g, tmax, frames int
	phi             func(k, tau int) float64
	pos             func(k, f int, tau []int) float64
	radius          []float64
	clique          func(Pair) []int // nil: {K, L}
	inert           func(Pair) bool  // pairs that never interpenetrate
	work            int64
	onTest          func() // called before every pair test
}

func (p *lineProgram) Groups() int            { return p.g }
func (p *lineProgram) TauMax() int            { return p.tmax }
func (p *lineProgram) Phi(k, tau int) float64 { return p.phi(k, tau) }
func (p *lineProgram) Frames() int            { return p.frames }
func (p *lineProgram) Work() int64            { return p.work }

func (p *lineProgram) Clique(q Pair) []int {
	if p.clique == nil {
		return []int{q.K, q.L}
	}
	return p.clique(q)
}

// overlaps is the constraint L_kl^f(τ) ≠ 0, without counting work.
func (p *lineProgram) overlaps(tau []int, f int, q Pair) bool {
	if p.inert != nil && p.inert(q) {
		return false
	}
	return math.Abs(p.pos(q.K, f, tau)-p.pos(q.L, f, tau)) < p.radius[q.K]+p.radius[q.L]
}

func (p *lineProgram) test(tau []int, f int, q Pair) bool {
	if p.onTest != nil {
		p.onTest()
	}
	p.work++
	return p.overlaps(tau, f, q)
}

func (p *lineProgram) Bad(dst []Pair, tau []int, f int, set []Pair) []Pair {
	for _, q := range set {
		if p.test(tau, f, q) {
			dst = append(dst, q)
		}
	}
	return dst
}

func (p *lineProgram) Violated(q Pair, tau []int, hint int) (bool, int) {
	if hint >= 0 && hint < p.frames && p.test(tau, hint, q) {
		return true, hint
	}
	for f := range p.frames {
		if f != hint && p.test(tau, f, q) {
			return true, f
		}
	}
	return false, -1
}

func (p *lineProgram) New(dst []Pair, tau []int, f int, known func(Pair) bool) []Pair {
	for k := 0; k < p.g; k++ {
		for l := k + 1; l < p.g; l++ {
			q := Pair{k, l}
			if !known(q) && p.test(tau, f, q) {
				dst = append(dst, q)
			}
		}
	}
	return dst
}

// violated returns every (pair, frame) whose constraint τ breaks, testing
// all of them.
func (p *lineProgram) violated(tau []int) [][2]int {
	var v [][2]int
	for f := 0; f < p.frames; f++ {
		for k := 0; k < p.g; k++ {
			for l := k + 1; l < p.g; l++ {
				if p.overlaps(tau, f, Pair{k, l}) {
					v = append(v, [2]int{k*p.g + l, f})
				}
			}
		}
	}
	return v
}

// allClear reports whether τ breaks no constraint.
func (p *lineProgram) allClear(tau []int) bool {
	for f := 0; f < p.frames; f++ {
		for k := 0; k < p.g; k++ {
			for l := k + 1; l < p.g; l++ {
				if p.overlaps(tau, f, Pair{k, l}) {
					return false
				}
			}
		}
	}
	return true
}

// feasible reports whether any τ in [−TauMax, TauMax]^G with finite Φ
// satisfies every constraint, by enumeration, and the least cost of such a
// τ.
func (p *lineProgram) feasible() (bool, float64) {
	tau := make([]int, p.g)
	for k := range tau {
		tau[k] = -p.tmax
	}
	found, best := false, math.Inf(1)
	for {
		phi := 0.0
		for k, t := range tau {
			phi += p.phi(k, t)
		}
		if !math.IsInf(phi, 1) && p.allClear(tau) {
			found = true
			best = min(best, phi)
		}
		k := 0
		for k < p.g && tau[k] == p.tmax {
			tau[k] = -p.tmax
			k++
		}
		if k == p.g {
			return found, best
		}
		tau[k]++
	}
}

// waves returns G groups spaced d apart on a line, each swaying
// a_k·sin(ω(f + τ_k) + θ_k) with one ω (one wind) and random amplitudes
// a_k ∈ [amp/2, amp] and phases θ_k, radius r, and costs Φ_k(τ) =
// s_k(τ − m_k)² + c_k with random m_k, s_k, c_k (c_k = 0 for some k: Φ = 0
// occurs). Neighbours keep apart when their phases are close enough, so
// the τ that align phases are feasible.
func waves(seed uint64, g, tmax, frames int, d, amp, r float64) *lineProgram {
	rng := rand.New(rand.NewPCG(seed, 1))
	a := make([]float64, g)
	phase := make([]float64, g)
	m := make([]int, g)
	sc := make([]float64, g)
	c := make([]float64, g)
	rad := make([]float64, g)
	omega := 0.2 + 0.2*rng.Float64()
	for k := range g {
		a[k] = amp * (0.5 + 0.5*rng.Float64())
		phase[k] = 2 * math.Pi * rng.Float64()
		m[k] = rng.IntN(2*tmax+1) - tmax
		sc[k] = 0.5 + rng.Float64()
		if rng.IntN(3) > 0 {
			c[k] = rng.Float64()
		}
		rad[k] = r
	}
	return &lineProgram{
		g: g, tmax: tmax, frames: frames, radius: rad,
		phi: func(k, tau int) float64 {
			return sc[k]*float64((tau-m[k])*(tau-m[k])) + c[k]
		},
		pos: func(k, f int, tau []int) float64 {
			return float64(k)*d + a[k]*math.Sin(omega*float64(f+tau[k])+phase[k])
		},
	}
}

// banner returns a rope (group 0) and G−1 flags hanging from it: flag k
// sways with its own τ_k and with the rope's τ_0 (by a weight of its
// own), so every flag-flag constraint depends on the rope: ℵ_kl = {0, k,
// l}. The rope never interpenetrates a flag.
func banner(seed uint64, g, tmax, frames int, d, amp, r float64) *lineProgram {
	p := waves(seed, g, tmax, frames, d, amp, r)
	rng := rand.New(rand.NewPCG(seed, 2))
	carry := make([]float64, g)
	for k := range carry {
		carry[k] = amp * (0.1 + 0.4*rng.Float64())
	}
	flag := p.pos
	p.pos = func(k, f int, tau []int) float64 {
		return flag(k, f, tau) + carry[k]*math.Sin(0.15*float64(f+tau[0]))
	}
	p.clique = func(q Pair) []int {
		if q.K == 0 {
			return []int{q.K, q.L}
		}
		return []int{0, q.K, q.L}
	}
	p.inert = func(q Pair) bool { return q.K == 0 }
	return p
}

// tree returns G groups hung in a random tree of several levels (as flags
// on a rope with tassels on the flags): group k sways with its own τ_k
// and is carried by each of its ancestors a, by a weight of its own, with
// a's τ_a, so a constraint between two groups depends on both and on all
// their ancestors: ℵ_kl = {k, l} ∪ anc(k) ∪ anc(l), three or more
// variables for most pairs. A group never interpenetrates its ancestors.
func tree(seed uint64, g, tmax, frames int, d, amp, r float64) *lineProgram {
	p := waves(seed, g, tmax, frames, d, amp, r)
	rng := rand.New(rand.NewPCG(seed, 3))
	parent := make([]int, g)
	parent[0] = -1
	for k := 1; k < g; k++ {
		parent[k] = rng.IntN(k)
	}
	anc := make([][]int, g)
	for k := 1; k < g; k++ {
		anc[k] = append([]int{parent[k]}, anc[parent[k]]...)
	}
	carry := make([][]float64, g)
	omega := make([]float64, g)
	psi := make([]float64, g)
	for k := range g {
		carry[k] = make([]float64, g)
		for _, a := range anc[k] {
			carry[k][a] = amp * (0.1 + 0.4*rng.Float64())
		}
		omega[k] = 0.1 + 0.2*rng.Float64()
		psi[k] = 2 * math.Pi * rng.Float64()
	}
	own := p.pos
	p.pos = func(k, f int, tau []int) float64 {
		x := own(k, f, tau)
		for _, a := range anc[k] {
			x += carry[k][a] * math.Sin(omega[a]*float64(f+tau[a])+psi[a])
		}
		return x
	}
	p.clique = func(q Pair) []int {
		c := append([]int{q.K, q.L}, anc[q.K]...)
		c = append(c, anc[q.L]...)
		slices.Sort(c)
		return slices.Compact(c)
	}
	p.inert = func(q Pair) bool { return slices.Contains(anc[q.L], q.K) || slices.Contains(anc[q.K], q.L) }
	return p
}

// feasibleSearch reports whether any τ with finite Φ satisfies every
// constraint, as feasible does, by a depth-first search over τ_0, τ_1, …
// that checks each pair at every frame as soon as its clique is set (each
// answer kept by the clique's values): exact and independent of the
// solver. It visits at most nodes
// partial assignments; known is false when that was not enough to tell.
func (p *lineProgram) feasibleSearch(nodes int) (feasible, known bool) {
	type check struct {
		q      Pair
		clique []int
		bad    []int8 // by the clique's values (mixed radix 2·TauMax + 1): 0 not tested yet, 1 good, 2 bad
	}
	D := 2*p.tmax + 1
	// Per variable k, the checks whose cliques' last variable is k.
	last := make([][]check, p.g)
	tau := make([]int, p.g)
	for k := 0; k < p.g; k++ {
		for l := k + 1; l < p.g; l++ {
			q := Pair{k, l}
			if p.inert != nil && p.inert(q) {
				continue
			}
			c := p.Clique(q)
			last[slices.Max(c)] = append(last[slices.Max(c)], check{q: q, clique: c, bad: make([]int8, pow(D, len(c)))})
		}
	}
	var dfs func(k int) bool
	dfs = func(k int) bool {
		if k == p.g {
			return true
		}
		for t := -p.tmax; t <= p.tmax && nodes > 0; t++ {
			nodes--
			if math.IsInf(p.phi(k, t), 1) {
				continue
			}
			tau[k] = t
			ok := true
			for _, ch := range last[k] {
				i := 0
				for v, x := range ch.clique {
					i += (tau[x] + p.tmax) * pow(D, v)
				}
				if ch.bad[i] == 0 {
					ch.bad[i] = 1
					for f := 0; f < p.frames && ch.bad[i] == 1; f++ {
						if p.overlaps(tau, f, ch.q) {
							ch.bad[i] = 2
						}
					}
				}
				if ch.bad[i] == 2 {
					ok = false
					break
				}
			}
			if ok && dfs(k+1) {
				return true
			}
		}
		return false
	}
	feasible = dfs(0)
	return feasible, feasible || nodes > 0
}

func pow(b, e int) int {
	r := 1
	for range e {
		r *= b
	}
	return r
}
