package exhaustive

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/collide"
)

type tri = [3]mgl64.Vec3

func v(x, y, z float64) mgl64.Vec3 { return mgl64.Vec3{x, y, z} }

// base is the triangle x, y ≥ 0, x + y ≤ 2 in the plane z = 0.
var base = tri{v(0, 0, 0), v(2, 0, 0), v(0, 2, 0)}

// tilted lies in the plane z = x/8 + 3y/8 (dyadic: every point named below
// is exactly on it or exactly off it). (0.5, 0.5, 0.25) is on its face.
var tilted = tri{v(0, 0, 0), v(1, 0, 0.125), v(0, 1, 0.375)}

var up = math.Nextafter(0.25, 1)

// cases are hand-derived: the answer follows from the geometry described.
var cases = []struct {
	name string
	a, b tri
	want bool
}{
	// General position.
	{"pierces the face at (0.5, 0.5, 0)", base, tri{v(0.5, 0.5, -1), v(0.5, 0.5, 1), v(0.5, -3, 0)}, true},
	{"parallel plane above", base, tri{v(0, 0, 1), v(2, 0, 1), v(0, 2, 1)}, false},
	{"crosses the plane outside (x + y = 3 > 2), boxes overlap", base, tri{v(1.5, 1.5, -1), v(1.5, 1.5, 1), v(3, 3, 0)}, false},
	{"crosses the plane beside the hypotenuse, boxes overlap", base, tri{v(1.1, 1.1, -1), v(1.1, 1.1, 1), v(1.9, 1.9, 0)}, false},
	{"one edge straddles the other's edge", base, tri{v(1, -1, -1), v(1, 1, 1), v(1, 1, -1)}, true},
	// Touching.
	{"shared vertex only", base, tri{v(0, 0, 0), v(-1, 0, 1), v(0, -1, 1)}, true},
	{"shared edge, planes at an angle", base, tri{v(0, 0, 0), v(2, 0, 0), v(1, -1, 1)}, true},
	{"vertex on the face, rest above", base, tri{v(0.5, 0.5, 0), v(1, 0.5, 1), v(0.5, 1, 1)}, true},
	{"vertex on an edge, rest outside", base, tri{v(1, 0, 0), v(1, -1, 1), v(2, -1, -1)}, true},
	{"edge touches edge at (1, 0, 0)", base, tri{v(1, 0, -1), v(1, 0, 1), v(1, -1, 0)}, true},
	{"vertex on the tilted face", tilted, tri{v(0.5, 0.5, 0.25), v(1, 1, 2), v(0.5, 1, 3)}, true},
	// Coplanar.
	{"coplanar overlapping", base, tri{v(0.5, 0.5, 0), v(3, 0.5, 0), v(0.5, 3, 0)}, true},
	{"coplanar, one inside the other", base, tri{v(-1, -1, 0), v(5, -1, 0), v(-1, 5, 0)}, true},
	{"coplanar, shared edge", base, tri{v(0, 0, 0), v(2, 0, 0), v(1, -1, 0)}, true},
	{"coplanar, shared vertex", base, tri{v(2, 0, 0), v(3, 0, 0), v(3, -1, 0)}, true},
	{"coplanar, vertex on an edge", base, tri{v(1, 0, 0), v(2, -1, 0), v(0, -1, 0)}, true},
	{"coplanar, separate beyond the hypotenuse, boxes overlap", base, tri{v(1.1, 1.1, 0), v(2, 2, 0), v(2, 1.1, 0)}, false},
	{"coplanar on the tilted plane, overlapping", tilted, tri{v(0.5, 0.5, 0.25), v(-1, 0, -0.125), v(0, -1, -0.375)}, true},
	// Nearly touching: one ulp off.
	{"vertex one ulp above the tilted face", tilted, tri{v(0.5, 0.5, up), v(1, 1, 2), v(0.5, 1, 3)}, false},
	{"vertex 1e-300 above the face", base, tri{v(0.5, 0.5, 1e-300), v(1, 0.5, 1), v(0.5, 1, 1)}, false},
	{"vertex at the smallest float above the face", base, tri{v(0.5, 0.5, math.SmallestNonzeroFloat64), v(1, 0.5, 1), v(0.5, 1, 1)}, false},
	{"coplanar, one ulp beyond the hypotenuse", base, tri{v(1, math.Nextafter(1, 2), 0), v(2, 2, 0), v(2, 1.5, 0)}, false},
	{"coplanar, exactly on the hypotenuse", base, tri{v(1, 1, 0), v(2, 2, 0), v(2, 1.5, 0)}, true},
	// Degenerate triangles.
	{"segment pierces the face", base, tri{v(0.5, 0.5, -1), v(0.5, 0.5, 1), v(0.5, 0.5, 0.5)}, true},
	{"point on the face", base, tri{v(0.5, 0.5, 0), v(0.5, 0.5, 0), v(0.5, 0.5, 0)}, true},
	{"point just above the face", base, tri{v(0.5, 0.5, 1e-9), v(0.5, 0.5, 1e-9), v(0.5, 0.5, 1e-9)}, false},
	{"segment in the plane across an edge", base, tri{v(1, -1, 0), v(1, 1, 0), v(1, 0, 0)}, true},
	{"crossing segments", tri{v(0, 0, 0), v(2, 2, 0), v(1, 1, 0)}, tri{v(0, 2, 0), v(2, 0, 0), v(0, 2, 0)}, true},
	{"skew segments", tri{v(0, 0, 0), v(2, 2, 0), v(1, 1, 0)}, tri{v(0, 2, 1), v(2, 0, 1), v(0, 2, 1)}, false},
	{"collinear segments overlapping", tri{v(0, 0, 0), v(2, 2, 2), v(0, 0, 0)}, tri{v(1, 1, 1), v(3, 3, 3), v(1, 1, 1)}, true},
	{"collinear segments apart", tri{v(0, 0, 0), v(1, 1, 1), v(0, 0, 0)}, tri{v(2, 2, 2), v(3, 3, 3), v(2, 2, 2)}, false},
	{"coincident points", tri{v(1, 2, 3), v(1, 2, 3), v(1, 2, 3)}, tri{v(1, 2, 3), v(1, 2, 3), v(1, 2, 3)}, true},
	// Non-finite.
	{"NaN corner", base, tri{v(0.5, 0.5, math.NaN()), v(0.5, 0.5, 1), v(0.5, -3, 0)}, false},
}

// permuted calls fn with every reordering of a's and b's corners, both
// ways round.
func permuted(a, b tri, fn func(a, b tri)) {
	perms := [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}
	for _, p := range perms {
		for _, q := range perms {
			pa := tri{a[p[0]], a[p[1]], a[p[2]]}
			pb := tri{b[q[0]], b[q[1]], b[q[2]]}
			fn(pa, pb)
			fn(pb, pa)
		}
	}
}

func TestTrianglesIntersectCases(t *testing.T) {
	for _, c := range cases {
		permuted(c.a, c.b, func(a, b tri) {
			if got := TrianglesIntersect(a, b); got != c.want {
				t.Fatalf("%s: %v for %v, %v", c.name, got, a, b)
			}
		})
	}
}

// TestTrianglesIntersectScale: the answers do not change when everything
// is scaled by powers of two (exact) as small as 2⁻⁶⁰⁰ or as large as
// 2⁶⁰⁰, or moved by (2²⁰, −2²⁰, 2¹⁰) (exact for these coordinates).
func TestTrianglesIntersectScale(t *testing.T) {
	for _, c := range cases[:len(cases)-1] {
		if c.name == "vertex at the smallest float above the face" || c.name == "vertex 1e-300 above the face" {
			continue // scaling or moving would round the offset away
		}
		for _, s := range []float64{0x1p-600, 0x1p-60, 0x1p60, 0x1p600} {
			a, b := c.a, c.b
			for i := range 3 {
				a[i], b[i] = a[i].Mul(s), b[i].Mul(s)
			}
			if got := TrianglesIntersect(a, b); got != c.want {
				t.Errorf("%s scaled by %g: %v", c.name, s, got)
			}
		}
		if c.name == "vertex one ulp above the tilted face" || c.name == "coplanar, one ulp beyond the hypotenuse" {
			continue
		}
		d := v(0x1p20, -0x1p20, 0x1p10)
		a, b := c.a, c.b
		for i := range 3 {
			a[i], b[i] = a[i].Add(d), b[i].Add(d)
		}
		if got := TrianglesIntersect(a, b); got != c.want {
			t.Errorf("%s moved: %v", c.name, got)
		}
	}
}

// TestAgainstCollide cross-checks with solver/collide's independent exact
// test on random triangles: general position, on a small integer grid
// (many coplanar, touching and degenerate configurations), and with a
// corner placed exactly on the other triangle's plane or edge.
func TestAgainstCollide(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	grid := func(n int) mgl64.Vec3 {
		return v(float64(rng.IntN(n)), float64(rng.IntN(n)), float64(rng.IntN(n)))
	}
	float := func() mgl64.Vec3 { return v(rng.Float64(), rng.Float64(), rng.Float64()) }
	lerp := func(p, q mgl64.Vec3, s float64) mgl64.Vec3 { return p.Add(q.Sub(p).Mul(s)) }
	var hits, total int
	check := func(a, b tri) {
		total++
		got, want := TrianglesIntersect(a, b), collide.TrianglesIntersect(a, b)
		if got != want {
			t.Fatalf("%v, %v: exhaustive says %v, collide %v", a, b, got, want)
		}
		if got {
			hits++
		}
	}
	for range 20000 {
		check(tri{float(), float(), float()}, tri{float(), float(), float()})
	}
	for range 20000 {
		check(tri{grid(3), grid(3), grid(3)}, tri{grid(3), grid(3), grid(3)})
	}
	for range 10000 {
		// A corner on a's edge or at a dyadic point of a's face.
		a := tri{grid(5), grid(5), grid(5)}
		p := lerp(a[0], a[1], float64(rng.IntN(5))/4)
		p = lerp(p, a[2], float64(rng.IntN(3))/4)
		check(a, tri{p, grid(5).Sub(v(2, 2, 2)), grid(5)})
	}
	for range 10000 {
		// Nearly touching: a corner nudged by one ulp.
		a := tri{grid(5), grid(5), grid(5)}
		p := lerp(a[0], a[2], 0.5)
		k := rng.IntN(3)
		p[k] = math.Nextafter(p[k], math.Inf(2*rng.IntN(2)-1))
		check(a, tri{p, grid(5), grid(5)})
	}
	t.Logf("%d pairs, %d intersecting", total, hits)
	if hits < total/10 || hits > total*9/10 {
		t.Errorf("weak test: %d of %d intersect", hits, total)
	}
}

func BenchmarkTrianglesIntersect(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	float := func() mgl64.Vec3 { return v(rng.Float64(), rng.Float64(), rng.Float64()) }
	pairs := make([][2]tri, 1024)
	for i := range pairs {
		pairs[i] = [2]tri{{float(), float(), float()}, {float(), float(), float()}}
	}
	for i := 0; b.Loop(); i++ {
		p := &pairs[i%len(pairs)]
		TrianglesIntersect(p[0], p[1])
	}
}
