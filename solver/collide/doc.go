// Package collide decides whether triangles, meshes and balls intersect:
// exact, robust predicates for rejecting animation frames whose posed mesh
// meets an obstacle, and for testing many groups of triangles against each
// other every frame.
//
// The primitives:
//
//   - TrianglesIntersect: two closed triangles share a point, decided
//     exactly for the float64 coordinates by orientation predicates with a
//     floating-point filter and exact fallbacks (Shewchuk 1997; see
//     predicates.go). Touching, at a point or along a segment, counts.
//   - SphereTriangle: a solid ball meets a closed triangle, in floating
//     point (the one test that is not exact).
//
// Meshes (a Mesh is the triangles, their positions and a bvh.Tree, refitted
// per frame):
//
//   - MeshesIntersect and MeshPairs: triangles of two meshes that
//     intersect, through bvh.Tree.Query.
//   - SphereMesh: a ball meets a mesh's surface.
//   - Mesh.Contains: a point is in the solid bounded by a closed mesh.
//
// and Grid, the broad phase over the bounding boxes of many groups.
//
// Surfaces and solids are separate questions. MeshesIntersect and
// SphereMesh report contact between surfaces (and the solid ball); a
// closed mesh entirely inside another, or a ball entirely inside a mesh,
// touches no triangle of it. Containment is Contains of one point: when two
// closed surfaces do not meet, a connected mesh lies inside another iff one
// of its vertices does.
//
// Conventions: positions are []mgl64.Vec3 (#V points), triangles [][3]int
// (#F triples of indices into them), as in bvh and assets.Mesh. Triangles
// are closed and need not be oriented or non-degenerate: a degenerate
// triangle is the segment or point its corners span. Non-finite
// coordinates never intersect anything; no function panics on them.
// Programming errors (a vertex index out of range, a position count that
// does not match) panic with a "collide:" message.
package collide
