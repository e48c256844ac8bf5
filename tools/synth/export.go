package synth

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/ssdr"
	"gallop/solver/synth"
	"gallop/tools/rig"
)

// SkinnedObject returns clip c as a skinned object for assets.SaveGLTF
// with assets.ExportSkin: one joint per bone, bound at the rest pose with
// the identity, whose transform at each frame is the bone's rigid motion
// (a rotation and a translation, scale 1), as the Rig tool exports an
// SSDR rig (rig.SkinnedObject). A clip's bones are rigid unless it was
// made with synth.Request.Affine (for comparisons only), which fails here
// naming the first bone that scales, shears or mirrors. name names the
// object and its animation.
func SkinnedObject(c *synth.Clip, name string, fps float64, mesh *assets.Mesh) (*assets.Object, error) {
	m := c.Analysis.Model
	for t, bones := range c.Bones {
		for b, x := range bones {
			if !isRotation(x.R) {
				return nil, fmt.Errorf("%s: bone %d at frame %d is not a rigid motion (a clip made with affine bones cannot be a skin)", name, b, t+1)
			}
		}
	}
	return rig.SkinnedObject(&ssdr.Result{Weights: m.Weights, Transforms: c.Bones}, name, fps, mesh, m.Rest), nil
}

// isRotation reports whether r is a proper rotation to within 10⁻⁶:
// orthonormal columns and det r > 0.
func isRotation(r mgl64.Mat3) bool {
	d := r.Transpose().Mul3(r).Sub(mgl64.Ident3())
	for _, x := range d {
		if !(math.Abs(x) <= 1e-6) {
			return false
		}
	}
	return r.Det() > 0
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

// Save writes clip c to path as glTF (.glb or .gltf): a skinned mesh of
// one joint per bone (SkinnedObject), or morph targets if morph
// (BakedObject). name names the object and its animation; rest is the
// mesh whose triangles, UVs and normals the file carries.
func Save(path string, c *synth.Clip, name string, fps float64, rest *assets.Mesh, morph bool) error {
	if morph {
		return assets.SaveGLTF(path, BakedObject(c, name, fps, rest), assets.ExportOptions{Mode: assets.ExportMorph})
	}
	o, err := SkinnedObject(c, name, fps, rest)
	if err != nil {
		return err
	}
	return assets.SaveGLTF(path, o, assets.ExportOptions{Mode: assets.ExportSkin, Influences: o.Rig.ExportInfluences()})
}

// ClipFromSkinned is the inverse of SkinnedObject: from a skinned object
// of that shape (as Save writes and assets.LoadGLTF reads back: joints
// bound with the identity, each a root or hanging from the one joint the
// export adds above them, which moves no vertex and never moves), the
// model (the rest pose, the triangles and each vertex's bone weights) and
// each frame's bones, a joint's rotation and translation. The model has
// no input frames.
func ClipFromSkinned(o *assets.Object) (*synth.Model, [][]synth.Affine, error) {
	if o.Rig == nil || o.Skin == nil {
		return nil, nil, fmt.Errorf("%s: not a skinned animation", o.Name)
	}
	o = withoutAddedRoot(o)
	joints := o.Rig.Joints
	nb := len(joints)
	if nb == 0 {
		return nil, nil, fmt.Errorf("%s: no joints", o.Name)
	}
	for b, j := range joints {
		if j.Parent != -1 {
			return nil, nil, fmt.Errorf("%s: joint %d has a parent; a synthesised clip's joints are all roots", o.Name, b)
		}
	}
	if len(o.Rig.Weights) != o.Mesh.NumVertices() {
		return nil, nil, fmt.Errorf("%s: weights of %d vertices, the mesh has %d", o.Name, len(o.Rig.Weights), o.Mesh.NumVertices())
	}
	m := &synth.Model{Rest: o.Mesh.Positions, Triangles: o.Mesh.Triangles, Weights: make([][]ssdr.Influence, len(o.Rig.Weights))}
	for i, l := range o.Rig.Weights {
		m.Weights[i] = make([]ssdr.Influence, len(l))
		for k, in := range l {
			if in.Joint < 0 || in.Joint >= nb {
				return nil, nil, fmt.Errorf("%s: vertex %d is bound to joint %d of %d", o.Name, i, in.Joint, nb)
			}
			m.Weights[i][k] = ssdr.Influence{Bone: in.Joint, Weight: in.Weight}
		}
	}
	bones := make([][]synth.Affine, len(o.Skin.Frames))
	for t, frame := range o.Skin.Frames {
		if len(frame) != nb {
			return nil, nil, fmt.Errorf("%s: frame %d has %d joint transforms, want %d", o.Name, t, len(frame), nb)
		}
		bones[t] = make([]synth.Affine, nb)
		for b, x := range frame {
			s := x.Scale
			f := x.Rotation.Mat4().Mat3().Mul3(mgl64.Diag3(mgl64.Vec3{s[0], s[1], s[2]}))
			bones[t][b] = synth.Affine{R: f, T: x.Translation}
		}
	}
	return m, bones, nil
}

// withoutAddedRoot returns o without the root joint a skinned export adds
// above free bones (the first joint, without a parent, weight or motion,
// every other joint its child), or o itself when it has none.
func withoutAddedRoot(o *assets.Object) *assets.Object {
	joints := o.Rig.Joints
	if len(joints) < 2 || joints[0].Parent != -1 {
		return o
	}
	for _, j := range joints[1:] {
		if j.Parent != 0 {
			return o
		}
	}
	for _, l := range o.Rig.Weights {
		for _, in := range l {
			if in.Joint == 0 {
				return o
			}
		}
	}
	still := assets.IdentityTransform()
	for _, frame := range o.Skin.Frames {
		if len(frame) == 0 || frame[0] != still {
			return o
		}
	}
	rig := &assets.Rig{Joints: make([]assets.Joint, len(joints)-1), Weights: make([][]assets.Influence, len(o.Rig.Weights))}
	for j, jt := range joints[1:] {
		jt.Parent = -1
		rig.Joints[j] = jt
	}
	for i, l := range o.Rig.Weights {
		rig.Weights[i] = make([]assets.Influence, len(l))
		for k, in := range l {
			rig.Weights[i][k] = assets.Influence{Joint: in.Joint - 1, Weight: in.Weight}
		}
	}
	skin := &assets.SkinAnimation{Name: o.Skin.Name, FPS: o.Skin.FPS, Frames: make([][]assets.Transform, len(o.Skin.Frames))}
	for f, frame := range o.Skin.Frames {
		skin.Frames[f] = frame[1:]
	}
	c := *o
	c.Rig, c.Skin = rig, skin
	return &c
}
