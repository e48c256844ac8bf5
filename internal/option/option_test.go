package option

import (
	"math"
	"testing"
)

func TestResolve(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{0, 0.1}, {-1, 0}, {-0.5, 0}, {2, 2}} {
		if got := Resolve(c.x, 0.1); got != c.want {
			t.Errorf("Resolve(%v, 0.1) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := Resolve(math.NaN(), 1.0); !math.IsNaN(got) {
		t.Errorf("Resolve(NaN, 1) = %v", got)
	}
	for _, x := range []int{0, 1, 5} {
		if got := Resolve(Literal(x), 7); got != x {
			t.Errorf("Resolve(Literal(%d), 7) = %d", x, got)
		}
	}
}
