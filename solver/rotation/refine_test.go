package rotation

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func randomQuat(rng *rand.Rand) mgl64.Quat {
	return mgl64.Mat4ToQuat(randomRotation(rng).Mat4()).Normalize()
}

// TestRefineMatchesPolar: from a random start, on random matrices, on
// reflections (det a < 0) and on stretched rotations, Refine finds Polar's
// rotation.
func TestRefineMatchesPolar(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst, most := 0.0, 0
	for k := 0; k < 3000; k++ {
		var a mgl64.Mat3
		switch k % 3 {
		case 0:
			a = randomMatrix(rng)
		case 1: // a reflection times a stretch
			a = randomRotation(rng).Mul3(mgl64.Diag3(mgl64.Vec3{2, 1, -0.3}))
		case 2: // a rotation times a small stretch: the simulation's case
			a = randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1, 1.1, 0.9}))
		}
		q, n := Refine(randomQuat(rng), &a, 1e-12)
		r := q.Mat4().Mat3()
		checkRotation(t, "Refine", r, 5e-14)
		want, _ := Polar(a)
		worst = max(worst, frob(r.Sub(want)))
		most = max(most, n)
	}
	if worst > 1e-9 {
		t.Errorf("Refine differs from Polar by up to %g", worst)
	}
	t.Logf("largest difference from Polar %.2g, at most %d steps from a random start", worst, most)
}

// TestRefineWarmStart: started from the answer of a slightly different
// matrix, Refine takes a few steps.
func TestRefineWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	for k := 0; k < 1000; k++ {
		a := randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1, 1.2, 0.8}))
		q, _ := Refine(mgl64.QuatIdent(), &a, 1e-12)
		b := rotationAbout(randomAxis(rng), 0.02).Mul3(a)
		_, n := Refine(q, &b, 1e-12)
		total += n
	}
	if mean := float64(total) / 1000; mean > 4 {
		t.Errorf("a warm start takes %.1f steps on average, want at most 4", mean)
	}
}

// TestRefineDegenerate: a = 0 gives Polar's identity, and non-finite
// input returns at once.
func TestRefineDegenerate(t *testing.T) {
	q0 := mgl64.QuatRotate(0.3, mgl64.Vec3{0, 1, 0})
	var zero mgl64.Mat3
	if q, _ := Refine(q0, &zero, 1e-12); q != mgl64.QuatIdent() {
		t.Errorf("a = 0: %v, want the identity", q)
	}
	nan := mgl64.Mat3{math.NaN()}
	if _, n := Refine(q0, &nan, 1e-12); n != 0 {
		t.Errorf("NaN input took %d steps", n)
	}
}

func BenchmarkRefineWarm(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	as := make([]mgl64.Mat3, 256)
	qs := make([]mgl64.Quat, len(as))
	for i := range as {
		a := randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1, 1.05, 0.95}))
		qs[i], _ = Refine(mgl64.QuatIdent(), &a, 1e-12)
		as[i] = rotationAbout(randomAxis(rng), 0.01).Mul3(a)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % len(as)
		Refine(qs[k], &as[k], 1e-12)
	}
}
