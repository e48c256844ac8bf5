package synth

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// DefaultThreshold is the default largest pose distance of a transition,
// in steps (Part.Step): a transition may jump no farther than two typical
// steps between adjacent frames.
const DefaultThreshold = 2

// poseSample is a part's poses at the figures' sample of the mesh
// (figureSample: the corners of at most 1,024 triangles, whatever the
// resolution): per input frame the model's posed figure vertices, shared
// by the parts, and the part's own among them (idx; nil for all of them).
type poseSample struct {
	frames [][]mgl64.Vec3
	idx    []int
}

// distance returns the RMS distance between the sampled poses of input
// frames i and j after the rigid motion that best aligns j's onto i's
// (rotation.RigidSums): how far apart the two poses are, wherever the
// frames place the mesh.
func (s *poseSample) distance(i, j int) float64 {
	p, q := s.frames[j], s.frames[i]
	n := len(s.idx)
	if s.idx == nil {
		n = len(p)
	}
	if n == 0 {
		return 0
	}
	at := func(k int) int {
		if s.idx == nil {
			return k
		}
		return s.idx[k]
	}
	var sums rotation.RigidSums
	for k := range n {
		sums.Add(1, q[at(k)], p[at(k)])
	}
	r, t, _ := sums.Fit()
	sum := 0.0
	for k := range n {
		d := r.Mul3x1(p[at(k)]).Add(t).Sub(q[at(k)])
		sum += d.Dot(d)
	}
	return math.Sqrt(sum / float64(n))
}

// step returns the median of the positive distances between adjacent
// frames x and x+1, x = 1 … n−2 (the pairs a transition's frames can be),
// or the smallest positive number for an input that never moves. A frame
// held (animation on twos or threes: two or three identical frames in a
// row) is not a step: counted, its zeros would make the median 0 and every
// transition's distance, in steps, infinite.
func (s *poseSample) step() float64 {
	var all []float64
	for x := 1; x+1 < len(s.frames); x++ {
		all = append(all, s.distance(x, x+1))
	}
	// Held: within rounding of the rigid fit (10⁻⁹ of the largest step).
	var most float64
	for _, v := range all {
		most = max(most, v)
	}
	d := slices.DeleteFunc(all, func(v float64) bool { return !(v > 1e-9*most) })
	if len(d) == 0 {
		return math.SmallestNonzeroFloat64
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// chooseDefault sets the part's default threshold: DefaultThreshold if its
// graph has a loop to walk, else the least candidate distance whose graph
// has one, else (no threshold makes a loop) every candidate's.
func (p *Part) chooseDefault() {
	p.defaultThreshold = DefaultThreshold
	if g, err := p.Graph(DefaultThreshold); err == nil && len(g.Largest) > 0 {
		return
	}
	var ds []float64
	for _, c := range p.cands {
		if c.Distance > DefaultThreshold {
			ds = append(ds, c.Distance)
		}
	}
	slices.Sort(ds)
	for _, d := range ds {
		if g, err := p.Graph(d); err == nil && len(g.Largest) > 0 {
			p.defaultThreshold = d
			return
		}
	}
	if len(ds) > 0 {
		p.defaultThreshold = ds[len(ds)-1]
	}
}
