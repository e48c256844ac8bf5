package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// TestRefineRingsMatchesRefine checks that refineRings's answers (four
// steps at a time on amd64) are bitwise rotation.Refine(q, &a, 0, 1)'s,
// for every subset of lanes, on matrices near a rotation of the warm
// start (the simulation's case: Newton steps) and far from one: turned by
// up to π (line searches, capped steps), reflected, singular, zero and
// non-finite.
func TestRefineRingsMatchesRefine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	randQuat := func() mgl64.Quat {
		return mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
	}
	// problem returns a warm start and a matrix whose polar rotation is
	// the start turned by about `turn` radians, of the given kind.
	problem := func(turn float64, kind int) (mgl64.Quat, mgl64.Mat3) {
		q := randQuat()
		axis := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
		rot := mgl64.QuatRotate(turn*rng.Float64(), axis).Mul(q).Mat4().Mat3()
		s := math.Pow(10, float64(rng.IntN(7)-3))
		stretch := mgl64.Diag3(mgl64.Vec3{s * (1 + 0.3*rng.Float64()), s * (1 + 0.3*rng.Float64()), s * (1 + 0.3*rng.Float64())})
		a := rot.Mul3(stretch)
		switch kind {
		case 1:
			a = a.Mul3(mgl64.Diag3(mgl64.Vec3{1, 1, -1}))
		case 2:
			a.SetCol(2, mgl64.Vec3{})
		case 3:
			a = mgl64.Mat3{}
		case 4:
			a[rng.IntN(9)] = math.NaN()
		case 5:
			a[rng.IntN(9)] = math.Inf(1)
		}
		return q, a
	}
	same := func(a, b mgl64.Quat) bool {
		bitsEq := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y }
		return bitsEq(a.W, b.W) && bitsEq(a.V[0], b.V[0]) && bitsEq(a.V[1], b.V[1]) && bitsEq(a.V[2], b.V[2])
	}
	for trial := range 3000 {
		var q, want [4]mgl64.Quat
		var r [4]ringSums
		for k := range 4 {
			turn, kind := 0.05, 0
			switch trial % 3 {
			case 1:
				turn = math.Pi
			case 2:
				turn, kind = math.Pi, rng.IntN(6)
			}
			q[k], r[k].a = problem(turn, kind)
		}
		lanes := uint(trial % 16)
		for k := range 4 {
			want[k] = q[k]
			if lanes>>k&1 != 0 {
				want[k], _ = rotation.Refine(q[k], &r[k].a, 0, 1)
			}
		}
		got := q
		refineRings(&got, &r, lanes)
		for k := range 4 {
			if !same(got[k], want[k]) {
				t.Fatalf("trial %d, lanes %04b, lane %d: %v, want %v (a %v)", trial, lanes, k, got[k], want[k], r[k].a)
			}
		}
	}
}
