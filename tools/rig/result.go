package rig

import (
	"math"

	"gallop/assets"
	"gallop/solver/ssdr"
	"gallop/viewport"
)

// Result is a finished decomposition of one object's clip and what the
// tool shows of it, computed once on the job's goroutine and immutable
// afterwards (the colour caches aside, which only the UI thread touches).
type Result struct {
	// Settings are the ones the rig was fitted with.
	Settings Settings
	// SSDR is the solver's result: transforms, weights, error, iterations.
	SSDR *ssdr.Result
	// Diagonal is the rest pose's bounding-box diagonal, the scale errors
	// are quoted against.
	Diagonal float64

	obj     *assets.Object
	names   []string        // the joints' names of a skeleton fitted (--fit-to), per bone; nil: boneJ
	clip    *assets.Clip    // the clip the rig was fitted to (the object's may change: Apply)
	rest    []assets.Vec3   // the rest pose the rig was fitted to
	skinned [][]assets.Vec3 // per frame: the rig's positions
	// vertexErr is each vertex's error, the RMS over the frames of its
	// distance to the clip; errHi its largest value.
	vertexErr []float64
	errHi     float64
	segments  []ssdr.Segment // per bone, in the rest pose
	lo, hi    assets.Vec3    // the box around every frame of the clip

	weightBone   int // the bone weightColours was made for (-1: none yet)
	weightColors [][3]float32
	errorColors  [][3]float32
	shiftFrame   int         // the frame shifted was made for (-1: none yet)
	shiftBy      assets.Vec3 // the offset shifted was made for
	shifted      []assets.Vec3
}

// newResult evaluates res on the object's rest pose and clip.
func newResult(o *assets.Object, s Settings, rest []assets.Vec3, res *ssdr.Result) *Result {
	frames := o.Clip.Frames
	r := &Result{obj: o, clip: o.Clip, Settings: s, SSDR: res, rest: rest, weightBone: -1, shiftFrame: -1,
		skinned: make([][]assets.Vec3, len(frames)), vertexErr: make([]float64, len(rest))}
	for f, want := range frames {
		got := res.Pose(nil, rest, f)
		r.skinned[f] = got
		for i := range got {
			d := got[i].Sub(want[i])
			r.vertexErr[i] += d.Dot(d)
		}
	}
	for i, e := range r.vertexErr {
		r.vertexErr[i] = math.Sqrt(e / float64(len(frames)))
		r.errHi = max(r.errHi, r.vertexErr[i])
	}
	r.segments = ssdr.Segments(rest, res.Weights, len(res.Transforms[0]))
	lo, hi := assets.Bounds(rest)
	r.Diagonal = hi.Sub(lo).Len()
	r.lo, r.hi = o.Clip.Bounds()
	return r
}

// object returns the result as a skinned object (SkinnedObject), its
// joints named as the skeleton it was fitted to named them.
func (r *Result) object() *assets.Object {
	o := SkinnedObject(r.SSDR, r.clip.Name, r.clip.FPS, r.obj.Mesh, r.rest)
	nameJoints(o, r.SSDR.Skeleton, r.names)
	return o
}

// Bones returns the number of bones.
func (r *Result) Bones() int { return len(r.SSDR.Transforms[0]) }

// frame clamps a timeline frame to the clip.
func (r *Result) frame(f int) int { return max(0, min(f, len(r.skinned)-1)) }

// dominantBone returns the bone of largest weight on vertex v.
func (r *Result) dominantBone(v int) int { return r.SSDR.Weights[v][0].Bone }

// weightColours returns each vertex's weight of bone j as viewport.Turbo
// colours over [0, 1].
func (r *Result) weightColours(j int) [][3]float32 {
	if r.weightBone == j {
		return r.weightColors
	}
	cols := make([][3]float32, len(r.rest))
	for i, l := range r.SSDR.Weights {
		w := 0.0
		for _, in := range l {
			if in.Bone == j {
				w = in.Weight
			}
		}
		cols[i] = viewport.Turbo.At(w)
	}
	r.weightBone, r.weightColors = j, cols
	return cols
}

// errorColours returns the per-vertex error as viewport.Turbo colours
// over [0, errHi].
func (r *Result) errorColours() [][3]float32 {
	if r.errorColors == nil {
		r.errorColors = make([][3]float32, len(r.vertexErr))
		for i, e := range r.vertexErr {
			r.errorColors[i] = viewport.Turbo.At(viewport.Scale(e, 0, r.errHi))
		}
	}
	return r.errorColors
}

// shiftedAt returns the skinned positions at frame f moved by offset, for
// the side-by-side copy: the same slice while f and offset stay the same,
// a new one when they change (the renderer uploads a slice once, by
// identity).
func (r *Result) shiftedAt(f int, offset assets.Vec3) []assets.Vec3 {
	f = r.frame(f)
	if r.shiftFrame != f || r.shiftBy != offset {
		src := r.skinned[f]
		out := make([]assets.Vec3, len(src))
		for i, p := range src {
			out[i] = p.Add(offset)
		}
		r.shifted, r.shiftFrame, r.shiftBy = out, f, offset
	}
	return r.shifted
}

// bone returns bone j's segments at frame f, moved by its transform (see
// BoneSegment; Bone and the ends set): none for a free bone that moves no
// vertex.
func (r *Result) bone(j, f int) []BoneSegment {
	x := &r.SSDR.Transforms[r.frame(f)][j]
	s := r.segments[j]
	k := r.SSDR.Skeleton
	if k == nil {
		if s.Weight == 0 {
			return nil
		}
		a, b := s.Ends()
		return []BoneSegment{{Bone: j, A: x.Apply(a), B: x.Apply(b), Centre: x.Apply(s.Centre)}}
	}
	joint := x.Apply(k.Joint[j])
	seg := BoneSegment{Bone: j, A: joint, Centre: joint, Joint: true, Root: k.Parent[j] < 0}
	var out []BoneSegment
	for c, p := range k.Parent {
		if p == j {
			seg.B = x.Apply(k.Joint[c])
			out = append(out, seg)
		}
	}
	if out == nil {
		// A leaf: to the end of its vertices' axis farther from its
		// joint, or a point at its joint when it moves no vertex.
		seg.B = joint
		if s.Weight > 0 {
			a, b := s.Ends()
			if b.Sub(k.Joint[j]).Len() < a.Sub(k.Joint[j]).Len() {
				b = a
			}
			seg.B = x.Apply(b)
		}
		out = append(out, seg)
	}
	return out
}
