//go:build !purego

package dynskin

import (
	"math"
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

// TestRefineNewton4Lanes checks that refineNewton4 takes the simulation's
// steps, those from a warm start near the answer, in every lane (so
// TestRefineRingsMatchesRefine compares its answers), and declines a
// zero matrix, whose step Refine does not take.
func TestRefineNewton4Lanes(t *testing.T) {
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
		if got := refineNewton4(q, &r, &out); got != 0b1111 {
			t.Fatalf("vertices %d-%d: lanes %04b taken, want 1111", lo, lo+3, got)
		}
		r[2].a = mgl64.Mat3{}
		if got := refineNewton4(q, &r, &out); got != 0b1011 {
			t.Fatalf("vertices %d-%d, lane 2 zero: lanes %04b taken, want 1011", lo, lo+3, got)
		}
	}
}
