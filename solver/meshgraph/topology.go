package meshgraph

import "gallop/internal/disjoint"

// Components labels the connected components of a mesh's n vertices, two
// vertices being connected when they share a triangle, by union-find with
// path halving. Labels are 0, 1, … in the order of each component's lowest
// vertex; vertices no triangle references get −1. It returns the labels
// and the number of components. Indices must lie in [0, n) (New checks
// them).
func Components(n int, triangles [][3]int) ([]int, int) {
	sets := disjoint.New(n)
	used := make([]bool, n)
	for _, t := range triangles {
		for _, v := range t {
			used[v] = true
		}
		sets.Union(t[0], t[1])
		sets.Union(t[0], t[2])
	}
	label := make([]int, n)
	id := make(map[int]int)
	for i := range label {
		if !used[i] {
			label[i] = -1
			continue
		}
		r := sets.Find(i)
		l, ok := id[r]
		if !ok {
			l = len(id)
			id[r] = l
		}
		label[i] = l
	}
	return label, len(id)
}

// Closed reports whether the triangles bound solids: every edge, taken
// without orientation, is shared by an even number of triangles, so a ray
// from a point crosses the surface an even number of times in all and the
// parity of crossings tells inside from outside. A degenerate triangle
// (a, a, b) covers the edge ab twice, as its two sides, and so changes
// nothing. A mesh without triangles is closed.
func Closed(triangles [][3]int) bool {
	odd := make(map[[2]int]bool, 3*len(triangles)/2)
	for _, t := range triangles {
		for c := range 3 {
			i, j := t[c], t[(c+1)%3]
			if i == j {
				continue
			}
			if i > j {
				i, j = j, i
			}
			e := [2]int{i, j}
			if odd[e] {
				delete(odd, e)
			} else {
				odd[e] = true
			}
		}
	}
	return len(odd) == 0
}
