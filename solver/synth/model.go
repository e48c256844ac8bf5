package synth

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ssdr"
)

// MinFrames is the shortest input that can be analysed: a transition
// needs a frame before it (for its velocity) and a frame after it, and the
// blending window needs room on both sides.
const MinFrames = 10

// Model is a linear-blend-skinning model of an input animation, as
// gallop/solver/ssdr infers it: rest positions pᵢ, weights wᵢᵦ ≥ 0 with
// Σᵦ wᵢᵦ = 1, and per input frame x a rigid transform (Rᵦ(x), tᵦ(x)) of
// every bone, so that frame x is approximately
//
//	vᵢ(x) = Σᵦ wᵢᵦ (Rᵦ(x) pᵢ + tᵦ(x))   (Eq. 1)
//
// Input holds the input frames themselves; the quality figures compare
// with them (it may be empty when Options.Figures gives those figures).
type Model struct {
	Rest      []mgl64.Vec3
	Triangles [][3]int
	Weights   [][]ssdr.Influence // per vertex
	Bones     [][]ssdr.Transform // per input frame, per bone
	Input     [][]mgl64.Vec3     // per input frame, per vertex
}

// NumBones returns the number of bones.
func (m *Model) NumBones() int { return len(m.Bones[0]) }

// NumFrames returns the number of input frames.
func (m *Model) NumFrames() int { return len(m.Bones) }

// ErrFewFrames is returned for an input of fewer than MinFrames frames.
var ErrFewFrames = fmt.Errorf("synth: an input of fewer than %d frames has no room for a transition", MinFrames)

// check validates the model: sizes, finite numbers, weights that sum to
// one; input says whether it must have its input frames.
func (m *Model) check(input bool) error {
	if len(m.Bones) < MinFrames {
		return fmt.Errorf("%w (it has %d)", ErrFewFrames, len(m.Bones))
	}
	input = input || len(m.Input) > 0
	if input && len(m.Input) != len(m.Bones) {
		return fmt.Errorf("synth: %d input frames for %d frames of bone transforms", len(m.Input), len(m.Bones))
	}
	nv, nb := len(m.Rest), len(m.Bones[0])
	if nv == 0 || nb == 0 {
		return errors.New("synth: no vertices or no bones")
	}
	if len(m.Weights) != nv {
		return fmt.Errorf("synth: weights for %d vertices, mesh has %d", len(m.Weights), nv)
	}
	for f, b := range m.Bones {
		if len(b) != nb {
			return fmt.Errorf("synth: frame %d has %d bone transforms, frame 0 has %d", f, len(b), nb)
		}
		for j, x := range b {
			if !finiteMat3(x.R) || !finiteVec(x.T) {
				return fmt.Errorf("synth: frame %d: bone %d's transform is not finite", f, j)
			}
		}
		if input && len(m.Input[f]) != nv {
			return fmt.Errorf("synth: input frame %d has %d vertices, mesh has %d", f, len(m.Input[f]), nv)
		}
	}
	for i, l := range m.Weights {
		sum := 0.0
		for _, in := range l {
			if in.Bone < 0 || in.Bone >= nb || !(in.Weight >= 0) || math.IsInf(in.Weight, 0) {
				return fmt.Errorf("synth: vertex %d: bad influence %+v", i, in)
			}
			sum += in.Weight
		}
		if math.Abs(sum-1) > 1e-6 {
			return fmt.Errorf("synth: vertex %d: weights sum to %v, want 1", i, sum)
		}
	}
	for t, tri := range m.Triangles {
		for _, v := range tri {
			if v < 0 || v >= nv {
				return fmt.Errorf("synth: triangle %d: vertex %d out of range [0, %d)", t, v, nv)
			}
		}
	}
	return nil
}

func finiteVec(v mgl64.Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func finiteMat3(m mgl64.Mat3) bool {
	for _, x := range m {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Affine is a bone position x ↦ R·x + T with a general 3×3 matrix R (a
// rotation for the input's bones; after gradient-domain blending, any
// matrix: Section 3.3 relaxes the bones to affine maps). It is SSDR's
// Transform, so that ssdr.Skin poses both.
type Affine = ssdr.Transform

// compose returns b∘a (a first).
func compose(a, b Affine) Affine {
	return Affine{R: b.R.Mul3(a.R), T: b.R.Mul3x1(a.T).Add(b.T)}
}
