// Package dynamics is the Dynamics tool's model: per-vertex materials
// painted or fitted from an example simulation, and the secondary motion
// they give a skinned animation (solver/dynskin, Shi et al. 2008).
package dynamics

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/solver/rotation"
	"gallop/solver/ssdr"
)

// Rigging is what the dynamics needs of a rigged object: its model (rest
// mesh, weights, bone segments) and its goal (the skinned animation and
// the bones' segments per frame).
type Rigging struct {
	Model *dynskin.Model
	Goal  *dynskin.Goal
}

// influences returns the rig's weights as SSDR's influences.
func influences(r *assets.Rig) [][]ssdr.Influence {
	w := make([][]ssdr.Influence, len(r.Weights))
	for i, l := range r.Weights {
		w[i] = make([]ssdr.Influence, len(l))
		for k, in := range l {
			w[i][k] = ssdr.Influence{Bone: in.Joint, Weight: in.Weight}
		}
	}
	return w
}

// RestSegments returns each joint's segment in the rest (bind) pose: from
// the joint to a child joint (of several children, the one whose segment
// lies nearest the vertices the joint moves, by weighted mean distance);
// for a leaf joint or a joint without children (every bone of an SSDR
// rig), the principal axis of the rest vertices it influences weighted by
// their weights (ssdr.Segments, as the Rig tool draws them). A joint is at
// the origin of its bind matrix, the inverse of its inverse bind matrix.
func RestSegments(rest []mgl64.Vec3, r *assets.Rig) []dynskin.Segment {
	nj := len(r.Joints)
	w := influences(r)
	axes := ssdr.Segments(rest, w, nj)
	pos := make([]mgl64.Vec3, nj)
	children := make([][]int, nj)
	for j, jt := range r.Joints {
		pos[j] = jt.InverseBind.Inv().Col(3).Vec3()
		if jt.Parent >= 0 {
			children[jt.Parent] = append(children[jt.Parent], j)
		}
	}
	segs := make([]dynskin.Segment, nj)
	for j := range segs {
		switch len(children[j]) {
		case 0:
			a, b := axes[j].Ends()
			segs[j] = dynskin.Segment{A: a, B: b}
		case 1:
			segs[j] = dynskin.Segment{A: pos[j], B: pos[children[j][0]]}
		default:
			best := math.Inf(1)
			for _, c := range children[j] {
				s := dynskin.Segment{A: pos[j], B: pos[c]}
				if d := meanDistance(s, rest, w, j); d < best {
					best, segs[j] = d, s
				}
			}
		}
	}
	return segs
}

// meanDistance returns the weighted mean distance from the vertices bone j
// influences to s.
func meanDistance(s dynskin.Segment, rest []mgl64.Vec3, w [][]ssdr.Influence, j int) float64 {
	sum, tot := 0.0, 0.0
	for i, l := range w {
		for _, in := range l {
			if in.Bone == j {
				sum += in.Weight * s.Distance(rest[i])
				tot += in.Weight
			}
		}
	}
	if tot == 0 {
		return 0
	}
	return sum / tot
}

// NewRigging builds the dynamics' model and goal for an object with a rig
// and a joint animation (a glTF skin, or a rig the Rig tool applied). The
// goal positions are the rig's linear blend skinning of the rest mesh at
// every frame of the joint animation.
func NewRigging(o *assets.Object) (*Rigging, error) {
	if o.Rig == nil {
		return nil, fmt.Errorf("%s has no rig: infer one with the Rig tool first", o.Name)
	}
	if o.Skin == nil || len(o.Skin.Frames) == 0 {
		return nil, fmt.Errorf("%s has a rig but no joint animation to drive it", o.Name)
	}
	rest := o.Mesh.Positions
	segs := RestSegments(rest, o.Rig)
	m, err := dynskin.NewModel(rest, o.Mesh.Triangles, influences(o.Rig), segs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	g := &dynskin.Goal{FPS: o.Skin.FPS, Positions: make([][]mgl64.Vec3, len(o.Skin.Frames)), Bones: make([][]dynskin.Segment, len(o.Skin.Frames))}
	var global []mgl64.Mat4
	skin := make([]mgl64.Mat4, len(o.Rig.Joints))
	for f, local := range o.Skin.Frames {
		global = o.Rig.GlobalMatrices(global, local)
		g.Bones[f] = make([]dynskin.Segment, len(segs))
		for j := range skin {
			skin[j] = global[j].Mul4(o.Rig.Joints[j].InverseBind)
			g.Bones[f][j] = segs[j].Transform(&skin[j])
		}
		g.Positions[f] = assets.SkinMatrices(nil, rest, o.Rig.Weights, skin)
	}
	if err := g.Check(m); err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	return &Rigging{Model: m, Goal: g}, nil
}

// NewRiggingFromClip builds the dynamics' model for an object with a rig
// and its goal from clip, a skinned animation of the object given as
// positions only (an OBJ sequence of the armature's deformation). The
// bones' motions, which the clip does not hold, are recovered per frame
// by a weighted absolute-orientation fit (rotation.Polar of Σᵢ wᵢⱼ²(xᵢ −
// c)(pᵢ − c₀)ᵀ about the weighted centroids): exact for vertices that
// follow one bone rigidly, a least-squares compromise where bones blend.
func NewRiggingFromClip(o *assets.Object, clip *assets.Clip) (*Rigging, error) {
	if o.Rig == nil {
		return nil, fmt.Errorf("%s has no rig: infer one with the Rig tool first", o.Name)
	}
	rest := o.Mesh.Positions
	if err := clip.Validate(len(rest)); err != nil {
		return nil, err
	}
	segs := RestSegments(rest, o.Rig)
	w := influences(o.Rig)
	m, err := dynskin.NewModel(rest, o.Mesh.Triangles, w, segs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	g := &dynskin.Goal{FPS: clip.FPS, Positions: clip.Frames, Bones: make([][]dynskin.Segment, len(clip.Frames))}
	for f, x := range clip.Frames {
		g.Bones[f] = make([]dynskin.Segment, len(segs))
		for j := range segs {
			mj := boneMotion(rest, x, w, j)
			g.Bones[f][j] = segs[j].Transform(&mj)
		}
	}
	if err := g.Check(m); err != nil {
		return nil, fmt.Errorf("%s: %w", clip.Name, err)
	}
	return &Rigging{Model: m, Goal: g}, nil
}

// boneMotion returns the rigid motion that best maps the rest vertices
// bone j influences onto x, weighted by the square of their weights.
func boneMotion(rest, x []mgl64.Vec3, w [][]ssdr.Influence, j int) mgl64.Mat4 {
	var c0, c mgl64.Vec3
	tot := 0.0
	for i, l := range w {
		for _, in := range l {
			if in.Bone == j {
				ww := in.Weight * in.Weight
				c0 = c0.Add(rest[i].Mul(ww))
				c = c.Add(x[i].Mul(ww))
				tot += ww
			}
		}
	}
	if tot == 0 {
		return mgl64.Ident4()
	}
	c0, c = c0.Mul(1/tot), c.Mul(1/tot)
	var a mgl64.Mat3
	for i, l := range w {
		for _, in := range l {
			if in.Bone == j {
				ww := in.Weight * in.Weight
				a = a.Add(x[i].Sub(c).OuterProd3(rest[i].Sub(c0)).Mul(ww))
			}
		}
	}
	r, _ := rotation.Polar(a)
	t := c.Sub(r.Mul3x1(c0))
	m := r.Mat4()
	m[12], m[13], m[14] = t[0], t[1], t[2]
	return m
}
