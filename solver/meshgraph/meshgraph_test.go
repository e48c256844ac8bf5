package meshgraph

import (
	"slices"
	"testing"
)

// A square of two triangles: 0-1-2 and 0-2-3, with the diagonal 0-2.
var square = [][3]int{{0, 1, 2}, {0, 2, 3}}

func TestNeighbours(t *testing.T) {
	a, err := New(5, append(square, [3]int{3, 3, 2})) // a degenerate triangle adds nothing new
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{1, 2, 3}, {0, 2}, {0, 1, 3}, {0, 2}, {}}
	for i, w := range want {
		if got := a.Neighbours(i); !slices.Equal(got, w) {
			t.Errorf("neighbours of %d: %v, want %v", i, got, w)
		}
	}
	if got := a.Edges(); !slices.Equal(got, [][2]int32{{0, 1}, {0, 2}, {0, 3}, {1, 2}, {2, 3}}) {
		t.Errorf("edges %v", got)
	}
}

func TestRing(t *testing.T) {
	// A strip 0-1-2-3-4-5 of triangles (i, i+1, i+2): vertex 0's rings grow
	// two vertices a step.
	var strip [][3]int
	for i := 0; i+2 < 6; i++ {
		strip = append(strip, [3]int{i, i + 1, i + 2})
	}
	a, err := New(6, strip)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]bool, 6)
	for k, want := range [][]int32{{0}, {0, 1, 2}, {0, 1, 2, 3, 4}, {0, 1, 2, 3, 4, 5}} {
		if got := a.Ring(nil, seen, 0, k); !slices.Equal(got, want) {
			t.Errorf("%d-ring of 0: %v, want %v", k, got, want)
		}
	}
	if slices.Contains(seen, true) {
		t.Error("Ring left seen set")
	}
}

func TestBadIndex(t *testing.T) {
	if _, err := New(3, [][3]int{{0, 1, 3}}); err == nil {
		t.Error("a vertex index out of range was accepted")
	}
	if _, err := New(3, [][3]int{{0, -1, 2}}); err == nil {
		t.Error("a negative vertex index was accepted")
	}
}

// TestExactStorage checks that New keeps no spare backing storage: the
// rows fill Nbr to its capacity.
func TestExactStorage(t *testing.T) {
	a, err := New(4, square)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Nbr) != 10 || cap(a.Nbr) != len(a.Nbr) || cap(a.Start) != len(a.Start) {
		t.Errorf("Nbr %d of capacity %d, Start %d of capacity %d; want 10 exactly and no spare", len(a.Nbr), cap(a.Nbr), len(a.Start), cap(a.Start))
	}
}

func TestIncidence(t *testing.T) {
	in := NewIncidence(5, square) // 0-1-2 and 0-2-3; vertex 4 in none
	want := [][]int32{{0, 1}, {0}, {0, 1}, {1}, {}}
	for v, w := range want {
		if got := in.Of(v); !slices.Equal(got, w) {
			t.Errorf("triangles of %d: %v, want %v", v, got, w)
		}
	}
}
