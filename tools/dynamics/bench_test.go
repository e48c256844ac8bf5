package dynamics

import (
	"testing"

	"gallop/solver/dynskin"
)

// BenchmarkStepTube times one step of the tube's train animation.
func BenchmarkStepTube(b *testing.B) {
	_, rg, _, _ := tube(b, "train")
	p := make([]dynskin.Material, rg.Model.NumVertices())
	for i := range p {
		p[i] = dynskin.Material{Alpha: 0.3, Beta: 0.4, Gamma: 0.3, Lambda: 0.2, Kappa: 0.2}
	}
	s, err := dynskin.NewSim(rg.Model, p, rg.Goal.FPS, dynskin.Options{})
	if err != nil {
		b.Fatal(err)
	}
	g := rg.Goal
	s.Start(0, g.Positions[0], g.Positions[1])
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f := s.Frame()
		if f+1 >= g.NumFrames() {
			s.Start(0, g.Positions[0], g.Positions[1])
			f = 0
		}
		if err := s.Advance(g.Positions[f], g.Positions[f+1], g.Bones[f], g.Bones[f+1]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rg.Model.NumVertices()), "ns/vertex")
}
