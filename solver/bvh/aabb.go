package bvh

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// AABB is a closed axis-aligned box {p : Min[k] ≤ p[k] ≤ Max[k], k = 0, 1, 2}.
// A box with Min[k] > Max[k] on some axis is empty; EmptyAABB returns the
// canonical empty box, the identity of Union.
type AABB struct {
	Min, Max mgl64.Vec3
}

// EmptyAABB returns the box with Min = +∞ and Max = −∞ on every axis: it
// contains no point, overlaps nothing, and b.Union(EmptyAABB()) == b.
func EmptyAABB() AABB {
	inf := math.Inf(1)
	return AABB{Min: mgl64.Vec3{inf, inf, inf}, Max: mgl64.Vec3{-inf, -inf, -inf}}
}

// Empty reports whether b contains no point, that is Min[k] > Max[k] on
// some axis.
func (b AABB) Empty() bool {
	return b.Min[0] > b.Max[0] || b.Min[1] > b.Max[1] || b.Min[2] > b.Max[2]
}

// Union returns the smallest box containing b and o.
func (b AABB) Union(o AABB) AABB {
	return AABB{
		Min: mgl64.Vec3{min(b.Min[0], o.Min[0]), min(b.Min[1], o.Min[1]), min(b.Min[2], o.Min[2])},
		Max: mgl64.Vec3{max(b.Max[0], o.Max[0]), max(b.Max[1], o.Max[1]), max(b.Max[2], o.Max[2])},
	}
}

// Include returns the smallest box containing b and the point p.
func (b AABB) Include(p mgl64.Vec3) AABB {
	return AABB{
		Min: mgl64.Vec3{min(b.Min[0], p[0]), min(b.Min[1], p[1]), min(b.Min[2], p[2])},
		Max: mgl64.Vec3{max(b.Max[0], p[0]), max(b.Max[1], p[1]), max(b.Max[2], p[2])},
	}
}

// Clamp returns the point of the non-empty box b nearest p.
func (b AABB) Clamp(p mgl64.Vec3) mgl64.Vec3 {
	for k := range 3 {
		p[k] = min(max(p[k], b.Min[k]), b.Max[k])
	}
	return p
}

// Expand returns b grown by margin on every side: [Min − margin, Max + margin].
// A negative margin shrinks the box (and may empty it). Collision queries use
// it to find triangles within a distance margin of a box.
func (b AABB) Expand(margin float64) AABB {
	m := mgl64.Vec3{margin, margin, margin}
	return AABB{Min: b.Min.Sub(m), Max: b.Max.Add(m)}
}

// Overlaps reports whether b and o share at least one point. Boxes are
// closed, so boxes that only touch overlap. EmptyAABB() overlaps nothing
// (its bounds are ±Inf); other inverted boxes (Min > Max on an axis) are
// not valid arguments and give no meaningful answer, which keeps this
// test, the innermost of every query, to six comparisons.
func (b AABB) Overlaps(o AABB) bool {
	return b.Min[0] <= o.Max[0] && o.Min[0] <= b.Max[0] &&
		b.Min[1] <= o.Max[1] && o.Min[1] <= b.Max[1] &&
		b.Min[2] <= o.Max[2] && o.Min[2] <= b.Max[2]
}

// emptyBox is EmptyAABB(), for hot loops.
var emptyBox = EmptyAABB()

// halfArea returns half the surface area of the non-empty box b, xy + yz + zx
// for extents x, y, z: the quantity the surface area heuristic compares.
func (b *AABB) halfArea() float64 {
	x, y, z := b.Max[0]-b.Min[0], b.Max[1]-b.Min[1], b.Max[2]-b.Min[2]
	return x*y + y*z + z*x
}

// grow sets b to b.Union(*o), in place: the form hot loops use, as Go keeps
// array-valued temporaries in memory.
func (b *AABB) grow(o *AABB) {
	b.Min[0], b.Max[0] = min(b.Min[0], o.Min[0]), max(b.Max[0], o.Max[0])
	b.Min[1], b.Max[1] = min(b.Min[1], o.Min[1]), max(b.Max[1], o.Max[1])
	b.Min[2], b.Max[2] = min(b.Min[2], o.Min[2]), max(b.Max[2], o.Max[2])
}

// growTriangle sets b to the union of b and the bounding box of the corners v.
func (b *AABB) growTriangle(v *[3]mgl64.Vec3) {
	for k := range 3 {
		b.Min[k] = min(b.Min[k], v[0][k], v[1][k], v[2][k])
		b.Max[k] = max(b.Max[k], v[0][k], v[1][k], v[2][k])
	}
}

// triangleBox returns the bounding box of the corners v.
func triangleBox(v *[3]mgl64.Vec3) AABB {
	b := emptyBox
	b.growTriangle(v)
	return b
}
