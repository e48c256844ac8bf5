package exhaustive

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// ratOrient3d is the plain rational determinant, the reference.
func ratOrient3d(a, b, c, d mgl64.Vec3) int {
	r := func(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }
	var m [3][3]*big.Rat
	for k := range 3 {
		m[0][k] = new(big.Rat).Sub(r(b[k]), r(a[k]))
		m[1][k] = new(big.Rat).Sub(r(c[k]), r(a[k]))
		m[2][k] = new(big.Rat).Sub(r(d[k]), r(a[k]))
	}
	det := new(big.Rat)
	for k := range 3 {
		p, q := (k+1)%3, (k+2)%3
		minor := new(big.Rat).Sub(new(big.Rat).Mul(m[1][p], m[2][q]), new(big.Rat).Mul(m[1][q], m[2][p]))
		det.Add(det, new(big.Rat).Mul(m[0][k], minor))
	}
	return det.Sign()
}

// TestOrient3d compares the filtered predicate with the rational
// reference on nearly coplanar points (a point of the plane abc, rounded,
// then nudged by a few ulps), exactly coplanar ones, at several scales,
// and on points far apart in magnitude.
func TestOrient3d(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	signs := map[int]int{}
	for n := range 10000 {
		s := math.Ldexp(1, rng.IntN(200)-100)
		p := func() mgl64.Vec3 { return mgl64.Vec3{rng.Float64() * s, rng.Float64() * s, rng.Float64() * s} }
		a, b, c := p(), p(), p()
		u, w := rng.Float64(), rng.Float64()
		d := a.Add(b.Sub(a).Mul(u)).Add(c.Sub(a).Mul(w))
		for range rng.IntN(3) {
			k := rng.IntN(3)
			d[k] = math.Nextafter(d[k], math.Inf(2*rng.IntN(2)-1))
		}
		if n%5 == 0 { // exactly coplanar: dyadic points of the plane of a grid triangle
			g := func() mgl64.Vec3 {
				return mgl64.Vec3{float64(rng.IntN(4)) * s, float64(rng.IntN(4)) * s, float64(rng.IntN(4)) * s}
			}
			a, b, c = g(), g(), g()
			d = a.Add(b.Sub(a).Mul(float64(rng.IntN(9)-4) / 4)).Add(c.Sub(a).Mul(float64(rng.IntN(9)-4) / 4))
		}
		if n%10 == 1 { // magnitudes far apart
			d[rng.IntN(3)] *= 0x1p-200
			a[rng.IntN(3)] *= 0x1p200
		}
		got, want := orient3d(a, b, c, d), ratOrient3d(a, b, c, d)
		if got != want {
			t.Fatalf("orient3d(%v, %v, %v, %v) = %d, want %d", a, b, c, d, got, want)
		}
		signs[got]++
	}
	if signs[0] == 0 || signs[1] == 0 || signs[-1] == 0 {
		t.Errorf("weak test: signs %v", signs)
	}
}
