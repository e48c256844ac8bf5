package rotation

import "github.com/go-gl/mathgl/mgl64"

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

func polarTo(r, s, a *mgl64.Mat3) {
	var u, v mgl64.Mat3
	var sigma mgl64.Vec3
	svdTo(&u, &sigma, &v, a)
	// R = U·Vᵀ.
	for j := 0; j < 3; j++ {
		for i := 0; i < 3; i++ {
			r[3*j+i] = u[i]*v[j] + u[3+i]*v[3+j] + u[6+i]*v[6+j]
		}
	}
	// S = sym(Rᵀa).
	var t mgl64.Mat3
	for j := 0; j < 3; j++ {
		for i := 0; i < 3; i++ {
			t[3*j+i] = r[3*i]*a[3*j] + r[3*i+1]*a[3*j+1] + r[3*i+2]*a[3*j+2]
		}
	}
	for j := 0; j < 3; j++ {
		s[3*j+j] = t[3*j+j]
		for i := j + 1; i < 3; i++ {
			m := 0.5 * (t[3*j+i] + t[3*i+j])
			s[3*j+i], s[3*i+j] = m, m
		}
	}
}
