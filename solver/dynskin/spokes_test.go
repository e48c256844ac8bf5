package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSpokesMatchesGo checks that the platform's spoke sums (spokes, a
// vector kernel on amd64) are bitwise those of spokesGo, for 0 to 13
// influences (every length of a last, short group of four) on 21
// segments of very different sizes, points among them, at points off
// them, at points whose projections fall before a segment's start
// (t < 0) or past its end (t > 1), on a segment (spokes of length 0,
// which add nothing, one or all of them), at a segment's ends, at −0
// coordinates and at non-finite points, with weights and rest lengths
// that may be 0.
func TestSpokesMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{s * rng.NormFloat64(), s * rng.NormFloat64(), s * rng.NormFloat64()}
	}
	segs := make([]preparedSegment, 21)
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
	// along returns a point at u along bone's segment, off it by off times
	// a random offset.
	along := func(bone int32, u, off float64) [3]float64 {
		sg := &segs[bone]
		p := vec(off * math.Sqrt(sg.d[0]*sg.d[0]+sg.d[1]*sg.d[1]+sg.d[2]*sg.d[2]+1e-6))
		var x [3]float64
		for k := range 3 {
			x[k] = sg.a[k] + u*sg.d[k] + p[k]
		}
		return x
	}
	for n := 0; n <= 13; n++ {
		for trial := range 600 {
			infl := make([]influence, n)
			for k := range infl {
				w := rng.Float64()
				wl0 := w * rng.Float64() * 2
				switch rng.IntN(8) {
				case 0:
					w = 0
				case 1:
					wl0 = 0
				}
				infl[k] = influence{bone: int32(rng.IntN(len(segs))), w: w, wl0: wl0}
			}
			var x [3]float64
			switch trial % 12 {
			case 0: // on a bone: its spoke has length 0
				if n > 0 {
					x = along(infl[rng.IntN(n)].bone, rng.Float64(), 0)
				}
			case 1:
				x = [3]float64{math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)}
			case 2:
				x = [3]float64{math.NaN(), 0, 1}
			case 3:
				x = [3]float64{math.Inf(-1), 0, 1}
			case 4, 5: // before a bone's start or past its end, near or far
				if n > 0 {
					u := []float64{-3, -1, -0.5, -1e-9, 1 + 1e-9, 1.5, 2, 7}[rng.IntN(8)]
					x = along(infl[rng.IntN(n)].bone, u, []float64{0, 1e-3, 1}[rng.IntN(3)])
				}
			case 6: // at an end of a bone
				if n > 0 {
					x = along(infl[rng.IntN(n)].bone, float64(rng.IntN(2)), 0)
				}
			case 7: // every spoke on one bone, x on it: every spoke of length 0
				if n > 0 {
					for k := range infl {
						infl[k].bone = infl[0].bone
					}
					x = along(infl[0].bone, rng.Float64(), 0)
				}
			case 8:
				x = [3]float64{math.Inf(1), math.Inf(-1), 0}
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
