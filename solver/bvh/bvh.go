// Package bvh is a bounding volume hierarchy over the triangles of a mesh:
// ray casts for viewport picking and visibility, and box-overlap queries for
// collision detection.
//
// Build constructs the tree once per topology with the binned surface area
// heuristic (Wald, "On fast construction of SAH-based bounding volume
// hierarchies", IEEE Symposium on Interactive Ray Tracing 2007). Refit
// updates its boxes in O(#F) for new positions of the same mesh, an animation
// frame or a solver iterate, without changing the tree's shape: queries stay
// exact after a refit, only slower if the mesh has deformed far from the
// pose it was built in.
//
// The tree keeps its own copy of the triangles' corner positions (refreshed
// by Refit), so callers may reuse or modify their position slice between
// refits. Queries read the tree only and may run concurrently with each
// other, but not with Refit.
package bvh

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
)

const (
	// MaxLeafSize is the largest number of triangles in a leaf.
	MaxLeafSize = 4

	// numBins is the number of centroid bins per axis of the SAH build.
	numBins = 16

	// maxSAHDepth is the depth below which nodes are split at the median of
	// their longest centroid axis instead of by the SAH. Each median split
	// halves the count, so no leaf is deeper than maxSAHDepth + 31 for
	// fewer than 2³¹ triangles, which bounds the traversal stacks.
	maxSAHDepth = 48

	// stackSize is the capacity of the fixed traversal stacks, at least the
	// depth of any tree Build makes (see maxSAHDepth).
	stackSize = 96

	// parallelMin is the smallest number of triangles a subtree needs for
	// Build to give it a goroutine of its own.
	parallelMin = 2048
)

// node is an element of the flattened tree. The children of an inner node
// are adjacent, at start and start+1, and every child follows its parent in
// the node array, so a reverse sweep of the array visits children first.
type node struct {
	box   AABB
	start int32 // leaf: first slot of its triangles; inner: index of the left child
	count int32 // leaf: number of triangles, 1..MaxLeafSize; inner: 0
}

// Tree is a bounding volume hierarchy over the triangles of a mesh. Its zero
// value, like a tree built over no triangles, answers every query with
// nothing.
//
// Triangles are stored in leaf order ("slots"): the triangles of a leaf
// occupy consecutive slots. Results name triangles by their index in the
// slice given to Build.
type Tree struct {
	nodes []node
	tris  [][3]int32      // vertex indices of the triangle in each slot
	ids   []int32         // ids[s] is the triangle (index into Build's slice) in slot s
	slots []int32         // slots[f] is the slot of triangle f: the inverse of ids
	verts [][3]mgl64.Vec3 // corner positions of the triangle in each slot
	nv    int             // number of vertices the tree was built for
}

// Build returns a tree over triangles, each three indices into positions
// (#V points) as in assets.Mesh. Leaves hold at most MaxLeafSize triangles.
// Positions should be finite (assets.Mesh.Validate checks this). A
// non-finite coordinate is not guarded against: the boxes above its
// triangle become NaN, and a NaN box fails every comparison, so rays and
// queries miss the whole subtree, up to the root (collide.Mesh gives the
// tree zeros in their place for that reason).
//
// The top levels of the tree are built concurrently when more than one CPU
// is available; the result does not depend on the number of CPUs.
//
// Build panics if a triangle's vertex index is outside [0, #V), a
// programming error: meshes are validated when loaded.
func Build(positions []mgl64.Vec3, triangles [][3]int) *Tree {
	depth := 0
	if parallel.Workers() > 1 {
		depth = 2 // up to four subtrees built at once
	}
	return build(positions, triangles, depth)
}

// build is Build with subtrees at depths below parallelDepth built
// concurrently.
func build(positions []mgl64.Vec3, triangles [][3]int, parallelDepth int) *Tree {
	n := len(triangles)
	if n >= math.MaxInt32/2 {
		panic(fmt.Sprintf("bvh: %d triangles, more than a tree can index", n))
	}
	nv := len(positions)
	for f, tri := range triangles {
		for _, v := range tri {
			if v < 0 || v >= nv {
				panic(fmt.Sprintf("bvh: triangle %d has vertex index %d outside [0, %d)", f, v, nv))
			}
		}
	}
	t := &Tree{nv: nv}
	if n == 0 {
		return t
	}

	b := &builder{
		boxes:         make([]AABB, n),
		cents:         make([]mgl64.Vec3, n),
		idx:           make([]int32, n),
		parallelDepth: parallelDepth,
	}
	for f, tri := range triangles {
		p, q, r := &positions[tri[0]], &positions[tri[1]], &positions[tri[2]]
		b.boxes[f] = AABB{
			Min: mgl64.Vec3{min(p[0], q[0], r[0]), min(p[1], q[1], r[1]), min(p[2], q[2], r[2])},
			Max: mgl64.Vec3{max(p[0], q[0], r[0]), max(p[1], q[1], r[1]), max(p[2], q[2], r[2])},
		}
		b.cents[f] = mgl64.Vec3{(p[0] + q[0] + r[0]) / 3, (p[1] + q[1] + r[1]) / 3, (p[2] + q[2] + r[2]) / 3}
		b.idx[f] = int32(f)
	}
	nodes := make([]node, 1, 2*n-1) // a full binary tree with at most n leaves
	b.subtree(&nodes, 0, 0, n, 0)

	t.nodes = nodes
	t.ids = b.idx
	t.tris = make([][3]int32, n)
	t.slots = make([]int32, n)
	t.verts = make([][3]mgl64.Vec3, n)
	for s, f := range t.ids {
		tri := triangles[f]
		t.tris[s] = [3]int32{int32(tri[0]), int32(tri[1]), int32(tri[2])}
		t.slots[f] = int32(s)
		t.verts[s] = [3]mgl64.Vec3{positions[tri[0]], positions[tri[1]], positions[tri[2]]}
	}
	return t
}

// builder holds the per-triangle data of a build. Concurrent subtree builds
// share it, each working on a disjoint range of idx.
type builder struct {
	boxes         []AABB       // bounding box of each triangle
	cents         []mgl64.Vec3 // centroid of each triangle
	idx           []int32      // triangles, permuted into slot order as the build proceeds
	parallelDepth int
}

// subtree fills (*nodes)[ni] with the node over the triangles idx[start:end]
// and appends its descendants to *nodes, depth first, left subtree first.
func (b *builder) subtree(nodes *[]node, ni, start, end, depth int) {
	box, cbox := emptyBox, emptyBox
	for _, f := range b.idx[start:end] {
		box.grow(&b.boxes[f])
		c := &b.cents[f]
		cbox.Min[0], cbox.Max[0] = min(cbox.Min[0], c[0]), max(cbox.Max[0], c[0])
		cbox.Min[1], cbox.Max[1] = min(cbox.Min[1], c[1]), max(cbox.Max[1], c[1])
		cbox.Min[2], cbox.Max[2] = min(cbox.Min[2], c[2]), max(cbox.Max[2], c[2])
	}
	mid, ok := b.split(start, end, box, cbox, depth)
	if !ok {
		(*nodes)[ni] = node{box: box, start: int32(start), count: int32(end - start)}
		return
	}
	l := len(*nodes)
	*nodes = append(*nodes, node{}, node{})
	(*nodes)[ni] = node{box: box, start: int32(l)}

	if depth >= b.parallelDepth || end-start < parallelMin {
		b.subtree(nodes, l, start, mid, depth+1)
		b.subtree(nodes, l+1, mid, end, depth+1)
		return
	}
	// Build the right subtree concurrently into a slice of its own, rooted
	// at its element 0, then append it after the left subtree: the layout is
	// the one the sequential build makes.
	right := make([]node, 1, 2*(end-mid)-1)
	parallel.Do(
		func() { b.subtree(&right, 0, mid, end, depth+1) },
		func() { b.subtree(nodes, l, start, mid, depth+1) },
	)
	base := int32(len(*nodes)) - 1 // right[k] goes to base+k for k ≥ 1
	for k := range right {
		if right[k].count == 0 {
			right[k].start += base
		}
	}
	(*nodes)[l+1] = right[0]
	*nodes = append(*nodes, right[1:]...)
}

// split partitions idx[start:end] into two non-empty halves idx[start:mid]
// and idx[mid:end] and returns mid, or returns ok = false if the range
// should become a leaf. box bounds the triangles and cbox their centroids.
//
// The SAH cost of a split is 1 + (A_L·N_L + A_R·N_R)/A for children of half
// areas A_L, A_R and counts N_L, N_R under a parent of half area A (a
// traversal step costs as much as a triangle test); a leaf costs N. Ranges of
// more than MaxLeafSize triangles are always split.
func (b *builder) split(start, end int, box, cbox AABB, depth int) (mid int, ok bool) {
	n := end - start
	if n == 1 {
		return 0, false
	}
	if depth >= maxSAHDepth {
		if n <= MaxLeafSize {
			return 0, false
		}
		return b.median(start, end, cbox), true
	}

	// Fewer bins for small ranges: a bin per triangle separates as well.
	nb := min(numBins, n)
	var bins [3][numBins]struct {
		box   AABB
		count int
	}
	var scale [3]float64
	for k := range 3 {
		for i := range nb {
			bins[k][i].box = emptyBox
		}
		if w := cbox.Max[k] - cbox.Min[k]; w > 0 {
			scale[k] = float64(nb) / w
		}
	}
	for _, f := range b.idx[start:end] {
		c := &b.cents[f]
		for k := range 3 {
			bin := &bins[k][binOf(c[k], cbox.Min[k], scale[k], nb)]
			bin.box.grow(&b.boxes[f])
			bin.count++
		}
	}

	bestCost, bestAxis, bestBin := math.Inf(1), -1, 0
	for k := range 3 {
		if scale[k] == 0 {
			continue // all centroids in one plane across this axis
		}
		// right[i] is the cost term A·N of bins i+1 .. nb-1.
		var right [numBins - 1]float64
		acc, cnt := emptyBox, 0
		for i := nb - 1; i > 0; i-- {
			if bins[k][i].count > 0 {
				acc.grow(&bins[k][i].box)
				cnt += bins[k][i].count
			}
			if cnt > 0 {
				right[i-1] = acc.halfArea() * float64(cnt)
			}
		}
		acc, cnt = emptyBox, 0
		for i := 0; i < nb-1; i++ {
			if bins[k][i].count == 0 {
				continue // the same split as the previous bin
			}
			acc.grow(&bins[k][i].box)
			cnt += bins[k][i].count
			if cnt == n {
				break
			}
			if cost := acc.halfArea()*float64(cnt) + right[i]; cost < bestCost {
				bestCost, bestAxis, bestBin = cost, k, i
			}
		}
	}
	if bestAxis < 0 {
		// All centroids coincide (or are not finite): no plane separates them.
		if n <= MaxLeafSize {
			return 0, false
		}
		return start + n/2, true
	}
	if n <= MaxLeafSize {
		a := box.halfArea()
		if !(a > 0) || 1+bestCost/a >= float64(n) {
			return 0, false
		}
	}

	lo, s := cbox.Min[bestAxis], scale[bestAxis]
	i, j := start, end-1
	for i <= j {
		if binOf(b.cents[b.idx[i]][bestAxis], lo, s, nb) <= bestBin {
			i++
		} else {
			b.idx[i], b.idx[j] = b.idx[j], b.idx[i]
			j--
		}
	}
	return i, true
}

// binOf returns the bin, in [0, nb), of the centroid coordinate c for bins
// of width 1/scale starting at lo. Rounding at the top end and non-finite
// values are clamped into range.
func binOf(c, lo, scale float64, nb int) int {
	i := int((c - lo) * scale)
	return max(0, min(i, nb-1))
}

// median partitions idx[start:end] at its middle by centroid along the
// longest axis of cbox and returns the middle. It is the fallback that bounds
// the depth of the tree on pathological inputs.
func (b *builder) median(start, end int, cbox AABB) int {
	d := cbox.Max.Sub(cbox.Min)
	k := 0
	if d[1] > d[k] {
		k = 1
	}
	if d[2] > d[k] {
		k = 2
	}
	mid := start + (end-start)/2
	// Quickselect: place the element of rank mid in position and smaller
	// keys before it.
	lo, hi := start, end-1
	for lo < hi {
		pivot := b.cents[b.idx[(lo+hi)/2]][k]
		i, j := lo, hi
		for i <= j {
			for b.cents[b.idx[i]][k] < pivot {
				i++
			}
			for b.cents[b.idx[j]][k] > pivot {
				j--
			}
			if i <= j {
				b.idx[i], b.idx[j] = b.idx[j], b.idx[i]
				i++
				j--
			}
		}
		switch {
		case mid <= j:
			hi = j
		case mid >= i:
			lo = i
		default:
			return mid
		}
	}
	return mid
}

// Refit recomputes every box of t for new positions of the same mesh (same
// #V, same triangles), bottom-up, in O(#F) time and without allocating. The
// tree's shape is kept, so queries remain exact; they slow down only as the
// mesh moves far from the pose the tree was built in, when a new Build pays.
//
// Refit panics if len(positions) differs from the #V given to Build.
func (t *Tree) Refit(positions []mgl64.Vec3) {
	if len(positions) != t.nv {
		panic(fmt.Sprintf("bvh: Refit with %d positions for a tree built over %d", len(positions), t.nv))
	}
	for i := len(t.nodes) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		if n.count == 0 {
			n.box = t.nodes[n.start].box
			n.box.grow(&t.nodes[n.start+1].box)
			continue
		}
		// Gather the leaf's corners and bound them, in scalars (see
		// ray.triangle).
		inf := math.Inf(1)
		x0, y0, z0, x1, y1, z1 := inf, inf, inf, -inf, -inf, -inf
		for s := n.start; s < n.start+n.count; s++ {
			tri, v := &t.tris[s], &t.verts[s]
			for c := range 3 {
				p := &positions[tri[c]]
				x, y, z := p[0], p[1], p[2]
				v[c][0], v[c][1], v[c][2] = x, y, z
				x0, y0, z0 = min(x0, x), min(y0, y), min(z0, z)
				x1, y1, z1 = max(x1, x), max(y1, y), max(z1, z)
			}
		}
		n.box = AABB{Min: mgl64.Vec3{x0, y0, z0}, Max: mgl64.Vec3{x1, y1, z1}}
	}
}

// Bounds returns the bounding box of all triangles at the positions of the
// last Build or Refit; it is empty for a tree over no triangles.
func (t *Tree) Bounds() AABB {
	if len(t.nodes) == 0 {
		return EmptyAABB()
	}
	return t.nodes[0].box
}

// NearestVertex returns the vertex of h.Triangle closest (in Euclidean
// distance) to the hit point (1−U−V)·p0 + U·p1 + V·p2: the vertex a click
// on the triangle picks. It panics if h.Triangle is not a triangle of t.
func (t *Tree) NearestVertex(h Hit) int {
	if h.Triangle < 0 || h.Triangle >= len(t.slots) {
		panic(fmt.Sprintf("bvh: NearestVertex of triangle %d outside [0, %d)", h.Triangle, len(t.slots)))
	}
	s := t.slots[h.Triangle]
	v := &t.verts[s]
	p := v[0].Mul(1 - h.U - h.V).Add(v[1].Mul(h.U)).Add(v[2].Mul(h.V))
	best, bestD := 0, math.Inf(1)
	for c := range 3 {
		if d := v[c].Sub(p).LenSqr(); d < bestD {
			best, bestD = c, d
		}
	}
	return int(t.tris[s][best])
}
