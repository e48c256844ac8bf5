// Package dynamics is the Dynamics tool's model: per-vertex materials
// painted or fitted from an example simulation, and the secondary motion
// they give a skinned animation (solver/dynskin, Shi et al. 2008).
package dynamics

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/parallel"
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

// restSegments returns each joint's segment in the rest (bind) pose: from
// the joint to a child joint (of several children, the one whose segment
// lies nearest the vertices the joint moves, by weighted mean distance);
// for a leaf joint or a joint without children (every bone of an SSDR
// rig), the principal axis of the rest vertices it influences weighted by
// their weights w (ssdr.Segments, as the Rig tool draws them). A joint is
// at the origin of its bind matrix, the inverse of its inverse bind
// matrix.
func restSegments(rest []mgl64.Vec3, r *assets.Rig, w [][]ssdr.Influence) []dynskin.Segment {
	nj := len(r.Joints)
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

// newModel returns the dynamics model of a rigged object, its bones' rest
// segments and its weights.
func newModel(o *assets.Object) (*dynskin.Model, []dynskin.Segment, [][]ssdr.Influence, error) {
	if o.Rig == nil {
		return nil, nil, nil, fmt.Errorf("%s has no rig: infer one with the Rig tool first", o.Name)
	}
	rest := o.Mesh.Positions
	w := influences(o.Rig)
	segs := restSegments(rest, o.Rig, w)
	m, err := dynskin.NewModel(rest, o.Mesh.Triangles, w, segs)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", o.Name, err)
	}
	return m, segs, w, nil
}

// NewRigging builds the dynamics' model and goal for an object with a rig
// and a joint animation (a glTF skin, or a rig the Rig tool applied). The
// goal positions are the rig's linear blend skinning of the rest mesh at
// every frame of the joint animation.
func NewRigging(o *assets.Object) (*Rigging, error) {
	m, segs, _, err := newModel(o)
	if err != nil {
		return nil, err
	}
	if o.Skin == nil || len(o.Skin.Frames) == 0 {
		return nil, fmt.Errorf("%s has a rig but no joint animation to drive it", o.Name)
	}
	g := &dynskin.Goal{FPS: o.Skin.FPS, Positions: make([][]mgl64.Vec3, len(o.Skin.Frames)), Bones: make([][]dynskin.Segment, len(o.Skin.Frames))}
	var skin []mgl64.Mat4
	for f, local := range o.Skin.Frames {
		skin = o.Rig.SkinningMatrices(skin, local)
		g.Bones[f] = make([]dynskin.Segment, len(segs))
		for j := range skin {
			g.Bones[f][j] = segs[j].Transform(&skin[j])
		}
		g.Positions[f] = assets.SkinMatrices(nil, o.Mesh.Positions, o.Rig.Weights, skin)
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
	m, segs, w, err := newModel(o)
	if err != nil {
		return nil, err
	}
	rest := o.Mesh.Positions
	if err := clip.Validate(len(rest)); err != nil {
		return nil, err
	}
	g := &dynskin.Goal{FPS: clip.FPS, Positions: clip.Frames, Bones: make([][]dynskin.Segment, len(clip.Frames))}
	parallel.For(len(clip.Frames), func(f int) {
		motions := boneMotions(rest, clip.Frames[f], w, len(segs))
		g.Bones[f] = make([]dynskin.Segment, len(segs))
		for j := range segs {
			g.Bones[f][j] = segs[j].Transform(&motions[j])
		}
	})
	if err := g.Check(m); err != nil {
		return nil, fmt.Errorf("%s: %w", clip.Name, err)
	}
	return &Rigging{Model: m, Goal: g}, nil
}

// boneMotions returns, for each of the bones, the rigid motion that best
// maps the rest vertices it influences onto x, weighted by the square of
// their weights (the identity for a bone that influences none): two
// passes over the weights, one for the centroids, one for the
// covariances.
func boneMotions(rest, x []mgl64.Vec3, w [][]ssdr.Influence, bones int) []mgl64.Mat4 {
	c0 := make([]mgl64.Vec3, bones)
	c := make([]mgl64.Vec3, bones)
	tot := make([]float64, bones)
	for i, l := range w {
		for _, in := range l {
			ww := in.Weight * in.Weight
			c0[in.Bone] = c0[in.Bone].Add(rest[i].Mul(ww))
			c[in.Bone] = c[in.Bone].Add(x[i].Mul(ww))
			tot[in.Bone] += ww
		}
	}
	for j := range tot {
		if tot[j] > 0 {
			c0[j], c[j] = c0[j].Mul(1/tot[j]), c[j].Mul(1/tot[j])
		}
	}
	a := make([]mgl64.Mat3, bones)
	for i, l := range w {
		for _, in := range l {
			a[in.Bone] = a[in.Bone].Add(x[i].Sub(c[in.Bone]).OuterProd3(rest[i].Sub(c0[in.Bone])).Mul(in.Weight * in.Weight))
		}
	}
	out := make([]mgl64.Mat4, bones)
	for j := range out {
		if tot[j] == 0 {
			out[j] = mgl64.Ident4()
			continue
		}
		r, _ := rotation.Polar(a[j])
		t := c[j].Sub(r.Mul3x1(c0[j]))
		out[j] = r.Mat4()
		out[j][12], out[j][13], out[j][14] = t[0], t[1], t[2]
	}
	return out
}

// bounds returns the box around every frame of the goal.
func (rg *Rigging) bounds() (lo, hi mgl64.Vec3) {
	lo, hi = rg.Goal.Positions[0][0], rg.Goal.Positions[0][0]
	for _, f := range rg.Goal.Positions {
		for _, p := range f {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
	}
	return lo, hi
}
