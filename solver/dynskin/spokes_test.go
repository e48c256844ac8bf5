package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSpokesMatchesGo checks that the platform's spoke sums (spokes, a
// vector kernel on amd64) are bitwise those of spokesGo, for 0 to 12
// influences on segments of very different sizes, points among them,
// at points off them, on them (spokes of length 0, which add nothing),
// at −0 coordinates and at non-finite points.
func TestSpokesMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
	}
	segs := make([]preparedSegment, 9)
	for b := range segs {
		s := math.Pow(10, float64(rng.IntN(7)-3))
		a := vec(s)
		seg := Segment{A: a, B: a.Add(vec(s))}
		if b%4 == 0 {
			seg.B = seg.A // a point
		}
		segs[b] = seg.prepare()
	}
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
	for n := 0; n <= 12; n++ {
		for trial := range 200 {
			infl := make([]influence, n)
			for k := range infl {
				w := rng.Float64()
				infl[k] = influence{bone: int32(rng.IntN(len(segs))), w: w, wl0: w * rng.Float64() * 2}
			}
			var x [3]float64
			switch trial % 8 {
			case 0: // on a bone: its spoke has length 0
				if n > 0 {
					sg := &segs[infl[0].bone]
					u := rng.Float64()
					for k := range 3 {
						x[k] = sg.a[k] + u*sg.d[k]
					}
				}
			case 1:
				x = [3]float64{math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)}
			case 2:
				x = [3]float64{math.NaN(), 0, 1}
			case 3:
				x = [3]float64{math.Inf(-1), 0, 1}
			default:
				x = vec(math.Pow(10, float64(rng.IntN(7)-3)))
			}
			var got, want [3]float64
			spokes(&got, &x, infl, segs)
			spokesGo(&want, &x, infl, segs)
			for k := range 3 {
				if !same(got[k], want[k]) {
					t.Fatalf("n %d, trial %d, x %v: %v, want %v", n, trial, x, got, want)
				}
			}
		}
	}
}
