//go:build !purego

package dynskin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ssdr"
)

// TestSimulateVectorMatchesGo checks that the simulation with the AVX
// kernels (ring sums, rotation steps, spokes, the groups' steps) gives
// bitwise the positions it gives with the Go code alone: on a swaying
// tube with 1 and 3 substeps, random parameters per vertex, gravity, and
// three loose vertices (no ring, and a last group of three slots); with
// a poke (its group stepped by stepVertex); and a state that blows up at
// the same vertex.
func TestSimulateVectorMatchesGo(t *testing.T) {
	if !useAVX {
		t.Skip("no AVX")
	}
	rest, tris, w, segs := tubeMesh(12, 10)
	for k := range 3 {
		rest = append(rest, mgl64.Vec3{2 + float64(k), 1, 0})
		w = append(w, []ssdr.Influence{{Bone: 1, Weight: 0.25}, {Bone: 0, Weight: 0.75}})
	}
	m, err := NewModel(rest, tris, w, segs)
	if err != nil {
		t.Fatal(err)
	}
	g := swayGoal(m, rest, 40)
	rng := rand.New(rand.NewPCG(3, 4))
	p := make([]Material, m.n)
	for i := range p {
		for k := range nParams {
			p[i].Set(k, rng.Float64()*upper[k])
		}
	}
	// both runs f with and without AVX and compares their positions.
	both := func(name string, f func() ([][]mgl64.Vec3, error)) {
		t.Helper()
		vec, errV := f()
		scalar, errS := func() ([][]mgl64.Vec3, error) {
			useAVX = false
			defer func() { useAVX = true }() // also when f fails the test
			return f()
		}()
		if fmt.Sprint(errV) != fmt.Sprint(errS) {
			t.Fatalf("%s: error %v with AVX, %v without", name, errV, errS)
		}
		for f := range vec {
			for i := range vec[f] {
				for k := range 3 {
					if math.Float64bits(vec[f][i][k]) != math.Float64bits(scalar[f][i][k]) {
						t.Fatalf("%s, frame %d, vertex %d: %v with AVX, %v without", name, f, i, vec[f][i], scalar[f][i])
					}
				}
			}
		}
	}
	for _, sub := range []int{1, 3} {
		both(fmt.Sprintf("%d substeps", sub), func() ([][]mgl64.Vec3, error) {
			return Simulate(m, p, g, Options{Substeps: sub, Gravity: mgl64.Vec3{0.5, -9.8, 0.25}})
		})
	}
	both("poke", func() ([][]mgl64.Vec3, error) {
		s, err := NewSim(m, p, g, Options{})
		if err != nil {
			return nil, err
		}
		s.Start(0)
		s.SetPoke(37, rest[37].Add(mgl64.Vec3{0, 0, 0.3}))
		var out [][]mgl64.Vec3
		for f := 1; f < 10; f++ {
			if err := s.Advance(f); err != nil {
				return out, err
			}
			out = append(out, slices.Clone(s.Positions()))
		}
		return out, nil
	})
	both("blow-up", func() ([][]mgl64.Vec3, error) {
		s, err := NewSim(m, p, g, Options{})
		if err != nil {
			return nil, err
		}
		s.Start(0)
		st := s.State()
		st.V[53] = mgl64.Vec3{math.NaN(), 0, 0}
		st.X[90] = st.X[90].Add(mgl64.Vec3{0, 1e6, 0})
		s.SetState(0, st)
		err = s.Advance(1)
		if err == nil {
			t.Error("a NaN velocity did not blow the simulation up")
		}
		return nil, err
	})
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
	s, err := NewSim(m, Uniform(m.n, Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2}), g, Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Start(0)
	if err := s.Advance(1); err != nil {
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
			t.Fatalf("slots %d-%d: lanes %04b taken, want 1111", lo, lo+3, got)
		}
		r[2].a = mgl64.Mat3{}
		if got := refineStep4(q, &r, &out); got != 0b1011 {
			t.Fatalf("slots %d-%d, lane 2 zero: lanes %04b taken, want 1011", lo, lo+3, got)
		}
	}
}
