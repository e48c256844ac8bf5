package rigidbody

/*
#cgo pkg-config: ode
#cgo LDFLAGS: -lm
#cgo CFLAGS: -O2
#include <stdlib.h>
#include "gallop_ode.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
)

var initOnce sync.Once

// initODE initialises ODE once per process (dInitODE2 is not safe to call
// concurrently). ODE is never closed: it holds no resource worth freeing.
func initODE() {
	initOnce.Do(func() {
		C.gallop_init()
		for _, want := range []string{"ODE_double_precision", "ODE_EXT_trimesh"} {
			if !HasConfiguration(want) {
				panic("rigidbody: libode lacks " + want + "; configuration: " + Configuration())
			}
		}
		if HasConfiguration("ODE_OPC_16bit_indices") {
			panic("rigidbody: libode uses 16-bit trimesh indices; package rigidbody needs 32-bit ones")
		}
	})
}

// Configuration returns ODE's build configuration, dGetConfiguration(): a
// space-separated list of tokens. Debian's libode8 0.16.2 gives "ODE
// ODE_EXT_trimesh ODE_EXT_opcode ODE_OPC_new_collider ODE_EXT_threading
// ODE_THR_builtin_impl ODE_double_precision": OPCODE trimeshes, the
// threading interface with its built-in implementation, double precision,
// no thread-local storage (ODE_EXT_mt_collisions is absent), no
// ODE_EXT_no_debug (ODE's internal assertions are on and abort the
// process).
func Configuration() string {
	initODE()
	return C.GoString(C.dGetConfiguration())
}

// HasConfiguration reports whether token is in ODE's build configuration
// (dCheckConfiguration).
func HasConfiguration(token string) bool {
	cs := C.CString(token)
	defer C.free(unsafe.Pointer(cs))
	return C.dCheckConfiguration(cs) != 0
}

// Stepper selects ODE's integrator.
type Stepper int

const (
	// StepDirect is dWorldStep: each island's constraints are solved
	// exactly by a Dantzig LCP solver on the dense system, O(m³) time and
	// O(m²) memory for m constraint rows. Accurate and stiff-stable,
	// never uses a random number. The default.
	StepDirect Stepper = iota

	// StepQuick is dWorldQuickStep: successive over-relaxation (projected
	// Gauss-Seidel) for a fixed number of iterations, O(m·iterations).
	// Less accurate (stacks sag and jitter with few iterations). With
	// more than 8 iterations ODE shuffles the constraint order with its
	// global random generator; see the package comment.
	StepQuick
)

// String returns "direct" or "quick".
func (s Stepper) String() string {
	switch s {
	case StepDirect:
		return "direct"
	case StepQuick:
		return "quick"
	}
	return fmt.Sprintf("Stepper(%d)", int(s))
}

// World is an ODE world with its collision spaces: the bodies, their
// geoms, the static geometry and the settings of the step. A World must be
// used by one goroutine at a time; different Worlds may be stepped
// concurrently. Close frees it; a World that becomes unreachable without
// Close is freed by a cleanup when the garbage collector finds it.
type World struct {
	c       *C.gallop_world
	cleanup runtime.Cleanup
	bodies  []*Body
	stepper Stepper
}

// NewWorld returns an empty world with the given gravity (m/s², e.g.
// (0, −9.81, 0) for Gallop's +Y up) and the default settings: time step
// 1 ms, StepDirect (QuickStep iterations 20 if StepQuick is chosen),
// ERP 0.2, CFM 1e-5, contact surface layer 0, no limit on the correcting
// velocity, 8 contacts per geom pair, no damping, no auto-disable, and the
// at-rest test with 0.01 m/s, 0.1 rad/s and 20 steps.
func NewWorld(gravity mgl64.Vec3) *World {
	initODE()
	checkVec("NewWorld: gravity", gravity)
	c := C.gallop_world_create(C.double(gravity[0]), C.double(gravity[1]), C.double(gravity[2]))
	w := &World{c: c}
	w.cleanup = runtime.AddCleanup(w, func(c *C.gallop_world) { C.gallop_world_destroy(c) }, c)
	return w
}

// Close frees the world and everything in it: bodies, geoms, trimesh and
// heightfield data. Using the world, its bodies or its geoms afterwards
// panics. Closing twice does nothing.
func (w *World) Close() {
	if w.c == nil {
		return
	}
	w.cleanup.Stop()
	C.gallop_world_destroy(w.c)
	w.c = nil
}

// cw returns the C world, panicking if the world is closed.
func (w *World) cw() *C.gallop_world {
	if w.c == nil {
		panic("rigidbody: use of a closed World")
	}
	return w.c
}

// SetGravity sets the gravity vector, m/s².
func (w *World) SetGravity(g mgl64.Vec3) {
	defer runtime.KeepAlive(w)
	checkVec("SetGravity", g)
	C.dWorldSetGravity(w.cw().world, C.dReal(g[0]), C.dReal(g[1]), C.dReal(g[2]))
}

// Gravity returns the gravity vector, m/s².
func (w *World) Gravity() mgl64.Vec3 {
	defer runtime.KeepAlive(w)
	var g C.dVector3
	C.dWorldGetGravity(w.cw().world, &g[0])
	return mgl64.Vec3{float64(g[0]), float64(g[1]), float64(g[2])}
}

// SetTimeStep sets the time advanced by each Step, in seconds (dt > 0).
func (w *World) SetTimeStep(dt float64) {
	defer runtime.KeepAlive(w)
	if !(dt > 0) || math.IsInf(dt, 0) {
		panic(fmt.Sprintf("rigidbody: SetTimeStep(%g): time step must be positive and finite", dt))
	}
	w.cw().dt = C.double(dt)
}

// TimeStep returns the time advanced by each Step, in seconds.
func (w *World) TimeStep() float64 {
	defer runtime.KeepAlive(w)
	return float64(w.cw().dt)
}

// SetStepper selects the integrator; iterations is the number of QuickStep
// iterations (dWorldSetQuickStepNumIterations, ≥ 1) and is ignored by
// StepDirect.
func (w *World) SetStepper(s Stepper, iterations int) {
	defer runtime.KeepAlive(w)
	c := w.cw()
	switch s {
	case StepDirect:
		c.quick = 0
	case StepQuick:
		if iterations < 1 {
			panic(fmt.Sprintf("rigidbody: SetStepper(quick, %d): iterations must be at least 1", iterations))
		}
		c.quick = 1
		c.iterations = C.int(iterations)
		C.dWorldSetQuickStepNumIterations(c.world, C.int(iterations))
	default:
		panic(fmt.Sprintf("rigidbody: SetStepper: unknown stepper %d", int(s)))
	}
	w.stepper = s
}

// Stepper returns the integrator and the QuickStep iteration count.
func (w *World) Stepper() (Stepper, int) {
	defer runtime.KeepAlive(w)
	return w.stepper, int(w.cw().iterations)
}

// SetSeed sets this world's state of the random generator QuickStep uses
// to shuffle constraints (more than 8 iterations). Two worlds built and
// stepped the same way with the same seed follow the same trajectory. The
// initial seed is 0.
func (w *World) SetSeed(seed uint32) {
	defer runtime.KeepAlive(w)
	w.cw().seed = C.ulong(seed)
}

// Seed returns this world's current random generator state (it advances
// with every QuickStep of more than 8 iterations).
func (w *World) Seed() uint32 {
	defer runtime.KeepAlive(w)
	return uint32(w.cw().seed)
}

// SetERP sets the global error reduction parameter, the fraction of a
// joint or contact error (penetration) corrected per step, in [0, 1];
// ODE's default is 0.2.
func (w *World) SetERP(erp float64) {
	defer runtime.KeepAlive(w)
	if !(erp >= 0 && erp <= 1) {
		panic(fmt.Sprintf("rigidbody: SetERP(%g): must be in [0, 1]", erp))
	}
	C.dWorldSetERP(w.cw().world, C.dReal(erp))
}

// ERP returns the global error reduction parameter.
func (w *World) ERP() float64 {
	defer runtime.KeepAlive(w)
	return float64(C.dWorldGetERP(w.cw().world))
}

// SetCFM sets the global constraint force mixing (softness, ≥ 0; 0 makes
// constraints hard); ODE's default is 1e-5 in double precision.
func (w *World) SetCFM(cfm float64) {
	defer runtime.KeepAlive(w)
	if !(cfm >= 0) || math.IsInf(cfm, 0) {
		panic(fmt.Sprintf("rigidbody: SetCFM(%g): must be non-negative and finite", cfm))
	}
	C.dWorldSetCFM(w.cw().world, C.dReal(cfm))
}

// CFM returns the global constraint force mixing.
func (w *World) CFM() float64 {
	defer runtime.KeepAlive(w)
	return float64(C.dWorldGetCFM(w.cw().world))
}

// SetContactSurfaceLayer sets the depth, in metres, to which geoms may
// sink into each other before contacts push back (≥ 0; default 0). A few
// millimetres stop resting contacts from jittering in and out.
func (w *World) SetContactSurfaceLayer(depth float64) {
	defer runtime.KeepAlive(w)
	if !(depth >= 0) || math.IsInf(depth, 0) {
		panic(fmt.Sprintf("rigidbody: SetContactSurfaceLayer(%g): must be non-negative and finite", depth))
	}
	C.dWorldSetContactSurfaceLayer(w.cw().world, C.dReal(depth))
}

// SetContactMaxCorrectingVel caps the velocity, m/s, that contacts may
// give bodies to push them apart (> 0; +Inf, the default, means no cap).
// A cap stops deep penetrations from launching bodies.
func (w *World) SetContactMaxCorrectingVel(v float64) {
	defer runtime.KeepAlive(w)
	if !(v > 0) {
		panic(fmt.Sprintf("rigidbody: SetContactMaxCorrectingVel(%g): must be positive", v))
	}
	C.dWorldSetContactMaxCorrectingVel(w.cw().world, C.dReal(v))
}

// SetMaxContacts sets the largest number of contact points made for one
// pair of touching geoms, 1 to 64 (default 8).
func (w *World) SetMaxContacts(n int) {
	defer runtime.KeepAlive(w)
	if n < 1 || n > C.GALLOP_MAX_CONTACTS {
		panic(fmt.Sprintf("rigidbody: SetMaxContacts(%d): must be in [1, %d]", n, C.GALLOP_MAX_CONTACTS))
	}
	w.cw().max_contacts = C.int(n)
}

// SetDamping sets the default linear and angular damping of bodies
// (dWorldSetLinearDamping, dWorldSetAngularDamping): the fraction of the
// velocity removed per step, in [0, 1]; default 0.
func (w *World) SetDamping(linear, angular float64) {
	defer runtime.KeepAlive(w)
	if !(linear >= 0 && linear <= 1 && angular >= 0 && angular <= 1) {
		panic(fmt.Sprintf("rigidbody: SetDamping(%g, %g): must be in [0, 1]", linear, angular))
	}
	c := w.cw()
	C.dWorldSetLinearDamping(c.world, C.dReal(linear))
	C.dWorldSetAngularDamping(c.world, C.dReal(angular))
}

// SetAutoDisable turns ODE's auto-disable on for bodies created from now
// on (and off with steps ≤ 0): a body whose linear and angular speeds stay
// at or below linear (m/s) and angular (rad/s) for steps consecutive steps
// is disabled, that is frozen and skipped by the step, until an enabled
// body touches it. This changes the motion (a disabled body no longer
// settles); use it to save time, and the at-rest test (SetRestThresholds)
// to decide when a simulation is over. Disabled bodies count as at rest.
func (w *World) SetAutoDisable(linear, angular float64, steps int) {
	defer runtime.KeepAlive(w)
	c := w.cw()
	if steps <= 0 {
		C.dWorldSetAutoDisableFlag(c.world, 0)
		return
	}
	if !(linear >= 0 && angular >= 0) {
		panic(fmt.Sprintf("rigidbody: SetAutoDisable(%g, %g, %d): thresholds must be non-negative", linear, angular, steps))
	}
	C.dWorldSetAutoDisableFlag(c.world, 1)
	C.dWorldSetAutoDisableLinearThreshold(c.world, C.dReal(linear))
	C.dWorldSetAutoDisableAngularThreshold(c.world, C.dReal(angular))
	C.dWorldSetAutoDisableSteps(c.world, C.int(steps))
	C.dWorldSetAutoDisableTime(c.world, 0)
}

// SetRestThresholds sets the at-rest test: a body is at rest once its
// linear speed has been at most linear (m/s) and its angular speed at most
// angular (rad/s) after each of steps consecutive steps (steps ≥ 1). The
// test only observes; it never changes the motion.
func (w *World) SetRestThresholds(linear, angular float64, steps int) {
	defer runtime.KeepAlive(w)
	if !(linear >= 0 && angular >= 0) || steps < 1 {
		panic(fmt.Sprintf("rigidbody: SetRestThresholds(%g, %g, %d): need non-negative speeds and steps ≥ 1", linear, angular, steps))
	}
	c := w.cw()
	c.rest_lin2 = C.double(linear * linear)
	c.rest_ang2 = C.double(angular * angular)
	c.rest_steps = C.int(steps)
}

// DivergedError is returned by Step when a body's position or velocity is
// no longer finite: the simulation blew up (too large a time step, too
// stiff or inconsistent constraints, or absurd input).
type DivergedError struct {
	Step int // steps taken, including the one that diverged
	Body int // index of the first non-finite body
}

func (e *DivergedError) Error() string {
	return fmt.Sprintf("rigidbody: simulation diverged at step %d: body %d is not finite", e.Step, e.Body)
}

// ErrStepFailed is returned by Step when ODE could not allocate the memory
// for a step.
var ErrStepFailed = errors.New("rigidbody: step failed (out of memory)")

// Step runs one step of the simulation: it finds the contacts between all
// geoms (body against body, body against static geometry), turns them
// into contact joints with the combined surface parameters, advances the
// world by the time step with the selected stepper, deletes the contact
// joints and updates the at-rest test. It returns a *DivergedError if a
// body ends the step with a non-finite position or velocity.
func (w *World) Step() error {
	defer runtime.KeepAlive(w)
	c := w.cw()
	switch C.gallop_world_step(c) {
	case C.GALLOP_OK:
		return nil
	case C.GALLOP_DIVERGED:
		return &DivergedError{Step: int(c.steps), Body: int(c.bad_body)}
	default:
		return ErrStepFailed
	}
}

// Steps returns the number of steps taken.
func (w *World) Steps() int {
	defer runtime.KeepAlive(w)
	return int(w.cw().steps)
}

// Contacts returns the number of contact points of the last step.
func (w *World) Contacts() int {
	defer runtime.KeepAlive(w)
	return int(w.cw().ncontacts)
}

// Messages returns the number of messages ODE issued during this world's
// steps (such as "LCP internal error"), which the package counts instead
// of printing, and the last one.
func (w *World) Messages() (int, string) {
	defer runtime.KeepAlive(w)
	c := w.cw()
	return int(c.messages), C.GoString(&c.last_message[0])
}

// AllAtRest reports whether every body has passed the at-rest test (see
// SetRestThresholds) after the last step. It is true for a world without
// bodies, and false for one with bodies that has not stepped.
func (w *World) AllAtRest() bool {
	defer runtime.KeepAlive(w)
	c := w.cw()
	return c.nrest == c.nbodies
}

// Bodies returns the world's bodies in creation order; body i is
// Bodies()[i] and has Index() i. The slice is the world's own: do not
// modify it.
func (w *World) Bodies() []*Body { return w.bodies }

// Pose is a body's position and orientation: a point p given in the body's
// frame is at Rot.Rotate(p) + Pos in the world.
type Pose struct {
	Pos mgl64.Vec3 // the body's origin (its centre of mass), m
	Rot mgl64.Quat // unit quaternion, W first as in ODE
}

// poseLayoutError checks that a Pose of the given size and field offsets
// is what gallop_world_poses writes: seven float64s in a row, the
// position's three, then the quaternion's W and its vector part. Any other
// layout (padding, another field order, a larger struct) would have the C
// side write past or beside the Go values.
func poseLayoutError(size, pos, rotW, rotV uintptr) error {
	const f = unsafe.Sizeof(float64(0))
	if size != 7*f || pos != 0 || rotW != 3*f || rotV != 4*f {
		return fmt.Errorf("rigidbody: Pose is %d bytes with Pos at %d, Rot.W at %d and Rot.V at %d; the C side writes 7 float64s (56 bytes: Pos at 0, W at 24, V at 32)", size, pos, rotW, rotV)
	}
	return nil
}

func init() {
	var p Pose
	if err := poseLayoutError(unsafe.Sizeof(p), unsafe.Offsetof(p.Pos), unsafe.Offsetof(p.Rot)+unsafe.Offsetof(p.Rot.W), unsafe.Offsetof(p.Rot)+unsafe.Offsetof(p.Rot.V)); err != nil {
		panic(err)
	}
}

// Transform returns the world position of the body-frame point p.
func (p Pose) Transform(v mgl64.Vec3) mgl64.Vec3 { return p.Rot.Rotate(v).Add(p.Pos) }

// AppendPoses appends the pose of every body, in creation order, to dst
// and returns the extended slice: one frame of a trajectory. Recording a
// frame after every k steps into one slice gives frame f, body i at
// index f·len(Bodies())+i.
func (w *World) AppendPoses(dst []Pose) []Pose {
	defer runtime.KeepAlive(w)
	c := w.cw()
	n := int(c.nbodies)
	if n == 0 {
		return dst
	}
	dst = growPoses(dst, n)
	frame := dst[len(dst) : len(dst)+n]
	C.gallop_world_poses(c, (*C.double)(unsafe.Pointer(&frame[0])))
	return dst[:len(dst)+n]
}

// growPoses returns dst with room for n more poses.
func growPoses(dst []Pose, n int) []Pose {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	grown := make([]Pose, len(dst), 2*cap(dst)+n)
	copy(grown, dst)
	return grown
}

// checkVec panics if v is not finite.
func checkVec(what string, v mgl64.Vec3) {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			panic(fmt.Sprintf("rigidbody: %s: %v is not finite", what, v))
		}
	}
}
