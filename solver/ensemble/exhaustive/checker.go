// Package exhaustive is the independent interpenetration checker of mesh
// ensembles: per posed frame, the pairs of groups whose surfaces
// intersect, found by testing every triangle of one group against every
// triangle of every other group. It has no BVH, no grid and no broad
// phase but a bounding-box reject per triangle pair, and its own exact
// triangle–triangle test (TrianglesIntersect), written apart from
// solver/collide's, so that it can check what the constraint solver and
// its collision detection accept.
//
// Triangles are closed: groups that only touch (a shared point or
// segment, coplanar regions that meet at their edges) intersect, as in
// solver/collide. The one exception is stated by the caller: triangle
// pairs that share a sewn vertex, a child's triangle holding an attached
// vertex against a parent's triangle holding the vertex it is sewn to,
// touch by design and are skipped.
package exhaustive

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
)

// Group is one mesh group: its vertices [First, First+Count) of every
// frame, its triangles (indices local to the group, 0 … Count−1), its
// parent (−1 for none) and the vertices sewn to the parent.
type Group struct {
	First, Count int
	Triangles    [][3]int
	Parent       int
	Attach       []Attachment
}

// Attachment sews the group-local vertex Vertex to the parent-local vertex
// ParentVertex: a triangle of the group holding Vertex and a triangle of
// the parent holding ParentVertex are never tested against each other.
type Attachment struct{ Vertex, ParentVertex int }

// Pair is an intersection between groups K < L, with a witness: a
// triangle of K and one of L (group-local indices) that intersect, the
// first found scanning K's triangles, then L's, in order.
type Pair struct{ K, L, TK, TL int }

// Checker tests posed frames of one ensemble. It is safe for concurrent
// use.
type Checker struct {
	groups   []Group
	vertices int
	tris     [][][3]int // per group, triangles with ensemble vertex indices
	// sewn[g][t] lists the parent-local vertices that triangle t of group
	// g is sewn to (nil for most).
	sewn [][][]int
}

// New returns a checker for groups whose frames hold vertices positions.
// It returns an error naming the group for a vertex range outside [0,
// vertices) or overlapping another group's, a triangle index outside the
// group, a parent out of range or the group itself, or an attachment
// outside the group or its parent (or on a group without parent).
func New(groups []Group, vertices int) (*Checker, error) {
	c := &Checker{groups: groups, vertices: vertices, tris: make([][][3]int, len(groups)), sewn: make([][][]int, len(groups))}
	order := make([]int, len(groups))
	for g, gr := range groups {
		order[g] = g
		if gr.Count < 0 || gr.First < 0 || gr.First+gr.Count > vertices {
			return nil, fmt.Errorf("exhaustive: group %d: vertices [%d, %d) outside the %d vertices", g, gr.First, gr.First+gr.Count, vertices)
		}
		if gr.Parent < -1 || gr.Parent >= len(groups) || gr.Parent == g {
			return nil, fmt.Errorf("exhaustive: group %d: parent %d is not another group", g, gr.Parent)
		}
		c.tris[g] = make([][3]int, len(gr.Triangles))
		for t, tri := range gr.Triangles {
			for k, v := range tri {
				if v < 0 || v >= gr.Count {
					return nil, fmt.Errorf("exhaustive: group %d: triangle %d has vertex %d outside the group's %d", g, t, v, gr.Count)
				}
				c.tris[g][t][k] = gr.First + v
			}
		}
	}
	slices.SortFunc(order, func(a, b int) int { return groups[a].First - groups[b].First })
	for n := 1; n < len(order); n++ {
		a, b := groups[order[n-1]], groups[order[n]]
		if a.Count > 0 && b.Count > 0 && a.First+a.Count > b.First {
			return nil, fmt.Errorf("exhaustive: groups %d and %d overlap in vertices", order[n-1], order[n])
		}
	}
	for g, gr := range groups {
		if len(gr.Attach) == 0 {
			continue
		}
		if gr.Parent < 0 {
			return nil, fmt.Errorf("exhaustive: group %d has attachments but no parent", g)
		}
		byVertex := map[int][]int{}
		for _, at := range gr.Attach {
			if at.Vertex < 0 || at.Vertex >= gr.Count || at.ParentVertex < 0 || at.ParentVertex >= groups[gr.Parent].Count {
				return nil, fmt.Errorf("exhaustive: group %d: attachment %d → %d outside the group or its parent", g, at.Vertex, at.ParentVertex)
			}
			byVertex[at.Vertex] = append(byVertex[at.Vertex], at.ParentVertex)
		}
		c.sewn[g] = make([][]int, len(gr.Triangles))
		for t, tri := range gr.Triangles {
			for _, v := range tri {
				c.sewn[g][t] = append(c.sewn[g][t], byVertex[v]...)
			}
		}
	}
	return c, nil
}

// skipped reports whether triangle t of group g and triangle u of group h
// share a sewn vertex: g is h's parent or h is g's.
func (c *Checker) skipped(g, t, h, u int) bool {
	if c.groups[h].Parent == g {
		g, t, h, u = h, u, g, t
	}
	if c.groups[g].Parent != h || c.sewn[g] == nil {
		return false
	}
	for _, pv := range c.sewn[g][t] {
		if slices.Contains(c.groups[h].Triangles[u][:], pv) {
			return true
		}
	}
	return false
}

// Frame returns the pairs of groups that intersect in the posed frame pos
// (all vertices, ensemble order), K < L in increasing order, testing
// every triangle pair of different groups but those that share a sewn
// vertex; a group pair stops at its first intersecting triangle pair. It
// returns an error for a frame with another vertex count or a non-finite
// coordinate (a broken pose is not a clean one).
func (c *Checker) Frame(pos []mgl64.Vec3) ([]Pair, error) {
	if len(pos) != c.vertices {
		return nil, fmt.Errorf("exhaustive: frame has %d vertices, want %d", len(pos), c.vertices)
	}
	for v, p := range pos {
		if !finiteVec(p) {
			return nil, fmt.Errorf("exhaustive: vertex %d is %v", v, p)
		}
	}
	corners := make([][][3]mgl64.Vec3, len(c.groups))
	boxes := make([][]box, len(c.groups))
	for g, tris := range c.tris {
		corners[g] = make([][3]mgl64.Vec3, len(tris))
		boxes[g] = make([]box, len(tris))
		for t, tri := range tris {
			corners[g][t] = [3]mgl64.Vec3{pos[tri[0]], pos[tri[1]], pos[tri[2]]}
			boxes[g][t] = boxOf(&corners[g][t])
		}
	}
	var out []Pair
	for g := range c.groups {
		for h := g + 1; h < len(c.groups); h++ {
			if t, u, ok := c.firstHit(g, h, corners, boxes); ok {
				out = append(out, Pair{K: g, L: h, TK: t, TL: u})
			}
		}
	}
	return out, nil
}

// firstHit tests every triangle pair of groups g and h.
func (c *Checker) firstHit(g, h int, corners [][][3]mgl64.Vec3, boxes [][]box) (int, int, bool) {
	related := c.groups[g].Parent == h || c.groups[h].Parent == g
	for t := range corners[g] {
		bt := &boxes[g][t]
		for u := range corners[h] {
			if !bt.overlaps(&boxes[h][u]) {
				continue
			}
			if related && c.skipped(g, t, h, u) {
				continue
			}
			if TrianglesIntersect(corners[g][t], corners[h][u]) {
				return t, u, true
			}
		}
	}
	return 0, 0, false
}

// Frames checks every frame, on both cores (gallop/internal/parallel,
// frames in parallel), and returns the pairs of each. The error is that of
// the first bad frame, naming it.
func (c *Checker) Frames(frames [][]mgl64.Vec3) ([][]Pair, error) {
	out := make([][]Pair, len(frames))
	errs := make([]error, len(frames))
	parallel.For(len(frames), func(f int) {
		out[f], errs[f] = c.Frame(frames[f])
	})
	for f, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("frame %d: %w", f, err)
		}
	}
	return out, nil
}

type box struct{ lo, hi mgl64.Vec3 }

func boxOf(t *[3]mgl64.Vec3) box {
	var b box
	for k := range 3 {
		b.lo[k] = min(t[0][k], t[1][k], t[2][k])
		b.hi[k] = max(t[0][k], t[1][k], t[2][k])
	}
	return b
}

func (b *box) overlaps(o *box) bool {
	return b.lo[0] <= o.hi[0] && o.lo[0] <= b.hi[0] &&
		b.lo[1] <= o.hi[1] && o.lo[1] <= b.hi[1] &&
		b.lo[2] <= o.hi[2] && o.lo[2] <= b.hi[2]
}

func finiteVec(p mgl64.Vec3) bool {
	for _, x := range p {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
