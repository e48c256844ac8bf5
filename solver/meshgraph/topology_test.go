package meshgraph

import (
	"slices"
	"testing"
)

// tetra is a closed tetrahedron on vertices o … o+3.
func tetra(o int) [][3]int {
	return [][3]int{{o, o + 2, o + 1}, {o, o + 1, o + 3}, {o + 1, o + 2, o + 3}, {o, o + 3, o + 2}}
}

func TestComponents(t *testing.T) {
	tris := append(tetra(4), tetra(0)...) // vertices 8 and 9 unused
	label, k := Components(10, tris)
	if want := []int{0, 0, 0, 0, 1, 1, 1, 1, -1, -1}; k != 2 || !slices.Equal(label, want) {
		t.Errorf("labels %v (%d components), want %v (2)", label, k, want)
	}
}

func TestClosed(t *testing.T) {
	if !Closed(tetra(0)) || !Closed(append(tetra(0), tetra(4)...)) || !Closed(nil) {
		t.Error("closed tetrahedra reported open")
	}
	if Closed(tetra(0)[:3]) {
		t.Error("a tetrahedron without a face reported closed")
	}
	if !Closed(append(tetra(0), [3]int{0, 0, 1})) {
		t.Error("a degenerate triangle opened a closed mesh")
	}
}
