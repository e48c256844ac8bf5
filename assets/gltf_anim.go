package assets

import (
	"fmt"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
)

// Frame-rate choice for clips baked from glTF animations (see
// gltfFrameRate).
const (
	gltfMinFPS = 24  // key grids coarser than this are subdivided
	gltfMaxFPS = 240 // key grids finer than this count as irregular
)

// gltfMaxFrames bounds the frames baked from one animation.
const gltfMaxFrames = 1 << 16

// gltfSampler is an animation sampler as bound to one channel: key times
// in seconds and, per key, width output values (for CUBICSPLINE three
// groups of width: in-tangent, value, out-tangent).
type gltfSampler struct {
	times  []float64
	values []float64
	width  int
	interp gltf.Interpolation
	rot    bool // values are quaternions (x, y, z, w): slerp and normalise
}

// gltfChannel animates one property of one node.
type gltfChannel struct {
	node    int
	path    gltf.TRSProperty
	sampler *gltfSampler
}

// gltfAnimation is a parsed glTF animation.
type gltfAnimation struct {
	name     string
	channels []gltfChannel
	start    float64 // the first key time over all channels, seconds
	end      float64 // the last key time over all channels, seconds
	// fpsHint is the frame rate a Gallop export recorded in the
	// animation's extras ({"fps": N}), or 0.
	fpsHint float64
}

// gltfFPSExtra is the key of the animation extras in which Gallop records
// the clip's frame rate, so a round trip keeps it.
const gltfFPSExtra = "fps"

// parseAnimation reads and checks animation ai. targets returns the number
// of morph targets of a node's mesh (the width of its weights channel).
func parseAnimation(doc *gltf.Document, ai int, targets func(node int) (int, error)) (*gltfAnimation, error) {
	an := doc.Animations[ai]
	if an == nil {
		return nil, fmt.Errorf("animation %d: null", ai)
	}
	a := &gltfAnimation{name: an.Name}
	if ex, ok := an.Extras.(map[string]any); ok {
		if fps, ok := ex[gltfFPSExtra].(float64); ok && fps > 0 && fps <= gltfMaxFPS {
			a.fpsHint = fps
		}
	}
	if a.name == "" {
		a.name = fmt.Sprintf("animation %d", ai)
	}
	a.start = math.Inf(1)
	for ci, ch := range an.Channels {
		if ch == nil || ch.Target.Node == nil {
			continue // nothing to animate here (or a target defined by an extension)
		}
		c, err := parseChannel(doc, an, ch, targets)
		if err != nil {
			return nil, fmt.Errorf("animation %d: channel %d: %w", ai, ci, err)
		}
		a.channels = append(a.channels, c)
		a.start = min(a.start, c.sampler.times[0])
		a.end = max(a.end, c.sampler.times[len(c.sampler.times)-1])
	}
	if len(a.channels) == 0 {
		a.start = 0
	}
	return a, nil
}

func parseChannel(doc *gltf.Document, an *gltf.Animation, ch *gltf.AnimationChannel, targets func(node int) (int, error)) (gltfChannel, error) {
	node := *ch.Target.Node
	if node < 0 || node >= len(doc.Nodes) {
		return gltfChannel{}, fmt.Errorf("target node %d does not exist (%d nodes)", node, len(doc.Nodes))
	}
	if ch.Sampler < 0 || ch.Sampler >= len(an.Samplers) || an.Samplers[ch.Sampler] == nil {
		return gltfChannel{}, fmt.Errorf("sampler %d does not exist (%d samplers)", ch.Sampler, len(an.Samplers))
	}
	s := an.Samplers[ch.Sampler]
	smp := &gltfSampler{interp: s.Interpolation}
	typ := gltf.AccessorVec3
	switch ch.Target.Path {
	case gltf.TRSTranslation, gltf.TRSScale:
		smp.width = 3
	case gltf.TRSRotation:
		smp.width, smp.rot, typ = 4, true, gltf.AccessorVec4
	case gltf.TRSWeights:
		n, err := targets(node)
		if err != nil {
			return gltfChannel{}, fmt.Errorf("weights of node %d: %w", node, err)
		}
		smp.width, typ = n, gltf.AccessorScalar
	}
	_, times, err := readAccessor(doc, s.Input, gltf.AccessorScalar)
	if err != nil {
		return gltfChannel{}, fmt.Errorf("input: %w", err)
	}
	if len(times) == 0 {
		return gltfChannel{}, fmt.Errorf("input accessor %d has no keys", s.Input)
	}
	for k := 1; k < len(times); k++ {
		if !(times[k] > times[k-1]) {
			return gltfChannel{}, fmt.Errorf("input accessor %d: key times not increasing at key %d (%v after %v)", s.Input, k, times[k], times[k-1])
		}
	}
	_, values, err := readAccessor(doc, s.Output, typ)
	if err != nil {
		return gltfChannel{}, fmt.Errorf("output: %w", err)
	}
	per := 1
	if smp.interp == gltf.InterpolationCubicSpline {
		per = 3
	}
	if want := len(times) * per * smp.width; len(values) != want {
		return gltfChannel{}, fmt.Errorf("output accessor %d has %d values, want %d (%d keys × %d × %d)", s.Output, len(values), want, len(times), per, smp.width)
	}
	smp.times, smp.values = times, values
	return gltfChannel{node: node, path: ch.Target.Path, sampler: smp}, nil
}

// eval writes into dst (grown as needed and returned) the sampler's value
// at time t, per the glTF 2.0 spec (appendix C): before the first key the
// first value, after the last key the last value, LINEAR (spherical linear
// for rotations, along the shorter arc), STEP, or CUBICSPLINE (Hermite with
// the keys' tangents scaled by the key interval). Quaternions are
// normalised by the caller.
func (s *gltfSampler) eval(dst []float64, t float64) []float64 {
	w := s.width
	if cap(dst) < w {
		dst = make([]float64, w)
	}
	dst = dst[:w]
	value := func(k int) []float64 {
		if s.interp == gltf.InterpolationCubicSpline {
			return s.values[(3*k+1)*w : (3*k+2)*w]
		}
		return s.values[k*w : (k+1)*w]
	}
	n := len(s.times)
	k := sort.SearchFloat64s(s.times, t) // first key at or after t
	switch {
	case k == 0:
		copy(dst, value(0))
		return dst
	case k == n:
		copy(dst, value(n-1))
		return dst
	case s.times[k] == t:
		copy(dst, value(k))
		return dst
	}
	i := k - 1
	td := s.times[k] - s.times[i]
	u := (t - s.times[i]) / td
	switch s.interp {
	case gltf.InterpolationStep:
		copy(dst, value(i))
	case gltf.InterpolationCubicSpline:
		v0, v1 := value(i), value(k)
		b0 := s.values[(3*i+2)*w : (3*i+3)*w] // out-tangent of key i
		a1 := s.values[(3*k)*w : (3*k+1)*w]   // in-tangent of key k
		u2, u3 := u*u, u*u*u
		h00, h10 := 2*u3-3*u2+1, td*(u3-2*u2+u)
		h01, h11 := -2*u3+3*u2, td*(u3-u2)
		for c := range dst {
			dst[c] = h00*v0[c] + h10*b0[c] + h01*v1[c] + h11*a1[c]
		}
	default: // LINEAR
		v0, v1 := value(i), value(k)
		if s.rot {
			q := mgl64.QuatSlerp(quatXYZW(v0), quatXYZW(v1), u)
			dst[0], dst[1], dst[2], dst[3] = q.V[0], q.V[1], q.V[2], q.W
			return dst
		}
		for c := range dst {
			dst[c] = v0[c] + u*(v1[c]-v0[c])
		}
	}
	return dst
}

// quatXYZW converts glTF's (x, y, z, w) order to a quaternion.
func quatXYZW(v []float64) mgl64.Quat {
	return mgl64.Quat{W: v[3], V: Vec3{v[0], v[1], v[2]}}
}

// frameRate returns the rate at which to bake the animation: the rate a
// Gallop export recorded, when every key lies on its grid. Otherwise, if every key
// time lies on a uniform grid, the grid's rate raised by an integer factor
// to at least gltfMinFPS, so that every key falls on a frame: keys at 24 fps
// give 24 fps, two keys 1.25 s apart give 24 fps rather than 0.8. The grid
// is searched among the divisions of the smallest gap s between consecutive
// keys of a channel into m = 1, 2, ..., 64 (rate m/s, taken as the nearest
// integer when within 0.1% of it) and must be no finer than 1/gltfMaxFPS;
// a key lies on it when within 0.001 frame. Otherwise, or when no channel
// has two keys, the rate is DefaultFPS.
func (a *gltfAnimation) frameRate() float64 {
	if a.fpsHint > 0 && a.onGrid(a.fpsHint) {
		return a.fpsHint
	}
	gap := math.Inf(1)
	for _, c := range a.channels {
		for k := 1; k < len(c.sampler.times); k++ {
			gap = min(gap, c.sampler.times[k]-c.sampler.times[k-1])
		}
	}
	for m := 1; m <= 64; m++ {
		rate := snapInteger(float64(m)/gap, 1e-3)
		if !(rate <= gltfMaxFPS) {
			break
		}
		if rate > 0 && a.onGrid(rate) {
			return snapInteger(rate*math.Ceil(gltfMinFPS/rate-1e-9), 1e-12)
		}
	}
	return DefaultFPS
}

// onGrid reports whether every key time is within 0.001 frame of a
// multiple of 1/rate.
func (a *gltfAnimation) onGrid(rate float64) bool {
	for _, c := range a.channels {
		for _, t := range c.sampler.times {
			if k := t * rate; math.Abs(k-math.Round(k)) > 1e-3 {
				return false
			}
		}
	}
	return true
}

// snapInteger returns the integer nearest x when x is within tol relative
// of it, else x.
func snapInteger(x, tol float64) float64 {
	if r := math.Round(x); math.Abs(x-r) <= tol*x {
		return r
	}
	return x
}

// frames returns the number of frames at fps that cover [start, end]:
// frame i is at start + i/fps, and the last one at or just after end
// (within 1e-3 frame, allowing for float32 key times). An animation plays
// from its first key: the time before it only holds the first key's value,
// so an exporter that starts its keys at frame 1 (t = 1/fps) gives no
// repeated first frame.
func (a *gltfAnimation) frames(fps float64) (int, error) {
	last := math.Ceil((a.end-a.start)*fps - 1e-3)
	if !(last < gltfMaxFrames) {
		return 0, fmt.Errorf("%s: %v s at %v fps is more than %d frames", a.name, a.end, fps, gltfMaxFrames)
	}
	return int(max(last, 0)) + 1, nil
}

// gltfPose is the state of every node at one time of an animation.
type gltfPose struct {
	trs      []Transform  // local transforms
	local    []mgl64.Mat4 // local matrices (a node's own matrix unless animated)
	global   []mgl64.Mat4 // model-space matrices
	weights  [][]float64  // animated morph weights per node; nil when not animated
	animated []bool       // whether the node's transform is animated
	scratch  []float64
}

// newPose returns a pose of n nodes.
func newPose(n int) *gltfPose {
	return &gltfPose{
		trs:      make([]Transform, n),
		local:    make([]mgl64.Mat4, n),
		global:   make([]mgl64.Mat4, n),
		weights:  make([][]float64, n),
		animated: make([]bool, n),
	}
}

// pose sets p to the nodes' state at time t of animation a, or to their rest
// state when a is nil.
func (r *gltfReader) pose(p *gltfPose, a *gltfAnimation, t float64) {
	copy(p.trs, r.restTRS)
	copy(p.local, r.restLocal)
	for n := range p.weights {
		p.weights[n] = p.weights[n][:0]
		p.animated[n] = false
	}
	if a != nil {
		for _, ch := range a.channels {
			v := ch.sampler.eval(p.scratch, t)
			p.scratch = v
			n := ch.node
			switch ch.path {
			case gltf.TRSTranslation:
				p.trs[n].Translation = Vec3{v[0], v[1], v[2]}
			case gltf.TRSRotation:
				p.trs[n].Rotation = quatXYZW(v).Normalize()
			case gltf.TRSScale:
				p.trs[n].Scale = Vec3{v[0], v[1], v[2]}
			case gltf.TRSWeights:
				p.weights[n] = append(p.weights[n], v...)
				continue
			}
			p.animated[n] = true
		}
		for n, anim := range p.animated {
			if anim {
				p.local[n] = p.trs[n].Mat4()
			}
		}
	}
	for _, n := range r.order {
		if par := r.parent[n]; par >= 0 {
			p.global[n] = p.global[par].Mul4(p.local[n])
		} else {
			p.global[n] = p.local[n]
		}
	}
}

// decomposeMat4 splits an affine matrix into translation, rotation and
// scale with M = T·R·S. It is exact when M has that form (no shear); a
// mirroring (negative determinant) is given to the x scale. A zero scale
// leaves the rotation undetermined: identity.
func decomposeMat4(m mgl64.Mat4) Transform {
	c0, c1, c2 := m.Col(0).Vec3(), m.Col(1).Vec3(), m.Col(2).Vec3()
	s := Vec3{c0.Len(), c1.Len(), c2.Len()}
	if m.Mat3().Det() < 0 {
		s[0] = -s[0]
	}
	tr := Transform{Translation: Vec3{m[12], m[13], m[14]}, Rotation: mgl64.QuatIdent(), Scale: s}
	if s[0] != 0 && s[1] != 0 && s[2] != 0 {
		r := mgl64.Mat3FromCols(c0.Mul(1/s[0]), c1.Mul(1/s[1]), c2.Mul(1/s[2]))
		tr.Rotation = mgl64.Mat4ToQuat(r.Mat4()).Normalize()
	}
	return tr
}
