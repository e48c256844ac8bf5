package rotation

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// refineSteps is the tests' cap on Refine's steps.
const refineSteps = 32

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
		q, n := Refine(randomQuat(rng), &a, 1e-12, refineSteps)
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

// TestRefineRaisesF: from random starts (most outside the Newton region),
// every step of Refine raises tr(Rᵀa), on random matrices and on
// anisotropic ones (σ₁ = 30σ₂, σ₃ = 0 or −σ₂/2).
func TestRefineRaisesF(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	f := func(q mgl64.Quat, a *mgl64.Mat3) float64 {
		r := q.Mat4().Mat3()
		sum := 0.0
		for k := range r {
			sum += r[k] * a[k]
		}
		return sum
	}
	for k := 0; k < 1000; k++ {
		a := randomMatrix(rng)
		if k%2 == 1 {
			a = randomRotation(rng).Mul3(mgl64.Diag3(mgl64.Vec3{1, 1.0 / 30, -float64(k%4/2) / 60})).Mul3(randomRotation(rng))
		}
		q := randomQuat(rng)
		for step := 0; step < 10; step++ {
			next, n := Refine(q, &a, 0, 1)
			if n == 0 {
				break
			}
			if f(next, &a) < f(q, &a)-1e-12*frob(a) {
				t.Fatalf("matrix %d, step %d: f fell from %v to %v", k, step, f(q, &a), f(next, &a))
			}
			q = next
		}
	}
}

// TestRefineWarmStart: started from the answer of a slightly different
// matrix, Refine takes a few steps.
func TestRefineWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	total := 0
	for k := 0; k < 1000; k++ {
		a := randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1, 1.2, 0.8}))
		q, _ := Refine(mgl64.QuatIdent(), &a, 1e-12, refineSteps)
		b := rotationAbout(randomAxis(rng), 0.02).Mul3(a)
		_, n := Refine(q, &b, 1e-12, refineSteps)
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
	if q, _ := Refine(q0, &zero, 1e-12, refineSteps); q != mgl64.QuatIdent() {
		t.Errorf("a = 0: %v, want the identity", q)
	}
	nan := mgl64.Mat3{math.NaN()}
	if _, n := Refine(q0, &nan, 1e-12, refineSteps); n != 0 {
		t.Errorf("NaN input took %d steps", n)
	}
}

// TestRefineOneStepTracks: one step of Refine per time step tracks the
// polar rotation of a matrix turning by δ per step (a stretch, or a flat
// one of rank 2, turned about a random axis, the stretch itself turning
// too) with an error below δ²/10 that does not grow over 1,000 steps (it
// is about δ³/2 on these).
func TestRefineOneStepTracks(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, delta := range []float64{0.001, 0.01, 0.05} {
		for _, l := range []mgl64.Vec3{{1, 1.2, 0.8}, {1, 0.5, 0}} {
			axis, spin := randomAxis(rng), randomAxis(rng)
			s0 := mgl64.Diag3(l)
			at := func(k int) mgl64.Mat3 {
				turn := rotationAbout(spin, 0.3*delta*float64(k))
				return rotationAbout(axis, delta*float64(k)).Mul3(turn).Mul3(s0).Mul3(turn.Transpose())
			}
			a := at(0)
			r, _ := Polar(a)
			q := mgl64.Mat4ToQuat(r.Mat4()).Normalize()
			first, worst := 0.0, 0.0
			for k := 1; k <= 1000; k++ {
				a = at(k)
				q, _ = Refine(q, &a, 0, 1)
				want, _ := Polar(a)
				e := frob(q.Mat4().Mat3().Sub(want))
				if k == 1 {
					first = e
				}
				worst = max(worst, e)
			}
			t.Logf("δ = %g, σ = %v: error after one step %.2g, worst %.2g (δ² = %.2g)", delta, l, first, worst, delta*delta)
			if worst > delta*delta/10 {
				t.Errorf("δ = %g, σ = %v: one step per time step strays %g from Polar, want ≤ δ²/10 = %g", delta, l, worst, delta*delta/10)
			}
		}
	}
}

// warmProblems returns matrices and, for each, the polar rotation of the
// matrix turned back by 0.01 radian about a random axis.
func warmProblems() ([]mgl64.Mat3, []mgl64.Quat) {
	rng := rand.New(rand.NewPCG(5, 6))
	as := make([]mgl64.Mat3, 256)
	qs := make([]mgl64.Quat, len(as))
	for i := range as {
		a := randomRotation(rng).Mul3(randomSPD(rng, mgl64.Vec3{1, 1.05, 0.95}))
		qs[i], _ = Refine(mgl64.QuatIdent(), &a, 1e-12, refineSteps)
		as[i] = rotationAbout(randomAxis(rng), 0.01).Mul3(a)
	}
	return as, qs
}

func BenchmarkRefineWarm(b *testing.B) {
	as, qs := warmProblems()
	for i := 0; b.Loop(); i++ {
		k := i % len(as)
		Refine(qs[k], &as[k], 1e-12, refineSteps)
	}
}

// BenchmarkRefineOneStep: one step from the warm start, as a simulation
// takes per time step.
func BenchmarkRefineOneStep(b *testing.B) {
	as, qs := warmProblems()
	for i := 0; b.Loop(); i++ {
		k := i % len(as)
		Refine(qs[k], &as[k], 0, 1)
	}
}
