package rig

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/ssdr"
)

// SkinnedObject returns the decomposition r as a skinned object, ready for
// assets.SaveGLTF with assets.ExportSkin: a copy of mesh with the rest
// positions, the weights as the rig's influences, and the joint animation
// called name at fps frames per second. rest must be the positions
// Decompose was given.
//
// Flat bones (r.Skeleton nil): one root joint per bone, bound at the rest
// pose with the identity, so a joint's transform at a frame is the bone's
// rigid motion from the rest pose.
//
// A skeleton: one joint per bone, parents first, named boneJ after its
// bone; joint j sits at its rest joint cⱼ (inverse bind: the translation
// by −cⱼ, no rotation). Its local transform at a frame is the rotation
// Rₚᵀ·Rⱼ relative to its parent and the constant translation cⱼ − cₚ (the
// bone's length, which the joint constraint keeps); the root's is its
// rotation R and its joint's path R·c_root + T. Then the joint's model
// matrix times its inverse bind is the bone's transform [Rⱼ | Tⱼ] at
// every frame, so the file plays the decomposition exactly.
func SkinnedObject(r *ssdr.Result, name string, fps float64, mesh *assets.Mesh, rest []mgl64.Vec3) *assets.Object {
	m := mesh.Clone()
	m.Positions = append([]assets.Vec3(nil), rest...)
	bones := len(r.Transforms[0])
	// joint[j] is bone j's joint; order[q] the bone of joint q.
	order, joint := make([]int, bones), make([]int, bones)
	for j := range order {
		order[j] = j
	}
	if r.Skeleton != nil {
		order = r.Skeleton.Order()
	}
	for q, j := range order {
		joint[j] = q
	}
	rig := &assets.Rig{Joints: make([]assets.Joint, bones), Weights: make([][]assets.Influence, len(r.Weights))}
	for q, j := range order {
		jt := assets.Joint{Name: fmt.Sprintf("bone%d", j), Parent: -1, Rest: assets.IdentityTransform(), InverseBind: mgl64.Ident4()}
		if k := r.Skeleton; k != nil {
			c := k.Joint[j]
			jt.Rest.Translation = c
			if p := k.Parent[j]; p >= 0 {
				jt.Parent = joint[p]
				jt.Rest.Translation = c.Sub(k.Joint[p])
			}
			jt.InverseBind = mgl64.Translate3D(-c[0], -c[1], -c[2])
		}
		rig.Joints[q] = jt
	}
	for i, l := range r.Weights {
		rig.Weights[i] = make([]assets.Influence, len(l))
		for a, in := range l {
			rig.Weights[i][a] = assets.Influence{Joint: joint[in.Bone], Weight: in.Weight}
		}
	}
	anim := &assets.SkinAnimation{Name: name, FPS: fps, Frames: make([][]assets.Transform, len(r.Transforms))}
	for f, xf := range r.Transforms {
		local := make([]assets.Transform, bones)
		for q, j := range order {
			x := xf[j]
			rot, tr := x.R, x.T
			if k := r.Skeleton; k != nil {
				c := k.Joint[j]
				tr = x.Apply(c) // the root's joint's path
				if p := k.Parent[j]; p >= 0 {
					rot = xf[p].R.Transpose().Mul3(x.R)
					tr = c.Sub(k.Joint[p])
				}
			}
			local[q] = assets.Transform{Translation: tr, Rotation: mgl64.Mat4ToQuat(rot.Mat4()), Scale: assets.Vec3{1, 1, 1}}
		}
		anim.Frames[f] = local
	}
	return &assets.Object{Name: name, Mesh: m, Rig: rig, Skin: anim}
}

// nameJoints gives the joints of o, made by SkinnedObject of a result
// with skeleton k, the names of their bones (nil: keep boneJ).
func nameJoints(o *assets.Object, k *ssdr.Skeleton, names []string) {
	if names == nil || k == nil {
		return
	}
	for q, j := range k.Order() {
		o.Rig.Joints[q].Name = names[j]
	}
}

// SkeletonDrift returns, for an object SkinnedObject made of a skeleton,
// the largest change over its animation's frames of a bone's length (the
// distance between a joint and its parent's, in model space) from the rest
// pose's, and the largest gap between where a joint's own skinning matrix
// and its parent's put its rest position: both 0 up to rounding when the
// file keeps the skeleton's joints together and its bones' lengths.
func SkeletonDrift(o *assets.Object) (length, gap float64) {
	rig := o.Rig
	restG := rig.GlobalMatrices(nil, restLocal(rig))
	var g, sk []mgl64.Mat4
	for _, local := range o.Skin.Frames {
		g = rig.GlobalMatrices(g, local)
		sk = rig.SkinningMatrices(sk, local)
		for j, jt := range rig.Joints {
			p := jt.Parent
			if p < 0 {
				continue
			}
			l0 := restG[j].Col(3).Vec3().Sub(restG[p].Col(3).Vec3()).Len()
			l := g[j].Col(3).Vec3().Sub(g[p].Col(3).Vec3()).Len()
			length = max(length, math.Abs(l-l0))
			c := restG[j].Col(3)
			gap = max(gap, sk[j].Mul4x1(c).Vec3().Sub(sk[p].Mul4x1(c).Vec3()).Len())
		}
	}
	return length, gap
}

// restLocal returns the rig's bind-pose local transforms.
func restLocal(rig *assets.Rig) []assets.Transform {
	l := make([]assets.Transform, len(rig.Joints))
	for j, jt := range rig.Joints {
		l[j] = jt.Rest
	}
	return l
}
