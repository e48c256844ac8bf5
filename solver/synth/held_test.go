package synth

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestStepOfHeldFrames (issue 34): a clip animated on threes (every pose
// held for three frames) has the step of the same poses played once
// each, not a median of zeros that made every transition's distance, in
// steps, infinite; a clip that never moves has the smallest positive
// step.
func TestStepOfHeldFrames(t *testing.T) {
	var once, threes [][]mgl64.Vec3
	for f := range 40 {
		a := 0.05 * float64(f*f%37)
		pose := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {math.Cos(a), math.Sin(a), 0}, {0, 0, 1 + 0.01*float64(f)}}
		if f == 0 {
			once = append(once, pose) // step counts from frame 1
		}
		once = append(once, pose)
		threes = append(threes, pose, pose, pose)
	}
	a, b := (&poseSample{frames: once}).step(), (&poseSample{frames: threes}).step()
	if !(a > 0) || math.Abs(a-b) > 1e-12*a {
		t.Errorf("step %g played once, %g on threes; want the same, positive", a, b)
	}
	if d := (&poseSample{frames: threes}).distance(3, 9) / b; !(d > 0.5 && d < 1e3) {
		t.Errorf("two poses apart on threes are %g steps apart", d)
	}
	still := [][]mgl64.Vec3{once[0], once[0], once[0], once[0]}
	if s := (&poseSample{frames: still}).step(); s != math.SmallestNonzeroFloat64 {
		t.Errorf("a still clip's step %g", s)
	}
}
