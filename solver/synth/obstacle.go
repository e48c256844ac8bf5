package synth

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/solver/bvh"
	"gallop/solver/collide"
	"gallop/solver/meshgraph"
)

// Obstacle is a scene object a synthesised mesh must keep out of.
type Obstacle interface {
	// Hits reports whether the posed mesh comes within margin of the
	// obstacle: its surface touches or crosses the obstacle, or one of
	// them lies inside the other.
	Hits(p *Posed, margin float64) bool
}

// Posed is one frame of the synthesised mesh as obstacles see it.
type Posed struct {
	Positions []mgl64.Vec3
	Mesh      *collide.Mesh // the triangles at Positions, with their BVH
	// Closed reports whether the mesh bounds a solid (meshgraph.Closed),
	// so that a point can be inside it.
	Closed bool
	// Seeds holds one vertex of each connected component: when two
	// surfaces do not meet, a component lies inside a solid iff its seed
	// does.
	Seeds []int
}

// posedMesh returns the Posed of a mesh at rest positions; the collider
// moves it frame by frame.
func posedMesh(rest []mgl64.Vec3, triangles [][3]int) *Posed {
	return &Posed{
		Positions: append([]mgl64.Vec3(nil), rest...),
		Mesh:      collide.NewMesh(rest, triangles),
		Closed:    meshgraph.Closed(triangles),
		Seeds:     seeds(len(rest), triangles),
	}
}

// seeds returns the lowest vertex of each connected component of the mesh.
func seeds(n int, triangles [][3]int) []int {
	label, k := meshgraph.Components(n, triangles)
	out := make([]int, 0, k)
	for v, l := range label {
		if l == len(out) {
			out = append(out, v)
		}
	}
	return out
}

// Plane is the ground: the half-space below the plane through Point with
// unit normal Normal is solid.
type Plane struct {
	Point, Normal mgl64.Vec3
}

// Hits reports whether a vertex lies less than margin above the plane. A
// triangle lies in the convex hull of its corners, so testing the
// vertices is exact.
func (o Plane) Hits(p *Posed, margin float64) bool {
	for _, v := range p.Positions {
		if v.Sub(o.Point).Dot(o.Normal) < margin {
			return true
		}
	}
	return false
}

// Sphere is a solid ball.
type Sphere struct {
	Center mgl64.Vec3
	Radius float64
}

// Hits reports whether the ball grown by margin meets a triangle of the
// mesh (collide.SphereMesh), or, for a closed mesh, lies inside it
// (collide.Mesh.Contains of the centre). A mesh entirely inside the ball
// meets it through its triangles.
func (o Sphere) Hits(p *Posed, margin float64) bool {
	return collide.SphereMesh(o.Center, o.Radius+margin, p.Mesh) ||
		p.Closed && p.Mesh.Contains(o.Center)
}

// MeshObstacle is a fixed triangle mesh, for example another object of the
// scene at rest.
type MeshObstacle struct {
	posed *Posed
}

// NewMeshObstacle returns the obstacle of the mesh with these positions
// and triangles. It returns an error if a position is not finite or a
// triangle's index is out of range.
func NewMeshObstacle(positions []mgl64.Vec3, triangles [][3]int) (*MeshObstacle, error) {
	for i, v := range positions {
		if !finite.Vec3(v) {
			return nil, fmt.Errorf("obstacle vertex %d is not finite: %v", i, v)
		}
	}
	if len(triangles) == 0 {
		return nil, fmt.Errorf("obstacle mesh has no triangles")
	}
	if _, err := meshgraph.New(len(positions), triangles); err != nil {
		return nil, fmt.Errorf("obstacle mesh: %w", err)
	}
	return &MeshObstacle{posed: posedMesh(positions, triangles)}, nil
}

// Hits reports whether the surfaces meet (collide.MeshesIntersect, exact),
// whether one mesh lies inside the other when that one is closed (a seed of
// each component, Posed.Seeds), and, for margin > 0, whether a vertex of
// the posed mesh lies within margin of the obstacle's surface. The margin
// test looks at vertices only: it is the search's cushion, and the final
// check of a clip is made with margin 0, exactly.
func (o *MeshObstacle) Hits(p *Posed, margin float64) bool {
	ob := o.posed
	if !p.Mesh.Bounds().Overlaps(ob.Mesh.Bounds().Expand(margin)) {
		return false
	}
	if collide.MeshesIntersect(p.Mesh, ob.Mesh) {
		return true
	}
	if ob.Closed {
		for _, s := range p.Seeds {
			if ob.Mesh.Contains(p.Positions[s]) {
				return true
			}
		}
	}
	if p.Closed {
		for _, s := range ob.Seeds {
			if p.Mesh.Contains(ob.Positions[s]) {
				return true
			}
		}
	}
	if margin > 0 {
		box := ob.Mesh.Bounds().Expand(margin)
		for _, v := range p.Positions {
			if box.Overlaps(bvh.AABB{Min: v, Max: v}) && collide.SphereMesh(v, margin, ob.Mesh) {
				return true
			}
		}
	}
	return false
}
