package rigidbody

/*
#include "gallop_ode.h"
*/
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

// Body is a dynamic rigid body. Its origin is its centre of mass, as ODE
// requires; its position and rotation place that origin and the body's
// axes in the world. A new body sits at the origin, unrotated, at rest,
// with ODE's default mass (1 kg, unit inertia tensor): give it a mass with
// SetMass and geoms with AddGeom, or build both at once with
// World.NewCompound.
type Body struct {
	w     *World
	id    C.dBodyID
	index int
	model mgl64.Vec3
}

// NewBody adds a dynamic body to the world and returns it; its index is
// the number of bodies created before it.
func (w *World) NewBody() *Body {
	defer runtime.KeepAlive(w)
	var id C.dBodyID
	i := C.gallop_body_create(w.cw(), &id)
	b := &Body{w: w, id: id, index: int(i)}
	w.bodies = append(w.bodies, b)
	return b
}

// bid returns the ODE body, panicking if its world is closed.
func (b *Body) bid() C.dBodyID {
	defer runtime.KeepAlive(b)
	if b.w.c == nil {
		panic("rigidbody: use of a body of a closed World")
	}
	return b.id
}

// Index returns the body's position in World.Bodies and in every frame
// written by World.AppendPoses.
func (b *Body) Index() int { return b.index }

// World returns the world the body belongs to.
func (b *Body) World() *World { return b.w }

// touched resets the body's at-rest test after its state was set by hand.
func (b *Body) touched() {
	defer runtime.KeepAlive(b)
	c := b.w.c
	if C.gallop_body_at_rest(c, C.int(b.index)) != 0 {
		c.nrest--
	}
	rest := unsafe.Slice(c.rest, c.nbodies)
	rest[b.index] = 0
}

// SetMass sets the body's mass. The centre of mass must be at the body's
// origin (|m.Center| ≤ 1e-9 m): a mass described about another point is
// moved with m.Translate(m.Center.Mul(-1)), and the body's geoms offset
// by the same vector (NewCompound does both). SetMass panics on an
// invalid mass (not positive, not finite, or an inertia tensor that is not
// positive definite).
func (b *Body) SetMass(m Mass) {
	defer runtime.KeepAlive(b)
	if m.Center.Len() > 1e-9 {
		panic(fmt.Sprintf("rigidbody: Body.SetMass: centre of mass %v is not at the body origin; translate the mass by its negation and offset the geoms (or use NewCompound)", m.Center))
	}
	m.Center = mgl64.Vec3{}
	if err := m.check(); err != nil {
		panic("rigidbody: Body.SetMass: " + err.Error())
	}
	dm := m.toC()
	C.dBodySetMass(b.bid(), &dm)
}

// Mass returns the body's mass, in its own frame (centre at the origin).
func (b *Body) Mass() Mass {
	defer runtime.KeepAlive(b)
	var dm C.dMass
	C.dBodyGetMass(b.bid(), &dm)
	return massFromC(&dm)
}

// ModelOffset returns where the origin of the frame the body was modelled
// in lies in the body's frame. It is zero for a body made with NewBody, and
// minus the centre of mass of the parts for one made with NewCompound: the
// model origin (a pin's base, say) is at Pose().Transform(ModelOffset()).
func (b *Body) ModelOffset() mgl64.Vec3 { return b.model }

// SetModelPose places the body so that its model frame (see ModelOffset)
// has origin pos and rotation rot in the world.
func (b *Body) SetModelPose(pos mgl64.Vec3, rot mgl64.Quat) {
	rot = unitQuat("SetModelPose", rot)
	b.SetRotation(rot)
	b.SetPosition(pos.Sub(rot.Rotate(b.model)))
}

// SetPosition moves the body's origin (its centre of mass) to p, in m.
func (b *Body) SetPosition(p mgl64.Vec3) {
	defer runtime.KeepAlive(b)
	checkVec("Body.SetPosition", p)
	C.dBodySetPosition(b.bid(), C.dReal(p[0]), C.dReal(p[1]), C.dReal(p[2]))
	b.touched()
}

// Position returns the position of the body's origin (its centre of mass),
// in m.
func (b *Body) Position() mgl64.Vec3 {
	defer runtime.KeepAlive(b)
	return vec3(C.dBodyGetPosition(b.bid()))
}

// SetRotation sets the body's orientation to the unit quaternion q (W
// first); q is normalised, and the zero quaternion means no rotation.
func (b *Body) SetRotation(q mgl64.Quat) {
	defer runtime.KeepAlive(b)
	q = unitQuat("Body.SetRotation", q)
	dq := C.dQuaternion{C.dReal(q.W), C.dReal(q.V[0]), C.dReal(q.V[1]), C.dReal(q.V[2])}
	C.dBodySetQuaternion(b.bid(), &dq[0])
	b.touched()
}

// Rotation returns the body's orientation as a unit quaternion (W first).
func (b *Body) Rotation() mgl64.Quat {
	defer runtime.KeepAlive(b)
	q := (*[4]C.dReal)(unsafe.Pointer(C.dBodyGetQuaternion(b.bid())))
	return mgl64.Quat{W: float64(q[0]), V: mgl64.Vec3{float64(q[1]), float64(q[2]), float64(q[3])}}
}

// RotationMatrix returns the body's rotation matrix R (body to world:
// world = R·body + position), column-major as every mgl64.Mat3. ODE
// stores it as rows of a 3×4 array; this is the same matrix.
func (b *Body) RotationMatrix() mgl64.Mat3 {
	defer runtime.KeepAlive(b)
	r := (*[12]C.dReal)(unsafe.Pointer(C.dBodyGetRotation(b.bid())))
	var m mgl64.Mat3
	for row := 0; row < 3; row++ {
		for col := 0; col < 3; col++ {
			m.Set(row, col, float64(r[4*row+col]))
		}
	}
	return m
}

// Pose returns the body's position and rotation.
func (b *Body) Pose() Pose { return Pose{Pos: b.Position(), Rot: b.Rotation()} }

// SetLinearVel sets the velocity of the body's centre of mass, m/s.
func (b *Body) SetLinearVel(v mgl64.Vec3) {
	defer runtime.KeepAlive(b)
	checkVec("Body.SetLinearVel", v)
	C.dBodySetLinearVel(b.bid(), C.dReal(v[0]), C.dReal(v[1]), C.dReal(v[2]))
	b.touched()
}

// LinearVel returns the velocity of the body's centre of mass, m/s.
func (b *Body) LinearVel() mgl64.Vec3 {
	defer runtime.KeepAlive(b)
	return vec3(C.dBodyGetLinearVel(b.bid()))
}

// SetAngularVel sets the body's angular velocity, rad/s, in world axes.
func (b *Body) SetAngularVel(v mgl64.Vec3) {
	defer runtime.KeepAlive(b)
	checkVec("Body.SetAngularVel", v)
	C.dBodySetAngularVel(b.bid(), C.dReal(v[0]), C.dReal(v[1]), C.dReal(v[2]))
	b.touched()
}

// AngularVel returns the body's angular velocity, rad/s, in world axes.
func (b *Body) AngularVel() mgl64.Vec3 {
	defer runtime.KeepAlive(b)
	return vec3(C.dBodyGetAngularVel(b.bid()))
}

// AddForce adds a force (N, world axes) through the centre of mass for the
// next step only.
func (b *Body) AddForce(f mgl64.Vec3) {
	defer runtime.KeepAlive(b)
	checkVec("Body.AddForce", f)
	C.dBodyAddForce(b.bid(), C.dReal(f[0]), C.dReal(f[1]), C.dReal(f[2]))
}

// SetEnabled enables or disables the body (dBodyEnable, dBodyDisable). A
// disabled body does not move until an enabled body touches it; it counts
// as at rest.
func (b *Body) SetEnabled(on bool) {
	defer runtime.KeepAlive(b)
	if on {
		C.dBodyEnable(b.bid())
	} else {
		C.dBodyDisable(b.bid())
	}
}

// Enabled reports whether the body is enabled.
func (b *Body) Enabled() bool {
	defer runtime.KeepAlive(b)
	return C.dBodyIsEnabled(b.bid()) != 0
}

// AtRest reports whether the body passed the world's at-rest test (see
// World.SetRestThresholds) after the last step. Setting its position,
// rotation or velocity clears it.
func (b *Body) AtRest() bool {
	defer runtime.KeepAlive(b)
	return C.gallop_body_at_rest(b.w.cw(), C.int(b.index)) != 0
}

// vec3 copies an ODE vector.
func vec3(p *C.dReal) mgl64.Vec3 {
	v := (*[3]C.dReal)(unsafe.Pointer(p))
	return mgl64.Vec3{float64(v[0]), float64(v[1]), float64(v[2])}
}

// unitQuat returns q normalised, the identity for the zero quaternion, and
// panics on a non-finite one.
func unitQuat(what string, q mgl64.Quat) mgl64.Quat {
	n := math.Sqrt(q.W*q.W + q.V.Dot(q.V))
	if math.IsNaN(n) || math.IsInf(n, 0) {
		panic(fmt.Sprintf("rigidbody: %s: quaternion %v is not finite", what, q))
	}
	if n == 0 {
		return mgl64.QuatIdent()
	}
	return mgl64.Quat{W: q.W / n, V: q.V.Mul(1 / n)}
}
