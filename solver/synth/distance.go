package synth

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// sampleSize is the most vertices a part's pose distances are measured on:
// a rigid-aligned RMS distance over a few thousand vertices spread over
// the mesh is within a percent of the whole mesh's, and keeps the
// analysis's cost independent of the mesh's resolution.
const sampleSize = 2048

// DefaultThreshold is the default largest pose distance of a transition,
// in steps (Part.Step): a transition may jump no farther than two typical
// steps between adjacent frames.
const DefaultThreshold = 2

// poseSample holds a part's poses at a sample of its vertices: per input
// frame, the model's skinned positions of the sampled vertices.
type poseSample struct {
	frames [][]mgl64.Vec3
}

// samplePoses poses the vertices verts of model m at every input frame,
// at most sampleSize of them, evenly strided through verts.
func samplePoses(m *Model, verts []int) *poseSample {
	if len(verts) > sampleSize {
		stride := (len(verts) + sampleSize - 1) / sampleSize
		picked := make([]int, 0, sampleSize)
		for k := 0; k < len(verts); k += stride {
			picked = append(picked, verts[k])
		}
		verts = picked
	}
	s := &poseSample{frames: make([][]mgl64.Vec3, m.NumFrames())}
	for x, bones := range m.Bones {
		f := make([]mgl64.Vec3, len(verts))
		for k, v := range verts {
			p := m.Rest[v]
			for _, in := range m.Weights[v] {
				f[k] = f[k].Add(bones[in.Bone].Apply(p).Mul(in.Weight))
			}
		}
		s.frames[x] = f
	}
	return s
}

// distance returns the RMS distance between the sampled poses of input
// frames i and j after the rigid motion that best aligns j's onto i's
// (rotation.RigidSums): how far apart the two poses are, wherever the
// frames place the mesh.
func (s *poseSample) distance(i, j int) float64 {
	p, q := s.frames[j], s.frames[i]
	if len(p) == 0 {
		return 0
	}
	var sums rotation.RigidSums
	for k := range p {
		sums.Add(1, q[k], p[k])
	}
	r, t, _ := sums.Fit()
	sum := 0.0
	for k := range p {
		d := r.Mul3x1(p[k]).Add(t).Sub(q[k])
		sum += d.Dot(d)
	}
	return math.Sqrt(sum / float64(len(p)))
}

// step returns the median distance between adjacent frames x and x+1,
// x = 1 … n−2 (the pairs a transition's frames can be), or the smallest
// positive number for an input that never moves.
func (s *poseSample) step() float64 {
	var d []float64
	for x := 1; x+1 < len(s.frames); x++ {
		d = append(d, s.distance(x, x+1))
	}
	slices.Sort(d)
	if len(d) == 0 || !(d[len(d)/2] > 0) {
		return math.SmallestNonzeroFloat64
	}
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
