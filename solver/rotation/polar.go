package rotation

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Polar returns the polar decomposition a = R·S of a 3×3 matrix: R a proper
// rotation (det R = +1) and S symmetric.
//
// R = U·Vᵀ from the signed SVD a = U·diag(σ)·Vᵀ (see SVD), so R is the
// rotation nearest a: it minimises ‖R − a‖_F, equivalently maximises
// tr(Rᵀa), over SO(3), which makes Polar also the solver of the absolute
// orientation (Kabsch) problem: for point sets with covariance
// a = Σᵢ qᵢ·pᵢᵀ, R is the rotation that best maps the pᵢ onto the qᵢ.
// S = ½(Rᵀa + aᵀR), the symmetric part of Rᵀa, which equals V·diag(σ)·Vᵀ
// up to rounding.
//
// Signs (Shoemake and Duff 1992, Section 3): when det a > 0, S is positive
// definite and the factorisation is the unique polar decomposition; when
// det a = 0, S is positive semi-definite (and R is not unique: Polar
// returns one nearest rotation); when det a < 0, no rotation times a
// positive definite matrix equals a, and the reflection goes into S: S
// has one negative eigenvalue, −σ₃, along its smallest singular direction.
// Use SVD when that direction itself is wanted.
//
// Rank-deficient input (the deformation gradient of a collapsed triangle)
// returns an orthonormal R and R·S = a, never NaN; a = 0 gives R = I,
// S = 0. R·S matches a to about ε·‖a‖ and R is orthonormal to about ε.
//
// Method: when det a > 0 and a is well-conditioned, det a ≥ 10⁻³·‖a‖_F³
// (as deformation gradients of animated meshes, rotations with moderate
// stretch, nearly always are), R comes from Newton's iteration for the
// polar factor, a few steps that each invert a 3×3 matrix by cross
// products (newtonPolar in polar.go), 5 to 7 times faster than the SVD
// (BenchmarkPolar, BenchmarkPolarToDeformation); otherwise (det a ≤ 0,
// singular or nearly singular a, extreme scales, non-finite entries) from
// the SVD. Both give U·Vᵀ to rounding: where both apply, their R differ by
// at most about 2e-15 and their S by about 1e-15·‖a‖.
func Polar(a mgl64.Mat3) (r, s mgl64.Mat3) {
	polarTo(&r, &s, &a)
	return r, s
}

// PolarTo stores the factors of Polar(*a) in *r and *s, for loops over
// slices of matrices.
func PolarTo(r, s, a *mgl64.Mat3) {
	if r == a || s == a {
		c := *a
		a = &c
	}
	polarTo(r, s, a)
}

// polarTo computes R by newtonPolar, or by svdPolar where newtonPolar
// declines, then S = sym(Rᵀa).
func polarTo(r, s, a *mgl64.Mat3) {
	if !newtonPolar(r, a) {
		svdPolar(r, a)
	}
	symmetricPart(s, r, a)
}

// Parameters of newtonPolar.
const (
	// newtonMinDet is the least det a / ‖a‖_F³ that newtonPolar accepts
	// (3^(−3/2) ≈ 0.19 for a rotation, 0.17 for a stretch by 1.5 along
	// one axis, 0.03 for one by 3 with the other axes 1 and 1/3). Above
	// it σ₁/(σ₂ + σ₃) ≤ 16 and σ₁/σ₃ ≤ 354: R is well-conditioned and
	// the iteration takes at most 7 steps.
	newtonMinDet = 1e-3
	// newtonMaxSteps bounds the iteration; reaching it (not seen above
	// newtonMinDet) leaves a to svdPolar.
	newtonMaxSteps = 10
	// newtonScaleTol: a step is scaled while |det X − 1| > newtonScaleTol.
	newtonScaleTol = 0.1
	// newtonConverged: once |det X − 1| ≤ newtonConverged (after the
	// first step), the next step is the last.
	newtonConverged = 0x1p-26
)

// newtonPolar stores in *r the rotation factor R = U·Vᵀ of a = U·diag(σ)·Vᵀ
// when det a > 0 and a is well-conditioned, computed by Newton's iteration
// for the polar decomposition (Higham 2008, Chapter 8), with scaling,
//
//	X₀ = a,  X_{k+1} = ½(ζ_k·X_k + ζ_k⁻¹·X_k⁻ᵀ),
//
// and reports whether it did; when it reports false, *r is untouched.
//
// Every X_k = U·diag(σ⁽ᵏ⁾)·Vᵀ, with σᵢ⁽ᵏ⁺¹⁾ = g(ζσᵢ⁽ᵏ⁾), g(t) = ½(t + 1/t),
// so the X_k converge to U·Vᵀ, quadratically: g(1 + e) − 1 ≈ e²/2. For
// the 3×3 matrix X with columns x₀, x₁, x₂, X⁻ᵀ = [x₁×x₂, x₂×x₀, x₀×x₁] /
// det X with det X = x₀·(x₁×x₂), so a step costs three cross products,
// one dot product and one division. The scale ζ = (det X)^(−1/3)
// (determinant scaling, ibid.; here to within 3.5%, see invCbrt), which
// makes Πζσᵢ about 1, brings a of any scale to that of a rotation in one
// step and shortens the iteration when the σᵢ are spread out. It is
// applied while |det X − 1| > newtonScaleTol; near convergence ζ = 1.
//
// Stopping. Since g(t) ≥ 1, after the first step every σᵢ ≥ 1, so
// det X − 1 = Πσᵢ − 1 ≥ Σ(σᵢ − 1) ≥ maxᵢ |σᵢ − 1|: det X, which the step
// computes anyway, bounds how far X is from orthonormal. Once it is within
// newtonConverged = 2⁻²⁶ of 1, the next (unscaled) step leaves every
// σᵢ − 1 ≤ (2⁻²⁶)²/2 = 2⁻⁵³, below rounding, and that X is R: orthonormal
// to rounding (about 7e-16 in ‖RᵀR − I‖_F, TestPolarNewtonMatchesSVD)
// without a check of RᵀR. A det X below 1 − 2⁻²⁶ after the first step
// would break that argument and returns false, as does reaching
// newtonMaxSteps; neither has been seen on accepted input.
//
// newtonPolar declines unless ‖a‖_F² is in [2⁻³⁰⁰, 2³⁰⁰] (so that nothing
// overflows or underflows; this excludes a = 0 and non-finite a) and
// det a ≥ newtonMinDet·‖a‖_F³ (which excludes det a ≤ 0, where the
// iteration would converge to a reflection, and the singular and nearly
// singular matrices, whose inverse by cofactors loses the accuracy that
// svdPolar keeps). On the matrices it accepts, its R and svdPolar's
// differ by at most about 2e-15 (TestPolarNewtonMatchesSVD).
func newtonPolar(r, a *mgl64.Mat3) bool {
	x0, x1, x2 := a[0], a[1], a[2]
	x3, x4, x5 := a[3], a[4], a[5]
	x6, x7, x8 := a[6], a[7], a[8]
	n2 := x0*x0 + x1*x1 + x2*x2 + x3*x3 + x4*x4 + x5*x5 + x6*x6 + x7*x7 + x8*x8
	if !(n2 >= 0x1p-300 && n2 <= 0x1p300) {
		return false
	}
	for k := 0; k < newtonMaxSteps; k++ {
		// X⁻ᵀ·det X, column by column: x₁×x₂, x₂×x₀, x₀×x₁.
		c0 := x4*x8 - x5*x7
		c1 := x5*x6 - x3*x8
		c2 := x3*x7 - x4*x6
		c3 := x7*x2 - x8*x1
		c4 := x8*x0 - x6*x2
		c5 := x6*x1 - x7*x0
		c6 := x1*x5 - x2*x4
		c7 := x2*x3 - x0*x5
		c8 := x0*x4 - x1*x3
		det := x0*c0 + x1*c1 + x2*c2
		last := false
		if k == 0 {
			// det a ≥ newtonMinDet·‖a‖_F³, squared: no overflow or
			// underflow for n2 in range.
			if !(det > 0 && det*det >= newtonMinDet*newtonMinDet*n2*n2*n2) {
				return false
			}
		} else {
			if !(det >= 1-newtonConverged) {
				return false
			}
			last = det <= 1+newtonConverged
		}
		// X ← αX + β·(X⁻ᵀ·det X), α = ζ/2, β = 1/(2ζ·det X).
		alpha, beta := 0.5, 0.5/det
		if d := det - 1; d > newtonScaleTol || d < -newtonScaleTol {
			z := invCbrt(det)
			alpha, beta = 0.5*z, 0.5/(z*det)
		}
		x0, x1, x2 = alpha*x0+beta*c0, alpha*x1+beta*c1, alpha*x2+beta*c2
		x3, x4, x5 = alpha*x3+beta*c3, alpha*x4+beta*c4, alpha*x5+beta*c5
		x6, x7, x8 = alpha*x6+beta*c6, alpha*x7+beta*c7, alpha*x8+beta*c8
		if last {
			// Entry by entry: a composite literal would be built on the
			// stack and copied, which costs more here.
			r[0], r[1], r[2] = x0, x1, x2
			r[3], r[4], r[5] = x3, x4, x5
			r[6], r[7], r[8] = x6, x7, x8
			return true
		}
	}
	return false
}

// invCbrt returns x^(−1/3) to within 3.5% for positive normal x: its bits
// are a constant minus a third of those of x, which divides the exponent
// by −3 (a cube root on the logarithmic scale that the bits of a float
// approximate), the constant tuned for the least relative error. The scale
// of a Newton step needs no more.
func invCbrt(x float64) float64 {
	return math.Float64frombits(0x553ef0ff289dd796 - math.Float64bits(x)/3)
}

// svdPolar stores in *r the rotation factor U·Vᵀ of the signed SVD of a:
// for any a, including the singular, non-finite and det a < 0 ones that
// newtonPolar declines.
func svdPolar(r, a *mgl64.Mat3) {
	var u, v mgl64.Mat3
	var sigma mgl64.Vec3
	svdTo(&u, &sigma, &v, a)
	for j := 0; j < 3; j++ {
		for i := 0; i < 3; i++ {
			r[3*j+i] = u[i]*v[j] + u[3+i]*v[3+j] + u[6+i]*v[6+j]
		}
	}
}

// symmetricPart stores in *s the symmetric part ½(rᵀa + aᵀr) of rᵀa; s
// may be r.
func symmetricPart(s, r, a *mgl64.Mat3) {
	r0, r1, r2 := r[0], r[1], r[2]
	r3, r4, r5 := r[3], r[4], r[5]
	r6, r7, r8 := r[6], r[7], r[8]
	a0, a1, a2 := a[0], a[1], a[2]
	a3, a4, a5 := a[3], a[4], a[5]
	a6, a7, a8 := a[6], a[7], a[8]
	// (rᵀa)ᵢⱼ = rᵢ·aⱼ for the columns rᵢ of r and aⱼ of a.
	t01 := r0*a3 + r1*a4 + r2*a5
	t10 := r3*a0 + r4*a1 + r5*a2
	t02 := r0*a6 + r1*a7 + r2*a8
	t20 := r6*a0 + r7*a1 + r8*a2
	t12 := r3*a6 + r4*a7 + r5*a8
	t21 := r6*a3 + r7*a4 + r8*a5
	m01, m02, m12 := 0.5*(t10+t01), 0.5*(t20+t02), 0.5*(t21+t12)
	s[0] = r0*a0 + r1*a1 + r2*a2
	s[4] = r3*a3 + r4*a4 + r5*a5
	s[8] = r6*a6 + r7*a7 + r8*a8
	s[1], s[3] = m01, m01
	s[2], s[6] = m02, m02
	s[5], s[7] = m12, m12
}
