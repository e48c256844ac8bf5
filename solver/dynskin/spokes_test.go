package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSpokesMatchesGo checks that the platform's spoke sums (spokes, a
// vector kernel on amd64) are bitwise those of spokesGo, and that a
// lane's padding (the zero-weight spokes after its own) changes nothing:
// both are bitwise the sums over the lane's own spokes alone. Groups of 0
// to 13 rows, lanes with any number of spokes up to that, on 21 segments
// of very different sizes, points among them, at points off them, at
// points whose projections fall before a segment's start (t < 0) or past
// its end (t > 1), on a segment (spokes of length 0, which add nothing,
// one or all of them), at a segment's ends, at −0 coordinates and at
// non-finite points, with weights and rest lengths that may be 0.
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
	// own sums lane j's first cnt spokes alone, as a vertex's spokes are
	// summed one after the other.
	own := func(rows []spokeRow, j, cnt int, x [3]float64) [3]float64 {
		var b [3]float64
		for r := range cnt {
			d0, d1, d2 := segs[rows[r].bone[j]].offset(x[0], x[1], x[2])
			if l := math.Sqrt(d0*d0 + d1*d1 + d2*d2); l > 0 {
				f := rows[r].wl0[j]/l - rows[r].w[j]
				b[0] += f * d0
				b[1] += f * d1
				b[2] += f * d2
			}
		}
		return b
	}
	for n := 0; n <= 13; n++ {
		for trial := range 300 {
			rows := make([]spokeRow, n)
			var cnt [4]int
			var x [4]node
			for j := range 4 {
				cnt[j] = n
				if n > 0 && rng.IntN(2) == 0 {
					cnt[j] = rng.IntN(n + 1)
				}
				for r := range cnt[j] {
					w := rng.Float64()
					wl0 := w * rng.Float64() * 2
					switch rng.IntN(8) {
					case 0:
						w = 0
					case 1:
						wl0 = 0
					}
					rows[r].bone[j], rows[r].w[j], rows[r].wl0[j] = int32(rng.IntN(len(segs))), w, wl0
				}
				var xj [3]float64
				switch (trial + j) % 12 {
				case 0: // on a bone: its spoke has length 0
					if n > 0 {
						xj = along(rows[0].bone[j], rng.Float64(), 0)
					}
				case 1:
					xj = [3]float64{math.Copysign(0, -1), math.Copysign(0, -1), math.Copysign(0, -1)}
				case 2:
					xj = [3]float64{math.NaN(), 0, 1}
				case 3:
					xj = [3]float64{math.Inf(-1), 0, 1}
				case 4, 5: // before a bone's start or past its end, near or far
					if cnt[j] > 0 {
						u := []float64{-3, -1, -0.5, -1e-9, 1 + 1e-9, 1.5, 2, 7}[rng.IntN(8)]
						xj = along(rows[rng.IntN(cnt[j])].bone[j], u, []float64{0, 1e-3, 1}[rng.IntN(3)])
					}
				case 6: // at an end of a bone
					if n > 0 {
						xj = along(rows[0].bone[j], float64(rng.IntN(2)), 0)
					}
				case 7: // every spoke on one bone, x on it: every spoke of length 0
					if cnt[j] > 0 {
						for r := range cnt[j] {
							rows[r].bone[j] = rows[0].bone[j]
						}
						xj = along(rows[0].bone[j], rng.Float64(), 0)
					}
				case 8:
					xj = [3]float64{math.Inf(1), math.Inf(-1), 0}
				default:
					xj = vec(math.Pow(10, float64(rng.IntN(7)-3)))
				}
				x[j].x = xj
				x[j].v = vec(1)
			}
			var got, want [3][4]float64
			spokes(&got, &x, rows, segs)
			spokesGo(&want, &x, rows, segs)
			for j := range 4 {
				ref := own(rows, j, cnt[j], x[j].x)
				for k := range 3 {
					if !same(got[k][j], want[k][j]) {
						t.Fatalf("n %d, trial %d, lane %d, x %v: %v, want %v", n, trial, j, x[j].x, got, want)
					}
					if !same(want[k][j], ref[k]) {
						t.Fatalf("n %d, trial %d, lane %d (%d spokes), x %v: padded %v, own spokes alone %v", n, trial, j, cnt[j], x[j].x, want[k][j], ref)
					}
				}
			}
		}
	}
}
