package meshgraph

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// grid returns the triangles of a w × h grid of vertices whose vertex
// numbers are shuffled by perm (vertex (x, y) is perm[y·w + x]).
func grid(w, h int, perm []int) [][3]int {
	var t [][3]int
	for y := 0; y+1 < h; y++ {
		for x := 0; x+1 < w; x++ {
			a, b, c, d := perm[y*w+x], perm[y*w+x+1], perm[(y+1)*w+x], perm[(y+1)*w+x+1]
			t = append(t, [3]int{a, b, d}, [3]int{a, d, c})
		}
	}
	return t
}

// bandwidth returns the largest distance in order between two neighbours.
func bandwidth(a *Adjacency, order []int32) int {
	at := make([]int, a.Len())
	for k, v := range order {
		at[v] = k
	}
	b := 0
	for i := range a.Len() {
		for _, j := range a.Neighbours(i) {
			b = max(b, at[j]-at[i])
		}
	}
	return b
}

// TestCuthillMcKee: on a shuffled 100 × 8 grid, the order holds every
// vertex once and brings every neighbour within a few levels (the grid's
// width, 8, plus the diagonal: bandwidth ≤ 2·8), where the shuffle leaves
// neighbours hundreds apart; a second component (a lone triangle and an
// isolated vertex) is placed after the first.
func TestCuthillMcKee(t *testing.T) {
	const w, h = 8, 100
	perm := rand.New(rand.NewPCG(1, 2)).Perm(w * h)
	tri := append(grid(w, h, perm), [3]int{w * h, w*h + 1, w*h + 2})
	a, err := New(w*h+4, tri)
	if err != nil {
		t.Fatal(err)
	}
	order := a.CuthillMcKee()
	sorted := slices.Clone(order)
	slices.Sort(sorted)
	for k, v := range sorted {
		if int(v) != k {
			t.Fatalf("the order is not a permutation: sorted it starts %v", sorted[:k+1])
		}
	}
	identity := make([]int32, a.Len())
	for i := range identity {
		identity[i] = int32(i)
	}
	if b := bandwidth(a, order); b > 2*w {
		t.Errorf("bandwidth %d in the order, want ≤ %d (the mesh's own order: %d)", b, 2*w, bandwidth(a, identity))
	}
	if b := bandwidth(a, identity); b < 10*w {
		t.Errorf("the shuffled grid's own bandwidth is only %d: the test shows nothing", b)
	}
	// The grid is traversed from a corner (a pseudo-peripheral vertex of
	// degree 2 or 3) and the small components come after it.
	if d := len(a.Neighbours(int(order[0]))); d > 3 {
		t.Errorf("the traversal starts at a vertex of degree %d, not a corner", d)
	}
	if !slices.Equal(slices.Sorted(slices.Values(order[w*h:])), []int32{w * h, w*h + 1, w*h + 2, w*h + 3}) || order[w*h+3] != w*h+3 {
		t.Errorf("the other components are not after the grid: %v", order[w*h:])
	}
}
