package rotation

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// maxSweeps bounds the Jacobi sweeps of SVD. Jacobi converges
// quadratically; on 3×3 matrices four to six sweeps are typical. The bound
// only guarantees termination on non-finite input.
const maxSweeps = 16

// jacobiTol is the relative orthogonality at which SVD stops rotating a
// pair of columns: |b_p·b_q| ≤ jacobiTol·|b_p|·|b_q|.
const jacobiTol = 0x1p-52

// SVD returns the signed singular value decomposition a = U·diag(σ)·Vᵀ
// of a 3×3 matrix, in which U and V are proper rotations (det +1) and
// σ₁ ≥ σ₂ ≥ |σ₃| (up to rounding), with σ₁, σ₂ ≥ 0 and σ₃ of the sign of
// det a. (The usual SVD has σ ≥ 0 and lets U or V be a reflection; this
// one moves the reflection into the smallest singular value, which is what
// rotation fitting needs: U·Vᵀ is the rotation nearest a, see Polar.)
//
// Method: one-sided Jacobi (Hestenes; Demmel and Veselić 1992). Plane
// rotations V applied to the columns of B = a·V make them mutually
// orthogonal — each rotation is the Jacobi rotation of the 2×2 block of
// BᵀB built from the current columns, so aᵀa is never formed and V is as
// accurate as the gaps between singular values (not their squares) allow.
// The columns of B are then sorted by decreasing norm (V's columns with
// them, one negated per swap to keep det V = +1), and a QR factorisation of
// B by three Givens rotations gives U and, on the diagonal of R, σ, as in
// McAdams et al. 2011, Section 5: this completes U to a rotation when B has
// zero columns and puts the sign of det a in σ₃. The reconstruction
// U·diag(σ)·Vᵀ matches a to about ε·‖a‖, and each σᵢ is accurate to about
// ε·σ₁. The matrix is first scaled by a power of two (exactly), so that
// no intermediate overflows or underflows needlessly.
//
// Rank-deficient input is fine: when a has rank 2, 1 or 0, the trailing σ
// are zero (to rounding) and U is completed to a rotation; for a = 0, U = V
// = I and σ = 0.
func SVD(a mgl64.Mat3) (u mgl64.Mat3, sigma mgl64.Vec3, v mgl64.Mat3) {
	svdTo(&u, &sigma, &v, &a)
	return u, sigma, v
}

// svdTo is SVD writing through pointers (arrays passed and returned by
// value go through the stack, slowly; see coefficients).
func svdTo(u *mgl64.Mat3, sigma *mgl64.Vec3, v *mgl64.Mat3, a *mgl64.Mat3) {
	amax, finite := 0.0, true
	for _, x := range a {
		ax := math.Abs(x)
		if ax > amax {
			amax = ax
		}
		finite = finite && ax <= math.MaxFloat64 // false for ±Inf and NaN
	}
	*u, *v = mgl64.Ident3(), mgl64.Ident3()
	if amax == 0 || !finite {
		nan := math.NaN()
		if finite {
			nan = 0
		}
		*sigma = mgl64.Vec3{nan, nan, nan}
		return
	}
	// b = a·2⁻ᵉ with the largest |entry| in [½, 1): exact, barring
	// entries 2¹⁰⁰⁰ times smaller than the largest, which underflow as
	// harmlessly as they would have in aᵀa.
	_, e := math.Frexp(amax)
	b := *a
	scaleBy(&b, -e)
	orthogonaliseColumns(&b, v)
	sortColumns(&b, v)
	givensQR(u, &b)
	*sigma = mgl64.Vec3{math.Ldexp(b[0], e), math.Ldexp(b[4], e), math.Ldexp(b[8], e)}
}

// scaleBy multiplies every entry of b by 2ᵉ.
func scaleBy(b *mgl64.Mat3, e int) {
	if e < -1000 || e > 1000 {
		for i := range b {
			b[i] = math.Ldexp(b[i], e)
		}
		return
	}
	f := math.Float64frombits(uint64(1023+e) << 52)
	for i := range b {
		b[i] *= f
	}
}

// orthogonaliseColumns applies Jacobi plane rotations to the columns of b
// and v alike (b ← b·P, v ← v·P) until the columns of b are orthogonal to
// working precision.
func orthogonaliseColumns(b, v *mgl64.Mat3) {
	for sweep := 0; sweep < maxSweeps; sweep++ {
		r0 := jacobiRotate(b, v, 0, 1)
		r1 := jacobiRotate(b, v, 0, 2)
		r2 := jacobiRotate(b, v, 1, 2)
		if !r0 && !r1 && !r2 {
			return
		}
	}
}

// jacobiRotate makes columns p and q of b orthogonal by the plane rotation
// [c s; −s c] (Golub and Van Loan 1996, Section 8.4.2, with the smaller
// angle), applied to the same columns of v, and reports whether it rotated.
func jacobiRotate(b, v *mgl64.Mat3, p, q int) bool {
	bp := (*[3]float64)(b[3*p : 3*p+3])
	bq := (*[3]float64)(b[3*q : 3*q+3])
	alpha := bp[0]*bp[0] + bp[1]*bp[1] + bp[2]*bp[2]
	beta := bq[0]*bq[0] + bq[1]*bq[1] + bq[2]*bq[2]
	gamma := bp[0]*bq[0] + bp[1]*bq[1] + bp[2]*bq[2]
	if gamma*gamma <= jacobiTol*jacobiTol*alpha*beta {
		return false
	}
	zeta := (beta - alpha) / (2 * gamma)
	var t float64
	if math.Abs(zeta) > 1e100 {
		t = 0.5 / zeta
	} else {
		t = 1 / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
		if zeta < 0 {
			t = -t
		}
	}
	c := 1 / math.Sqrt(1+t*t)
	s := t * c
	for i := 0; i < 3; i++ {
		x, y := bp[i], bq[i]
		bp[i] = c*x - s*y
		bq[i] = s*x + c*y
	}
	vp := (*[3]float64)(v[3*p : 3*p+3])
	vq := (*[3]float64)(v[3*q : 3*q+3])
	for i := 0; i < 3; i++ {
		x, y := vp[i], vq[i]
		vp[i] = c*x - s*y
		vq[i] = s*x + c*y
	}
	return true
}

// sortColumns orders the columns of b by decreasing norm, applying the
// same permutation to v and negating the second column of each swapped
// pair in both, so that b = a·v still holds and det v stays +1.
func sortColumns(b, v *mgl64.Mat3) {
	n := [3]float64{}
	for j := 0; j < 3; j++ {
		n[j] = b[3*j]*b[3*j] + b[3*j+1]*b[3*j+1] + b[3*j+2]*b[3*j+2]
	}
	swap := func(i, j int) {
		n[i], n[j] = n[j], n[i]
		for k := 0; k < 3; k++ {
			b[3*i+k], b[3*j+k] = b[3*j+k], -b[3*i+k]
			v[3*i+k], v[3*j+k] = v[3*j+k], -v[3*i+k]
		}
	}
	if n[0] < n[1] {
		swap(0, 1)
	}
	if n[0] < n[2] {
		swap(0, 2)
	}
	if n[1] < n[2] {
		swap(1, 2)
	}
}

// givensQR factors b = U·R with U a rotation (a product of three Givens
// rotations, McAdams et al. 2011, Section 5) and R upper triangular with
// R₀₀, R₁₁ ≥ 0: it multiplies the identity in *u by the rotations and
// leaves R in *b (its diagonal is σ in SVD; the off-diagonal entries are of
// the order of rounding when the columns of b are orthogonal, as they are
// there, and are dropped).
func givensQR(u, b *mgl64.Mat3) {
	// Zero b₁₀, then b₂₀, then b₂₁.
	for _, ij := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
		i, j := ij[0], ij[1] // rotate rows i and j to zero b_ji (column i)
		x, y := b[3*i+i], b[3*i+j]
		rho := math.Sqrt(x*x + y*y)
		if rho == 0 {
			continue
		}
		c, s := x/rho, y/rho
		for k := 0; k < 3; k++ { // b ← Gᵀ·b on rows i, j
			bi, bj := b[3*k+i], b[3*k+j]
			b[3*k+i] = c*bi + s*bj
			b[3*k+j] = -s*bi + c*bj
		}
		b[3*i+j] = 0
		for k := 0; k < 3; k++ { // U ← U·G on columns i, j
			ui, uj := u[3*i+k], u[3*j+k]
			u[3*i+k] = c*ui + s*uj
			u[3*j+k] = -s*ui + c*uj
		}
	}
}
