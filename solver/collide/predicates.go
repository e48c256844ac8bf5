package collide

import (
	"math"
	"math/big"

	"github.com/go-gl/mathgl/mgl64"
)

// The orientation predicates
//
//	orient2d(a, b, c) = sign of (b−a) × (c−a)            (2-D cross product)
//	orient3d(a, b, c, d) = sign of ((b−a) × (c−a)) · (d−a)
//
// are decided exactly for float64 inputs in three stages (Shewchuk,
// "Adaptive precision floating-point arithmetic and fast robust geometric
// predicates", Discrete & Computational Geometry 18(3), 1997):
//
//  1. a floating-point evaluation, accepted when its magnitude exceeds
//     Shewchuk's a-priori bound on its rounding error (errboundA: (3+16ε)ε
//     and (7+56ε)ε times the permanent, the same expression with every
//     product replaced by its absolute value; ε = 2⁻⁵³);
//  2. otherwise the determinant exactly, as a floating-point expansion: the
//     differences split exactly into two floats each (TwoSum), every
//     product of two or three floats split exactly into floats with
//     math.FMA (TwoProduct), all of them summed into a nonoverlapping
//     expansion (Grow-Expansion) whose largest component has the sign of
//     the sum;
//  3. for inputs outside the range where stages 1 and 2 are free of
//     overflow and underflow, the determinant in math/big integers, every
//     coordinate scaled by the same power of two to an integer.
//
// Stages 1 and 2 rely on every coordinate being 0 or of magnitude in
// [2⁻²⁵⁰, 2²⁵⁰) ("narrow" inputs). The last bit of such a coordinate is at
// least 2⁻³⁰², so every difference of two is a multiple of 2⁻³⁰², every
// product of up to three differences a multiple of 2⁻⁹⁰⁶, and so is every
// float the stages compute from them (rounding a multiple of a power of two
// gives one). Nonzero values are therefore at least 2⁻⁹⁰⁶, far above the
// smallest normal 2⁻¹⁰²², and all stay below 2⁷⁶⁰, far from overflow.
// Without underflow and overflow the error terms of TwoSum and TwoProduct
// are exact and Shewchuk's relative error bounds hold. Callers classify their inputs once (kindOf) and pass
// wide = true when some coordinate is outside that range, which sends every
// predicate of the call to stage 3.
//
// Products are wrapped in float64(·) conversions where the error analysis
// needs them rounded on their own: the Go specification allows x*y + z to
// be fused into one rounding otherwise.

const (
	eps        = 0x1p-53
	errBound2D = (3 + 16*eps) * eps
	errBound3D = (7 + 56*eps) * eps
)

// kind classifies coordinates for the predicates; a set of coordinates has
// the largest kind of its members.
type kind uint8

const (
	narrow kind = iota // zero, or magnitude in [2⁻²⁵⁰, 2²⁵⁰)
	wide               // finite, but outside the narrow range: big integers
	bad                // NaN or ±Inf: nothing intersects
)

// kindOf returns the kind of x, from its biased exponent field.
func kindOf(x float64) kind {
	bits := math.Float64bits(x)
	switch e := int(bits >> 52 & 0x7ff); {
	case bits<<1 == 0 || e >= 1023-250 && e < 1023+250:
		return narrow
	case e == 0x7ff: // ±Inf or NaN
		return bad
	}
	return wide
}

// vecKind returns the kind of the coordinates of v.
func vecKind(v *mgl64.Vec3) kind {
	return max(kindOf(v[0]), kindOf(v[1]), kindOf(v[2]))
}

// triKind returns the kind of the corners of t.
func triKind(t *[3]mgl64.Vec3) kind {
	return max(vecKind(&t[0]), vecKind(&t[1]), vecKind(&t[2]))
}

// sign returns −1, 0 or +1 as x is negative, zero or positive.
func sign(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// orient2d returns the sign of (b−a) × (c−a) = (bx−ax)(cy−ay) − (by−ay)(cx−ax):
// +1 when a, b, c turn counter-clockwise, −1 clockwise, 0 when they are
// collinear (or coincide), exactly.
func orient2d(ax, ay, bx, by, cx, cy float64, wide bool) int {
	if wide {
		return orient2dWide(ax, ay, bx, by, cx, cy)
	}
	ux, uy, vx, vy := bx-ax, by-ay, cx-ax, cy-ay
	l, r := float64(ux*vy), float64(uy*vx)
	det := l - r
	bound := errBound2D * (math.Abs(l) + math.Abs(r))
	if det > bound {
		return 1
	}
	if -det > bound {
		return -1
	}
	return orient2dExact(ax, ay, bx, by, cx, cy)
}

// orient3d returns the sign of ((b−a) × (c−a)) · (d−a), exactly: +1 when d
// lies on the side of the plane through a, b, c that the normal
// (b−a) × (c−a) points to, −1 on the other side, 0 when the four points are
// coplanar (or a, b, c collinear).
func orient3d(a, b, c, d *mgl64.Vec3, wide bool) int {
	p := newPlane(a, b, c, wide)
	return p.side(d)
}

// plane holds what orient3d(a, b, c, ·) shares between points d: the
// differences' cross product m = (b−a) × (c−a) in floating point, and the
// permanents of its components.
type plane struct {
	a, b, c *mgl64.Vec3
	m, pm   [3]float64 // m and |u_y v_z| + |u_z v_y|, ... for u = b−a, v = c−a
	wide    bool
}

// newPlane returns the plane through a, b and c for side.
func newPlane(a, b, c *mgl64.Vec3, wide bool) plane {
	p := plane{a: a, b: b, c: c, wide: wide}
	if wide {
		return p
	}
	ux, uy, uz := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	vx, vy, vz := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	l, r := float64(uy*vz), float64(uz*vy)
	p.m[0], p.pm[0] = l-r, math.Abs(l)+math.Abs(r)
	l, r = float64(uz*vx), float64(ux*vz)
	p.m[1], p.pm[1] = l-r, math.Abs(l)+math.Abs(r)
	l, r = float64(ux*vy), float64(uy*vx)
	p.m[2], p.pm[2] = l-r, math.Abs(l)+math.Abs(r)
	return p
}

// side returns orient3d(p.a, p.b, p.c, d).
func (p *plane) side(d *mgl64.Vec3) int {
	if p.wide {
		return orient3dWide(p.a, p.b, p.c, d)
	}
	a := p.a
	wx, wy, wz := d[0]-a[0], d[1]-a[1], d[2]-a[2]
	tx, ty, tz := float64(wx*p.m[0]), float64(wy*p.m[1]), float64(wz*p.m[2])
	det := tx + ty + tz
	bound := errBound3D * (float64(math.Abs(wx)*p.pm[0]) + float64(math.Abs(wy)*p.pm[1]) + float64(math.Abs(wz)*p.pm[2]))
	if det > bound {
		return 1
	}
	if -det > bound {
		return -1
	}
	return orient3dExact(p.a, p.b, p.c, d)
}

// twoSum returns s = fl(a+b) and e with a + b = s + e exactly (Knuth's
// TwoSum; exact without overflow).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bv := s - a
	av := s - bv
	return s, (a - av) + (b - bv)
}

// twoProd returns p = fl(a·b) and e with a·b = p + e exactly (exact when
// the product neither overflows nor underflows).
func twoProd(a, b float64) (p, e float64) {
	p = float64(a * b)
	return p, math.FMA(a, b, -p)
}

// grow adds b to the expansion e and returns the expansion of the sum,
// reusing e's storage (Shewchuk 1997, Grow-Expansion with zero
// elimination). An expansion is a sum of nonoverlapping nonzero floats in
// increasing magnitude, so its sign is that of its last component.
func grow(e []float64, b float64) []float64 {
	q, n := b, 0
	for _, x := range e {
		var h float64
		q, h = twoSum(q, x)
		if h != 0 {
			e[n] = h
			n++
		}
	}
	e = e[:n]
	if q != 0 {
		e = append(e, q)
	}
	return e
}

// expansionSign returns the sign of the sum of the expansion e.
func expansionSign(e []float64) int {
	if len(e) == 0 {
		return 0
	}
	return sign(e[len(e)-1])
}

// growProduct2 adds x·y to the expansion e exactly.
func growProduct2(e []float64, x, y float64) []float64 {
	p, pe := twoProd(x, y)
	if pe != 0 {
		e = grow(e, pe)
	}
	if p != 0 {
		e = grow(e, p)
	}
	return e
}

// growProduct3 adds x·y·z to the expansion e exactly.
func growProduct3(e []float64, x, y, z float64) []float64 {
	p, pe := twoProd(x, y)
	if pe != 0 {
		e = growProduct2(e, pe, z)
	}
	if p != 0 {
		e = growProduct2(e, p, z)
	}
	return e
}

// orient2dExact is stage 2 of orient2d: the determinant of the exact
// differences u = b−a, v = c−a (each a pair of floats) as an expansion.
func orient2dExact(ax, ay, bx, by, cx, cy float64) int {
	var u, v [2][2]float64 // [coordinate][high, low]
	u[0][0], u[0][1] = twoSum(bx, -ax)
	u[1][0], u[1][1] = twoSum(by, -ay)
	v[0][0], v[0][1] = twoSum(cx, -ax)
	v[1][0], v[1][1] = twoSum(cy, -ay)
	var buf [32]float64
	e := buf[:0]
	for _, x := range u[0] {
		for _, y := range v[1] {
			e = growProduct2(e, x, y)
		}
	}
	for _, x := range u[1] {
		for _, y := range v[0] {
			e = growProduct2(e, -x, y)
		}
	}
	return expansionSign(e)
}

// leibniz3 lists the terms of a 3×3 determinant det[u; v; w] =
// Σ sgn(σ)·u_σ(0)·v_σ(1)·w_σ(2) over the permutations σ.
var leibniz3 = [6]struct {
	i, j, k int
	sgn     float64
}{
	{0, 1, 2, 1}, {1, 2, 0, 1}, {2, 0, 1, 1},
	{0, 2, 1, -1}, {2, 1, 0, -1}, {1, 0, 2, -1},
}

// orient3dExact is stage 2 of orient3d: det[b−a; c−a; d−a] of the exact
// differences (each a pair of floats) as an expansion.
func orient3dExact(a, b, c, d *mgl64.Vec3) int {
	var u, v, w [3][2]float64 // [coordinate][high, low]
	for k := range 3 {
		u[k][0], u[k][1] = twoSum(b[k], -a[k])
		v[k][0], v[k][1] = twoSum(c[k], -a[k])
		w[k][0], w[k][1] = twoSum(d[k], -a[k])
	}
	var buf [64]float64
	e := buf[:0]
	for _, t := range leibniz3 {
		for _, x := range u[t.i] {
			if x == 0 {
				continue
			}
			for _, y := range v[t.j] {
				if y == 0 {
					continue
				}
				for _, z := range w[t.k] {
					if z != 0 {
						e = growProduct3(e, t.sgn*x, y, z)
					}
				}
			}
		}
	}
	return expansionSign(e)
}

// scaledInts sets z[i] = xs[i]·2ᵉ with one exponent e for all that makes
// every one an integer (the least exponent of their 53-bit significands);
// the xs must be finite. Signs of polynomials homogeneous in the xs are
// those of the same polynomials in the z.
func scaledInts(z []big.Int, xs ...float64) {
	var m [12]int64
	var e [12]int
	emin := math.MaxInt
	for i, x := range xs {
		if x != 0 {
			f, ex := math.Frexp(x) // x = f·2^ex, ½ ≤ |f| < 1
			m[i], e[i] = int64(f*(1<<53)), ex-53
			emin = min(emin, e[i])
		}
	}
	for i := range xs {
		z[i].SetInt64(m[i])
		if m[i] != 0 {
			z[i].Lsh(&z[i], uint(e[i]-emin))
		}
	}
}

// cross2 returns x0·y1 − x1·y0.
func cross2(x0, x1, y0, y1 *big.Int) *big.Int {
	l := new(big.Int).Mul(x0, y1)
	return l.Sub(l, new(big.Int).Mul(x1, y0))
}

// orient2dWide is stage 3 of orient2d: the determinant in integers, the
// coordinates scaled by a common power of two.
func orient2dWide(ax, ay, bx, by, cx, cy float64) int {
	var z [6]big.Int
	scaledInts(z[:], ax, ay, bx, by, cx, cy)
	var u, v [2]big.Int
	for k := range 2 {
		u[k].Sub(&z[2+k], &z[k])
		v[k].Sub(&z[4+k], &z[k])
	}
	return cross2(&u[0], &u[1], &v[0], &v[1]).Sign()
}

// orient3dWide is stage 3 of orient3d: the determinant in integers, the
// coordinates scaled by a common power of two.
func orient3dWide(a, b, c, d *mgl64.Vec3) int {
	var z [12]big.Int
	scaledInts(z[:], a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2])
	var u, v, w [3]big.Int
	for k := range 3 {
		u[k].Sub(&z[3+k], &z[k])
		v[k].Sub(&z[6+k], &z[k])
		w[k].Sub(&z[9+k], &z[k])
	}
	det := new(big.Int).Mul(&w[0], cross2(&u[1], &u[2], &v[1], &v[2]))
	det.Add(det, new(big.Int).Mul(&w[1], cross2(&u[2], &u[0], &v[2], &v[0])))
	det.Add(det, new(big.Int).Mul(&w[2], cross2(&u[0], &u[1], &v[0], &v[1])))
	return det.Sign()
}
