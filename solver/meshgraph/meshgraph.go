// Package meshgraph holds the vertex graph of a triangle mesh: which
// vertices share an edge. It is the one implementation of the one-ring
// that the solvers use (skinning decomposition, dynamic skinning, motion
// synthesis), and of what is built on it: geodesic balls and
// farthest-point samples by graph distance along the edges.
package meshgraph

import (
	"fmt"
	"slices"
)

// Adjacency is the vertex graph of a triangle mesh in compressed rows: the
// neighbours of vertex i, the vertices that share a triangle edge with it,
// are Nbr[Start[i]:Start[i+1]], increasing, without i itself and without
// repeats. len(Start) is the number of vertices plus one.
type Adjacency struct {
	Start []int32
	Nbr   []int32
}

// New builds the adjacency of n vertices from triangles. It returns an
// error naming the first triangle with a vertex index outside [0, n).
// Degenerate triangles (a repeated corner) add only their distinct edges.
func New(n int, triangles [][3]int) (*Adjacency, error) {
	deg := make([]int32, n+1)
	for f, t := range triangles {
		for c := range 3 {
			if t[c] < 0 || t[c] >= n {
				return nil, fmt.Errorf("triangle %d: vertex index %d out of range [0, %d)", f, t[c], n)
			}
			deg[t[c]] += 2
		}
	}
	a := &Adjacency{Start: make([]int32, n+1)}
	for i := range n {
		a.Start[i+1] = a.Start[i] + deg[i]
	}
	// Every corner lists its two triangle neighbours: twice each edge of
	// a manifold mesh. The rows are sorted and deduplicated in place in
	// this scratch, compacted, and copied to a.Nbr of exactly their size
	// (the scratch is about twice that).
	nbr := make([]int32, a.Start[n])
	fill := slices.Clone(a.Start[:n])
	for _, t := range triangles {
		for c := range 3 {
			i, j, k := t[c], t[(c+1)%3], t[(c+2)%3]
			nbr[fill[i]], nbr[fill[i]+1] = int32(j), int32(k)
			fill[i] += 2
		}
	}
	w := int32(0)
	for i := range n {
		row := nbr[a.Start[i]:a.Start[i+1]]
		slices.Sort(row)
		row = slices.Compact(row)
		row = slices.DeleteFunc(row, func(j int32) bool { return int(j) == i })
		a.Start[i] = w
		w += int32(copy(nbr[w:], row))
	}
	a.Start[n] = w
	a.Nbr = make([]int32, w)
	copy(a.Nbr, nbr)
	return a, nil
}

// Len returns the number of vertices.
func (a *Adjacency) Len() int { return len(a.Start) - 1 }

// Neighbours returns the neighbours of vertex i, increasing. The slice is
// shared; do not modify it.
func (a *Adjacency) Neighbours(i int) []int32 { return a.Nbr[a.Start[i]:a.Start[i+1]] }

// Edges returns every edge once, as (i, j) with i < j, ordered by i then j.
func (a *Adjacency) Edges() [][2]int32 {
	e := make([][2]int32, 0, len(a.Nbr)/2)
	for i := range a.Len() {
		for _, j := range a.Neighbours(i) {
			if int(j) > i {
				e = append(e, [2]int32{int32(i), j})
			}
		}
	}
	return e
}

// Ring returns the vertices within k edges of vertex i (i itself
// included), in breadth-first order: i, then its neighbours, then theirs.
// dst is reused if large enough; seen must have Len() entries, all false,
// and is left all false.
func (a *Adjacency) Ring(dst []int32, seen []bool, i, k int) []int32 {
	dst = append(dst[:0], int32(i))
	seen[i] = true
	lo := 0
	for range k {
		hi := len(dst)
		for _, v := range dst[lo:hi] {
			for _, j := range a.Neighbours(int(v)) {
				if !seen[j] {
					seen[j] = true
					dst = append(dst, j)
				}
			}
		}
		lo = hi
	}
	for _, v := range dst {
		seen[v] = false
	}
	return dst
}

// Incidence lists each vertex's triangles (indices into the triangles it
// was built from), in compressed rows, increasing.
type Incidence struct {
	start []int32
	tri   []int32
}

// NewIncidence builds the incidence of n vertices on triangles, whose
// corners must lie in [0, n) (New checks them).
func NewIncidence(n int, triangles [][3]int) *Incidence {
	in := &Incidence{start: make([]int32, n+1), tri: make([]int32, 3*len(triangles))}
	for _, t := range triangles {
		for _, v := range t {
			in.start[v+1]++
		}
	}
	for i := range n {
		in.start[i+1] += in.start[i]
	}
	fill := slices.Clone(in.start[:n])
	for f, t := range triangles {
		for _, v := range t {
			in.tri[fill[v]] = int32(f)
			fill[v]++
		}
	}
	return in
}

// Of returns vertex v's triangles. The slice is shared; do not modify it.
func (in *Incidence) Of(v int) []int32 { return in.tri[in.start[v]:in.start[v+1]] }
