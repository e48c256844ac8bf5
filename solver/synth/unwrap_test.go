package synth

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestUnwrapPrunes checks that unwrap, which measures only the candidates
// that can win, chooses bit for bit what measuring all five does, on
// random vectors and on near ties (prev halfway between two branches).
func TestUnwrapPrunes(t *testing.T) {
	every := func(prev, w mgl64.Vec3) mgl64.Vec3 {
		th := w.Len()
		if th == 0 {
			return w
		}
		axis := w.Mul(1 / th)
		best := w
		for k := -2; k <= 2; k++ {
			c := axis.Mul(th + 2*math.Pi*float64(k))
			if c.Sub(prev).Len() < best.Sub(prev).Len() {
				best = c
			}
		}
		return best
	}
	rng := rand.New(rand.NewPCG(1, 2))
	vec := func(s float64) mgl64.Vec3 {
		return mgl64.Vec3{rng.NormFloat64() * s, rng.NormFloat64() * s, rng.NormFloat64() * s}
	}
	for i := range 200000 {
		w := vec(2)
		var prev mgl64.Vec3
		switch i % 4 {
		case 0:
			prev = vec(6)
		case 1:
			prev = w.Add(vec(1e-3))
		case 2: // halfway to the next branch, up to rounding
			th := w.Len()
			prev = w.Mul((th + math.Pi*float64(1-2*(i/4%2))) / th).Add(vec(1e-15))
		default:
			prev = w.Mul(-1).Add(vec(0.1))
		}
		if got, want := unwrap(prev, w), every(prev, w); got != want {
			t.Fatalf("unwrap(%v, %v) = %v, want %v", prev, w, got, want)
		}
	}
}
