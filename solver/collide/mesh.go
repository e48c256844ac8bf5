package collide

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
)

// Mesh is a triangle mesh prepared for collision queries: its triangles,
// its current positions and a bvh.Tree over them. NewMesh builds it once
// per topology; Refit moves it to new positions of the same mesh (an
// animation frame) in O(#V + #F) without rebuilding the tree.
//
// A Mesh keeps its own copy of the triangles and of the positions, so
// callers may reuse or modify their slices after NewMesh and Refit. Queries
// only read the Mesh and may run concurrently with each other, but not with
// Refit.
//
// A triangle with a NaN or infinite corner coordinate intersects nothing;
// the others are unaffected (the tree is given such coordinates as 0, so
// that one bad vertex cannot turn the boxes above it into NaN).
type Mesh struct {
	triangles [][3]int
	positions []mgl64.Vec3 // the current positions, copied
	mixed     bool         // some coordinate is not narrow: see vkinds
	vkinds    []kind       // when mixed, the kind of each vertex's coordinates
	tree      *bvh.Tree
	finite    []mgl64.Vec3 // scratch: positions with non-finite coordinates zeroed
}

// NewMesh returns the mesh of triangles, each three indices into positions
// (#V points), with its BVH built. It panics if a vertex index is outside
// [0, #V), a programming error: meshes are validated when loaded.
func NewMesh(positions []mgl64.Vec3, triangles [][3]int) *Mesh {
	nv := len(positions)
	for f, tri := range triangles {
		for _, v := range tri {
			if v < 0 || v >= nv {
				panic(fmt.Sprintf("collide: triangle %d has vertex index %d outside [0, %d)", f, v, nv))
			}
		}
	}
	m := &Mesh{triangles: slices.Clone(triangles)}
	m.tree = bvh.Build(m.setPositions(positions), triangles)
	return m
}

// Refit moves m to new positions of the same #V vertices: the positions
// are copied and the tree's boxes refitted (bvh.Tree.Refit), in O(#V + #F)
// time and without allocating (once a first non-finite coordinate has been
// met, if any). It panics if len(positions) is not m's #V.
func (m *Mesh) Refit(positions []mgl64.Vec3) {
	if len(positions) != len(m.positions) {
		panic(fmt.Sprintf("collide: Refit with %d positions for a mesh of %d vertices", len(positions), len(m.positions)))
	}
	m.tree.Refit(m.setPositions(positions))
}

// setPositions copies positions into m and classifies them, and returns
// the positions for the tree: positions itself if every coordinate is
// finite, otherwise a copy with the non-finite coordinates replaced by 0.
func (m *Mesh) setPositions(positions []mgl64.Vec3) []mgl64.Vec3 {
	m.positions = append(m.positions[:0], positions...)
	all := narrow
	for i := range positions {
		all = max(all, vecKind(&positions[i]))
	}
	m.mixed = all != narrow
	if !m.mixed {
		return positions
	}
	m.vkinds = slices.Grow(m.vkinds[:0], len(positions))[:len(positions)]
	for i := range positions {
		m.vkinds[i] = vecKind(&positions[i])
	}
	if all != bad {
		return positions
	}
	m.finite = append(m.finite[:0], positions...)
	for i, p := range m.finite {
		for k := range 3 {
			if kindOf(p[k]) == bad {
				m.finite[i][k] = 0
			}
		}
	}
	return m.finite
}

// triangle stores the corners of triangle f in t and returns their kind.
func (m *Mesh) triangle(f int, t *[3]mgl64.Vec3) kind {
	v := &m.triangles[f]
	t[0], t[1], t[2] = m.positions[v[0]], m.positions[v[1]], m.positions[v[2]]
	if !m.mixed {
		return narrow
	}
	return max(m.vkinds[v[0]], m.vkinds[v[1]], m.vkinds[v[2]])
}

// Bounds returns the bounding box of m's triangles at its current
// positions; it is empty for a mesh without triangles. Pass the bounds of
// many meshes to Grid.Pairs for the pairs worth testing.
func (m *Mesh) Bounds() bvh.AABB {
	return m.tree.Bounds()
}

// overlapBox returns the intersection of the bounds of a and b, and whether
// it is not empty.
func overlapBox(a, b *Mesh) (bvh.AABB, bool) {
	ba, bb := a.Bounds(), b.Bounds()
	if !ba.Overlaps(bb) {
		return bvh.AABB{}, false
	}
	var box bvh.AABB
	for k := range 3 {
		box.Min[k] = max(ba.Min[k], bb.Min[k])
		box.Max[k] = min(ba.Max[k], bb.Max[k])
	}
	return box, true
}

// MeshesIntersect reports whether a triangle of a intersects a triangle of
// b, in the sense of TrianglesIntersect (closed triangles: touching counts;
// exact). It tells whether the surfaces meet, not whether the solids they
// bound overlap: a closed mesh entirely inside another meets no triangle of
// it (see Contains). The triangles of the mesh with fewer triangles whose
// boxes meet the intersection of the two meshes' bounds (bvh.Tree.Query)
// each look up their candidates in the other's tree; the search stops at
// the first intersecting pair.
func MeshesIntersect(a, b *Mesh) bool {
	if len(a.triangles) > len(b.triangles) {
		a, b = b, a
	}
	both, ok := overlapBox(a, b)
	if !ok {
		return false
	}
	var (
		ta, tb [3]mgl64.Vec3
		ka     kind
		found  bool
	)
	inner := func(j int) bool {
		kb := b.triangle(j, &tb)
		found = kb != bad && trianglesIntersect(&ta, &tb, max(ka, kb) == wide)
		return !found
	}
	a.tree.Query(both, func(i int) bool {
		if ka = a.triangle(i, &ta); ka != bad {
			b.tree.Query(triBox(&ta), inner)
		}
		return !found
	})
	return found
}

// MeshPairs calls fn(i, j) for every triangle i of a and triangle j of b
// that intersect (TrianglesIntersect: touching counts), in increasing order
// of i and then of j, until fn returns false. Triangles are indices into
// the slices given to NewMesh. It is the narrow phase of the ensemble tests
// between groups of triangles. a and b may be the same mesh; then every
// triangle pairs with itself and with the triangles it shares a corner with
// (they touch), and callers after self-intersections filter those. The
// triangles of a are taken in order, each in the bounds of both meshes
// looking up its candidates in b's tree (bvh.Tree.Query).
func MeshPairs(a, b *Mesh, fn func(i, j int) bool) {
	both, ok := overlapBox(a, b)
	if !ok {
		return
	}
	var cand []int
	collect := func(j int) bool {
		cand = append(cand, j)
		return true
	}
	var ta, tb [3]mgl64.Vec3
	for i := range a.triangles {
		ka := a.triangle(i, &ta)
		box := triBox(&ta)
		if ka == bad || !box.Overlaps(both) {
			continue
		}
		cand = cand[:0]
		b.tree.Query(box, collect)
		slices.Sort(cand)
		for _, j := range cand {
			kb := b.triangle(j, &tb)
			if kb != bad && trianglesIntersect(&ta, &tb, max(ka, kb) == wide) && !fn(i, j) {
				return
			}
		}
	}
}

// SphereMesh reports whether the solid ball of the given center and radius
// meets a triangle of m (SphereTriangle: touching counts, up to rounding).
// A ball entirely inside a closed mesh meets none of its triangles: ask
// m.Contains(center) for that. A negative, NaN or infinite radius, or a
// non-finite center, gives false.
func SphereMesh(center mgl64.Vec3, radius float64, m *Mesh) bool {
	if !(radius >= 0 && radius <= math.MaxFloat64) || vecKind(&center) == bad {
		return false
	}
	found := false
	var t [3]mgl64.Vec3
	box := bvh.AABB{Min: center, Max: center}.Expand(radius)
	m.tree.Query(box, func(j int) bool {
		m.triangle(j, &t)
		found = SphereTriangle(center, radius, t)
		return !found
	})
	return found
}

// Contains reports whether the point p lies in the closed solid bounded by
// m: inside it or on its surface (exactly on a triangle). m must be closed,
// every edge shared by two triangles (or any even number), for the answer
// to mean anything; for an open mesh it is the parity below. A point with a
// NaN or infinite coordinate is not contained.
//
// The answer is exact for the float64 coordinates. A point on the surface
// is found by TrianglesIntersect with the point as a degenerate triangle.
// Otherwise the answer is the parity of the number of triangles crossed by
// the ray from p along +x, with p displaced symbolically by (0, δ, δ²) for
// an infinitesimal δ > 0 (simulation of simplicity: Edelsbrunner and Mücke,
// "Simulation of simplicity", ACM Transactions on Graphics 9(1), 1990). The
// displaced ray passes through no edge or vertex and crosses no triangle
// edge-on, so the count is a proper crossing count for a point in the same
// component of space as p. A triangle is crossed when the displaced point
// (y, z) lies strictly inside its projection onto the yz-plane (orient2d
// with the displacement's terms breaking ties) and its plane lies ahead in
// +x (orient3d). The candidates are the triangles whose boxes meet the ray,
// from bvh.Tree.Query with a box of zero width in y and z.
//
// With MeshesIntersect it answers containment: when the surfaces of two
// closed meshes do not meet, a connected mesh a lies inside b iff
// b.Contains(any vertex of a); and a ball that meets no triangle of m
// (SphereMesh) lies inside m iff m.Contains(center).
func (m *Mesh) Contains(p mgl64.Vec3) bool {
	kp := vecKind(&p)
	bounds := m.Bounds()
	pointBox := bvh.AABB{Min: p, Max: p}
	if kp == bad || !bounds.Overlaps(pointBox) {
		return false
	}
	point := [3]mgl64.Vec3{p, p, p}
	ray := bvh.AABB{Min: p, Max: mgl64.Vec3{bounds.Max[0], p[1], p[2]}}
	on, odd := false, false
	var t [3]mgl64.Vec3
	m.tree.Query(ray, func(j int) bool {
		kt := m.triangle(j, &t)
		if kt == bad {
			return true
		}
		wide := max(kp, kt) == wide
		if triBox(&t).Overlaps(pointBox) && trianglesIntersect(&point, &t, wide) {
			on = true
			return false
		}
		if rayCrosses(&p, &t, wide) {
			odd = !odd
		}
		return true
	})
	return on || odd
}

// rayCrosses reports whether the ray from p + (0, δ, δ²) along +x crosses
// the triangle t, p not on t (see Contains).
func rayCrosses(p *mgl64.Vec3, t *[3]mgl64.Vec3, wide bool) bool {
	s := perturbedSide(p, &t[0], &t[1], wide)
	if s == 0 || perturbedSide(p, &t[1], &t[2], wide) != s || perturbedSide(p, &t[2], &t[0], wide) != s {
		return false
	}
	// Strictly inside, the three sides sum to the projected area n_x of
	// t's normal n = (t₁−t₀) × (t₂−t₀), so n_x has sign s. The plane meets
	// the ray's line at x with n_x·(x − p_x) = −n·(p − t₀), ahead of p iff
	// n·(p − t₀) = orient3d(t, p) has sign −s (it is not 0: p is not on t).
	return orient3d(&t[0], &t[1], &t[2], p, wide) == -s
}

// perturbedSide returns the sign of orient2d(a, b, q + (δ, δ²)) in the
// yz-plane, for q = (p_y, p_z) and an infinitesimal δ > 0:
// (b−a) × (q−a) + (b−a)_y·δ² − (b−a)_z·δ, whose sign is that of the first
// nonzero term; 0 only when a and b project to the same point.
func perturbedSide(p, a, b *mgl64.Vec3, wide bool) int {
	if s := orient2d(a[1], a[2], b[1], b[2], p[1], p[2], wide); s != 0 {
		return s
	}
	if a[2] != b[2] {
		return sign(a[2] - b[2])
	}
	return sign(b[1] - a[1])
}
