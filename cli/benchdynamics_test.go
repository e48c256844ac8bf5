package cli

import (
	"path/filepath"
	"testing"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/tools/dynamics"
)

// BenchmarkDynamicsStep times one step of the bench's meshes (see
// benchDynamics: the tube's train animation, the horses) with its
// mid-range parameters, reporting ns per vertex:
// `go test ./cli -run '^$' -bench DynamicsStep -cpuprofile cpu.out`.
func BenchmarkDynamicsStep(b *testing.B) {
	objs, err := assets.LoadGLTFAnimation(filepath.Join(sharedSet(b, "dynskin-tube"), "rig.glb"), "train")
	if err != nil {
		b.Fatal(err)
	}
	tube, err := dynamics.NewRigging(objs[0])
	if err != nil {
		b.Fatal(err)
	}
	data := filepath.Dir(sharedSet(b, "horse-gallop"))
	horse, sub, err := horseRiggings(b.Context(), data)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		rg   *dynamics.Rigging
	}{{"tube", tube}, {"horse", horse}, {"horse_subdivided", sub}} {
		b.Run(c.name, func(b *testing.B) { benchAdvance(b, c.rg) })
	}
}

// benchAdvance times Advance over rg's goal, starting again at its end,
// after an untimed pass that puts the goal's frames in the model's vertex
// order (as benchStep's figure does).
func benchAdvance(b *testing.B, rg *dynamics.Rigging) {
	n := rg.Model.NumVertices()
	s, err := dynskin.NewSim(rg.Model, benchMaterials(n), rg.Goal, dynskin.Options{})
	if err != nil {
		b.Fatal(err)
	}
	s.Start(0)
	for f := 1; f < rg.Goal.NumFrames(); f++ {
		if err := s.Advance(f); err != nil {
			b.Fatal(err)
		}
	}
	s.Start(0)
	for b.Loop() {
		f := s.Frame()
		if f+1 >= rg.Goal.NumFrames() {
			b.StopTimer()
			s.Start(0)
			b.StartTimer()
			f = 0
		}
		if err := s.Advance(f + 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/vertex")
}
