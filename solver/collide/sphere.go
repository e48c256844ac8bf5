package collide

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// SphereTriangle reports whether the solid ball of the given center and
// radius meets the closed triangle tri: whether the point of tri closest to
// center is at distance at most radius (touching counts). A degenerate
// triangle is the segment or point its corners span. A negative, NaN or
// infinite radius, or a non-finite coordinate, gives false.
//
// Unlike TrianglesIntersect this test is not exact: the squared distance
// is computed in floating point, after translating the center to the
// origin and scaling by a power of two so that nothing overflows or
// underflows, and compared with radius². The answer can be wrong only when
// the distance is within a few units of rounding of radius (relative to the
// size of the configuration); a radius is a tolerance in itself, so an
// exact answer would buy nothing.
//
// The closest point is the projection of the center onto tri's plane when
// that falls inside tri (the three edge functions, taken with the normal
// n = (t₁−t₀) × (t₂−t₀), are nonnegative), and otherwise the closest point
// of the three edges (Ericson, Real-Time Collision Detection, §5.1.5, by
// regions); a triangle with n = 0 is its edges.
func SphereTriangle(center mgl64.Vec3, radius float64, tri [3]mgl64.Vec3) bool {
	if !(radius >= 0 && radius <= math.MaxFloat64) || vecKind(&center) == bad || triKind(&tri) == bad {
		return false
	}
	box := triBox(&tri)
	for k := range 3 {
		if box.Min[k]-center[k] > radius || center[k]-box.Max[k] > radius {
			return false // a coordinate alone is farther than radius
		}
	}
	// Halve before subtracting so that no difference overflows, then scale
	// the largest magnitude into [½, 1).
	var q [3]mgl64.Vec3
	largest := radius / 2
	for i := range 3 {
		for k := range 3 {
			q[i][k] = tri[i][k]/2 - center[k]/2
			largest = max(largest, math.Abs(q[i][k]))
		}
	}
	if largest == 0 {
		return true // every corner at the center
	}
	_, e := math.Frexp(largest)
	s := math.Ldexp(1, -e)
	for i := range 3 {
		q[i] = q[i].Mul(s)
	}
	r := radius / 2 * s
	return distSqToOrigin(&q) <= r*r
}

// distSqToOrigin returns the squared distance from the origin to the closed
// triangle t.
func distSqToOrigin(t *[3]mgl64.Vec3) float64 {
	a, b, c := t[0], t[1], t[2]
	n := b.Sub(a).Cross(c.Sub(a))
	if nn := n.Dot(n); nn > 0 {
		// The edge function of edge pq at the origin's projection is
		// ((q−p) × (−p)) · n = (p × q) · n.
		if a.Cross(b).Dot(n) >= 0 && b.Cross(c).Dot(n) >= 0 && c.Cross(a).Dot(n) >= 0 {
			h := n.Dot(a)
			return h * h / nn
		}
	}
	return min(distSqToSegment(a, b), distSqToSegment(b, c), distSqToSegment(c, a))
}

// distSqToSegment returns the squared distance from the origin to the
// closed segment ab.
func distSqToSegment(a, b mgl64.Vec3) float64 {
	d := b.Sub(a)
	t := 0.0
	if dd := d.Dot(d); dd > 0 {
		t = min(max(-a.Dot(d)/dd, 0), 1)
	}
	p := a.Add(d.Mul(t))
	return p.Dot(p)
}
