package ensemble

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// The benchmarks run on the whole banner: 3 levels of 210 frames.
const fullBanner = 210

// BenchmarkNewModelBanner: the model of the whole banner (31 groups, 630
// frames), on every core; reports the total rank r.
func BenchmarkNewModelBanner(b *testing.B) {
	d, m := banner(b, fullBanner)
	b.ResetTimer()
	for range b.N {
		if _, err := NewModel(context.Background(), d, Options{}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(m.TotalRank()), "rank")
}

// BenchmarkCollisionPassBanner: one full collision pass of a transition
// from calm to strong wind at the unconstrained minimum of Φ: every frame,
// every pair (New on each of the 71 frames, with a fresh Program, so
// posing is included), as line 7 of SATISFY-MEMG-CSP does it.
func BenchmarkCollisionPassBanner(b *testing.B) {
	_, m := banner(b, fullBanner)
	a, c := State{0, 100}, State{2, 120}
	tau, _ := m.Program(a, c).Minimum(nil)
	m.Program(a, c).Interpenetrations(tau) // fill the source contacts it needs
	b.ResetTimer()
	var pairs, work int
	for range b.N {
		p := m.Program(a, c)
		pr, _ := p.Interpenetrations(tau)
		pairs, work = len(pr), int(p.Work())
	}
	b.ReportMetric(float64(pairs), "pairs")
	b.ReportMetric(float64(work), "work")
}

// BenchmarkTransitionPose: posing one frame of a transition, the whole
// banner.
func BenchmarkTransitionPose(b *testing.B) {
	_, m := banner(b, fullBanner)
	ps := m.NewPoser()
	tau := randomTau(rand.New(rand.NewPCG(1, 1)), m.Groups(), 30)
	var x []mgl64.Vec3
	b.ResetTimer()
	for i := range b.N {
		x = ps.Transition(x, State{0, 100}, State{2, 120}, tau, nil, i%61-30)
	}
}
