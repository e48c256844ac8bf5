package rotation

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestRigidSumsFit recovers a known rigid motion from exact
// correspondences, also with uneven weights, and reports no fit without
// weight.
func TestRigidSumsFit(t *testing.T) {
	r0 := Exp(mgl64.Vec3{0.3, -1.1, 2.0})
	t0 := mgl64.Vec3{1, -2, 0.5}
	pts := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 3}, {1, 1, 1}}
	for _, weights := range [][]float64{{1, 1, 1, 1, 1}, {0.1, 5, 2, 0, 3}} {
		var a RigidSums
		for i, p := range pts {
			a.Add(weights[i], r0.Mul3x1(p).Add(t0), p)
		}
		r, tr, ok := a.Fit()
		if !ok {
			t.Fatal("no fit")
		}
		for i := range 9 {
			if math.Abs(r[i]-r0[i]) > 1e-13 {
				t.Fatalf("weights %v: R = %v, want %v", weights, r, r0)
			}
		}
		if tr.Sub(t0).Len() > 1e-13 {
			t.Fatalf("weights %v: T = %v, want %v", weights, tr, t0)
		}
	}
	var empty RigidSums
	if _, _, ok := empty.Fit(); ok {
		t.Fatal("fit without weight")
	}
}
