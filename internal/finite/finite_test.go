package finite

import (
	"math"
	"testing"
)

func TestFinite(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct {
		v    [3]float64
		want bool
	}{
		{[3]float64{0, -1, 1e308}, true},
		{[3]float64{math.SmallestNonzeroFloat64, math.MaxFloat64, -math.MaxFloat64}, true},
		{[3]float64{nan, 0, 0}, false},
		{[3]float64{0, inf, 0}, false},
		{[3]float64{0, 0, -inf}, false},
	} {
		if got := Vec3(c.v); got != c.want {
			t.Errorf("Vec3(%v) = %v, want %v", c.v, got, c.want)
		}
		if got := Floats(c.v[:]...); got != c.want {
			t.Errorf("Floats(%v) = %v, want %v", c.v, got, c.want)
		}
	}
	if !Floats() {
		t.Error("Floats() of nothing should be true")
	}
}
