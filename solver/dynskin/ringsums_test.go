package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestRingSumsRawMatchesGo checks that the platform's ring sums
// (ringSumsRaw, a vector kernel on amd64) are bitwise those of
// ringSumsGo, on rings of every length from 0 to 12 over nodes of very
// different magnitudes, non-finite velocities among them (only their own
// sums may be non-finite).
func TestRingSumsRawMatchesGo(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]node, 40)
	for i := range x {
		s := math.Pow(10, float64(rng.IntN(9)-4))
		for k := range 3 {
			x[i].x[k] = s * rng.NormFloat64()
			x[i].v[k] = s * rng.NormFloat64()
		}
	}
	rest := make([]mgl64.Vec3, len(x))
	for i := range rest {
		rest[i] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	x[7].v[0] = math.Inf(1)
	x[9].v[2] = math.NaN()
	for n := 0; n <= 12; n++ {
		for trial := range 20 {
			i := rng.IntN(len(x))
			ring := make([]int32, n)
			for k := range ring {
				ring[k] = int32(rng.IntN(len(x)))
			}
			mean0 := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			var got, want ringSums
			ringSumsRaw(&got, x, i, ring, rest, &mean0)
			ringSumsGo(&want, x, i, ring, rest, &mean0)
			same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) || a != a && b != b }
			for k := range 9 {
				if !same(got.a[k], want.a[k]) {
					t.Fatalf("n %d, trial %d: a[%d] = %v, want %v", n, trial, k, got.a[k], want.a[k])
				}
			}
			for k := range 3 {
				if !same(got.dx[k], want.dx[k]) || !same(got.sv[k], want.sv[k]) {
					t.Fatalf("n %d, trial %d: dx %v sv %v, want %v %v", n, trial, got.dx, got.sv, want.dx, want.sv)
				}
			}
		}
	}
}
