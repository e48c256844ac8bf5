package rotation

import "github.com/go-gl/mathgl/mgl64"

// RigidSums accumulates a weighted absolute-orientation problem: find the
// rigid motion x ↦ R·x + T minimising Σᵢ cᵢ‖R·pᵢ + T − qᵢ‖² (cᵢ ≥ 0) that
// best maps the points pᵢ onto the qᵢ. It holds the 4×4 sums
// Σᵢ cᵢ[qᵢ;1][pᵢ;1]ᵀ, row-major: the top-left 3×3 block Σ cᵢqᵢpᵢᵀ, the
// last column Σ cᵢqᵢ, the last row Σ cᵢpᵢᵀ and the corner Σ cᵢ. The zero
// value is the empty sum; sums of disjoint point sets add element-wise.
// This is the one rigid fit of point sets the solvers share (SSDR's bone
// fits, an ensemble's group frames).
type RigidSums [16]float64

// Add adds the pair (q, p) with weight c: c·[q;1][p;1]ᵀ.
func (a *RigidSums) Add(c float64, q, p mgl64.Vec3) {
	for r := range 3 {
		cq := c * q[r]
		a[4*r] += cq * p[0]
		a[4*r+1] += cq * p[1]
		a[4*r+2] += cq * p[2]
		a[4*r+3] += cq
	}
	a[12] += c * p[0]
	a[13] += c * p[1]
	a[14] += c * p[2]
	a[15] += c
}

// Fit returns the rigid motion minimising Σᵢ cᵢ‖R·pᵢ + T − qᵢ‖² for the
// accumulated sums: with the weighted centroids q̄ = Σcᵢqᵢ/Σcᵢ and
// p̄ = Σcᵢpᵢ/Σcᵢ, R is the rotation nearest the covariance
// Σcᵢqᵢpᵢᵀ/Σcᵢ − q̄p̄ᵀ (Kabsch, through Polar; a proper rotation even when
// the best orthogonal map would be a reflection) and T = q̄ − R·p̄.
// ok is false, and R, T zero, when the total weight Σcᵢ is not positive.
// When the pᵢ are collinear (or a single point) the rotation about their
// line is not determined and Fit returns one of the minimisers.
func (a *RigidSums) Fit() (r mgl64.Mat3, t mgl64.Vec3, ok bool) {
	w := a[15]
	if !(w > 0) {
		return r, t, false
	}
	inv := 1 / w
	q := mgl64.Vec3{a[3] * inv, a[7] * inv, a[11] * inv}
	p := mgl64.Vec3{a[12] * inv, a[13] * inv, a[14] * inv}
	var c mgl64.Mat3
	for row := range 3 {
		for col := range 3 {
			c[3*col+row] = a[4*row+col]*inv - q[row]*p[col]
		}
	}
	var sym mgl64.Mat3
	PolarTo(&r, &sym, &c)
	t = q.Sub(r.Mul3x1(p))
	return r, t, true
}
