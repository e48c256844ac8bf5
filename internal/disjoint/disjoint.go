// Package disjoint is a disjoint-set forest (union-find) over the
// integers 0 … n−1: the connected components of a graph given edge by
// edge.
package disjoint

// Sets partitions 0 … n−1. Each set is represented by its lowest member,
// so that Find's answers do not depend on the order of the unions.
type Sets []int

// New returns n singletons.
func New(n int) Sets {
	s := make(Sets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// Find returns the lowest member of i's set, halving the path it walks.
func (s Sets) Find(i int) int {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

// Union merges the sets of i and j.
func (s Sets) Union(i, j int) {
	a, b := s.Find(i), s.Find(j)
	s[max(a, b)] = min(a, b)
}
