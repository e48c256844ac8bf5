package synth

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// localMinimum is the half-width, in frames, of the neighbourhood in
// which a candidate transition must have the least cost.
const localMinimum = 2

// Transition is a candidate transition (i, j): after input frame From = i
// the animation may go on as if it were at frame To = j, that is with
// frame j+1. D(i, j) is its cost (Eq. 5); Distance is the rigid-aligned
// RMS distance between the two frames' poses in units of the part's step
// (Part.Step: the median distance between adjacent frames).
type Transition struct {
	From, To int
	Cost     float64
	Distance float64
}

// Graph is a part's motion graph for one threshold (Section 3.4). Its
// nodes are the segments of the input between transition frames: an input
// frame ends a segment when a transition leaves it, and begins one when a
// transition arrives at it (frame j+1 of a transition (i, j)). Its edges
// go from each segment to the next in the input and along each
// transition.
type Graph struct {
	Threshold   float64      // the largest Distance admitted
	Transitions []Transition // by From, then To
	Segments    [][2]int     // first and last input frame of each node
	Edges       [][2]int     // (from, to) segment indices
	Largest     []int        // the segments of the largest strongly connected component
	out         [][]int      // per input frame, the frames j+1 its transitions go on with
}

// NoTransitionsError is returned by Graph when no candidate is within the
// threshold. Its figures are pose distances in steps, as the threshold.
type NoTransitionsError struct {
	Threshold float64
	Least     float64 // the least Distance of a candidate: the smallest useful threshold
	Most      float64 // the largest: at it every candidate is admitted
	Default   float64 // the part's default threshold
}

func (e *NoTransitionsError) Error() string {
	return fmt.Sprintf("no transition joins frames within %.3g steps of each other; the candidates lie %.3g to %.3g steps apart (the default threshold is %.3g)",
		e.Threshold, e.Least, e.Most, e.Default)
}

// eligible reports whether (i, j) may be a transition at all: both frames
// have a velocity (i, j ≥ 1), frame j+1 exists, and the frames are at
// least MinJump apart.
func (p *Part) eligible(i, j int) bool {
	return i >= 1 && j >= 1 && j+1 < p.n && i < p.n && abs(i-j) >= p.MinJump
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Candidates returns every candidate transition of the part, whatever the
// threshold: the eligible pairs that are local minima of D within ±2
// frames in i and j (as Kovar et al. 2002 prune theirs: neighbouring pairs
// are near-copies of one transition), by From, then To. The slice is
// shared: do not modify it.
func (p *Part) Candidates() []Transition { return p.cands }

// candidates finds the candidates and measures their distances.
func (p *Part) candidates() {
	for i := range p.n {
		for j := range p.n {
			if p.eligible(i, j) && p.localMin(i, j) {
				p.cands = append(p.cands, Transition{From: i, To: j, Cost: p.Cost(i, j), Distance: p.poses.distance(i, j) / p.Step})
			}
		}
	}
}

// Graph builds the motion graph of the part for threshold T: its
// transitions are the candidates (Candidates) whose poses lie at most T
// steps apart (Distance ≤ T). It returns a *NoTransitionsError if there is
// none.
func (p *Part) Graph(threshold float64) (*Graph, error) {
	g := &Graph{Threshold: threshold, out: make([][]int, p.n)}
	least, most := math.Inf(1), 0.0
	for _, c := range p.cands {
		least, most = min(least, c.Distance), max(most, c.Distance)
		if c.Distance <= threshold {
			g.Transitions = append(g.Transitions, c)
			g.out[c.From] = append(g.out[c.From], c.To+1)
		}
	}
	if len(g.Transitions) == 0 {
		return nil, &NoTransitionsError{Threshold: threshold, Least: least, Most: most, Default: p.DefaultThreshold()}
	}
	// Segments: cut after every frame a transition leaves and before
	// every frame one arrives at.
	cut := make([]bool, p.n) // cut[x]: a segment ends at x
	for _, t := range g.Transitions {
		cut[t.From] = true
		cut[t.To] = true // frame To+1 begins a segment
	}
	cut[p.n-1] = true
	seg := make([]int, p.n)
	first := 0
	for x := range p.n {
		seg[x] = len(g.Segments)
		if cut[x] {
			g.Segments = append(g.Segments, [2]int{first, x})
			first = x + 1
		}
	}
	dg := simple.NewDirectedGraph()
	for s := range g.Segments {
		dg.AddNode(simple.Node(s))
	}
	for s, r := range g.Segments {
		if r[1]+1 < p.n {
			g.Edges = append(g.Edges, [2]int{s, s + 1})
		}
	}
	for _, t := range g.Transitions {
		g.Edges = append(g.Edges, [2]int{seg[t.From], seg[t.To+1]})
	}
	for _, e := range g.Edges {
		if e[0] != e[1] {
			dg.SetEdge(dg.NewEdge(simple.Node(e[0]), simple.Node(e[1])))
		}
	}
	// The largest component that can be walked around: several segments,
	// or one with an edge to itself. Ties go to the one of the earliest
	// segment.
	for _, c := range topo.TarjanSCC(dg) {
		comp := make([]int, len(c))
		for i, v := range c {
			comp[i] = int(v.ID())
		}
		slices.Sort(comp)
		if len(comp) == 1 && !g.selfLoop(comp[0]) {
			continue
		}
		if len(comp) > len(g.Largest) || len(comp) == len(g.Largest) && comp[0] < g.Largest[0] {
			g.Largest = comp
		}
	}
	return g, nil
}

// selfLoop reports whether segment s has an edge to itself.
func (g *Graph) selfLoop(s int) bool {
	return slices.Contains(g.Edges, [2]int{s, s})
}

// LargestFrames returns the number of input frames in the largest strongly
// connected component.
func (g *Graph) LargestFrames() int {
	n := 0
	for _, s := range g.Largest {
		n += g.Segments[s][1] - g.Segments[s][0] + 1
	}
	return n
}

// localMin reports whether D(i, j) is the least of the eligible pairs
// within ±localMinimum frames (ties go to the first in row-major order).
func (p *Part) localMin(i, j int) bool {
	d := p.Cost(i, j)
	for a := max(0, i-localMinimum); a <= min(p.n-1, i+localMinimum); a++ {
		for b := max(0, j-localMinimum); b <= min(p.n-1, j+localMinimum); b++ {
			if (a == i && b == j) || !p.eligible(a, b) {
				continue
			}
			e := p.Cost(a, b)
			if e < d || e == d && (a < i || a == i && b < j) {
				return false
			}
		}
	}
	return true
}
