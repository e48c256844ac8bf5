package synth

import (
	"context"
	"testing"
)

// BenchmarkClip: one 300-frame clip of pcow with gradient blending (bone
// motion only).
func BenchmarkClip(b *testing.B) {
	a := analysis(b, "pcow", Options{})
	s, err := a.NewSynthesizer(graphs(b, a), Request{Frames: 300})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.Clip(context.Background(), uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQuality: the quality figures of one 300-frame pcow clip.
func BenchmarkQuality(b *testing.B) {
	a := analysis(b, "pcow", Options{})
	s, err := a.NewSynthesizer(graphs(b, a), Request{Frames: 300})
	if err != nil {
		b.Fatal(err)
	}
	c, err := s.Clip(context.Background(), 1)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		a.Quality(c, s.Window())
	}
}

// BenchmarkClipResolution: one 300-frame clip of horse-gallop and of the
// same motion on its mesh subdivided once (four times the triangles, the
// same 20 bones; see subdividedModel). Synthesis works on the bones and
// the key vertices, so the two should cost about the same.
func BenchmarkClipResolution(b *testing.B) {
	for _, c := range []struct {
		name  string
		model func(testing.TB, string, int) *Model
	}{{"horse-gallop", loadModel}, {"horse-gallop-subdivided", subdividedModel}} {
		b.Run(c.name, func(b *testing.B) {
			a, err := Analyze(context.Background(), c.model(b, "horse-gallop", 20), Options{})
			if err != nil {
				b.Fatal(err)
			}
			s, err := a.NewSynthesizer(graphs(b, a), Request{Frames: 300})
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				if _, err := s.Clip(context.Background(), uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(a.Model.Rest)), "vertices")
			b.ReportMetric(float64(len(a.Parts[0].keys.list)), "keys")
		})
	}
}
