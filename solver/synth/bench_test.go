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
