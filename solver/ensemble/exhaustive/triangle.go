package exhaustive

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// TrianglesIntersect reports whether the closed triangles a and b share a
// point. Touching counts: a shared corner, a shared edge, a corner on the
// other's face or edge, crossing edges, coplanar triangles whose regions
// only touch; as in solver/collide, whose test this one is written apart
// from, to check it. A degenerate triangle (collinear or coincident
// corners) is the segment or point its corners span. A triangle with a
// non-finite coordinate intersects nothing.
//
// The answer is exact for the float64 coordinates: every decision is the
// sign of an orientation determinant (orient3d, orient2d), exact (see
// predicates.go), with no tolerance.
//
// The method. T_a ∩ T_b, if not empty, is a compact convex set; take an
// extreme point x of it. If x lay in the relative interior of both
// triangles, it would not be extreme (non-coplanar triangles meet along
// a segment of the line where their planes cross, which could be
// extended past x in both; coplanar ones in a convex region containing a
// disc around x). So x lies on an edge of a or of b, and
//
//	a ∩ b ≠ ∅  ⇔  some edge of a meets b, or some edge of b meets a
//
// (for a degenerate triangle, trivially: it is the union of its edges).
// Before the six segment–triangle tests, two rejections: disjoint
// bounding boxes, and all three corners of one triangle strictly on one
// side of the other's plane.
//
// A segment pq against a non-degenerate triangle t = (t₀, t₁, t₂), with
// o_p = orient3d(t₀, t₁, t₂, p) and o_q likewise:
//
//   - o_p, o_q nonzero and equal: pq misses t's plane.
//   - o_p = o_q = 0: pq lies in the plane. In a coordinate projection
//     that is one-to-one on the plane (one where the projected t has
//     nonzero area, decided exactly), pq meets t iff p lies in t or pq
//     meets an edge of t.
//   - otherwise pq meets the plane at one point X (p or q, if on it), and
//     X lies in the closed t iff the three orient3d(p, q, tᵢ, tᵢ₊₁) do
//     not have opposite signs: each sign says on which side of the edge
//     tᵢtᵢ₊₁ the line pq passes.
//
// Against a degenerate triangle: three segment–segment tests. Two closed
// segments meet iff they are coplanar (orient3d = 0) and meet in each of
// the three coordinate projections: some projection is one-to-one on a
// plane (or line) holding both, and meeting there means meeting in space.
// In the plane, segments pq and rs meet iff neither lies strictly on one
// side of the other's line, or, when all four points are collinear, iff
// their bounding intervals overlap.
func TrianglesIntersect(a, b [3]mgl64.Vec3) bool {
	if !finite(&a) || !finite(&b) || !boxesOverlap(&a, &b) {
		return false
	}
	var sa, sb [3]int // sa: b's corners against a's plane; sb: a's against b's
	for i := range 3 {
		sa[i] = orient3d(a[0], a[1], a[2], b[i])
		sb[i] = orient3d(b[0], b[1], b[2], a[i])
	}
	if oneSide(sa) || oneSide(sb) {
		return false
	}
	da, db := degenerate(&a), degenerate(&b)
	for i := range 3 {
		j := (i + 1) % 3
		if segmentTriangle(a[i], a[j], sb[i], sb[j], &b, db) || segmentTriangle(b[i], b[j], sa[i], sa[j], &a, da) {
			return true
		}
	}
	return false
}

// segmentTriangle reports whether the closed segment pq meets the closed
// triangle t; op, oq are orient3d(t₀, t₁, t₂, p) and (…, q); deg says t is
// degenerate.
func segmentTriangle(p, q mgl64.Vec3, op, oq int, t *[3]mgl64.Vec3, deg bool) bool {
	if deg {
		return segmentsMeet3(p, q, t[0], t[1]) || segmentsMeet3(p, q, t[1], t[2]) || segmentsMeet3(p, q, t[2], t[0])
	}
	if op*oq > 0 {
		return false
	}
	if op == 0 && oq == 0 {
		i, j := projection(t)
		if pointInTriangle2(p, t, i, j) {
			return true
		}
		return segmentsMeet2(p, q, t[0], t[1], i, j) || segmentsMeet2(p, q, t[1], t[2], i, j) || segmentsMeet2(p, q, t[2], t[0], i, j)
	}
	s0 := orient3d(p, q, t[0], t[1])
	s1 := orient3d(p, q, t[1], t[2])
	s2 := orient3d(p, q, t[2], t[0])
	return !(s0 > 0 || s1 > 0 || s2 > 0) || !(s0 < 0 || s1 < 0 || s2 < 0)
}

// planes are the coordinate projections (i, j): dropping z, x, y.
var planes = [3][2]int{{0, 1}, {1, 2}, {2, 0}}

// degenerate reports whether t's corners are collinear (or coincide):
// its projections on the three coordinate planes all have zero area.
func degenerate(t *[3]mgl64.Vec3) bool {
	for _, pl := range planes {
		if orient2d(t[0], t[1], t[2], pl[0], pl[1]) != 0 {
			return false
		}
	}
	return true
}

// projection returns a coordinate plane on which the non-degenerate t
// projects with nonzero area (so the projection is one-to-one on t's
// plane), trying first the one the normal is most nearly perpendicular
// to.
func projection(t *[3]mgl64.Vec3) (int, int) {
	n := t[1].Sub(t[0]).Cross(t[2].Sub(t[0]))
	order := [3]int{2, 0, 1} // drop z, x, y: planes[0], planes[1], planes[2]
	best := 0
	for k := 1; k < 3; k++ {
		if math.Abs(n[order[k]]) > math.Abs(n[order[best]]) {
			best = k
		}
	}
	for k := range 3 {
		pl := planes[(best+k)%3]
		if orient2d(t[0], t[1], t[2], pl[0], pl[1]) != 0 {
			return pl[0], pl[1]
		}
	}
	panic("exhaustive: projection of a degenerate triangle")
}

// pointInTriangle2 reports whether p lies in the closed projected
// triangle t (of nonzero projected area) in the plane (i, j).
func pointInTriangle2(p mgl64.Vec3, t *[3]mgl64.Vec3, i, j int) bool {
	s0 := orient2d(t[0], t[1], p, i, j)
	s1 := orient2d(t[1], t[2], p, i, j)
	s2 := orient2d(t[2], t[0], p, i, j)
	return !(s0 > 0 || s1 > 0 || s2 > 0) || !(s0 < 0 || s1 < 0 || s2 < 0)
}

// segmentsMeet2 reports whether the closed segments pq and rs meet in the
// coordinate plane (i, j).
func segmentsMeet2(p, q, r, s mgl64.Vec3, i, j int) bool {
	o1 := orient2d(p, q, r, i, j)
	o2 := orient2d(p, q, s, i, j)
	o3 := orient2d(r, s, p, i, j)
	o4 := orient2d(r, s, q, i, j)
	if o1 == 0 && o2 == 0 && o3 == 0 && o4 == 0 { // collinear
		return overlap1(p[i], q[i], r[i], s[i]) && overlap1(p[j], q[j], r[j], s[j])
	}
	return o1*o2 <= 0 && o3*o4 <= 0
}

// segmentsMeet3 reports whether the closed segments pq and rs meet in
// space.
func segmentsMeet3(p, q, r, s mgl64.Vec3) bool {
	if orient3d(p, q, r, s) != 0 {
		return false
	}
	for _, pl := range planes {
		if !segmentsMeet2(p, q, r, s, pl[0], pl[1]) {
			return false
		}
	}
	return true
}

// overlap1 reports whether the closed intervals spanned by a, b and by
// c, d overlap.
func overlap1(a, b, c, d float64) bool {
	return max(a, b) >= min(c, d) && max(c, d) >= min(a, b)
}

func oneSide(s [3]int) bool {
	return s[0] > 0 && s[1] > 0 && s[2] > 0 || s[0] < 0 && s[1] < 0 && s[2] < 0
}

func boxesOverlap(a, b *[3]mgl64.Vec3) bool {
	for k := range 3 {
		if max(a[0][k], a[1][k], a[2][k]) < min(b[0][k], b[1][k], b[2][k]) ||
			max(b[0][k], b[1][k], b[2][k]) < min(a[0][k], a[1][k], a[2][k]) {
			return false
		}
	}
	return true
}

func finite(t *[3]mgl64.Vec3) bool {
	for _, v := range t {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return false
			}
		}
	}
	return true
}
