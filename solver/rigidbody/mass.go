package rigidbody

/*
#include "gallop_ode.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Mass is the mass distribution of a rigid body described in some frame,
// as ODE's dMass: the total mass, the centre of mass, and the inertia
// tensor about the frame's origin (about the centre of mass only when
// Center is zero). A body needs its mass with Center at zero (Body.SetMass).
type Mass struct {
	Total   float64    // kg, > 0
	Center  mgl64.Vec3 // centre of mass, m
	Inertia mgl64.Mat3 // kg·m², symmetric, about the frame's origin
}

// toC converts m to ODE's dMass (I is 3×4, row-major).
func (m Mass) toC() C.dMass {
	var dm C.dMass
	dm.mass = C.dReal(m.Total)
	for i := 0; i < 3; i++ {
		dm.c[i] = C.dReal(m.Center[i])
		for j := 0; j < 3; j++ {
			dm.I[4*i+j] = C.dReal(m.Inertia.At(i, j))
		}
	}
	return dm
}

// massFromC converts ODE's dMass to a Mass.
func massFromC(dm *C.dMass) Mass {
	m := Mass{Total: float64(dm.mass)}
	for i := 0; i < 3; i++ {
		m.Center[i] = float64(dm.c[i])
		for j := 0; j < 3; j++ {
			m.Inertia.Set(i, j, float64(dm.I[4*i+j]))
		}
	}
	return m
}

// check reports why m cannot be a body's mass: a total that is not
// positive, a non-finite entry, or an inertia tensor that is not positive
// definite about the centre of mass (dMassCheck).
func (m Mass) check() error {
	if !(m.Total > 0) || math.IsInf(m.Total, 0) {
		return fmt.Errorf("total mass %g must be positive and finite", m.Total)
	}
	for _, x := range m.Inertia {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("inertia tensor is not finite")
		}
	}
	for _, x := range m.Center {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return errors.New("centre of mass is not finite")
		}
	}
	dm := m.toC()
	if C.dMassCheck(&dm) == 0 {
		return fmt.Errorf("inertia tensor %v is not positive definite", m.Inertia)
	}
	return nil
}

// Add returns the mass of the two bodies together (dMassAdd); both must be
// described in the same frame.
func (m Mass) Add(o Mass) Mass {
	a, b := m.toC(), o.toC()
	C.dMassAdd(&a, &b)
	return massFromC(&a)
}

// Translate returns the mass moved by d in its frame (dMassTranslate): the
// centre becomes Center+d and the inertia about the origin follows by the
// parallel axis theorem.
func (m Mass) Translate(d mgl64.Vec3) Mass {
	checkVec("Mass.Translate", d)
	dm := m.toC()
	C.dMassTranslate(&dm, C.dReal(d[0]), C.dReal(d[1]), C.dReal(d[2]))
	return massFromC(&dm)
}

// Rotate returns the mass rotated by q about the frame's origin
// (dMassRotate).
func (m Mass) Rotate(q mgl64.Quat) Mass {
	q = unitQuat("Mass.Rotate", q)
	dq := C.dQuaternion{C.dReal(q.W), C.dReal(q.V[0]), C.dReal(q.V[1]), C.dReal(q.V[2])}
	var r C.dMatrix3
	C.dRfromQ(&r[0], &dq[0])
	dm := m.toC()
	C.dMassRotate(&dm, &r[0])
	return massFromC(&dm)
}

// Scaled returns the mass with its total set to total (dMassAdjust): the
// inertia scales by the same factor, the centre stays.
func (m Mass) Scaled(total float64) Mass {
	if !(total > 0) || math.IsInf(total, 0) {
		panic(fmt.Sprintf("rigidbody: Mass.Scaled(%g): total must be positive and finite", total))
	}
	dm := m.toC()
	C.dMassAdjust(&dm, C.dReal(total))
	return massFromC(&dm)
}
