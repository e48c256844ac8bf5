package rig

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/ssdr"
)

// SkinnedObject returns the decomposition r as a skinned object, ready for
// assets.SaveGLTF with assets.ExportSkin: a copy of mesh with the rest
// positions, one root joint per bone bound at the rest pose with the
// identity (so a joint's transform at a frame is the bone's rigid motion
// from the rest pose), the weights as the rig's influences, and the joint
// animation called name at fps frames per second. rest must be the
// positions Decompose was given.
func SkinnedObject(r *ssdr.Result, name string, fps float64, mesh *assets.Mesh, rest []mgl64.Vec3) *assets.Object {
	m := mesh.Clone()
	m.Positions = append([]assets.Vec3(nil), rest...)
	bones := len(r.Transforms[0])
	rig := &assets.Rig{Joints: make([]assets.Joint, bones), Weights: make([][]assets.Influence, len(r.Weights))}
	for j := range rig.Joints {
		rig.Joints[j] = assets.Joint{Name: fmt.Sprintf("bone%d", j), Parent: -1, Rest: assets.IdentityTransform(), InverseBind: mgl64.Ident4()}
	}
	for i, l := range r.Weights {
		rig.Weights[i] = make([]assets.Influence, len(l))
		for a, in := range l {
			rig.Weights[i][a] = assets.Influence{Joint: in.Bone, Weight: in.Weight}
		}
	}
	anim := &assets.SkinAnimation{Name: name, FPS: fps, Frames: make([][]assets.Transform, len(r.Transforms))}
	for f, xf := range r.Transforms {
		anim.Frames[f] = make([]assets.Transform, bones)
		for j, x := range xf {
			anim.Frames[f][j] = assets.Transform{Translation: x.T, Rotation: mgl64.Mat4ToQuat(x.R.Mat4()), Scale: assets.Vec3{1, 1, 1}}
		}
	}
	return &assets.Object{Name: name, Mesh: m, Rig: rig, Skin: anim}
}
