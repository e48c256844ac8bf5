package synth

import (
	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
)

// Plane is the ground: the half-space below the plane through Point with
// unit normal Normal is solid.
type Plane struct {
	Point, Normal mgl64.Vec3
}

// Hits reports whether a vertex lies less than margin above the plane. A
// triangle lies in the convex hull of its corners, so testing the
// vertices is exact.
func (p Plane) Hits(pos []mgl64.Vec3, _ [][3]int, _ *bvh.Tree, margin float64) bool {
	for _, v := range pos {
		if v.Sub(p.Point).Dot(p.Normal) < margin {
			return true
		}
	}
	return false
}
