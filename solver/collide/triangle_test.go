package collide

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

type tri = [3]mgl64.Vec3

// unit is the triangle (0,0,0), (1,0,0), (0,1,0) in the plane z = 0.
var unit = tri{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}

// up returns x moved by n units in the last place towards +∞ (n < 0:
// towards −∞).
func up(x float64, n int) float64 {
	for ; n > 0; n-- {
		x = math.Nextafter(x, math.Inf(1))
	}
	for ; n < 0; n++ {
		x = math.Nextafter(x, math.Inf(-1))
	}
	return x
}

func TestTrianglesIntersectKnown(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	big := tri{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}
	for _, c := range []struct {
		name string
		a, b tri
		want bool
	}{
		{"crossing", unit, tri{{0.25, 0.25, -1}, {0.25, 0.25, 1}, {2, 2, 0}}, true},
		{"parallel planes", unit, tri{{0, 0, 1}, {1, 0, 1}, {0, 1, 1}}, false},
		{"apart, planes crossing", unit, tri{{2, 2, -1}, {2, 2, 1}, {3, 3, 0}}, false},
		{"corner on the face", unit, tri{{0.25, 0.25, 0}, {0.25, 0.25, 1}, {1, 1, 1}}, true},
		{"corner 2⁻⁶⁰ above the face", unit, tri{{0.25, 0.25, 0x1p-60}, {0.25, 0.25, 1}, {1, 1, 1}}, false},
		{"corner on a corner", unit, tri{{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}, true},
		{"corner 2⁻⁶⁰ below a corner", unit, tri{{0, 0, -0x1p-60}, {-1, 0, 1}, {0, -1, 1}}, false},
		{"corner on an edge", unit, tri{{0.5, 0, 0}, {0.5, -1, 1}, {0.5, -1, -1}}, true},
		{"corner an ulp off an edge", unit, tri{{0.5, up(0, -1), 0}, {0.5, -1, 1}, {0.5, -1, -1}}, false},
		{"edges crossing", big, tri{{1, 1, -1}, {1, 1, 1}, {3, 3, 0}}, true},
		{"edges an ulp apart", big, tri{{up(1, 1), 1, -1}, {up(1, 1), 1, 1}, {3, 3, 0}}, false},
		{"sharing an edge, folded", unit, tri{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, true},
		{"collinear edges overlapping", unit, tri{{0.5, 0, 0}, {1.5, 0, 0}, {0.5, 0, 1}}, true},
		{"collinear edges apart", unit, tri{{1.5, 0, 0}, {2.5, 0, 0}, {1.5, 0, 1}}, false},
		{"coplanar overlapping", unit, tri{{0.2, 0.2, 0}, {2, 0.2, 0}, {0.2, 2, 0}}, true},
		{"coplanar apart", unit, tri{{1, 1, 0}, {2, 1, 0}, {1, 2, 0}}, false},
		{"coplanar, corner on a corner", unit, tri{{1, 0, 0}, {2, 0, 0}, {2, 1, 0}}, true},
		{"coplanar, corner on an edge", unit, tri{{0.5, 0.5, 0}, {2, 1, 0}, {1, 2, 0}}, true},
		{"coplanar, corner an ulp off an edge", unit, tri{{0.5, up(0.5, 1), 0}, {2, 1, 0}, {1, 2, 0}}, false},
		{"coplanar, sharing an edge", unit, tri{{1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, true},
		{"coplanar, one inside the other", unit, tri{{0.1, 0.1, 0}, {0.2, 0.1, 0}, {0.1, 0.2, 0}}, true},
		{"coplanar, identical", unit, unit, true},
		{"coplanar in a tilted plane", tri{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, tri{{0.5, 0.5, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}}, true},
		{"segment piercing", unit, tri{{0.25, 0.25, -1}, {0.25, 0.25, 1}, {0.25, 0.25, 0}}, true},
		{"segment passing by", unit, tri{{2, 2, -1}, {2, 2, 1}, {2, 2, 0}}, false},
		{"segment in the plane, crossing", unit, tri{{-1, 0.5, 0}, {1, 0.5, 0}, {0, 0.5, 0}}, true},
		{"segment in the plane, outside", unit, tri{{-1, 2, 0}, {1, 2, 0}, {0, 2, 0}}, false},
		{"segment ending on the face", unit, tri{{0.25, 0.25, 0}, {0.25, 0.25, 1}, {0.25, 0.25, 1}}, true},
		{"point on the face", unit, tri{{0.25, 0.25, 0}, {0.25, 0.25, 0}, {0.25, 0.25, 0}}, true},
		{"point on an edge", unit, tri{{0.5, 0.5, 0}, {0.5, 0.5, 0}, {0.5, 0.5, 0}}, true},
		{"point 1e-300 above the face", unit, tri{{0.25, 0.25, 1e-300}, {0.25, 0.25, 1e-300}, {0.25, 0.25, 1e-300}}, false},
		{"segments crossing", tri{{0, 0, 0}, {1, 1, 0}, {0.5, 0.5, 0}}, tri{{1, 0, 0}, {0, 1, 0}, {1, 0, 0}}, true},
		{"segments skew", tri{{0, 0, 0}, {1, 1, 0}, {0.5, 0.5, 0}}, tri{{1, 0, 1e-10}, {0, 1, 1e-10}, {1, 0, 1e-10}}, false},
		{"segments collinear, touching", tri{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}}, tri{{1, 1, 1}, {2, 2, 2}, {1, 1, 1}}, true},
		{"segments collinear, apart", tri{{0, 0, 0}, {1, 1, 1}, {1, 1, 1}}, tri{{up(1, 1), up(1, 1), up(1, 1)}, {2, 2, 2}, {2, 2, 2}}, false},
		{"segments parallel", tri{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}, tri{{0, 1, 0}, {1, 1, 0}, {1, 1, 0}}, false},
		{"points equal", tri{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, tri{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, true},
		{"points apart", tri{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, tri{{1, 2, up(3, 1)}, {1, 2, up(3, 1)}, {1, 2, up(3, 1)}}, false},
		{"huge, crossing", scaleTri(unit, 0x1p700), scaleTri(tri{{0.25, 0.25, -1}, {0.25, 0.25, 1}, {2, 2, 0}}, 0x1p700), true},
		{"tiny, corner on a corner", scaleTri(unit, 0x1p-700), scaleTri(tri{{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}, 0x1p-700), true},
		{"NaN", unit, tri{{nan, 0, 0}, {1, 0, 0}, {0, 1, 0}}, false},
		{"infinite", unit, tri{{0.25, 0.25, -inf}, {0.25, 0.25, inf}, {2, 2, 0}}, false},
	} {
		checkAllOrders(t, c.name, c.a, c.b, c.want)
		if triKind(&c.b) == bad {
			continue // the reference takes finite coordinates only
		}
		if got := refIntersect(c.a, c.b); got != c.want {
			t.Errorf("%s: the reference says %v, want %v", c.name, got, c.want)
		}
	}
}

// scaleTri returns t with every coordinate times s.
func scaleTri(t tri, s float64) tri {
	for i := range 3 {
		t[i] = t[i].Mul(s)
	}
	return t
}

// scaleExact returns t scaled by the power of two s, and whether that is
// exact: no coordinate overflows or becomes subnormal.
func scaleExact(t tri, s float64) (tri, bool) {
	u := scaleTri(t, s)
	for i := range 3 {
		for k := range 3 {
			y := u[i][k]
			if y != 0 && !(math.Abs(y) >= 0x1p-1022 && math.Abs(y) <= math.MaxFloat64) || y/s != t[i][k] {
				return u, false
			}
		}
	}
	return u, true
}

// perms3 lists the six orders of three corners.
var perms3 = [6][3]int{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}

// checkAllOrders checks TrianglesIntersect(a, b) == want for every order
// of the corners of a and of b and with a and b swapped.
func checkAllOrders(t *testing.T, name string, a, b tri, want bool) {
	t.Helper()
	for _, pa := range perms3 {
		for _, pb := range perms3 {
			a2 := tri{a[pa[0]], a[pa[1]], a[pa[2]]}
			b2 := tri{b[pb[0]], b[pb[1]], b[pb[2]]}
			if got := TrianglesIntersect(a2, b2); got != want {
				t.Fatalf("%s: TrianglesIntersect(%v, %v) = %v, want %v", name, a2, b2, got, want)
			}
			if got := TrianglesIntersect(b2, a2); got != want {
				t.Fatalf("%s: TrianglesIntersect(%v, %v) = %v, want %v (swapped)", name, b2, a2, got, want)
			}
		}
	}
}

// A generator makes a pair of triangles for the randomized tests.
type generator struct {
	name string
	gen  func(rng *rand.Rand) (tri, tri)
}

// gridPoint returns a point with integer coordinates in [0, n).
func gridPoint(rng *rand.Rand, n int) mgl64.Vec3 {
	return mgl64.Vec3{float64(rng.IntN(n)), float64(rng.IntN(n)), float64(rng.IntN(n))}
}

func randPoint(rng *rand.Rand) mgl64.Vec3 {
	return mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
}

// nudge moves one random coordinate of one random corner of t by a few
// units in the last place.
func nudge(rng *rand.Rand, t tri) tri {
	i, k := rng.IntN(3), rng.IntN(3)
	n := rng.IntN(3) + 1
	if rng.IntN(2) == 0 {
		n = -n
	}
	t[i][k] = up(t[i][k], n)
	return t
}

var generators = []generator{
	// Small integer coordinates: exact coplanarity, collinearity, shared
	// corners and touching are frequent.
	{"grid", func(rng *rand.Rand) (tri, tri) {
		var a, b tri
		for i := range 3 {
			a[i], b[i] = gridPoint(rng, 3), gridPoint(rng, 3)
		}
		return a, b
	}},
	// Both in the plane z = 1, or in the tilted plane x + y + z = 4.
	{"coplanar grid", func(rng *rand.Rand) (tri, tri) {
		tilted := rng.IntN(2) == 0
		p := func() mgl64.Vec3 {
			x, y := float64(rng.IntN(5)), float64(rng.IntN(5))
			if tilted {
				return mgl64.Vec3{x, y, 4 - x - y}
			}
			return mgl64.Vec3{x, y, 1}
		}
		return tri{p(), p(), p()}, tri{p(), p(), p()}
	}},
	// Grid configurations with a coordinate moved by a few ulps: near
	// degenerate, decided by the exact stages.
	{"grid nudged", func(rng *rand.Rand) (tri, tri) {
		a, b := tri{gridPoint(rng, 3), gridPoint(rng, 3), gridPoint(rng, 3)}, tri{gridPoint(rng, 3), gridPoint(rng, 3), gridPoint(rng, 3)}
		if rng.IntN(2) == 0 {
			return nudge(rng, a), b
		}
		return a, nudge(rng, b)
	}},
	// Both near one random plane (corners rounded onto it).
	{"near coplanar", func(rng *rand.Rand) (tri, tri) {
		o, u, v := randPoint(rng), randPoint(rng).Sub(mgl64.Vec3{0.5, 0.5, 0.5}), randPoint(rng).Sub(mgl64.Vec3{0.5, 0.5, 0.5})
		p := func() mgl64.Vec3 { return o.Add(u.Mul(rng.Float64())).Add(v.Mul(rng.Float64())) }
		return tri{p(), p(), p()}, tri{p(), p(), p()}
	}},
	// Sharing a corner or an edge exactly, or up to a few ulps.
	{"shared", func(rng *rand.Rand) (tri, tri) {
		a := tri{randPoint(rng), randPoint(rng), randPoint(rng)}
		i := rng.IntN(3)
		b := tri{a[i], randPoint(rng), randPoint(rng)}
		if rng.IntN(2) == 0 {
			b[1] = a[(i+1)%3]
		}
		if rng.IntN(2) == 0 {
			b[0][rng.IntN(3)] = up(b[0][rng.IntN(3)], rng.IntN(5)-2)
		}
		return a, b
	}},
	// Uniform in the unit cube: mostly general position.
	{"uniform", func(rng *rand.Rand) (tri, tri) {
		return tri{randPoint(rng), randPoint(rng), randPoint(rng)}, tri{randPoint(rng), randPoint(rng), randPoint(rng)}
	}},
	// Degenerate triangles: collinear corners, repeated corners.
	{"degenerate", func(rng *rand.Rand) (tri, tri) {
		seg := func() tri {
			p, q := gridPoint(rng, 4), gridPoint(rng, 4)
			switch rng.IntN(3) {
			case 0:
				return tri{p, q, p.Add(q).Mul(0.5)}
			case 1:
				return tri{p, q, q}
			}
			return tri{p, p, p}
		}
		a := seg()
		if rng.IntN(2) == 0 {
			return a, seg()
		}
		return a, tri{gridPoint(rng, 4), gridPoint(rng, 4), gridPoint(rng, 4)}
	}},
	// Grid configurations scaled far outside the narrow range (2⁻⁶⁰⁰,
	// 2⁵⁰⁰): the rational stage.
	{"wide", func(rng *rand.Rand) (tri, tri) {
		s := 0x1p-600
		if rng.IntN(2) == 0 {
			s = 0x1p500
		}
		a, b := tri{gridPoint(rng, 3), gridPoint(rng, 3), gridPoint(rng, 3)}, tri{gridPoint(rng, 3), gridPoint(rng, 3), gridPoint(rng, 3)}
		return scaleTri(a, s), scaleTri(nudge(rng, b), s)
	}},
}

// TestTrianglesIntersectRandom compares TrianglesIntersect with the
// rational reference on random, degenerate and near-degenerate pairs, in
// every corner order and both argument orders, and checks that scaling by a
// power of two (exact) keeps the answer.
func TestTrianglesIntersectRandom(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, g := range generators {
		hits := 0
		for range n {
			a, b := g.gen(rng)
			want := refIntersect(a, b)
			if want {
				hits++
			}
			checkAllOrders(t, g.name, a, b, want)
			for _, s := range []float64{0x1p-300, 0x1p-40, 0x1p40, 0x1p300} {
				as, okA := scaleExact(a, s)
				bs, okB := scaleExact(b, s)
				if !okA || !okB {
					continue
				}
				if got := TrianglesIntersect(as, bs); got != want {
					t.Fatalf("%s: scaled by %g: TrianglesIntersect(%v, %v) = %v, want %v", g.name, s, a, b, got, want)
				}
			}
		}
		t.Logf("%s: %d of %d pairs intersect", g.name, hits, n)
		if hits == 0 || hits == n {
			t.Errorf("%s: %d of %d pairs intersect: the generator tests one answer only", g.name, hits, n)
		}
	}
}

// TestTrianglesIntersectPerturbed takes touching pairs (a corner of b on
// a's face, edge or corner; edges crossing) and moves b by one ulp at a time
// along each axis: the answer must follow the reference exactly.
func TestTrianglesIntersectPerturbed(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	n := 150
	if testing.Short() {
		n = 20
	}
	for range n {
		a := tri{randPoint(rng), randPoint(rng), randPoint(rng)}
		// A point of a: a corner, on an edge, or inside.
		w := [3]float64{}
		switch rng.IntN(3) {
		case 0:
			w[rng.IntN(3)] = 1
		case 1:
			i := rng.IntN(3)
			w[i] = rng.Float64()
			w[(i+1)%3] = 1 - w[i]
		default:
			w[0], w[1] = rng.Float64()/2, rng.Float64()/2
			w[2] = 1 - w[0] - w[1]
		}
		p := a[0].Mul(w[0]).Add(a[1].Mul(w[1])).Add(a[2].Mul(w[2]))
		b := tri{p, randPoint(rng), randPoint(rng)}
		if rng.IntN(2) == 0 {
			b[1] = p.Add(p.Sub(b[2])) // through p: the edge b₁b₂ crosses near p
		}
		for k := range 3 {
			for _, d := range []int{-2, -1, 1, 2} {
				c := b
				for i := range 3 {
					c[i][k] = up(c[i][k], d)
				}
				checkAllOrders(t, "perturbed", a, c, refIntersect(a, c))
			}
		}
		checkAllOrders(t, "perturbed", a, b, refIntersect(a, b))
	}
}

// TestTrianglesIntersectTranslated checks that an exact translation (by
// integers, of a grid configuration) keeps the answer.
func TestTrianglesIntersectTranslated(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for range 2000 {
		a := tri{gridPoint(rng, 4), gridPoint(rng, 4), gridPoint(rng, 4)}
		b := tri{gridPoint(rng, 4), gridPoint(rng, 4), gridPoint(rng, 4)}
		want := TrianglesIntersect(a, b)
		d := mgl64.Vec3{float64(rng.IntN(2001) - 1000), float64(rng.IntN(2001) - 1000), float64(rng.IntN(2001) - 1000)}
		for i := range 3 {
			a[i], b[i] = a[i].Add(d), b[i].Add(d)
		}
		if got := TrianglesIntersect(a, b); got != want {
			t.Fatalf("translated by %v: TrianglesIntersect(%v, %v) = %v, want %v", d, a, b, got, want)
		}
	}
}
