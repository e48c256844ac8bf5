package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
)

// TrianglesIntersect reports whether the triangles a and b share at least
// one point. Triangles are closed: their edges and corners belong to them,
// so triangles that only touch, at a single point (a corner on the other's
// face, edge or corner, or two edges crossing) or along a segment,
// intersect. Coplanar triangles intersect when their closed regions in the
// common plane overlap, again touching included. A degenerate triangle
// (collinear or coincident corners) is the closed segment or point its
// corners span, and intersects by the same rule; it never panics. A
// triangle with a NaN or infinite coordinate intersects nothing.
//
// The answer is exact for the given float64 coordinates: every decision is
// the sign of an orientation determinant (orient3d, orient2d) decided
// exactly (see predicates.go), with no tolerance. It is therefore
// symmetric, TrianglesIntersect(a, b) == TrianglesIntersect(b, a), and
// independent of the order of each triangle's corners.
//
// The method is Guigue and Devillers' ("Fast and robust triangle-triangle
// overlap test using orientation predicates", Journal of Graphics Tools
// 8(1), 2003), with their general position case and a general fallback:
//
//  1. If the bounding boxes are disjoint, or the corners of one triangle lie
//     strictly on one side of the other's plane, there is no intersection.
//  2. If no corner lies on the other triangle's plane, each triangle has
//     one corner alone on its side of the other's plane; both cross the
//     line L where the planes meet, in intervals whose ends lie on the two
//     edges from that corner. Label a = (p₁, q₁, r₁) and b = (p₂, q₂, r₂)
//     with p₁, p₂ the lone corners, cyclically (keeping the orientation),
//     then swap q₂, r₂ if p₁ lies below b's plane and q₁, r₁ if p₂ lies
//     below a's plane, "above" being the side the normal n = (q−p) × (r−p)
//     points to. Along L, directed by n_a × n_b, the intervals are then
//     [j, i] and [k, l] for i, j, k, l on the edges p₁q₁, p₁r₁, p₂q₂, p₂r₂,
//     and orient3d(p₁, q₁, p₂, q₂) > 0 iff k lies beyond i, and
//     orient3d(p₁, r₁, p₂, r₂) > 0 iff l lies beyond j; so the closed
//     intervals overlap iff orient3d(p₁, q₁, p₂, q₂) ≤ 0 and
//     orient3d(p₁, r₁, p₂, r₂) ≥ 0.
//  3. Otherwise (a corner on the other's plane, coplanar or degenerate
//     triangles) they intersect iff an edge of one meets the other
//     triangle: the intersection, when not empty, is a compact convex set
//     with an extreme point, a point in the relative interior of both
//     triangles is not extreme, and a degenerate triangle is the union of
//     its edges. A segment crossing a triangle's plane at a
//     single point meets the triangle iff the three orient3d of the
//     segment with the triangle's edges do not have opposite signs; a
//     segment in the plane is tested in a coordinate projection that is
//     one-to-one on the plane (one where the projected triangle has nonzero
//     area, decided exactly); an edge against a degenerate triangle is
//     three segment pairs, and two segments meet iff they are coplanar and
//     meet in all three coordinate projections (one of which is one-to-one
//     on their common plane or line).
func TrianglesIntersect(a, b [3]mgl64.Vec3) bool {
	if !triBox(&a).Overlaps(triBox(&b)) {
		return false
	}
	k := max(triKind(&a), triKind(&b))
	if k == bad {
		return false
	}
	return trianglesIntersect(&a, &b, k == wide)
}

// trianglesIntersect is TrianglesIntersect for finite corners whose
// bounding boxes overlap; wide is whether some coordinate is outside the
// narrow range (see kind).
func trianglesIntersect(a, b *[3]mgl64.Vec3, wide bool) bool {
	pb := newPlane(&b[0], &b[1], &b[2], wide)
	sa := [3]int{pb.side(&a[0]), pb.side(&a[1]), pb.side(&a[2])}
	if sa[0] != 0 && sa[0] == sa[1] && sa[0] == sa[2] {
		return false
	}
	pa := newPlane(&a[0], &a[1], &a[2], wide)
	sb := [3]int{pa.side(&b[0]), pa.side(&b[1]), pa.side(&b[2])}
	if sb[0] != 0 && sb[0] == sb[1] && sb[0] == sb[2] {
		return false
	}
	if sa[0]*sa[1]*sa[2] != 0 && sb[0]*sb[1]*sb[2] != 0 {
		return crossing(a, b, sa, sb, wide)
	}
	return edgesMeet(a, b, sa, wide) || edgesMeet(b, a, sb, wide)
}

// crossing is step 2 of TrianglesIntersect: no corner on the other's plane,
// and each triangle with corners on both sides of the other's plane. sa
// holds the sides of a's corners relative to b's plane, sb those of b's
// relative to a's.
func crossing(a, b *[3]mgl64.Vec3, sa, sb [3]int, wide bool) bool {
	i, j := lone(sa), lone(sb)
	p1, q1, r1 := &a[i], &a[(i+1)%3], &a[(i+2)%3]
	p2, q2, r2 := &b[j], &b[(j+1)%3], &b[(j+2)%3]
	if sa[i] < 0 {
		q2, r2 = r2, q2
	}
	if sb[j] < 0 {
		q1, r1 = r1, q1
	}
	return orient3d(p1, q1, p2, q2, wide) <= 0 && orient3d(p1, r1, p2, r2, wide) >= 0
}

// lone returns the index of the sign in s that differs from the other two.
func lone(s [3]int) int {
	switch {
	case s[0] == s[1]:
		return 2
	case s[0] == s[2]:
		return 1
	}
	return 0
}

// edgesMeet reports whether an edge of s meets the triangle t; side[i] is
// the side of corner i of s relative to t's plane (all 0 if t is
// degenerate).
func edgesMeet(s, t *[3]mgl64.Vec3, side [3]int, wide bool) bool {
	axis := flatAxis(t, wide)
	for i := range 3 {
		j := (i + 1) % 3
		if segmentTriangle(&s[i], &s[j], side[i], side[j], t, axis, wide) {
			return true
		}
	}
	return false
}

// flatAxis returns a coordinate axis k such that dropping coordinate k maps
// the plane of t one-to-one onto a coordinate plane, that is t's projection
// has nonzero area, or −1 if t is degenerate. The projected area along k
// is the k-th component of t's normal (t₁−t₀) × (t₂−t₀); the axis where its
// floating-point value is largest is tried first.
func flatAxis(t *[3]mgl64.Vec3, wide bool) int {
	u, v := t[1].Sub(t[0]), t[2].Sub(t[0])
	n := u.Cross(v)
	first := 0
	if math.Abs(n[1]) > math.Abs(n[first]) {
		first = 1
	}
	if math.Abs(n[2]) > math.Abs(n[first]) {
		first = 2
	}
	for d := range 3 {
		k := (first + d) % 3
		x, y := (k+1)%3, (k+2)%3
		if orient2d(t[0][x], t[0][y], t[1][x], t[1][y], t[2][x], t[2][y], wide) != 0 {
			return k
		}
	}
	return -1
}

// segmentTriangle reports whether the closed segment s₀s₁ (possibly a
// point) meets the closed triangle t. o0 and o1 are the sides of s₀ and s₁
// relative to t's plane and axis is flatAxis(t).
func segmentTriangle(s0, s1 *mgl64.Vec3, o0, o1 int, t *[3]mgl64.Vec3, axis int, wide bool) bool {
	if axis < 0 {
		return segmentsMeet(s0, s1, &t[0], &t[1], wide) ||
			segmentsMeet(s0, s1, &t[1], &t[2], wide) ||
			segmentsMeet(s0, s1, &t[2], &t[0], wide)
	}
	if o0*o1 > 0 {
		return false
	}
	if o0 == 0 && o1 == 0 {
		return segmentTriangle2D(s0, s1, t, (axis+1)%3, (axis+2)%3, wide)
	}
	// The segment meets the plane at one point X. With d = s₁ − s₀,
	// orient3d(s₀, s₁, tᵢ, tⱼ) = d · ((tᵢ−X) × (tⱼ−X)) is (d·n) times
	// twice the signed area of X, tᵢ, tⱼ in t's plane, and d·n ≠ 0; the
	// three areas sum to t's, so X is in t iff none has the opposite sign.
	var pos, neg bool
	for i := range 3 {
		switch orient3d(s0, s1, &t[i], &t[(i+1)%3], wide) {
		case 1:
			pos = true
		case -1:
			neg = true
		}
	}
	return !(pos && neg)
}

// segmentTriangle2D reports whether the segment s₀s₁ meets the triangle t,
// all in one plane, in the projection onto coordinates x and y, where t
// has nonzero area: an end of the segment is in t, or the segment meets
// an edge.
func segmentTriangle2D(s0, s1 *mgl64.Vec3, t *[3]mgl64.Vec3, x, y int, wide bool) bool {
	if pointInTriangle2D(s0, t, x, y, wide) || pointInTriangle2D(s1, t, x, y, wide) {
		return true
	}
	for i := range 3 {
		if segmentsMeet2D(s0, s1, &t[i], &t[(i+1)%3], x, y, wide) {
			return true
		}
	}
	return false
}

// pointInTriangle2D reports whether p is in the closed triangle t,
// projected onto coordinates x and y, where t has nonzero area: the three
// orientations of p with t's edges sum to t's and so are all of its sign
// or zero.
func pointInTriangle2D(p *mgl64.Vec3, t *[3]mgl64.Vec3, x, y int, wide bool) bool {
	var pos, neg bool
	for i := range 3 {
		a, b := &t[i], &t[(i+1)%3]
		switch orient2d(a[x], a[y], b[x], b[y], p[x], p[y], wide) {
		case 1:
			pos = true
		case -1:
			neg = true
		}
	}
	return !(pos && neg)
}

// segmentsMeet reports whether the closed segments p₀p₁ and q₀q₁ (either
// possibly a point) share a point: they must be coplanar, and then they
// meet iff their projections onto all three coordinate planes meet. Each
// projection of a common point is common; conversely one of the
// projections is one-to-one on the plane or line spanned by the four
// points.
func segmentsMeet(p0, p1, q0, q1 *mgl64.Vec3, wide bool) bool {
	return orient3d(p0, p1, q0, q1, wide) == 0 &&
		segmentsMeet2D(p0, p1, q0, q1, 0, 1, wide) &&
		segmentsMeet2D(p0, p1, q0, q1, 1, 2, wide) &&
		segmentsMeet2D(p0, p1, q0, q1, 2, 0, wide)
}

// segmentsMeet2D reports whether the closed segments p₀p₁ and q₀q₁ (either
// possibly a point), projected onto coordinates x and y, share a point
// (Cormen, Leiserson, Rivest and Stein, Introduction to Algorithms, §33.1):
// they cross where each separates the other's ends strictly, and otherwise
// meet iff an end of one lies on the other.
func segmentsMeet2D(p0, p1, q0, q1 *mgl64.Vec3, x, y int, wide bool) bool {
	d1 := orient2d(p0[x], p0[y], p1[x], p1[y], q0[x], q0[y], wide)
	d2 := orient2d(p0[x], p0[y], p1[x], p1[y], q1[x], q1[y], wide)
	if d1*d2 > 0 {
		return false
	}
	d3 := orient2d(q0[x], q0[y], q1[x], q1[y], p0[x], p0[y], wide)
	d4 := orient2d(q0[x], q0[y], q1[x], q1[y], p1[x], p1[y], wide)
	if d3*d4 > 0 {
		return false
	}
	if d1*d2 < 0 && d3*d4 < 0 {
		return true
	}
	return d1 == 0 && inBox2D(q0, p0, p1, x, y) ||
		d2 == 0 && inBox2D(q1, p0, p1, x, y) ||
		d3 == 0 && inBox2D(p0, q0, q1, x, y) ||
		d4 == 0 && inBox2D(p1, q0, q1, x, y)
}

// inBox2D reports whether r lies in the bounding box of a and b in
// coordinates x and y: for r collinear with a and b, whether r is on the
// segment ab.
func inBox2D(r, a, b *mgl64.Vec3, x, y int) bool {
	return min(a[x], b[x]) <= r[x] && r[x] <= max(a[x], b[x]) &&
		min(a[y], b[y]) <= r[y] && r[y] <= max(a[y], b[y])
}

// triBox returns the bounding box of the corners of t (unspecified if a
// coordinate is NaN).
func triBox(t *[3]mgl64.Vec3) bvh.AABB {
	var b bvh.AABB
	for k := range 3 {
		// Comparisons rather than the min and max builtins, whose NaN and
		// signed-zero rules cost several instructions each.
		lo, hi := t[0][k], t[0][k]
		if x := t[1][k]; x < lo {
			lo = x
		} else if x > hi {
			hi = x
		}
		if x := t[2][k]; x < lo {
			lo = x
		} else if x > hi {
			hi = x
		}
		b.Min[k], b.Max[k] = lo, hi
	}
	return b
}
