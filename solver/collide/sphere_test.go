package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestSphereTriangleKnown(t *testing.T) {
	seg := tri{{0, 0, 0}, {2, 0, 0}, {1, 0, 0}}
	pt := tri{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}
	for _, c := range []struct {
		name   string
		center mgl64.Vec3
		radius float64
		t      tri
		want   bool
	}{
		{"above the face, touching", mgl64.Vec3{0.25, 0.25, 0.5}, 0.5, unit, true},
		{"above the face, short", mgl64.Vec3{0.25, 0.25, 0.5}, 0.499, unit, false},
		{"below the face, touching", mgl64.Vec3{0.25, 0.25, -0.5}, 0.5, unit, true},
		{"center on the face, radius 0", mgl64.Vec3{0.25, 0.25, 0}, 0, unit, true},
		{"center on a point, radius 0", mgl64.Vec3{1, 1, 1}, 0, tri{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}, true},
		{"beside the hypotenuse", mgl64.Vec3{1, 1, 0}, math.Sqrt(0.5) + 1e-9, unit, true},
		{"beside the hypotenuse, short", mgl64.Vec3{1, 1, 0}, math.Sqrt(0.5) - 1e-9, unit, false},
		{"off a corner", mgl64.Vec3{-3, -4, 0}, 5, unit, true},
		{"off a corner, short", mgl64.Vec3{-3, -4, 0}, 4.999, unit, false},
		{"above an edge's extension", mgl64.Vec3{2, 0, 1}, math.Sqrt2, unit, true},
		{"segment, touching", mgl64.Vec3{1, 1, 0}, 1, seg, true},
		{"segment, short", mgl64.Vec3{1, 1, 0}, 0.999, seg, false},
		{"segment, off its end", mgl64.Vec3{3, 0, 0}, 0.999, seg, false},
		{"point, touching", mgl64.Vec3{1, 1, 2}, 1, pt, true},
		{"point, short", mgl64.Vec3{1, 1, 2}, 0.999, pt, false},
		{"huge", mgl64.Vec3{0.25e300, 0.25e300, 0.5e300}, 0.5e300, scaleTri(unit, 1e300), true},
		{"huge, short", mgl64.Vec3{0.25e300, 0.25e300, 0.5e300}, 0.499e300, scaleTri(unit, 1e300), false},
		{"far apart", mgl64.Vec3{-1e308, 0, 0}, 1e308, tri{{1e308, 0, 0}, {1e308, 1, 0}, {1e308, 0, 1}}, false},
		{"tiny", mgl64.Vec3{0.25e-300, 0.25e-300, 0.5e-300}, 0.5e-300, scaleTri(unit, 1e-300), true},
		{"tiny, short", mgl64.Vec3{0.25e-300, 0.25e-300, 0.5e-300}, 0.499e-300, scaleTri(unit, 1e-300), false},
		{"negative radius", mgl64.Vec3{0.25, 0.25, 0}, -1, unit, false},
		{"NaN radius", mgl64.Vec3{0.25, 0.25, 0}, math.NaN(), unit, false},
		{"infinite radius", mgl64.Vec3{0.25, 0.25, 0}, math.Inf(1), unit, false},
		{"NaN center", mgl64.Vec3{math.NaN(), 0, 0}, 1, unit, false},
		{"infinite corner", mgl64.Vec3{0, 0, 0}, 1, tri{{0, 0, 0}, {math.Inf(1), 0, 0}, {0, 1, 0}}, false},
	} {
		for _, p := range perms3 {
			tr := tri{c.t[p[0]], c.t[p[1]], c.t[p[2]]}
			if got := SphereTriangle(c.center, c.radius, tr); got != c.want {
				t.Errorf("%s: SphereTriangle(%v, %g, %v) = %v, want %v", c.name, c.center, c.radius, tr, got, c.want)
			}
		}
	}
}

// sampledDistance returns the smallest distance from p to the points
// (1−s−t)·a + s·b + t·c of a grid of n+1 steps per side, and the largest
// distance from a point of the triangle to its nearest sample.
func sampledDistance(p mgl64.Vec3, tr tri, n int) (d, gap float64) {
	d = math.Inf(1)
	for i := 0; i <= n; i++ {
		for j := 0; i+j <= n; j++ {
			s, u := float64(i)/float64(n), float64(j)/float64(n)
			q := tr[0].Mul(1 - s - u).Add(tr[1].Mul(s)).Add(tr[2].Mul(u))
			d = min(d, q.Sub(p).Len())
		}
	}
	longest := max(tr[1].Sub(tr[0]).Len(), tr[2].Sub(tr[1]).Len(), tr[0].Sub(tr[2]).Len())
	return d, longest / float64(n)
}

// TestSphereTriangleSampled compares SphereTriangle with the distance to a
// fine grid of points on the triangle: a ball reaching the nearest sample
// meets the triangle, one short of it by more than the grid's spacing does
// not (both up to rounding). Triangles include slivers and degenerate ones.
func TestSphereTriangleSampled(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for i := range 600 {
		tr := tri{randPoint(rng), randPoint(rng), randPoint(rng)}
		switch i % 4 {
		case 1: // sliver
			tr[2] = tr[0].Add(tr[1].Sub(tr[0]).Mul(rng.Float64())).Add(mgl64.Vec3{1e-7, -1e-7, 1e-7})
		case 2: // degenerate
			tr[2] = tr[1]
		case 3: // a sliver whose normal is mostly rounding error
			tr[2] = tr[0].Add(tr[1].Sub(tr[0]).Mul(rng.Float64())).Add(mgl64.Vec3{1e-15, 0, -1e-15})
		}
		center := randPoint(rng).Mul(3).Sub(mgl64.Vec3{1, 1, 1})
		d, gap := sampledDistance(center, tr, 60)
		// Rounding allowance: 10⁻¹² relative.
		if r := d * (1 + 1e-12); !SphereTriangle(center, r, tr) {
			t.Fatalf("SphereTriangle(%v, %g, %v) = false, but a sample is at %g", center, r, tr, d)
		}
		if r := d - gap - 1e-12; r >= 0 && SphereTriangle(center, r, tr) {
			t.Fatalf("SphereTriangle(%v, %g, %v) = true, but the triangle is at least %g away", center, r, tr, d-gap)
		}
	}
}
