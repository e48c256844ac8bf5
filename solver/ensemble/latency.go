package ensemble

import (
	"container/heap"
	"math"
	"slices"
)

// Latency is the wind-change latency from one level to another (Graph's
// measure of responsiveness): from each frame of the first level's
// component, the time the fastest route takes until the output shows a
// frame of the second level from which it plays on into that level's
// component (see Graph.Distances). The median and the worst over the
// frames, in seconds; +Inf where some frame cannot reach the level at
// all.
type Latency struct {
	Median, Worst float64
}

// Unreachable marks a frame in Graph.Distances from which the target
// level cannot be reached.
const Unreachable = math.MaxInt

// Distances returns, per clip and frame, the frames the fastest route
// takes from showing that pure source frame to showing a frame of wind
// level to (an index in Model.WindLevels) from which the output plays on
// into to's component without leaving the level (Arrivals): 0 there,
// Unreachable where no route leads to it. The routes are the graph's:
// the next frame (one frame; Graph.Onward: on from any frame of a clip,
// through the frames of a changing wind), a clip's cut back (one frame)
// and transitions (Transition.Duration frames from Start to Landing),
// through any levels. Dijkstra's algorithm on the reversed graph.
func (g *Graph) Distances(m *Model, to int) [][]int {
	L := len(g.In)
	first := make([]int, L+1)
	for l := range L {
		first[l+1] = first[l] + len(g.In[l])
	}
	node := func(l, f int) int { return first[l] + f }
	type edge struct{ from, w int }
	in := make([][]edge, first[L]) // reversed edges, by head
	for l := range L {
		for f := range g.In[l] {
			if nx := g.Onward(m, l, f); nx >= 0 {
				in[node(l, nx)] = append(in[node(l, nx)], edge{node(l, f), 1})
			}
		}
	}
	for x := range g.Transitions {
		t := &g.Transitions[x]
		if !g.Connects(m, t) {
			continue
		}
		land := t.Landing(m)
		h := node(land.Level, land.Frame)
		in[h] = append(in[h], edge{node(t.From.Level, t.Start(m)), t.Duration(m)})
	}
	dist := make([]int, first[L])
	for i := range dist {
		dist[i] = Unreachable
	}
	q := &nodeQueue{}
	for l, arr := range g.Arrivals(m, to) {
		for f, ok := range arr {
			if ok {
				dist[node(l, f)] = 0
				heap.Push(q, queued{node(l, f), 0})
			}
		}
	}
	for q.Len() > 0 {
		c := heap.Pop(q).(queued)
		if c.d > dist[c.n] {
			continue
		}
		for _, e := range in[c.n] {
			if d := c.d + e.w; d < dist[e.from] {
				dist[e.from] = d
				heap.Push(q, queued{e.from, d})
			}
		}
	}
	out := make([][]int, L)
	for l := range L {
		out[l] = dist[first[l]:first[l+1]]
	}
	return out
}

// Arrivals returns, per clip and frame, whether the frame is at wind level
// to and playing on from it (Graph.Onward) stays at that level until a
// frame of its component: where a change of wind toward to has arrived.
// Every frame of to's component is one.
func (g *Graph) Arrivals(m *Model, to int) [][]bool {
	out := make([][]bool, len(g.In))
	for l, in := range g.In {
		arr := make([]bool, len(in))
		for f := range in {
			arr[f] = m.LevelOf(State{l, f}) == to && g.Arrives(m, State{l, f})
		}
		out[l] = arr
	}
	return out
}

// Latencies returns the wind-change latency from each wind level to each
// other ([from][to], indices in Model.WindLevels, the diagonal zero), at
// the data's frame rate.
func (g *Graph) Latencies(m *Model) [][]Latency {
	W := len(m.winds)
	fps := m.data.FPS
	out := make([][]Latency, W)
	for l := range out {
		out[l] = make([]Latency, W)
	}
	for to := range W {
		dist := g.Distances(m, to)
		for from := range W {
			if from == to {
				continue
			}
			var ds []float64
			for l, in := range g.In {
				for f, ok := range in {
					if !ok || m.LevelOf(State{l, f}) != from {
						continue
					}
					d := math.Inf(1)
					if dist[l][f] != Unreachable {
						d = float64(dist[l][f]) / fps
					}
					ds = append(ds, d)
				}
			}
			if len(ds) == 0 {
				out[from][to] = Latency{math.Inf(1), math.Inf(1)}
				continue
			}
			slices.Sort(ds)
			med := ds[len(ds)/2]
			if len(ds)%2 == 0 {
				med = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
			}
			out[from][to] = Latency{Median: med, Worst: ds[len(ds)-1]}
		}
	}
	return out
}

// queued is a node of Distances' queue at a distance.
type queued struct{ n, d int }

// nodeQueue is a min-heap of queued nodes by distance (ties by node, so
// the order is deterministic).
type nodeQueue []queued

func (q nodeQueue) Len() int { return len(q) }
func (q nodeQueue) Less(i, j int) bool {
	return q[i].d < q[j].d || q[i].d == q[j].d && q[i].n < q[j].n
}
func (q nodeQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *nodeQueue) Push(x any)   { *q = append(*q, x.(queued)) }
func (q *nodeQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}
