package rotation

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Below seriesAngle the coefficients sin θ/θ, (1 − cos θ)/θ² and cos θ of
// Exp and RightJacobian come from their Taylor series (five terms, exact to
// rounding there). The direct formula for (θ − sin θ)/θ³ loses about 6ε/θ²
// to cancellation, so that coefficient uses its series (eleven terms, exact
// to rounding) up to seriesAngleC = 1, where the loss is down to an ulp.
const (
	seriesAngle  = 0.05
	seriesAngleC = 1
)

// Skew returns [w]×, the skew-symmetric matrix with [w]×·x = w × x:
//
//	⎡  0   −w₃   w₂ ⎤
//	⎢  w₃   0   −w₁ ⎥
//	⎣ −w₂   w₁   0  ⎦
func Skew(w mgl64.Vec3) mgl64.Mat3 {
	return mgl64.Mat3{
		0, w[2], -w[1], // column 0
		-w[2], 0, w[0], // column 1
		w[1], -w[0], 0, // column 2
	}
}

// coefficients returns, for θ = |(x, y, z)|, a = sin θ/θ,
// b = (1 − cos θ)/θ², c = (θ − sin θ)/θ³ (if withC; otherwise 0) and
// cos θ, from their series near θ = 0. (sin θ/θ and
// (1 − cos θ)/θ² = 2·sin²(θ/2)/θ² are accurate as written for θ > 0; the
// series only avoid dividing by a tiny θ.) Exp leaves c out: its series is
// a chain of ten dependent multiplications.
//
// The kernels below take scalars and write through pointers: on amd64,
// arrays passed or returned by value go through the stack, where reading
// them back element by element stalls store forwarding and costs more than
// the arithmetic. The exported functions are inlinable wrappers.
func coefficients(x, y, z float64, withC bool) (a, b, c, cos float64) {
	t := x*x + y*y + z*z
	// The series are nested Horner forms, multiplying by constant
	// reciprocals (Go does not turn x/20 into x·(1/20) by itself).
	if withC && t < seriesAngleC*seriesAngleC {
		// Σ_k (−t)^k/(2k+3)!
		c = (1 - t*(1.0/20)*(1-t*(1.0/42)*(1-t*(1.0/72)*(1-t*(1.0/110)*(1-t*(1.0/156)*
			(1-t*(1.0/210)*(1-t*(1.0/272)*(1-t*(1.0/342)*(1-t*(1.0/420)*(1-t*(1.0/506))))))))))) * (1.0 / 6)
	}
	if t < seriesAngle*seriesAngle {
		a = 1 - t*(1.0/6)*(1-t*(1.0/20)*(1-t*(1.0/42)*(1-t*(1.0/72))))
		b = 0.5 * (1 - t*(1.0/12)*(1-t*(1.0/30)*(1-t*(1.0/56)*(1-t*(1.0/90)))))
		cos = 1 - t*0.5*(1-t*(1.0/12)*(1-t*(1.0/30)*(1-t*(1.0/56))))
		return a, b, c, cos
	}
	// Everything from the half angle: sin θ = 2·sh·ch, 1 − cos θ = 2·sh²
	// and cos θ = (ch − sh)(ch + sh), each free of cancellation.
	theta := math.Sqrt(t)
	sh, ch := math.Sincos(0.5 * theta)
	sin := 2 * sh * ch
	inv := 1 / theta
	a = sin * inv
	b = 2 * sh * sh * inv * inv
	if withC && t >= seriesAngleC*seriesAngleC {
		c = (theta - sin) * inv * inv * inv
	}
	return a, b, c, (ch - sh) * (ch + sh)
}

// Exp returns the rotation by |w| about w/|w| (the identity for w = 0), by
// Rodrigues' formula
//
//	Exp(w) = I + (sin θ/θ)·[w]× + ((1 − cos θ)/θ²)·[w]×²,  θ = |w|,
//
// written as cos θ·I + (sin θ/θ)·[w]× + ((1 − cos θ)/θ²)·w·wᵀ, with the
// coefficients from their Taylor series for θ < 0.05, so that Exp is exact
// to rounding near 0 (the identity at w = 0). Any w is accepted; Exp is
// 2π-periodic along each ray.
func Exp(w mgl64.Vec3) (r mgl64.Mat3) {
	expTo(&r, w[0], w[1], w[2])
	return r
}

// ExpTo stores Exp(w) in *r: the same function, for loops that keep their
// matrices in slices or structs.
func ExpTo(r *mgl64.Mat3, w mgl64.Vec3) { expTo(r, w[0], w[1], w[2]) }

func expTo(r *mgl64.Mat3, x, y, z float64) {
	a, b, _, cos := coefficients(x, y, z, false)
	setExp(r, x, y, z, a, b, cos)
}

// setExp stores cos·I + a·[w]× + b·w·wᵀ in *r.
func setExp(r *mgl64.Mat3, x, y, z, a, b, cos float64) {
	bx, by := b*x, b*y
	*r = mgl64.Mat3{
		cos + bx*x, bx*y + a*z, bx*z - a*y, // column 0
		bx*y - a*z, cos + by*y, by*z + a*x, // column 1
		bx*z + a*y, by*z - a*x, cos + b*z*z, // column 2
	}
}

// RightJacobian returns the right Jacobian of Exp at w,
//
//	J_r(w) = I − ((1 − cos θ)/θ²)·[w]× + ((θ − sin θ)/θ³)·[w]×²,  θ = |w|,
//
// the matrix with d/dt Exp(w(t)) = Exp(w)·[J_r(w)·ẇ]× for any smooth path
// w(t) (Chirikjian 2012, Eq. 10.86). It is computed as
// (sin θ/θ)·I − ((1 − cos θ)/θ²)·[w]× + ((θ − sin θ)/θ³)·w·wᵀ, with series
// coefficients near θ = 0 (for the last one up to θ = 1, where the direct
// formula would cancel). J_r(0) = I, J_r(w)·w = w, and J_r(−w) = J_r(w)ᵀ
// is the left Jacobian.
func RightJacobian(w mgl64.Vec3) (jr mgl64.Mat3) {
	a, b, c, _ := coefficients(w[0], w[1], w[2], true)
	setRightJacobian(&jr, w[0], w[1], w[2], a, b, c)
	return jr
}

// setRightJacobian stores a·I − b·[w]× + c·w·wᵀ in *jr.
func setRightJacobian(jr *mgl64.Mat3, x, y, z, a, b, c float64) {
	cx, cy := c*x, c*y
	*jr = mgl64.Mat3{
		a + cx*x, cx*y - b*z, cx*z + b*y, // column 0
		cx*y + b*z, a + cy*y, cy*z - b*x, // column 1
		cx*z - b*y, cy*z + b*x, a + c*z*z, // column 2
	}
}

// ExpAndRightJacobian returns Exp(w) and RightJacobian(w) together, sharing
// the trigonometry: the pair a derivative of a rotation blend needs.
func ExpAndRightJacobian(w mgl64.Vec3) (r, jr mgl64.Mat3) {
	expAndRightJacobianTo(&r, &jr, w[0], w[1], w[2])
	return r, jr
}

// ExpAndRightJacobianTo stores Exp(w) in *r and RightJacobian(w) in *jr.
func ExpAndRightJacobianTo(r, jr *mgl64.Mat3, w mgl64.Vec3) {
	expAndRightJacobianTo(r, jr, w[0], w[1], w[2])
}

func expAndRightJacobianTo(r, jr *mgl64.Mat3, x, y, z float64) {
	a, b, c, cos := coefficients(x, y, z, true)
	setExp(r, x, y, z, a, b, cos)
	setRightJacobian(jr, x, y, z, a, b, c)
}

// Log returns the rotation vector ω = θ·a of the rotation r, with angle
// θ ∈ [0, π] and unit axis a, so that Exp(Log(r)) = r (the principal
// logarithm; Sumner et al. 2005, footnote 1).
//
// The angle is θ = atan2(|v|, (tr r − 1)/2) where v = ½(r₃₂ − r₂₃,
// r₁₃ − r₃₁, r₂₁ − r₁₂) = sin θ·a is the skew part of r; atan2 never sees
// an argument out of range, so a slightly non-orthonormal r (accumulated
// rounding, a rotation stored in float32) gives the rotation vector of a
// nearby rotation rather than NaN. For θ ≤ π/2 the result is v·θ/|v|,
// where θ/|v| is exact to rounding as θ → 0 (it tends to the series
// 1 + θ²/6 + …, and to 1 at v = 0). For θ > π/2, where v no longer fixes
// the axis accurately, the axis comes from the symmetric part,
// ½(r + rᵀ) − cos θ·I = (1 − cos θ)·a·aᵀ, and v only chooses its sign
// (a·v ≥ 0); when θ is π to rounding (|v| below about 1e-15, where the
// sign of v is noise) the component of a of largest magnitude is made
// positive instead, so that every half-turn has one canonical logarithm.
func Log(r mgl64.Mat3) mgl64.Vec3 {
	v := mgl64.Vec3{
		0.5 * (r[5] - r[7]), // r₃₂ − r₂₃
		0.5 * (r[6] - r[2]), // r₁₃ − r₃₁
		0.5 * (r[1] - r[3]), // r₂₁ − r₁₂
	}
	s := math.Sqrt(v[0]*v[0] + v[1]*v[1] + v[2]*v[2])
	c := 0.5 * (r[0] + r[4] + r[8] - 1)
	theta := math.Atan2(s, c)
	if c >= 0 {
		if s == 0 {
			return mgl64.Vec3{}
		}
		return v.Mul(theta / s)
	}
	// θ > π/2: axis from the symmetric part, through its largest diagonal
	// entry (a_k² ≥ 1/3 there, so the division below is well conditioned).
	k := 0
	if r[4] > r[0] {
		k = 1
	}
	if r[8] > r[4*k] {
		k = 2
	}
	var a mgl64.Vec3
	for i := 0; i < 3; i++ {
		if i == k {
			a[i] = math.Max(r[4*k]-c, 0)
		} else {
			a[i] = 0.5 * (r[3*k+i] + r[3*i+k]) // (1 − c)·a_i·a_k
		}
	}
	n := a.Len()
	if n == 0 { // not a rotation at all; fall back on the skew part
		if s == 0 {
			return mgl64.Vec3{}
		}
		return v.Mul(theta / s)
	}
	a = a.Mul(1 / n)
	if s <= piNoise*(1-c) {
		return largestPositive(a).Mul(theta)
	}
	if a.Dot(v) < 0 {
		a = a.Mul(-1)
	}
	return a.Mul(theta)
}

// piNoise is the size of the skew part, relative to the scale 1 − cos θ ≈ 2
// of a rotation near π, below which it is rounding noise rather than a
// sign: such rotations are within about 1e-15 of a half-turn, and Log gives
// them the canonical sign of the exact half-turn.
const piNoise = 0x1p-51

// largestPositive returns ±a with the component of largest magnitude
// positive (the first such component on ties).
func largestPositive(a mgl64.Vec3) mgl64.Vec3 {
	k := 0
	for i := 1; i < 3; i++ {
		if math.Abs(a[i]) > math.Abs(a[k]) {
			k = i
		}
	}
	if a[k] < 0 {
		return a.Mul(-1)
	}
	return a
}
