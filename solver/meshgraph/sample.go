package meshgraph

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// FarthestSample picks up to k vertices spread evenly over the mesh by
// geodesic farthest-point sampling (Moenning and Dodgson, "Fast Marching
// farthest point sampling", 2003), with the graph distance along edges of
// length ‖pos[i] − pos[j]‖ standing for the geodesic one: vertex 0 first,
// then each time the vertex farthest from every vertex chosen so far (ties
// to the lower index). A vertex that no chosen vertex reaches is at
// infinite distance, so every connected component gets a sample before any
// gets a second. Sampling stops early when every vertex is at distance 0
// from a sample (duplicates of one position).
//
// It returns the samples in the order chosen and each vertex's owner: the
// index into samples of its nearest sample (its cell of the graph Voronoi
// diagram; a sample owns itself). Each new sample runs a Dijkstra search
// that stops where an earlier sample is nearer, so the cost is about
// O(E log E · log k) for E edges; pos must have Len() entries.
func FarthestSample(a *Adjacency, pos []mgl64.Vec3, k int) (samples, owner []int32) {
	n := a.Len()
	if n == 0 || k <= 0 {
		return nil, make([]int32, n)
	}
	dist := make([]float64, n)
	owner = make([]int32, n)
	far := &distHeap{max: true}
	for i := range dist {
		dist[i] = math.Inf(1)
		owner[i] = -1
		far.items = append(far.items, distItem{math.Inf(1), int32(i)})
	}
	far.init()
	near := &distHeap{}
	for len(samples) < k && far.Len() > 0 {
		top := far.pop()
		if top.d != dist[top.v] { // stale: the vertex has come nearer since
			continue
		}
		if top.d == 0 {
			break
		}
		c := top.v
		id := int32(len(samples))
		samples = append(samples, c)
		dist[c], owner[c] = 0, id
		near.items = append(near.items[:0], distItem{0, c})
		for near.Len() > 0 {
			it := near.pop()
			if it.d != dist[it.v] {
				continue
			}
			for _, j := range a.Neighbours(int(it.v)) {
				d := it.d + pos[it.v].Sub(pos[j]).Len()
				if d < dist[j] {
					dist[j], owner[j] = d, id
					near.push(distItem{d, j})
					far.push(distItem{d, j})
				}
			}
		}
	}
	return samples, owner
}

// Quotient returns the graph of the cells of a partition of the vertices:
// cells p and q (0 ≤ p, q < cells) are neighbours when an edge joins a
// vertex of owner p to one of owner q ≠ p. Every owner must lie in
// [0, cells).
func (a *Adjacency) Quotient(owner []int32, cells int) *Adjacency {
	var pairs [][2]int32
	for i := range a.Len() {
		p := owner[i]
		for _, j := range a.Neighbours(i) {
			if q := owner[j]; q != p {
				pairs = append(pairs, [2]int32{p, q})
			}
		}
	}
	slices.SortFunc(pairs, func(x, y [2]int32) int {
		if x[0] != y[0] {
			return int(x[0] - y[0])
		}
		return int(x[1] - y[1])
	})
	pairs = slices.Compact(pairs)
	q := &Adjacency{Start: make([]int32, cells+1), Nbr: make([]int32, len(pairs))}
	for k, p := range pairs {
		q.Start[p[0]+1]++
		q.Nbr[k] = p[1]
	}
	for c := range cells {
		q.Start[c+1] += q.Start[c]
	}
	return q
}

// distItem is a vertex and its distance in a distHeap.
type distItem struct {
	d float64
	v int32
}

// distHeap is a binary heap of vertices by distance, nearest first (or
// farthest first when max), ties to the lower index.
type distHeap struct {
	items []distItem
	max   bool
}

func (h *distHeap) Len() int { return len(h.items) }

func (h *distHeap) less(a, b distItem) bool {
	if a.d != b.d {
		return (a.d < b.d) != h.max
	}
	return a.v < b.v
}

// init orders the items into a heap.
func (h *distHeap) init() {
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *distHeap) push(x distItem) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(x, h.items[p]) {
			break
		}
		h.items[i] = h.items[p]
		i = p
	}
	h.items[i] = x
}

func (h *distHeap) pop() distItem {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	if last > 0 {
		h.down(0)
	}
	return top
}

func (h *distHeap) down(i int) {
	n := len(h.items)
	x := h.items[i]
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(h.items[c+1], h.items[c]) {
			c++
		}
		if !h.less(h.items[c], x) {
			break
		}
		h.items[i] = h.items[c]
		i = c
	}
	h.items[i] = x
}

// Ball returns the vertices within graph distance radius of vertex i along
// edges of length ‖pos[j] − pos[k]‖, and every neighbour of i whatever its
// distance: i first, then by increasing distance (ties to the lower
// index). dst is reused if large enough; dist must have Len() entries, all
// +Inf, and is left so.
func (a *Adjacency) Ball(dst []int32, dist []float64, pos []mgl64.Vec3, i int, radius float64) []int32 {
	dst = dst[:0]
	h := &distHeap{items: []distItem{{0, int32(i)}}}
	dist[i] = 0
	for _, j := range a.Neighbours(i) { // the one-ring, however far
		dist[j] = pos[i].Sub(pos[j]).Len()
		h.push(distItem{dist[j], j})
	}
	var reached []int32
	for h.Len() > 0 {
		it := h.pop()
		if it.d != dist[it.v] { // stale; a vertex's distances only fall, so one entry is current
			continue
		}
		dst = append(dst, it.v)
		for _, j := range a.Neighbours(int(it.v)) {
			d := it.d + pos[it.v].Sub(pos[j]).Len()
			if d <= radius && d < dist[j] {
				if math.IsInf(dist[j], 1) {
					reached = append(reached, j)
				}
				dist[j] = d
				h.push(distItem{d, j})
			}
		}
	}
	dist[i] = math.Inf(1)
	for _, j := range a.Neighbours(i) {
		dist[j] = math.Inf(1)
	}
	for _, j := range reached {
		dist[j] = math.Inf(1)
	}
	return dst
}
