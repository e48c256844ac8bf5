package meshgraph

import (
	"cmp"
	"slices"
)

// CuthillMcKee returns the vertices in the Cuthill–McKee order (Cuthill
// and McKee 1969): each connected component in turn, breadth-first from a
// pseudo-peripheral vertex (George and Liu 1979: from the component's
// lowest vertex, restart from a least-degree vertex of the last level
// while that lengthens the traversal), each vertex's unplaced neighbours
// appended in increasing degree (ties by index). order[k] is the k-th
// vertex; every vertex appears once.
//
// Its use is locality: a vertex's neighbours lie within about two
// breadth-first levels of it in the order, so a pass in this order that
// reads each vertex's 1-ring (a solver that keeps its vertices renumbered
// by it) finds them in the cache, where a mesh's own order may scatter
// them (a subdivided mesh lists its edge midpoints after every original
// vertex).
func (a *Adjacency) CuthillMcKee() []int32 {
	n := a.Len()
	order := make([]int32, 0, n)
	placed := make([]bool, n)
	// The pseudo-peripheral search's breadth-first traversals: their
	// queue and the stamp of the traversal that reached each vertex.
	queue := make([]int32, 0, n)
	stamp := make([]int32, n)
	round := int32(0)
	degree := func(i int32) int32 { return a.Start[i+1] - a.Start[i] }
	byDegree := func(x, y int32) int {
		return cmp.Or(cmp.Compare(degree(x), degree(y)), cmp.Compare(x, y))
	}
	// levels traverses root's component breadth-first and returns its
	// number of levels and a least-degree vertex of the last.
	levels := func(root int32) (int, int32) {
		round++
		queue = append(queue[:0], root)
		stamp[root] = round
		depth, last := 0, root
		for lo := 0; lo < len(queue); depth++ {
			hi := len(queue)
			last = slices.MinFunc(queue[lo:hi], byDegree)
			for _, v := range queue[lo:hi] {
				for _, j := range a.Neighbours(int(v)) {
					if stamp[j] != round {
						stamp[j] = round
						queue = append(queue, j)
					}
				}
			}
			lo = hi
		}
		return depth, last
	}
	for s := range int32(n) {
		if placed[s] {
			continue
		}
		root := s
		depth, cand := levels(root)
		for cand != root {
			d, next := levels(cand)
			if d <= depth {
				break
			}
			root, depth, cand = cand, d, next
		}
		head := len(order)
		order = append(order, root)
		placed[root] = true
		for ; head < len(order); head++ {
			from := len(order)
			for _, j := range a.Neighbours(int(order[head])) {
				if !placed[j] {
					placed[j] = true
					order = append(order, j)
				}
			}
			slices.SortFunc(order[from:], byDegree)
		}
	}
	return order
}
