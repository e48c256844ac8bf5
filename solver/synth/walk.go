package synth

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// Target asks that input frame Input be shown at output frame Output.
// Frames are counted from 0 here and from 1 in the messages, as the
// artist counts them on the timeline.
type Target struct {
	Input  int `json:"input"`  // the input frame f
	Output int `json:"output"` // the output frame g it must appear at
}

// Walk is one part's path through its motion graph: the input frame
// played at every output frame, and the splices, each the output frame s
// after which the walk took a transition (Source[s+1] ≠ Source[s]+1).
type Walk struct {
	Source  []int
	Splices []int
}

// plan holds what every walk of one part for one request shares: the
// table of states from which the rest of the request can still be met.
//
// A state at output frame t is (x, h): input frame x shown, h output frames
// since the last splice, counted up to Hold. From it the walk goes on to
// (x+1, min(h+1, Hold)) if frame x+1 exists, or, if h = Hold and no target
// lies in the blending window of a splice at t, along a transition (x, j)
// to (j+1, 1). ok[t] marks the states at t from which a walk can reach
// output frame L−1 showing every targeted frame on time: computed
// backwards from t = L−1, it makes every walk that keeps to it succeed
// without search, and tells at once when targets cannot be met. Rows that
// repeat (before the first target's reach) share one slice, so a walk of
// any length costs memory only near its targets.
type plan struct {
	part     *Part
	graph    *Graph
	frames   int // L
	hold     int // H
	window   int // W
	ok       [][]bool
	target   []int // per output frame, the input frame it must show, or -1
	noSplice []bool
}

func newPlan(p *Part, g *Graph, r *Request) (*plan, error) {
	L, H, W := r.Frames, r.Hold, r.Window
	pl := &plan{part: p, graph: g, frames: L, hold: H, window: W, target: make([]int, L), noSplice: make([]bool, L)}
	for t := range pl.target {
		pl.target[t] = -1
	}
	reach := W // the last output frame whose row a target or the start affects
	for _, tg := range r.Targets {
		if tg.Output < 0 || tg.Output >= L || tg.Input < 0 || tg.Input >= p.n {
			return nil, fmt.Errorf("target: input frame %d at output frame %d is outside the input (%d frames) or the output (%d frames)", tg.Input+1, tg.Output+1, p.n, L)
		}
		if pl.target[tg.Output] >= 0 && pl.target[tg.Output] != tg.Input {
			return nil, fmt.Errorf("target: output frame %d cannot show both input frames %d and %d", tg.Output+1, pl.target[tg.Output]+1, tg.Input+1)
		}
		pl.target[tg.Output] = tg.Input
		reach = max(reach, tg.Output+W)
	}
	for t := range L {
		// A splice at t blends output frames t−W+1 … t+W; frame 0 stays
		// the input's, and a targeted frame must not be blended.
		pl.noSplice[t] = t < W || t+1 >= L
		for _, tg := range r.Targets {
			if t-W+1 <= tg.Output && tg.Output <= t+W {
				pl.noSplice[t] = true
			}
		}
	}
	n, S := p.n, H+1
	pl.ok = make([][]bool, L)
	for t := L - 1; t >= 0; t-- {
		row := make([]bool, n*S)
		for x := range n {
			if pl.target[t] >= 0 && pl.target[t] != x {
				continue
			}
			for h := range S {
				row[x*S+h] = t == L-1 || pl.canStep(t, x, h)
			}
		}
		if t < L-1 && t > reach && slices.Equal(row, pl.ok[t+1]) {
			for u := t; u >= 0 && u > reach; u-- {
				pl.ok[u] = pl.ok[t+1]
			}
			t = reach + 1
			continue
		}
		pl.ok[t] = row
	}
	if !slices.Contains(pl.ok[0], true) {
		if len(r.Targets) > 0 {
			return nil, fmt.Errorf("the targeted frames cannot be met: no walk through the motion graph of %d transitions shows them on time in %d frames", len(g.Transitions), L)
		}
		return nil, fmt.Errorf("no walk of %d frames: the motion graph of %d transitions has no loop to keep going", L, len(g.Transitions))
	}
	return pl, nil
}

// canStep reports whether state (x, h) at output frame t < L−1 has a
// successor in ok[t+1].
func (pl *plan) canStep(t, x, h int) bool {
	S, next := pl.hold+1, pl.ok[t+1]
	if x+1 < pl.part.n && next[(x+1)*S+min(pl.hold, h+1)] {
		return true
	}
	if h < pl.hold || pl.noSplice[t] {
		return false
	}
	for _, y := range pl.graph.out[x] {
		if next[y*S+1] {
			return true
		}
	}
	return false
}

// step is one choice of the walk: the next input frame, by a splice or
// not.
type step struct {
	x      int
	splice bool
}

// options appends to dst the successors of state (x, h) at output frame
// t, in random order.
func (pl *plan) options(dst []step, t, x, h int, rng *rand.Rand) []step {
	n0 := len(dst)
	S, next := pl.hold+1, pl.ok[t+1]
	if x+1 < pl.part.n && next[(x+1)*S+min(pl.hold, h+1)] {
		dst = append(dst, step{x: x + 1})
	}
	if h >= pl.hold && !pl.noSplice[t] {
		for _, y := range pl.graph.out[x] {
			if next[y*S+1] {
				dst = append(dst, step{x: y, splice: true})
			}
		}
	}
	opts := dst[n0:]
	rng.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	return dst
}

// errBudget is returned by walk when the search for a collision-free walk
// gives up.
var errBudget = errors.New("search budget spent")

// walk draws a walk uniformly among the successors at every step. With
// free (a test of output frame t showing input frame x placed by the
// rigid map A), it searches depth-first for a walk on which every frame
// passes, backtracking at most budget steps.
func (pl *plan) walk(rng *rand.Rand, align func(a Affine, i, j int) Affine, free func(t, x int, a Affine) bool, budget int) (Walk, error) {
	L, S := pl.frames, pl.hold+1
	// A frame's options are opts[lo:hi], tried from next on; the stack's
	// options lie in opts in stack order, so popping a frame drops its own.
	type frame struct {
		x, h         int
		a            Affine
		lo, hi, next int // lo < 0: options not drawn yet
	}
	stack := make([]frame, 0, L)
	var opts []step
	var starts []step
	for x := range pl.part.n {
		if pl.ok[0][x*S+pl.hold] {
			starts = append(starts, step{x: x})
		}
	}
	rng.Shuffle(len(starts), func(i, j int) { starts[i], starts[j] = starts[j], starts[i] })
	id := Affine{R: mgl64.Ident3()}
	spent := 0
	for _, s := range starts {
		if free != nil && !free(0, s.x, id) {
			continue
		}
		stack = append(stack[:0], frame{x: s.x, h: pl.hold, a: id, lo: -1})
		opts = opts[:0]
		for len(stack) > 0 && len(stack) < L {
			top := &stack[len(stack)-1]
			t := len(stack) - 1
			if top.lo < 0 {
				top.lo = len(opts)
				opts = pl.options(opts, t, top.x, top.h, rng)
				top.hi, top.next = len(opts), top.lo
			}
			if top.next == top.hi {
				opts = opts[:top.lo]
				stack = stack[:len(stack)-1]
				continue
			}
			o := opts[top.next]
			top.next++
			if spent++; spent > budget {
				return Walk{}, errBudget
			}
			nf := frame{x: o.x, h: min(pl.hold, top.h+1), a: top.a, lo: -1}
			if o.splice {
				nf.h = 1
				nf.a = align(top.a, top.x, o.x-1)
			}
			if free != nil && !free(t+1, nf.x, nf.a) {
				continue
			}
			stack = append(stack, nf)
		}
		if len(stack) == L {
			w := Walk{Source: make([]int, L)}
			for t, f := range stack {
				w.Source[t] = f.x
				if t > 0 && f.x != stack[t-1].x+1 {
					w.Splices = append(w.Splices, t-1)
				}
			}
			return w, nil
		}
	}
	return Walk{}, errBudget
}
