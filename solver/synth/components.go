package synth

import (
	"slices"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"
)

// boneGraph returns the edges (b, c), b < c, of the bone graph: bones b and
// c are joined where some vertex has weight at least coupling on both.
func boneGraph(m *Model, coupling float64) [][2]int {
	seen := map[[2]int]bool{}
	for _, l := range m.Weights {
		for x, a := range l {
			for _, b := range l[x+1:] {
				if a.Weight >= coupling && b.Weight >= coupling && a.Bone != b.Bone {
					seen[[2]int{min(a.Bone, b.Bone), max(a.Bone, b.Bone)}] = true
				}
			}
		}
	}
	edges := make([][2]int, 0, len(seen))
	for e := range seen {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	return edges
}

// componentsWithout returns the connected components of the bone graph of
// n bones with bone skip removed (skip < 0 removes none), each as
// increasing bone indices, ordered by their first bone.
func componentsWithout(n int, edges [][2]int, skip int) [][]int {
	g := simple.NewUndirectedGraph()
	for b := range n {
		if b != skip {
			g.AddNode(simple.Node(b))
		}
	}
	for _, e := range edges {
		if e[0] != skip && e[1] != skip {
			g.SetEdge(g.NewEdge(simple.Node(e[0]), simple.Node(e[1])))
		}
	}
	var out [][]int
	for _, c := range topo.ConnectedComponents(g) {
		s := make([]int, len(c))
		for i, v := range c {
			s[i] = int(v.ID())
		}
		slices.Sort(s)
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b []int) int { return a[0] - b[0] })
	return out
}

// cutNodes returns the bone graph's cut nodes, increasing: the bones whose
// removal splits the graph into more connected components than it has.
// With a few dozen bones, removing each in turn and counting components
// (gonum's ConnectedComponents) is cheap and plainly right.
func cutNodes(n int, edges [][2]int) []int {
	base := len(componentsWithout(n, edges, -1))
	var cut []int
	for b := range n {
		// Removing an isolated bone lowers the count by one; a cut node
		// raises it.
		if len(componentsWithout(n, edges, b)) > base {
			cut = append(cut, b)
		}
	}
	return cut
}
