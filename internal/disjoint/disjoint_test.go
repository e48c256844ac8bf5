package disjoint

import "testing"

// TestSets: unions in any order leave each set represented by its lowest
// member.
func TestSets(t *testing.T) {
	s := New(7)
	for _, e := range [][2]int{{5, 3}, {6, 5}, {2, 1}, {4, 4}} {
		s.Union(e[0], e[1])
	}
	want := []int{0, 1, 1, 3, 4, 3, 3}
	for i, w := range want {
		if got := s.Find(i); got != w {
			t.Errorf("Find(%d) = %d, want %d", i, got, w)
		}
	}
}
