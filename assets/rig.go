package assets

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Transform is a translation, rotation and scale, composed as T·R·S (scale
// first), the convention of glTF nodes.
type Transform struct {
	Translation Vec3
	Rotation    mgl64.Quat // unit quaternion
	Scale       Vec3
}

// IdentityTransform returns the transform that changes nothing.
func IdentityTransform() Transform {
	return Transform{Rotation: mgl64.QuatIdent(), Scale: Vec3{1, 1, 1}}
}

// Mat4 returns the 4x4 matrix T·R·S.
func (t Transform) Mat4() mgl64.Mat4 {
	m := t.Rotation.Normalize().Mat4()
	for c := 0; c < 3; c++ {
		for r := 0; r < 3; r++ {
			m[c*4+r] *= t.Scale[c]
		}
	}
	m[12], m[13], m[14] = t.Translation[0], t.Translation[1], t.Translation[2]
	return m
}

// Joint is one node of a rig's hierarchy.
type Joint struct {
	Name        string
	Parent      int        // index of the parent joint, -1 for a root; parents precede children
	Rest        Transform  // local transform relative to the parent in the bind pose
	InverseBind mgl64.Mat4 // maps model space of the bind pose to the joint's space
}

// Influence is one joint's weight on a vertex.
type Influence struct {
	Joint  int
	Weight float64
}

// Rig is a linear-blend-skinning rig: a joint hierarchy and, per vertex, the
// joints that move it with their weights. Skinned positions are
//
//	v_i = Σ_j w_ij · M_j · B_j⁻¹ · p_i
//
// where p_i is the rest position, M_j the joint's global (model-space)
// matrix and B_j⁻¹ its inverse bind matrix.
//
// Invariants (checked by Validate): parents precede children, every weight
// is finite and non-negative, and each vertex's weights sum to 1.
type Rig struct {
	Joints  []Joint
	Weights [][]Influence // #V lists of influences
}

// MaxInfluences returns the largest number of influences on one vertex.
func (r *Rig) MaxInfluences() int {
	k := 0
	for _, w := range r.Weights {
		k = max(k, len(w))
	}
	return k
}

// ExportInfluences is the influences a skinned export keeps of this rig
// (ExportOptions.Influences): 4, what every engine takes, or 8 when the
// rig moves some vertex by more than 4 joints (it was made so).
func (r *Rig) ExportInfluences() int {
	if r.MaxInfluences() > 4 {
		return 8
	}
	return 4
}

// Validate checks the rig against a mesh of nv vertices.
func (r *Rig) Validate(nv int) error {
	for j, jt := range r.Joints {
		if jt.Parent < -1 || jt.Parent >= j {
			return fmt.Errorf("joint %d (%q): parent %d must be -1 or a preceding joint", j, jt.Name, jt.Parent)
		}
	}
	if len(r.Weights) != nv {
		return fmt.Errorf("rig has weights for %d vertices, mesh has %d", len(r.Weights), nv)
	}
	for v, infl := range r.Weights {
		sum := 0.0
		for _, in := range infl {
			if in.Joint < 0 || in.Joint >= len(r.Joints) {
				return fmt.Errorf("vertex %d: joint %d out of range [0, %d)", v, in.Joint, len(r.Joints))
			}
			if !(in.Weight >= 0) || math.IsInf(in.Weight, 0) {
				return fmt.Errorf("vertex %d: invalid weight %v", v, in.Weight)
			}
			sum += in.Weight
		}
		if math.Abs(sum-1) > 1e-3 {
			return fmt.Errorf("vertex %d: weights sum to %v, want 1", v, sum)
		}
	}
	return nil
}

// SkinAnimation animates a rig: for each frame, the local transform of every
// joint. Frame i is at time i/FPS.
type SkinAnimation struct {
	Name   string
	FPS    float64
	Frames [][]Transform // #frames, each #joints local transforms
}

// GlobalMatrices writes into dst (grown as needed and returned) the
// model-space matrix of each joint for the given local transforms, assuming
// parents precede children.
func (r *Rig) GlobalMatrices(dst []mgl64.Mat4, local []Transform) []mgl64.Mat4 {
	if cap(dst) < len(r.Joints) {
		dst = make([]mgl64.Mat4, len(r.Joints))
	}
	dst = dst[:len(r.Joints)]
	for j, jt := range r.Joints {
		m := local[j].Mat4()
		if jt.Parent >= 0 {
			m = dst[jt.Parent].Mul4(m)
		}
		dst[j] = m
	}
	return dst
}

// Skin writes into dst (grown as needed and returned) the rest positions
// deformed by linear blend skinning with the given joint-local transforms.
func (r *Rig) Skin(dst []Vec3, rest []Vec3, local []Transform) []Vec3 {
	return SkinMatrices(dst, rest, r.Weights, r.SkinningMatrices(nil, local))
}

// SkinningMatrices writes into dst (grown as needed and returned) each
// joint's skinning matrix S_j = M_j·B_j⁻¹ for the given joint-local
// transforms: what SkinMatrices applies.
func (r *Rig) SkinningMatrices(dst []mgl64.Mat4, local []Transform) []mgl64.Mat4 {
	dst = r.GlobalMatrices(dst, local)
	for j := range dst {
		dst[j] = dst[j].Mul4(r.Joints[j].InverseBind)
	}
	return dst
}

// SkinMatrices applies linear blend skinning with per-joint skinning
// matrices S_j (= M_j·B_j⁻¹): v_i = Σ_j w_ij S_j p_i.
func SkinMatrices(dst []Vec3, rest []Vec3, weights [][]Influence, skin []mgl64.Mat4) []Vec3 {
	if cap(dst) < len(rest) {
		dst = make([]Vec3, len(rest))
	}
	dst = dst[:len(rest)]
	for i, p := range rest {
		var v Vec3
		for _, in := range weights[i] {
			s := &skin[in.Joint]
			v[0] += in.Weight * (s[0]*p[0] + s[4]*p[1] + s[8]*p[2] + s[12])
			v[1] += in.Weight * (s[1]*p[0] + s[5]*p[1] + s[9]*p[2] + s[13])
			v[2] += in.Weight * (s[2]*p[0] + s[6]*p[1] + s[10]*p[2] + s[14])
		}
		dst[i] = v
	}
	return dst
}

// Bake evaluates a skin animation into a clip of skinned rest positions.
func (r *Rig) Bake(rest []Vec3, anim *SkinAnimation) (*Clip, error) {
	clip := &Clip{Name: anim.Name, FPS: anim.FPS, Frames: make([][]Vec3, len(anim.Frames))}
	for i, local := range anim.Frames {
		if len(local) != len(r.Joints) {
			return nil, fmt.Errorf("skin animation %q: frame %d has %d joint transforms, rig has %d joints", anim.Name, i, len(local), len(r.Joints))
		}
		clip.Frames[i] = r.Skin(nil, rest, local)
	}
	return clip, nil
}
