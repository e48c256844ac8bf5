package assets

import (
	"fmt"
	"math"
)

// Mesh generators for the shapes of rigid-body physics. Each returns a
// closed, consistently oriented triangle mesh (every edge shared by exactly
// two triangles that use it in opposite directions; counter-clockwise seen
// from outside, so (b−a)×(c−a) points outwards) centred at the origin, in
// the body frame ODE uses: capsules and cylinders along the z axis, boxes
// given by their full side lengths. Vertices are shared between triangles,
// and Normals / NormalTriangles hold the exact outward normal of the shape
// at each triangle corner, so that flat faces stay flat where they meet at
// a sharp edge (box edges, cylinder rims) and curved ones are smooth.
//
// Curved surfaces are inscribed polyhedra: their volume is slightly below
// the shape's (for 32 segments, about 1.6% for a sphere and 0.6% for a
// cylinder). The generators panic on a size that is not a positive finite
// number (a capsule's length may be 0) or on fewer than 3 segments.

// SphereMesh returns a UV sphere of the given radius with poles on ±z:
// segments vertices around each ring of latitude and max(2, ⌈segments/2⌉)
// bands from pole to pole.
func SphereMesh(radius float64, segments int) *Mesh {
	checkShape("SphereMesh", segments, radius)
	bands := max(2, (segments+1)/2)
	profile := make([]profilePoint, 0, bands+1)
	for k := 0; k <= bands; k++ {
		profile = append(profile, arcPoint(radius, math.Pi*(1-float64(k)/float64(bands)), 0))
	}
	return revolve("sphere", profile, segments)
}

// CapsuleMesh returns a capsule along z: a cylinder of the given radius
// and length (between the centres of its end caps, as in ODE's
// dCreateCapsule) closed by two hemispheres, so that its total length is
// length + 2·radius. It has segments vertices around each ring and
// max(1, ⌈segments/4⌉) bands in each hemisphere.
func CapsuleMesh(radius, length float64, segments int) *Mesh {
	checkShape("CapsuleMesh", segments, radius)
	if !(length >= 0) || math.IsInf(length, 0) {
		panic(fmt.Sprintf("assets: CapsuleMesh: length %v is not a finite number ≥ 0", length))
	}
	bands := max(1, (segments+3)/4)
	var profile []profilePoint
	for k := 0; k <= bands; k++ { // lower hemisphere, pole to equator
		profile = append(profile, arcPoint(radius, math.Pi*(1-0.5*float64(k)/float64(bands)), -length/2))
	}
	first := 0
	if length == 0 {
		first = 1 // the equators coincide
	}
	for k := first; k <= bands; k++ { // upper hemisphere, equator to pole
		profile = append(profile, arcPoint(radius, math.Pi*0.5*(1-float64(k)/float64(bands)), length/2))
	}
	return revolve("capsule", profile, segments)
}

// CylinderMesh returns a cylinder along z of the given radius and length,
// with flat caps at z = ±length/2 (each a fan around a centre vertex) and
// segments vertices around each rim.
func CylinderMesh(radius, length float64, segments int) *Mesh {
	checkShape("CylinderMesh", segments, radius, length)
	down, side, up := [2]float64{0, -1}, [2]float64{1, 0}, [2]float64{0, 1}
	h := length / 2
	return revolve("cylinder", []profilePoint{
		{r: 0, z: -h, below: down, above: down},
		{r: radius, z: -h, below: down, above: side},
		{r: radius, z: h, below: side, above: up},
		{r: 0, z: h, below: up, above: up},
	}, segments)
}

// BoxMesh returns a box with the given full side lengths (as in ODE's
// dCreateBox): 8 vertices, 12 triangles and one normal per face.
func BoxMesh(size Vec3) *Mesh {
	checkShape("BoxMesh", 3, size[0], size[1], size[2])
	m := &Mesh{Name: "box"}
	for v := 0; v < 8; v++ { // bit k of v set: +size[k]/2
		var p Vec3
		for k := range p {
			p[k] = -size[k] / 2
			if v>>k&1 == 1 {
				p[k] = size[k] / 2
			}
		}
		m.Positions = append(m.Positions, p)
	}
	for axis := 0; axis < 3; axis++ {
		u, w := (axis+1)%3, (axis+2)%3 // e_u × e_w = e_axis
		for _, side := range []int{0, 1} {
			var n Vec3
			n[axis] = float64(2*side - 1)
			// Corners (u, w) = (0,0), (1,0), (1,1), (0,1) go counter-clockwise
			// about +e_axis; reversed on the negative side.
			quad := [4]int{0, 1 << u, 1<<u | 1<<w, 1 << w}
			if side == 0 {
				quad[1], quad[3] = quad[3], quad[1]
			}
			for c := range quad {
				quad[c] |= side << axis
			}
			ni := len(m.Normals)
			m.Normals = append(m.Normals, n)
			m.Triangles = append(m.Triangles, [3]int{quad[0], quad[1], quad[2]}, [3]int{quad[0], quad[2], quad[3]})
			m.NormalTriangles = append(m.NormalTriangles, [3]int{ni, ni, ni}, [3]int{ni, ni, ni})
		}
	}
	return m
}

// checkShape panics unless segments ≥ 3 and every size is a positive
// finite number.
func checkShape(fn string, segments int, sizes ...float64) {
	if segments < 3 {
		panic(fmt.Sprintf("assets: %s: %d segments, need at least 3", fn, segments))
	}
	for _, s := range sizes {
		if !(s > 0) || math.IsInf(s, 0) {
			panic(fmt.Sprintf("assets: %s: size %v is not a positive finite number", fn, s))
		}
	}
}

// profilePoint is a point of the outline that revolve turns about the z
// axis: at radius r ≥ 0 and height z, with the outward unit normal of the
// surface just below it and just above it along the outline, as (radial,
// z) components; they differ at a sharp edge.
type profilePoint struct {
	r, z         float64
	below, above [2]float64
}

// arcPoint returns the point at polar angle theta (0 at +z) of a sphere of
// the given radius centred at height z0; it is a pole when theta is 0 or π.
func arcPoint(radius, theta, z0 float64) profilePoint {
	s, c := math.Sincos(theta)
	if theta == 0 || theta == math.Pi {
		s = 0
	}
	n := [2]float64{s, c}
	return profilePoint{r: radius * s, z: z0 + radius*c, below: n, above: n}
}

// revolve returns the closed surface swept by turning profile about the z
// axis, with segments vertices around each ring. The profile runs from a
// pole on the axis (r = 0) at the bottom to one at the top, every point in
// between off the axis, and the surface's outside lies to the right of its
// direction of travel in the (r, z) half-plane, so the triangles come out
// counter-clockwise seen from outside. Vertex angles are 2πj/segments
// counter-clockwise about +z from +x.
func revolve(name string, profile []profilePoint, segments int) *Mesh {
	m := &Mesh{Name: name}
	n := len(profile)
	pole := func(k int) bool { return k == 0 || k == n-1 }
	sin, cos := make([]float64, segments), make([]float64, segments)
	for j := range sin {
		sin[j], cos[j] = math.Sincos(2 * math.Pi * float64(j) / float64(segments))
	}
	// ring[k] is the first vertex of profile point k, below[k] and above[k]
	// the first of its normals on either side; a pole has one of each.
	ring, below, above := make([]int, n), make([]int, n), make([]int, n)
	addNormals := func(k int, nrz [2]float64) int {
		first := len(m.Normals)
		if pole(k) {
			m.Normals = append(m.Normals, Vec3{0, 0, nrz[1]})
			return first
		}
		for j := range sin {
			m.Normals = append(m.Normals, Vec3{nrz[0] * cos[j], nrz[0] * sin[j], nrz[1]})
		}
		return first
	}
	for k, p := range profile {
		ring[k] = len(m.Positions)
		if pole(k) {
			m.Positions = append(m.Positions, Vec3{0, 0, p.z})
		} else {
			for j := range sin {
				m.Positions = append(m.Positions, Vec3{p.r * cos[j], p.r * sin[j], p.z})
			}
		}
		if k > 0 {
			below[k] = addNormals(k, p.below)
		}
		switch {
		case k == n-1:
		case k > 0 && p.above == p.below:
			above[k] = below[k]
		default:
			above[k] = addNormals(k, p.above)
		}
	}
	at := func(first []int, k, j int) int {
		if pole(k) {
			return first[k]
		}
		return first[k] + j%segments
	}
	for k := 0; k+1 < n; k++ {
		for j := 0; j < segments; j++ {
			// Quad a b c d: ring k at angles j, j+1, ring k+1 at j+1, j.
			v := [4]int{at(ring, k, j), at(ring, k, j+1), at(ring, k+1, j+1), at(ring, k+1, j)}
			nv := [4]int{at(above, k, j), at(above, k, j+1), at(below, k+1, j+1), at(below, k+1, j)}
			if k > 0 { // a ≠ b: triangle a b c
				m.Triangles = append(m.Triangles, [3]int{v[0], v[1], v[2]})
				m.NormalTriangles = append(m.NormalTriangles, [3]int{nv[0], nv[1], nv[2]})
			}
			if k+1 < n-1 { // c ≠ d: triangle a c d
				m.Triangles = append(m.Triangles, [3]int{v[0], v[2], v[3]})
				m.NormalTriangles = append(m.NormalTriangles, [3]int{nv[0], nv[2], nv[3]})
			}
		}
	}
	return m
}
