package collide

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// ratOrient3d is orient3d in big.Rat, for reference.
func ratOrient3d(a, b, c, d mgl64.Vec3) int {
	var u, v, w [3]*big.Rat
	for k := range 3 {
		r := func(x, y float64) *big.Rat {
			return new(big.Rat).Sub(new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y))
		}
		u[k], v[k], w[k] = r(b[k], a[k]), r(c[k], a[k]), r(d[k], a[k])
	}
	// det[u; v; w] by cofactors along w.
	det := new(big.Rat)
	for k := range 3 {
		i, j := (k+1)%3, (k+2)%3
		m := new(big.Rat).Mul(u[i], v[j])
		m.Sub(m, new(big.Rat).Mul(u[j], v[i]))
		det.Add(det, m.Mul(m, w[k]))
	}
	return det.Sign()
}

// ratOrient2d is orient2d in big.Rat, for reference.
func ratOrient2d(a, b, c [2]float64) int {
	r := func(x, y float64) *big.Rat {
		return new(big.Rat).Sub(new(big.Rat).SetFloat64(x), new(big.Rat).SetFloat64(y))
	}
	l := new(big.Rat).Mul(r(b[0], a[0]), r(c[1], a[1]))
	return l.Sub(l, new(big.Rat).Mul(r(b[1], a[1]), r(c[0], a[0]))).Sign()
}

// orientCases returns quadruples of points, many of them (nearly)
// coplanar, from several families.
func orientCases(rng *rand.Rand, n int) [][4]mgl64.Vec3 {
	var cases [][4]mgl64.Vec3
	wild := func() float64 { // any narrow magnitude, either sign
		return math.Ldexp(rng.Float64()-0.5, rng.IntN(400)-200)
	}
	for i := range n {
		var q [4]mgl64.Vec3
		for j := range 3 {
			q[j] = mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		}
		switch i % 6 {
		case 0: // general position
			q[3] = mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
		case 1: // d rounded onto the plane of a, b, c
			s, t := rng.Float64(), rng.Float64()
			q[3] = q[0].Add(q[1].Sub(q[0]).Mul(s)).Add(q[2].Sub(q[0]).Mul(t))
		case 2: // d rounded onto the line ab
			q[3] = q[0].Add(q[1].Sub(q[0]).Mul(rng.Float64()))
		case 3: // small integers, then an ulp off
			for j := range 4 {
				q[j] = gridPoint(rng, 3)
			}
			k := rng.IntN(3)
			q[3][k] = up(q[3][k], rng.IntN(3)-1)
		case 4: // coordinates of wildly different magnitudes, near coplanar
			for j := range 3 {
				q[j] = mgl64.Vec3{wild(), wild(), wild()}
			}
			q[3] = q[0].Add(q[1].Sub(q[0]).Mul(0.5)).Add(q[2].Sub(q[0]).Mul(0.25))
		case 5: // a large offset: cancellation in every difference
			off := mgl64.Vec3{1e6, -1e6, 1e6}
			for j := range 3 {
				q[j] = q[j].Mul(1e-9).Add(off)
			}
			q[3] = q[0].Add(q[1].Sub(q[0]).Mul(0.3)).Add(q[2].Sub(q[0]).Mul(0.6))
		}
		cases = append(cases, q)
	}
	return cases
}

// TestOrient3d checks orient3d (filter and expansion stage), the expansion
// stage on its own and the big-integer stage against big.Rat, on general,
// coplanar, collinear and near-degenerate points.
func TestOrient3d(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	zeros := 0
	for _, q := range orientCases(rng, 6000) {
		want := ratOrient3d(q[0], q[1], q[2], q[3])
		if want == 0 {
			zeros++
		}
		if got := orient3d(&q[0], &q[1], &q[2], &q[3], false); got != want {
			t.Fatalf("orient3d%v = %d, want %d", q, got, want)
		}
		if got := orient3dExact(&q[0], &q[1], &q[2], &q[3]); got != want {
			t.Fatalf("orient3dExact%v = %d, want %d", q, got, want)
		}
		if got := orient3d(&q[0], &q[1], &q[2], &q[3], true); got != want {
			t.Fatalf("orient3d%v (wide) = %d, want %d", q, got, want)
		}
	}
	if zeros < 200 {
		t.Errorf("only %d coplanar cases", zeros)
	}
}

// TestOrient2d checks orient2d's stages against big.Rat.
func TestOrient2d(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	zeros := 0
	for _, q := range orientCases(rng, 6000) {
		// a, b, d in the xy and yz projections: d is on the line ab (up to
		// rounding) in the collinear family, on a grid in another.
		for _, k := range [2]int{0, 1} {
			a, b, c := [2]float64{q[0][k], q[0][k+1]}, [2]float64{q[1][k], q[1][k+1]}, [2]float64{q[3][k], q[3][k+1]}
			want := ratOrient2d(a, b, c)
			if want == 0 {
				zeros++
			}
			if got := orient2d(a[0], a[1], b[0], b[1], c[0], c[1], false); got != want {
				t.Fatalf("orient2d(%v, %v, %v) = %d, want %d", a, b, c, got, want)
			}
			if got := orient2dExact(a[0], a[1], b[0], b[1], c[0], c[1]); got != want {
				t.Fatalf("orient2dExact(%v, %v, %v) = %d, want %d", a, b, c, got, want)
			}
			if got := orient2d(a[0], a[1], b[0], b[1], c[0], c[1], true); got != want {
				t.Fatalf("orient2d(%v, %v, %v) (wide) = %d, want %d", a, b, c, got, want)
			}
		}
	}
	if zeros < 200 {
		t.Errorf("only %d collinear cases", zeros)
	}
}

// TestOrientWide checks the big-integer stage on coordinates far outside
// the narrow range: subnormal, huge, and mixed.
func TestOrientWide(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	pick := func() float64 {
		switch rng.IntN(5) {
		case 0:
			return 0
		case 1:
			return math.Ldexp(float64(rng.IntN(7)-3), -1074) // subnormal
		case 2:
			return math.Ldexp(rng.Float64()-0.5, 1000)
		case 3:
			return math.Ldexp(rng.Float64()-0.5, -1000)
		}
		return float64(rng.IntN(5) - 2)
	}
	for range 3000 {
		var q [4]mgl64.Vec3
		for j := range 4 {
			q[j] = mgl64.Vec3{pick(), pick(), pick()}
		}
		if got, want := orient3d(&q[0], &q[1], &q[2], &q[3], true), ratOrient3d(q[0], q[1], q[2], q[3]); got != want {
			t.Fatalf("orient3d%v (wide) = %d, want %d", q, got, want)
		}
		a, b, c := [2]float64{q[0][0], q[0][1]}, [2]float64{q[1][0], q[1][1]}, [2]float64{q[2][0], q[2][1]}
		if got, want := orient2d(a[0], a[1], b[0], b[1], c[0], c[1], true), ratOrient2d(a, b, c); got != want {
			t.Fatalf("orient2d(%v, %v, %v) (wide) = %d, want %d", a, b, c, got, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want kind
	}{
		{0, narrow}, {math.Copysign(0, -1), narrow}, {1, narrow}, {-0x1p-250, narrow}, {0x1p-250, narrow},
		{up(0x1p250, -1), narrow}, {-up(0x1p250, -1), narrow},
		{0x1p250, wide}, {-0x1p250, wide}, {up(0x1p-250, -1), wide}, {-0x1p-251, wide},
		{math.MaxFloat64, wide}, {5e-324, wide}, {0x1p-1022, wide},
		{math.Inf(1), bad}, {math.Inf(-1), bad}, {math.NaN(), bad},
	} {
		if got := kindOf(c.x); got != c.want {
			t.Errorf("kindOf(%g) = %d, want %d", c.x, got, c.want)
		}
	}
}
