package exhaustive

import (
	"math"
	"math/big"

	"github.com/go-gl/mathgl/mgl64"
)

// The two orientation predicates, exact for float64 inputs: a float64
// evaluation is trusted when its magnitude exceeds a bound on its rounding
// error; otherwise the determinant is recomputed exactly in integers
// (math/big.Int: every float64 is an integer times a power of two, so all
// coordinates scaled by the least such power are integers, however large
// or small).
//
// The bound: each term of the determinant is a product of rounded
// differences; every difference, product and sum adds a relative error of
// at most ε = 2⁻⁵³ to a term, at most 8 roundings for orient3d and 4 for
// orient2d, so the computed value is within ≈ 8ε·P of the exact one, P
// being the permanent (the same expansion with absolute values). We use
// filterFactor·P, filterFactor = 1e-14 ≈ 90ε, a margin of ten that also
// covers P's own rounding. The relative bound holds only if no product
// underflows or overflows, so the filter is used only when every nonzero
// difference lies in [1e-90, 1e90] (products of three then lie within
// [1e-270, 1e270]); otherwise, and when the float value is within the
// bound, the sign is computed exactly.
const (
	filterFactor = 1e-14
	smallest     = 1e-90
	largest      = 1e90
)

// moderate reports whether x is 0 or its magnitude lies in
// [smallest, largest].
func moderate(x float64) bool {
	x = math.Abs(x)
	return x == 0 || x >= smallest && x <= largest
}

// orient3d returns the sign (−1, 0, +1) of det[b−a, c−a, d−a], the
// (scaled) signed volume of the tetrahedron abcd: positive when d lies on
// the side of the plane abc that (b−a)×(c−a) points to, zero when the
// four points are coplanar.
func orient3d(a, b, c, d mgl64.Vec3) int {
	ux, uy, uz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	vx, vy, vz := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	wx, wy, wz := d[0]-a[0], d[1]-a[1], d[2]-a[2]
	det := ux*(vy*wz-vz*wy) + uy*(vz*wx-vx*wz) + uz*(vx*wy-vy*wx)
	perm := math.Abs(ux)*(math.Abs(vy*wz)+math.Abs(vz*wy)) +
		math.Abs(uy)*(math.Abs(vz*wx)+math.Abs(vx*wz)) +
		math.Abs(uz)*(math.Abs(vx*wy)+math.Abs(vy*wx))
	if moderate(ux) && moderate(uy) && moderate(uz) && moderate(vx) && moderate(vy) && moderate(vz) &&
		moderate(wx) && moderate(wy) && moderate(wz) {
		if bound := filterFactor * perm; det > bound {
			return 1
		} else if det < -bound {
			return -1
		}
	}
	return orient3dExact(a, b, c, d)
}

// orient2d returns the sign of det[b−a, c−a] in the coordinate plane (i, j):
// positive when a, b, c turn counterclockwise seen with axis i right and
// axis j up.
func orient2d(a, b, c mgl64.Vec3, i, j int) int {
	ux, uy := b[i]-a[i], b[j]-a[j]
	vx, vy := c[i]-a[i], c[j]-a[j]
	det := ux*vy - uy*vx
	perm := math.Abs(ux*vy) + math.Abs(uy*vx)
	if moderate(ux) && moderate(uy) && moderate(vx) && moderate(vy) {
		if bound := filterFactor * perm; det > bound {
			return 1
		} else if det < -bound {
			return -1
		}
	}
	return orient2dExact(a, b, c, i, j)
}

func orient3dExact(a, b, c, d mgl64.Vec3) int {
	var x [12]big.Int
	scaled(x[:], a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2])
	var u, v, w [3]big.Int
	for k := range 3 {
		u[k].Sub(&x[3+k], &x[k])
		v[k].Sub(&x[6+k], &x[k])
		w[k].Sub(&x[9+k], &x[k])
	}
	var det, t, m1, m2 big.Int
	minor := func(p, q int) *big.Int { // v_p w_q − v_q w_p
		m1.Mul(&v[p], &w[q])
		m2.Mul(&v[q], &w[p])
		return m1.Sub(&m1, &m2)
	}
	det.Mul(&u[0], minor(1, 2))
	t.Mul(&u[1], minor(2, 0))
	det.Add(&det, &t)
	t.Mul(&u[2], minor(0, 1))
	det.Add(&det, &t)
	return det.Sign()
}

func orient2dExact(a, b, c mgl64.Vec3, i, j int) int {
	var x [6]big.Int
	scaled(x[:], a[i], a[j], b[i], b[j], c[i], c[j])
	var ux, uy, vx, vy, l, r big.Int
	ux.Sub(&x[2], &x[0])
	uy.Sub(&x[3], &x[1])
	vx.Sub(&x[4], &x[0])
	vy.Sub(&x[5], &x[1])
	l.Mul(&ux, &vy)
	r.Mul(&uy, &vx)
	return l.Cmp(&r)
}

// scaled sets dst[i] to the integer xs[i]·2^−e, exactly, e being the least
// exponent of the binary fractions of the (finite) xs: all the xs scaled
// by one positive power of two, so determinants keep their signs.
func scaled(dst []big.Int, xs ...float64) {
	const mantBits = 53
	var mant [12]int64
	var exp [12]int
	e := math.MaxInt
	for k, x := range xs {
		if x == 0 {
			continue
		}
		f, ex := math.Frexp(x) // x = f·2^ex, ½ ≤ |f| < 1
		mant[k] = int64(f * (1 << mantBits))
		exp[k] = ex - mantBits
		e = min(e, exp[k])
	}
	for k := range xs {
		if mant[k] != 0 {
			dst[k].SetInt64(mant[k])
			dst[k].Lsh(&dst[k], uint(exp[k]-e))
		}
	}
}
