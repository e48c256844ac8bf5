//go:build !purego

package dynskin

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSimulateVectorMatchesGo checks that the simulation with the AVX
// kernels (ring sums, rotation steps) gives bitwise the positions it gives
// with the Go code alone, on a swaying tube with 1 and 3 substeps.
func TestSimulateVectorMatchesGo(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX")
	}
	m, rest := tubeModel(t, 12, 10)
	g := swayGoal(m, rest, 40)
	p := Uniform(m.n, Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2})
	for _, sub := range []int{1, 3} {
		vec, err := Simulate(m, p, g, Options{Substeps: sub})
		if err != nil {
			t.Fatal(err)
		}
		useAVX = false
		scalar, err := Simulate(m, p, g, Options{Substeps: sub})
		useAVX = true
		if err != nil {
			t.Fatal(err)
		}
		for f := range vec {
			for i := range vec[f] {
				for k := range 3 {
					if math.Float64bits(vec[f][i][k]) != math.Float64bits(scalar[f][i][k]) {
						t.Fatalf("%d substeps, frame %d, vertex %d: %v with AVX, %v without", sub, f, i, vec[f][i], scalar[f][i])
					}
				}
			}
		}
	}
}

// TestRefineStep4Lanes checks that refineStep4 takes every lane's step
// (so TestRefineRingsMatchesRefine compares its answers) for the
// simulation's steps, from a warm start near the answer, and for
// stretched rotations up to π from the warm start, outside the Newton
// region or beyond the cap of many, and declines a zero matrix, where
// Refine starts again from Polar.
func TestRefineStep4Lanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := range 500 {
		var q, out [4]mgl64.Quat
		var r [4]ringSums
		for k := range 4 {
			q[k] = mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Normalize()
			axis := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
			rot := mgl64.QuatRotate(math.Pi*rng.Float64(), axis).Mul(q[k]).Mat4().Mat3()
			r[k].a = rot.Mul3(mgl64.Diag3(mgl64.Vec3{1 + rng.Float64(), 1 + rng.Float64(), 1 + rng.Float64()}))
		}
		if got := refineStep4(&q, &r, &out); got != 0b1111 {
			t.Fatalf("trial %d: lanes %04b taken, want 1111", trial, got)
		}
	}

	m, rest := tubeModel(t, 12, 10)
	g := swayGoal(m, rest, 10)
	s, err := NewSim(m, Uniform(m.n, Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2}), g.FPS, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0, g.Positions[0], g.Positions[1])
	if err := s.Advance(g.Positions[0], g.Positions[1], g.Bones[0], g.Bones[1]); err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo+4 <= m.n; lo += 4 {
		var r [4]ringSums
		var out [4]mgl64.Quat
		q := (*[4]mgl64.Quat)(s.cur.q[lo : lo+4])
		for k := range 4 {
			m.ringSums(&r[k], lo+k, s.cur.n)
		}
		if got := refineStep4(q, &r, &out); got != 0b1111 {
			t.Fatalf("vertices %d-%d: lanes %04b taken, want 1111", lo, lo+3, got)
		}
		r[2].a = mgl64.Mat3{}
		if got := refineStep4(q, &r, &out); got != 0b1011 {
			t.Fatalf("vertices %d-%d, lane 2 zero: lanes %04b taken, want 1011", lo, lo+3, got)
		}
	}
}
