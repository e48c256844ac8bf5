package rigidbody

/*
#include <stdlib.h>
#include "gallop_ode.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

// Shape is a primitive collision shape, described in its own frame with
// its centre at the origin. Capsules and cylinders lie along the frame's
// z axis, as in ODE.
type Shape interface {
	// Mass returns the mass of the shape filled with the given density
	// (kg/m³), about its centre.
	Mass(density float64) Mass
	// create makes the ODE geom in space (0: no space).
	create(space C.dSpaceID) C.dGeomID
	check() error
}

// Sphere is a ball of the given radius.
type Sphere struct{ Radius float64 }

// Box is a box with the given side lengths along x, y and z.
type Box struct{ Size mgl64.Vec3 }

// Capsule is a cylinder of the given radius and length (between the
// centres of its end caps) along z, closed by two hemispheres.
type Capsule struct{ Radius, Length float64 }

// Cylinder is a flat-ended cylinder of the given radius and length along z.
type Cylinder struct{ Radius, Length float64 }

func positive(what string, xs ...float64) error {
	for _, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("%s: dimension %g must be positive and finite", what, x)
		}
	}
	return nil
}

func (s Sphere) check() error   { return positive("sphere", s.Radius) }
func (s Box) check() error      { return positive("box", s.Size[0], s.Size[1], s.Size[2]) }
func (s Capsule) check() error  { return positive("capsule", s.Radius, s.Length) }
func (s Cylinder) check() error { return positive("cylinder", s.Radius, s.Length) }

func (s Sphere) create(sp C.dSpaceID) C.dGeomID { return C.dCreateSphere(sp, C.dReal(s.Radius)) }
func (s Box) create(sp C.dSpaceID) C.dGeomID {
	return C.dCreateBox(sp, C.dReal(s.Size[0]), C.dReal(s.Size[1]), C.dReal(s.Size[2]))
}
func (s Capsule) create(sp C.dSpaceID) C.dGeomID {
	return C.dCreateCapsule(sp, C.dReal(s.Radius), C.dReal(s.Length))
}
func (s Cylinder) create(sp C.dSpaceID) C.dGeomID {
	return C.dCreateCylinder(sp, C.dReal(s.Radius), C.dReal(s.Length))
}

func checkDensity(density float64) {
	if !(density > 0) || math.IsInf(density, 0) {
		panic(fmt.Sprintf("rigidbody: density %g must be positive and finite", density))
	}
}

// Mass is (4/3)πr³ρ with inertia (2/5)·m·r² about every axis (dMassSetSphere).
func (s Sphere) Mass(density float64) Mass {
	checkDensity(density)
	var dm C.dMass
	C.dMassSetSphere(&dm, C.dReal(density), C.dReal(s.Radius))
	return massFromC(&dm)
}

// Mass is the solid box's (dMassSetBox).
func (s Box) Mass(density float64) Mass {
	checkDensity(density)
	var dm C.dMass
	C.dMassSetBox(&dm, C.dReal(density), C.dReal(s.Size[0]), C.dReal(s.Size[1]), C.dReal(s.Size[2]))
	return massFromC(&dm)
}

// Mass is the solid capsule's along z (dMassSetCapsule, direction 3).
func (s Capsule) Mass(density float64) Mass {
	checkDensity(density)
	var dm C.dMass
	C.dMassSetCapsule(&dm, C.dReal(density), 3, C.dReal(s.Radius), C.dReal(s.Length))
	return massFromC(&dm)
}

// Mass is the solid cylinder's along z (dMassSetCylinder, direction 3).
func (s Cylinder) Mass(density float64) Mass {
	checkDensity(density)
	var dm C.dMass
	C.dMassSetCylinder(&dm, C.dReal(density), 3, C.dReal(s.Radius), C.dReal(s.Length))
	return massFromC(&dm)
}

// Surface is the contact behaviour of a geom. When two geoms touch, their
// friction coefficients combine by the geometric mean (zero if either is
// zero), their restitutions and bounce thresholds by the maximum. Friction
// uses ODE's friction pyramid scaled by the normal force (dContactApprox1).
type Surface struct {
	Friction  float64 // Coulomb coefficient μ ≥ 0 (math.Inf(1): no slip)
	Bounce    float64 // restitution in [0, 1]
	BounceVel float64 // minimum approach speed for a bounce, m/s (≥ 0)
	Rolling   float64 // rolling friction coefficient ≥ 0
}

func (s Surface) check() error {
	switch {
	case !(s.Friction >= 0) || math.IsNaN(s.Friction):
		return fmt.Errorf("friction %g must be non-negative", s.Friction)
	case !(s.Bounce >= 0 && s.Bounce <= 1):
		return fmt.Errorf("bounce %g must be in [0, 1]", s.Bounce)
	case !(s.BounceVel >= 0) || math.IsInf(s.BounceVel, 0):
		return fmt.Errorf("bounce velocity %g must be non-negative and finite", s.BounceVel)
	case !(s.Rolling >= 0) || math.IsInf(s.Rolling, 0):
		return fmt.Errorf("rolling friction %g must be non-negative and finite", s.Rolling)
	}
	return nil
}

// SurfaceField is friction and restitution that vary over the x-z plane
// (world coordinates): samples on an Nx × Nz grid, sample (i, j) at
// (X0 + i·DX, Z0 + j·DZ) with index j·Nx + i, bilinearly interpolated at
// each contact point and clamped beyond the grid.
type SurfaceField struct {
	Nx, Nz   int
	X0, Z0   float64
	DX, DZ   float64
	Friction []float64 // Nx·Nz values ≥ 0
	Bounce   []float64 // Nx·Nz values in [0, 1]
}

func (f *SurfaceField) check() error {
	n := f.Nx * f.Nz
	switch {
	case f.Nx < 2 || f.Nz < 2:
		return fmt.Errorf("surface field of %d × %d samples: need at least 2 × 2", f.Nx, f.Nz)
	case !(f.DX > 0 && f.DZ > 0) || math.IsInf(f.DX, 0) || math.IsInf(f.DZ, 0):
		return fmt.Errorf("surface field spacing %g × %g must be positive and finite", f.DX, f.DZ)
	case math.IsNaN(f.X0) || math.IsInf(f.X0, 0) || math.IsNaN(f.Z0) || math.IsInf(f.Z0, 0):
		return errors.New("surface field origin is not finite")
	case len(f.Friction) != n || len(f.Bounce) != n:
		return fmt.Errorf("surface field has %d friction and %d bounce values, want %d each", len(f.Friction), len(f.Bounce), n)
	}
	for k := 0; k < n; k++ {
		if !(f.Friction[k] >= 0) || math.IsInf(f.Friction[k], 0) {
			return fmt.Errorf("surface field friction %g at sample %d must be non-negative and finite", f.Friction[k], k)
		}
		if !(f.Bounce[k] >= 0 && f.Bounce[k] <= 1) {
			return fmt.Errorf("surface field bounce %g at sample %d must be in [0, 1]", f.Bounce[k], k)
		}
	}
	return nil
}

// Geom is a collision shape in a world, attached to a body or static.
type Geom struct {
	w    *World
	id   C.dGeomID
	surf *C.gallop_surface
}

// newGeom wraps id with a fresh surface record.
func (w *World) newGeom(id C.dGeomID, s Surface) *Geom {
	defer runtime.KeepAlive(w)
	if err := s.check(); err != nil {
		panic("rigidbody: " + err.Error())
	}
	g := &Geom{w: w, id: id, surf: C.gallop_surface_new(w.c, id)}
	g.SetSurface(s)
	return g
}

// SetSurface sets the geom's contact parameters and removes any surface
// field.
func (g *Geom) SetSurface(s Surface) {
	defer runtime.KeepAlive(g)
	if err := s.check(); err != nil {
		panic("rigidbody: Geom.SetSurface: " + err.Error())
	}
	g.w.cw()
	*g.surf = C.gallop_surface{mu: C.double(s.Friction), bounce: C.double(s.Bounce), bounce_vel: C.double(s.BounceVel), rolling: C.double(s.Rolling)}
}

// SetSurfaceField makes the geom's friction and restitution vary over the
// x-z plane; its bounce threshold and rolling friction stay.
func (g *Geom) SetSurfaceField(f *SurfaceField) error {
	defer runtime.KeepAlive(g)
	if err := f.check(); err != nil {
		return err
	}
	cf := C.gallop_field_new(g.w.cw(), C.int(f.Nx), C.int(f.Nz))
	cf.x0, cf.z0, cf.dx, cf.dz = C.double(f.X0), C.double(f.Z0), C.double(f.DX), C.double(f.DZ)
	n := f.Nx * f.Nz
	copy(unsafe.Slice((*float64)(unsafe.Pointer(cf.mu)), n), f.Friction)
	copy(unsafe.Slice((*float64)(unsafe.Pointer(cf.bounce)), n), f.Bounce)
	g.surf.field = cf
	return nil
}

// setOffset places the geom relative to its body or, for a static geom, in
// the world.
func (g *Geom) place(pos mgl64.Vec3, rot mgl64.Quat, body bool) {
	defer runtime.KeepAlive(g)
	checkVec("geom position", pos)
	rot = unitQuat("geom rotation", rot)
	dq := C.dQuaternion{C.dReal(rot.W), C.dReal(rot.V[0]), C.dReal(rot.V[1]), C.dReal(rot.V[2])}
	if body {
		C.dGeomSetOffsetPosition(g.id, C.dReal(pos[0]), C.dReal(pos[1]), C.dReal(pos[2]))
		C.dGeomSetOffsetQuaternion(g.id, &dq[0])
		return
	}
	C.dGeomSetPosition(g.id, C.dReal(pos[0]), C.dReal(pos[1]), C.dReal(pos[2]))
	C.dGeomSetQuaternion(g.id, &dq[0])
}

// AddGeom attaches a geom of the given shape to the body, with its centre
// at pos and rotated by rot in the body's frame. It does not change the
// body's mass.
func (b *Body) AddGeom(s Shape, pos mgl64.Vec3, rot mgl64.Quat, surface Surface) *Geom {
	defer runtime.KeepAlive(b)
	if err := s.check(); err != nil {
		panic("rigidbody: Body.AddGeom: " + err.Error())
	}
	w := b.w
	g := w.newGeom(s.create(w.cw().dyn), surface)
	C.dGeomSetBody(g.id, b.bid())
	g.place(pos, rot, true)
	return g
}

// Part is one shape of a compound body, placed in the body's model frame.
type Part struct {
	Shape   Shape
	Pos     mgl64.Vec3
	Rot     mgl64.Quat // zero: no rotation
	Density float64    // kg/m³
}

// NewCompound adds a body made of parts: its mass is the sum of the parts'
// (moved to the combined centre of mass, as ODE requires), optionally
// scaled to total kg (total ≤ 0 keeps the sum), and its geoms are the
// parts offset by the same vector. The body's ModelOffset remembers where
// the model frame's origin went; place it with SetModelPose.
func (w *World) NewCompound(parts []Part, total float64, surface Surface) (*Body, error) {
	if len(parts) == 0 {
		return nil, errors.New("rigidbody: NewCompound: no parts")
	}
	var m Mass
	for i, p := range parts {
		if err := p.Shape.check(); err != nil {
			return nil, fmt.Errorf("rigidbody: NewCompound: part %d: %w", i, err)
		}
		if !(p.Density > 0) || math.IsInf(p.Density, 0) {
			return nil, fmt.Errorf("rigidbody: NewCompound: part %d: density %g must be positive and finite", i, p.Density)
		}
		pm := p.Shape.Mass(p.Density).Rotate(unitQuat("NewCompound", p.Rot)).Translate(p.Pos)
		if i == 0 {
			m = pm
		} else {
			m = m.Add(pm)
		}
	}
	if err := surface.check(); err != nil {
		return nil, fmt.Errorf("rigidbody: NewCompound: %w", err)
	}
	c := m.Center
	m = m.Translate(c.Mul(-1))
	m.Center = mgl64.Vec3{}
	if total > 0 {
		m = m.Scaled(total)
	}
	b := w.NewBody()
	b.SetMass(m)
	b.model = c.Mul(-1)
	for _, p := range parts {
		b.AddGeom(p.Shape, p.Pos.Sub(c), p.Rot, surface)
	}
	return b, nil
}

// NewStatic adds static geometry of the given shape centred at pos and
// rotated by rot: it collides with bodies but never moves.
func (w *World) NewStatic(s Shape, pos mgl64.Vec3, rot mgl64.Quat, surface Surface) *Geom {
	defer runtime.KeepAlive(w)
	if err := s.check(); err != nil {
		panic("rigidbody: NewStatic: " + err.Error())
	}
	g := w.newGeom(s.create(w.cw().stat), surface)
	g.place(pos, rot, false)
	return g
}

// NewPlane adds the static half-space n·x ≤ d (n is normalised); bodies
// rest on the plane n·x = d.
func (w *World) NewPlane(n mgl64.Vec3, d float64, surface Surface) *Geom {
	defer runtime.KeepAlive(w)
	checkVec("NewPlane normal", n)
	l := n.Len()
	if l == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
		panic(fmt.Sprintf("rigidbody: NewPlane(%v, %g): need a non-zero normal and a finite offset", n, d))
	}
	n = n.Mul(1 / l)
	id := C.dCreatePlane(w.cw().stat, C.dReal(n[0]), C.dReal(n[1]), C.dReal(n[2]), C.dReal(d/l))
	return w.newGeom(id, surface)
}

// NewTriMesh adds static triangle-mesh geometry: vertices in world
// coordinates, triangles as vertex indices wound counter-clockwise seen
// from outside (the side contacts push toward). Triangle meshes collide
// with every primitive shape; they do not collide with each other.
func (w *World) NewTriMesh(vertices []mgl64.Vec3, triangles [][3]uint32, surface Surface) (*Geom, error) {
	defer runtime.KeepAlive(w)
	if len(vertices) == 0 || len(triangles) == 0 {
		return nil, errors.New("rigidbody: NewTriMesh: empty mesh")
	}
	for i, v := range vertices {
		for _, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("rigidbody: NewTriMesh: vertex %d is not finite", i)
			}
		}
	}
	for i, t := range triangles {
		for _, k := range t {
			if int(k) >= len(vertices) {
				return nil, fmt.Errorf("rigidbody: NewTriMesh: triangle %d uses vertex %d of %d", i, k, len(vertices))
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, fmt.Errorf("rigidbody: NewTriMesh: triangle %d repeats a vertex", i)
		}
	}
	if err := surface.check(); err != nil {
		return nil, fmt.Errorf("rigidbody: NewTriMesh: %w", err)
	}
	id := C.gallop_trimesh_create(w.cw(), (*C.double)(unsafe.Pointer(&vertices[0])), C.int(len(vertices)),
		(*C.uint)(unsafe.Pointer(&triangles[0])), C.int(3*len(triangles)))
	return w.newGeom(id, surface), nil
}

// Heightfield is a static terrain y = Heights[j·Nx + i] over a grid of
// Nx × Nz samples spanning SizeX × SizeZ metres, centred at Center (its
// x-z centre and the height origin). Below the surface it is solid for
// Thickness metres.
type Heightfield struct {
	Nx, Nz       int
	SizeX, SizeZ float64
	Heights      []float64
	Center       mgl64.Vec3
	Thickness    float64
}

// Sample returns the world position of sample (i, j).
func (h *Heightfield) Sample(i, j int) mgl64.Vec3 {
	return mgl64.Vec3{
		h.Center[0] - h.SizeX/2 + h.SizeX*float64(i)/float64(h.Nx-1),
		h.Center[1] + h.Heights[j*h.Nx+i],
		h.Center[2] - h.SizeZ/2 + h.SizeZ*float64(j)/float64(h.Nz-1),
	}
}

// NewHeightfield adds a static height field (ODE copies the heights).
func (w *World) NewHeightfield(h *Heightfield, surface Surface) (*Geom, error) {
	defer runtime.KeepAlive(w)
	switch {
	case h.Nx < 2 || h.Nz < 2:
		return nil, fmt.Errorf("rigidbody: NewHeightfield: %d × %d samples, need at least 2 × 2", h.Nx, h.Nz)
	case len(h.Heights) != h.Nx*h.Nz:
		return nil, fmt.Errorf("rigidbody: NewHeightfield: %d heights for %d × %d samples", len(h.Heights), h.Nx, h.Nz)
	case positive("heightfield", h.SizeX, h.SizeZ, h.Thickness) != nil:
		return nil, fmt.Errorf("rigidbody: NewHeightfield: sizes %g × %g and thickness %g must be positive", h.SizeX, h.SizeZ, h.Thickness)
	}
	for k, y := range h.Heights {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("rigidbody: NewHeightfield: height %d is not finite", k)
		}
	}
	checkVec("NewHeightfield centre", h.Center)
	if err := surface.check(); err != nil {
		return nil, fmt.Errorf("rigidbody: NewHeightfield: %w", err)
	}
	id := C.gallop_heightfield_create(w.cw(), (*C.double)(unsafe.Pointer(&h.Heights[0])), C.int(h.Nx), C.int(h.Nz),
		C.double(h.SizeX), C.double(h.SizeZ), C.double(h.Thickness))
	g := w.newGeom(id, surface)
	g.place(h.Center, mgl64.QuatIdent(), false)
	return g, nil
}
