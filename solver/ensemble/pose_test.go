package ensemble

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// randomTau returns G offsets uniform in [−T, T].
func randomTau(rng *rand.Rand, G, T int) []int {
	tau := make([]int, G)
	for k := range tau {
		tau[k] = rng.IntN(2*T+1) - T
	}
	return tau
}

func maxDiff(a, b []mgl64.Vec3) float64 {
	d := 0.0
	for i := range a {
		d = max(d, a[i].Sub(b[i]).Len())
	}
	return d
}

// TestTransitionEnds: before every group's blend the transition shows
// source A exactly, after every group's blend source B exactly; the first
// and last frames s = ∓H are such frames whatever τ.
func TestTransitionEnds(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	ps, src := m.NewPoser(), m.NewPoser()
	rng := rand.New(rand.NewPCG(1, 2))
	H := m.Margin()
	a, b := State{0, 40}, State{1, 50}
	var x, y []mgl64.Vec3
	for range 20 {
		tau := randomTau(rng, m.Groups(), m.Options().TauMax)
		lo, hi := tau[0], tau[0]
		for _, v := range tau {
			lo, hi = min(lo, v), max(hi, v)
		}
		for s := -H; s <= H; s++ {
			switch {
			case s <= lo-m.Options().TauBlend/2:
				y = src.Pose(y, State{a.Level, a.Frame + s})
			case s >= hi+m.Options().TauBlend/2:
				y = src.Pose(y, State{b.Level, b.Frame + s})
			default:
				continue
			}
			x = ps.Transition(x, a, b, tau, nil, s)
			if d := maxDiff(x, y); d != 0 {
				t.Fatalf("τ %v, s = %d: the transition differs from its source by %g", tau, s, d)
			}
		}
	}
}

// TestTransitionSameSource: a transition from a source to itself shows the
// source at every frame, to rounding, whatever τ (the blends mix a state
// with itself); with τ = 0 too.
func TestTransitionSameSource(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	ps, src := m.NewPoser(), m.NewPoser()
	rng := rand.New(rand.NewPCG(3, 4))
	a := State{1, 45}
	var x, y []mgl64.Vec3
	for trial := range 5 {
		tau := make([]int, m.Groups())
		if trial > 0 {
			tau = randomTau(rng, m.Groups(), m.Options().TauMax)
		}
		for s := -m.Margin(); s <= m.Margin(); s++ {
			x = ps.Transition(x, a, a, tau, nil, s)
			y = src.Pose(y, State{a.Level, a.Frame + s})
			if d := maxDiff(x, y); d > 1e-13 {
				t.Fatalf("τ %v, s = %d: differs from the source by %g", tau, s, d)
			}
		}
	}
}

// TestWeight: a group's weight is 0 up to τ − τ_blend/2, 1 from
// τ + τ_blend/2, linear between.
func TestWeight(t *testing.T) {
	m := model(t, synthetic(1, motion{}), Options{})
	for _, c := range []struct {
		s, tau int
		want   float64
	}{{-10, 0, 0}, {-5, 0, 0}, {-4, 0, 0.1}, {0, 0, 0.5}, {3, 0, 0.8}, {5, 0, 1}, {30, 0, 1}, {22, 20, 0.7}, {-30, -30, 0.5}} {
		if w := m.Weight(c.s, c.tau, m.opts.TauBlend); w != c.want && math.Abs(w-c.want) > 1e-15 {
			t.Errorf("Weight(%d, %d) = %g, want %g", c.s, c.tau, w, c.want)
		}
	}
}

// TestPoserNoAllocation: posing a source frame or a transition frame
// allocates nothing once dst has the ensemble's size.
func TestPoserNoAllocation(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	ps := m.NewPoser()
	x := ps.Pose(nil, State{0, 0})
	tau := randomTau(rand.New(rand.NewPCG(5, 6)), m.Groups(), 30)
	s := 0
	allocs := testing.AllocsPerRun(20, func() {
		x = ps.Pose(x, State{1, 10})
		x = ps.Transition(x, State{0, 40}, State{1, 45}, tau, nil, s%11-5)
		s++
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per pose", allocs)
	}
}
