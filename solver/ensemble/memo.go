package ensemble

import "gallop/solver/ensemble/csp"

// memo keeps the answers of a Program's tests (see Program): per pair,
// under the frame and the weight steps (Model.weightStep) of the groups
// the test reads: for a contact both groups' paths from the root (their
// common part once), for a step the group's path at f and at f−1. A pair
// whose test reads at most two weights (two roots, a child and its root
// parent, a root's step) has a dense table of frames × W² answers, W =
// 2B + 1, B the longest blend; others go in a map, and a test reading more than
// memoWeights weights is not memoized.
type memo struct {
	dense  map[csp.Pair][]int8
	sparse map[memoKey]bool
	last   csp.Pair // the pair of lastT, for runs of tests of one pair
	lastT  []int8
}

// The answers in a dense table.
const (
	memoUnknown int8 = iota
	memoGood
	memoBad
)

// memoHitCost is how many answers from the memo count as one test in
// Program.Work: a lookup costs a few percent of a test.
const memoHitCost = 32

// memoWeights is the most blend weights a memo key holds.
const memoWeights = 8

// memoKey identifies a test of a pair whose test reads more than two
// weights: the pair, the frame and the weight steps in path order.
type memoKey struct {
	k, l int32
	f    int16
	n    uint8
	w    [memoWeights]uint8
}

// memoSlot is where an answer goes: a dense table's entry, or a key.
type memoSlot struct {
	at     *int8
	key    memoKey
	sparse bool
}

// lookup returns the answer of pr at frame f under tau (memoUnknown,
// memoGood or memoBad) and where to store it.
func (mm *memo) lookup(p *Program, pr csp.Pair, f int, tau []int) (int8, memoSlot) {
	m := p.m
	var key memoKey
	n := 0
	ok := f < 1<<15
	add := func(path []int, s int) {
		for _, a := range path {
			if n == memoWeights {
				ok = false
				return
			}
			key.w[n] = p.weightStep(s, tau[a])
			n++
		}
	}
	s := f - p.margin
	pk := m.groups[pr.K].Path
	if pr.K == pr.L {
		add(pk, s)
		add(pk, s-1)
	} else {
		pl := m.groups[pr.L].Path
		add(pk, s)
		add(pl[commonPrefix(pk, pl):], s)
	}
	if !ok {
		return memoUnknown, memoSlot{}
	}
	if n <= 2 {
		W := 2*m.opts.maxBlend() + 1
		t := mm.lastT
		if t == nil || mm.last != pr {
			if mm.dense == nil {
				mm.dense = map[csp.Pair][]int8{}
			}
			t = mm.dense[pr]
			if t == nil {
				t = make([]int8, p.Frames()*W*W)
				mm.dense[pr] = t
			}
			mm.last, mm.lastT = pr, t
		}
		at := f
		for _, w := range key.w[:2] {
			at = at*W + int(w)
		}
		return t[at], memoSlot{at: &t[at]}
	}
	key.k, key.l, key.f, key.n = int32(pr.K), int32(pr.L), int16(f), uint8(n)
	if mm.sparse == nil {
		mm.sparse = map[memoKey]bool{}
	}
	if bad, seen := mm.sparse[key]; seen {
		if bad {
			return memoBad, memoSlot{}
		}
		return memoGood, memoSlot{}
	}
	return memoUnknown, memoSlot{key: key, sparse: true}
}

// store keeps an answer where lookup said.
func (mm *memo) store(slot memoSlot, bad bool) {
	switch {
	case slot.at != nil:
		*slot.at = memoGood
		if bad {
			*slot.at = memoBad
		}
	case slot.sparse:
		mm.sparse[slot.key] = bad
	}
}
