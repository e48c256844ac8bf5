package ensemble

import (
	"context"
	"math"
	"slices"

	"gallop/internal/parallel"
	"gallop/solver/ensemble/csp"
)

// Blockers returns the constraints that stop this transition whatever the
// offsets: of the pairs that newly interpenetrate (and the groups that
// move too fast) under the unconstrained minimum of Φ, those whose clique
// has at most two groups and for which no values of that clique, with
// finite Φ, satisfy them — the constraint alone is infeasible, so the
// whole program is (a proof, as the search's arc consistency would find).
// A pair of roots (two reeds) is such a pair: they lie on opposite sides
// of each other in the two sources, and every blend, whenever each
// starts, moves one straight through the other. Constraints with larger
// cliques (a flag and its neighbour on a rope) are left out: alone they
// would be tested under the other groups' minimum, not proved. Sorted by
// K, then L; a step constraint has K == L.
func (p *Program) Blockers() []csp.Pair {
	tau, phi := p.Minimum(nil)
	if math.IsInf(phi, 1) {
		return nil
	}
	seen := map[csp.Pair]bool{}
	var set []csp.Pair
	for f := range p.Frames() {
		for _, pr := range p.New(nil, tau, f, nil) {
			if !seen[pr] {
				seen[pr] = true
				set = append(set, pr)
			}
		}
	}
	slices.SortFunc(set, cmpPair)
	var out []csp.Pair
	try := slices.Clone(tau)
	for _, pr := range set {
		c := p.Clique(pr)
		if len(c) > 2 {
			continue
		}
		if !p.satisfiable(pr, c, try) {
			out = append(out, pr)
		}
		for _, k := range c {
			try[k] = tau[k]
		}
	}
	return out
}

// satisfiable reports whether some values of clique c (one or two
// groups), each of finite Φ, satisfy pr, trying them in tau.
func (p *Program) satisfiable(pr csp.Pair, c []int, tau []int) bool {
	V := p.vmax
	each := func(k int, f func() bool) bool {
		for v := -V; v <= V; v++ {
			if math.IsInf(p.Phi(k, v), 1) {
				continue
			}
			tau[k] = v
			if f() {
				return true
			}
		}
		return false
	}
	ok := func() bool { bad, _ := p.Violated(pr, tau, -1); return !bad }
	if len(c) == 1 {
		return each(c[0], ok)
	}
	return each(c[0], func() bool { return each(c[1], ok) })
}

func cmpPair(a, b csp.Pair) int {
	if a.K != b.K {
		return a.K - b.K
	}
	return a.L - b.L
}

// Blockage is why wind level To cannot be reached from some frames of
// level From's component (indices in Model.WindLevels): of the
// transitions that would lead from those frames to any frame from which
// the player reaches To (Graph.Distances), the closest few by Φ(0), how
// many some constraint stops whatever the offsets (Program.Blockers), and
// which constraints.
type Blockage struct {
	From, To int
	Stuck    int            // frames of From's component from which To cannot be reached
	Frames   int            // frames of From's component
	Tried    int            // transitions examined
	Blocked  int            // of those, the ones some constraint stops whatever the offsets
	Pairs    []BlockingPair // the constraints that stop them, the most frequent first
}

// BlockingPair is a constraint that stops transitions: groups K and L
// interpenetrate whatever the offsets, or, with K == L, group K moves
// faster than it ever does in the data whatever its offset.
type BlockingPair struct {
	K, L  int
	Count int // the examined transitions it stops
}

// How many frames Explain leaves from per pair of levels, and how many
// targets it examines from each.
const (
	explainLeaves  = 4
	explainTargets = 2
)

// Explain returns, for every ordered pair of wind levels (From, To) such
// that some frame of From's component cannot reach To, why: it leaves from
// up to four of those frames, spread evenly over them, toward each one's
// two closest frames (by Φ(0) = Model.Distance, local minima along each
// clip, as the build's candidates) that can be entered, are at a wind
// level and from which To is reachable, and asks each transition's
// program for its Blockers, on both cores. The answer depends only on m,
// g and opts. ctx cancels it.
func Explain(ctx context.Context, m *Model, g *Graph, opts BuildOptions) ([]Blockage, error) {
	opts.defaults(m)
	type job struct {
		b    int // index in out
		a, t State
	}
	var out []Blockage
	var jobs []job
	_, s1 := blendSpan(0, m.opts.TauBlend)
	for to := range m.winds {
		dist := g.Distances(m, to)
		for from := range m.winds {
			if from == to {
				continue
			}
			bl := Blockage{From: from, To: to}
			var stuck []State
			for l, in := range g.In {
				for f, ok := range in {
					if !ok || m.LevelOf(State{l, f}) != from {
						continue
					}
					bl.Frames++
					if dist[l][f] == Unreachable {
						bl.Stuck++
						if m.CanTransition(State{l, f}) {
							stuck = append(stuck, State{l, f})
						}
					}
				}
			}
			if bl.Stuck == 0 {
				continue
			}
			n := min(explainLeaves, len(stuck))
			for x := range n {
				a := stuck[(2*x+1)*len(stuck)/(2*n)]
				for _, t := range m.closest(a, dist, s1, explainTargets) {
					jobs = append(jobs, job{len(out), a, t})
				}
			}
			out = append(out, bl)
		}
	}
	found := make([][]csp.Pair, len(jobs))
	parallel.For(len(jobs), func(x int) {
		if ctx.Err() != nil {
			return
		}
		j := jobs[x]
		inA := m.levelMask(j.a.Level, m.LevelOf(j.a), -1, nil)
		inB := m.levelMask(j.t.Level, m.LevelOf(j.t), -1, nil)
		found[x] = m.program(j.a, j.t, opts.StepTolerance, m.margin, inA, inB).Blockers()
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for x, j := range jobs {
		b := &out[j.b]
		b.Tried++
		if len(found[x]) > 0 {
			b.Blocked++
		}
		for _, pr := range found[x] {
			i := slices.IndexFunc(b.Pairs, func(q BlockingPair) bool { return q.K == pr.K && q.L == pr.L })
			if i < 0 {
				b.Pairs = append(b.Pairs, BlockingPair{K: pr.K, L: pr.L})
				i = len(b.Pairs) - 1
			}
			b.Pairs[i].Count++
		}
	}
	for x := range out {
		slices.SortStableFunc(out[x].Pairs, func(p, q BlockingPair) int {
			if p.Count != q.Count {
				return q.Count - p.Count
			}
			return cmpPair(csp.Pair{K: p.K, L: p.L}, csp.Pair{K: q.K, L: q.L})
		})
	}
	return out, nil
}

// closest returns up to n states, by increasing Distance from a, that a
// transition from a may enter (CanTransition, at a wind level, not a
// itself) and whose synchronous landing (s1 + 1 frames on) is at the same
// level with dist not Unreachable; only local minima of the distance
// along each clip.
func (m *Model) closest(a State, dist [][]int, s1, n int) []State {
	type cand struct {
		s   State
		phi float64
	}
	var cs []cand
	for l, lv := range m.data.Levels {
		var run []cand
		for j := m.margin; j+m.margin < len(lv.Frames); j++ {
			t, land := State{l, j}, State{l, j + s1 + 1}
			w := m.LevelOf(t)
			if t == a || w < 0 || m.LevelOf(land) != w || dist[l][land.Frame] == Unreachable {
				continue
			}
			run = append(run, cand{t, m.Distance(a, t)})
		}
		for x, c := range run {
			if localMinimum(len(run), x, func(y int) (int, float64) { return run[y].s.Frame, run[y].phi }) {
				cs = append(cs, c)
			}
		}
	}
	slices.SortStableFunc(cs, func(p, q cand) int {
		switch {
		case p.phi < q.phi:
			return -1
		case p.phi > q.phi:
			return 1
		}
		return cmpState(p.s, q.s)
	})
	var out []State
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.s)
	}
	return out
}
