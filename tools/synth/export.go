package synth

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/rotation"
	"gallop/solver/ssdr"
	"gallop/solver/synth"
)

// SkinnedObject returns clip c as a skinned object for assets.SaveGLTF
// with assets.ExportSkin. glTF joints carry only a translation, a rotation
// and a scale, and a synthesised bone is a general affine map x ↦ F x + t
// (Section 3.3), so each bone is two joints, from the SVD F = U Σ Vᵀ
// (U, V rotations, the sign of det F in σ₃): a root joint with
// translation t, rotation U and scale Σ, and its child with rotation Vᵀ,
// which the vertices are bound to. Their product is exactly [F | t] at
// every frame (to float32). Between frames the SVD's signs are chosen
// nearest the previous frame's, so that the keys interpolate smoothly.
// Every joint is bound at the rest pose with the identity, as the rig
// tool's SSDR export is. name names the object and its animation.
func SkinnedObject(c *synth.Clip, name string, fps float64, mesh *assets.Mesh) *assets.Object {
	m := c.Analysis.Model
	nb := m.NumBones()
	rig := &assets.Rig{Joints: make([]assets.Joint, 2*nb), Weights: make([][]assets.Influence, len(m.Weights))}
	for b := range nb {
		rig.Joints[2*b] = assets.Joint{Name: fmt.Sprintf("bone%d", b), Parent: -1, Rest: assets.IdentityTransform(), InverseBind: mgl64.Ident4()}
		rig.Joints[2*b+1] = assets.Joint{Name: fmt.Sprintf("bone%d.v", b), Parent: 2 * b, Rest: assets.IdentityTransform(), InverseBind: mgl64.Ident4()}
	}
	for i, l := range m.Weights {
		rig.Weights[i] = make([]assets.Influence, len(l))
		for k, in := range l {
			rig.Weights[i][k] = assets.Influence{Joint: 2*in.Bone + 1, Weight: in.Weight}
		}
	}
	anim := &assets.SkinAnimation{Name: name, FPS: fps, Frames: make([][]assets.Transform, len(c.Bones))}
	prevU, prevV := make([]mgl64.Mat3, nb), make([]mgl64.Mat3, nb)
	for t, bones := range c.Bones {
		frame := make([]assets.Transform, 2*nb)
		for b, a := range bones {
			u, s, v := rotation.SVD(a.R)
			if t > 0 {
				u, v = nearestSigns(u, v, prevU[b], prevV[b])
			}
			prevU[b], prevV[b] = u, v
			frame[2*b] = assets.Transform{Translation: a.T, Rotation: mgl64.Mat4ToQuat(u.Mat4()), Scale: s}
			frame[2*b+1] = assets.Transform{Rotation: mgl64.Mat4ToQuat(v.Transpose().Mat4()), Scale: assets.Vec3{1, 1, 1}}
		}
		anim.Frames[t] = frame
	}
	mc := mesh.Clone()
	mc.Positions = append([]assets.Vec3(nil), m.Rest...)
	return &assets.Object{Name: name, Mesh: mc, Rig: rig, Skin: anim}
}

// nearestSigns returns the SVD factors (u, v) with the signs of two of
// their columns flipped in both (which keeps U Σ Vᵀ and both determinants)
// so that they are nearest (pu, pv): of the four such choices, the one of
// largest tr(puᵀu) + tr(pvᵀv).
func nearestSigns(u, v, pu, pv mgl64.Mat3) (mgl64.Mat3, mgl64.Mat3) {
	best, bu, bv := -1e300, u, v
	for _, flip := range [4][3]float64{{1, 1, 1}, {-1, -1, 1}, {-1, 1, -1}, {1, -1, -1}} {
		var fu, fv mgl64.Mat3
		score := 0.0
		for c := range 3 {
			for r := range 3 {
				fu[3*c+r] = flip[c] * u[3*c+r]
				fv[3*c+r] = flip[c] * v[3*c+r]
				score += fu[3*c+r]*pu[3*c+r] + fv[3*c+r]*pv[3*c+r]
			}
		}
		if score > best {
			best, bu, bv = score, fu, fv
		}
	}
	return bu, bv
}

// BakedObject returns clip c as an object whose clip holds the posed
// vertices of every frame, for assets.ExportMorph or for the document.
func BakedObject(c *synth.Clip, name string, fps float64, mesh *assets.Mesh) *assets.Object {
	clip := &assets.Clip{Name: name, FPS: fps, Frames: make([][]assets.Vec3, len(c.Bones))}
	for t := range c.Bones {
		clip.Frames[t] = c.Pose(nil, t)
	}
	mc := mesh.Clone()
	mc.Positions = append([]assets.Vec3(nil), c.Analysis.Model.Rest...)
	return &assets.Object{Name: name, Mesh: mc, Clip: clip}
}

// Save writes clip c to path as glTF (.glb or .gltf): a skinned mesh with
// two joints per bone (SkinnedObject), or morph targets if morph
// (BakedObject). name names the object and its animation; rest is the
// mesh whose triangles, UVs and normals the file carries.
func Save(path string, c *synth.Clip, name string, fps float64, rest *assets.Mesh, morph bool) error {
	if morph {
		return assets.SaveGLTF(path, BakedObject(c, name, fps, rest), assets.ExportOptions{Mode: assets.ExportMorph})
	}
	return assets.SaveGLTF(path, SkinnedObject(c, name, fps, rest), assets.ExportOptions{Mode: assets.ExportSkin})
}

// ClipFromSkinned is the inverse of SkinnedObject: from a skinned object
// of that shape (as Save writes and assets.LoadGLTF reads back), the model
// (the rest pose, the triangles and each vertex's bone weights) and each
// frame's bones, F = U Σ Vᵀ and t from each bone's pair of joints. The
// model has no input frames.
func ClipFromSkinned(o *assets.Object) (*synth.Model, [][]synth.Affine, error) {
	if o.Rig == nil || o.Skin == nil {
		return nil, nil, fmt.Errorf("%s: not a skinned animation", o.Name)
	}
	joints := o.Rig.Joints
	nb := len(joints) / 2
	if nb == 0 || len(joints) != 2*nb {
		return nil, nil, fmt.Errorf("%s: %d joints, want two per bone", o.Name, len(joints))
	}
	for b := range nb {
		if joints[2*b].Parent != -1 || joints[2*b+1].Parent != 2*b {
			return nil, nil, fmt.Errorf("%s: joint %d is not bone %d's (a root and its child)", o.Name, 2*b+1, b)
		}
	}
	if len(o.Rig.Weights) != o.Mesh.NumVertices() {
		return nil, nil, fmt.Errorf("%s: weights of %d vertices, the mesh has %d", o.Name, len(o.Rig.Weights), o.Mesh.NumVertices())
	}
	m := &synth.Model{Rest: o.Mesh.Positions, Triangles: o.Mesh.Triangles, Weights: make([][]ssdr.Influence, len(o.Rig.Weights))}
	for i, l := range o.Rig.Weights {
		m.Weights[i] = make([]ssdr.Influence, len(l))
		for k, in := range l {
			if in.Joint%2 != 1 || in.Joint >= len(joints) {
				return nil, nil, fmt.Errorf("%s: vertex %d is bound to joint %d, not a bone's child joint", o.Name, i, in.Joint)
			}
			m.Weights[i][k] = ssdr.Influence{Bone: in.Joint / 2, Weight: in.Weight}
		}
	}
	bones := make([][]synth.Affine, len(o.Skin.Frames))
	for t, frame := range o.Skin.Frames {
		if len(frame) != len(joints) {
			return nil, nil, fmt.Errorf("%s: frame %d has %d joint transforms, want %d", o.Name, t, len(frame), len(joints))
		}
		bones[t] = make([]synth.Affine, nb)
		for b := range nb {
			root, child := frame[2*b], frame[2*b+1]
			s := root.Scale
			f := root.Rotation.Mat4().Mat3().Mul3(mgl64.Diag3(mgl64.Vec3{s[0], s[1], s[2]})).Mul3(child.Rotation.Mat4().Mat3())
			bones[t][b] = synth.Affine{R: f, T: root.Translation}
		}
	}
	return m, bones, nil
}
