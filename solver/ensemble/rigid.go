package ensemble

import (
	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// Rigid is a rigid motion x ↦ R·x + T (R a proper rotation): a group's
// frame, mapping its local (rest-shape) coordinates to its parent's or to
// the world.
type Rigid struct {
	R mgl64.Mat3
	T mgl64.Vec3
}

// Identity is the rigid motion that moves nothing.
var Identity = Rigid{R: mgl64.Ident3()}

// Apply returns R·x + T.
func (r *Rigid) Apply(x mgl64.Vec3) mgl64.Vec3 {
	m := &r.R
	return mgl64.Vec3{
		m[0]*x[0] + m[3]*x[1] + m[6]*x[2] + r.T[0],
		m[1]*x[0] + m[4]*x[1] + m[7]*x[2] + r.T[1],
		m[2]*x[0] + m[5]*x[1] + m[8]*x[2] + r.T[2],
	}
}

// Inverse returns the inverse motion x ↦ Rᵀ·(x − T).
func (r Rigid) Inverse() Rigid {
	rt := r.R.Transpose()
	return Rigid{R: rt, T: rt.Mul3x1(r.T).Mul(-1)}
}

// Compose returns r∘s, the motion x ↦ r(s(x)).
func (r Rigid) Compose(s Rigid) Rigid {
	return Rigid{R: r.R.Mul3(s.R), T: r.R.Mul3x1(s.T).Add(r.T)}
}

// blendRigid returns the motion between a (w = 0) and b (w = 1) that turns
// about, and moves, the point c of the local frame (a group's rest
// centroid): its rotation is the geodesic interpolation (slerp)
// R_a·Exp(w·Log(R_aᵀR_b)) and the image of c is interpolated linearly,
// (1−w)·a(c) + w·b(c). So a group blending between two frames turns about
// its own centre rather than swinging about its frame's origin. It returns
// a or b exactly at w = 0 or 1.
func blendRigid(a, b *Rigid, c mgl64.Vec3, w float64) Rigid {
	switch w {
	case 0:
		return *a
	case 1:
		return *b
	}
	rel := a.R.Transpose().Mul3(b.R)
	var turn mgl64.Mat3
	rotation.ExpTo(&turn, rotation.Log(rel).Mul(w))
	r := a.R.Mul3(turn)
	ca, cb := a.Apply(c), b.Apply(c)
	o := ca.Mul(1 - w).Add(cb.Mul(w))
	return Rigid{R: r, T: o.Sub(r.Mul3x1(c))}
}
