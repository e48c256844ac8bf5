package ssdr

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"
)

// Segment is a bone's principal axis in the rest pose: the line through
// Centre along the unit vector Axis, from Centre − HalfLength·Axis to
// Centre + HalfLength·Axis. Dynamic skinning hangs its spokes on it.
type Segment struct {
	Centre     mgl64.Vec3 // weighted centroid c = Σᵢ wᵢ pᵢ / Σᵢ wᵢ
	Axis       mgl64.Vec3 // unit eigenvector of the largest eigenvalue of C
	HalfLength float64    // 2σ, σ² the largest eigenvalue of C
	Weight     float64    // Σᵢ wᵢ; 0 for a bone that influences no vertex
}

// Ends returns the segment's end points.
func (s Segment) Ends() (a, b mgl64.Vec3) {
	d := s.Axis.Mul(s.HalfLength)
	return s.Centre.Sub(d), s.Centre.Add(d)
}

// Segments returns one Segment per bone (bones of them) for the rest
// positions and the weights of a Result: bone j's centroid c and weighted
// covariance C = Σᵢ wᵢⱼ (pᵢ − c)(pᵢ − c)ᵀ / Σᵢ wᵢⱼ over the vertices it
// influences, its axis the eigenvector of C's largest eigenvalue σ² (the
// direction of largest weighted spread) and its half length 2σ. The sign
// of Axis is chosen so that its largest component is positive. A bone that
// influences no vertex gets the zero Segment; one whose vertices all
// coincide gets length 0 and the x axis.
func Segments(rest []mgl64.Vec3, weights [][]Influence, bones int) []Segment {
	segs := make([]Segment, bones)
	sum := make([]mgl64.Vec3, bones)
	for i, l := range weights {
		for _, in := range l {
			segs[in.Bone].Weight += in.Weight
			sum[in.Bone] = sum[in.Bone].Add(rest[i].Mul(in.Weight))
		}
	}
	for j := range segs {
		if segs[j].Weight > 0 {
			segs[j].Centre = sum[j].Mul(1 / segs[j].Weight)
		}
	}
	cov := make([][6]float64, bones) // xx xy xz yy yz zz
	for i, l := range weights {
		for _, in := range l {
			d := rest[i].Sub(segs[in.Bone].Centre)
			c := &cov[in.Bone]
			w := in.Weight
			c[0] += w * d[0] * d[0]
			c[1] += w * d[0] * d[1]
			c[2] += w * d[0] * d[2]
			c[3] += w * d[1] * d[1]
			c[4] += w * d[1] * d[2]
			c[5] += w * d[2] * d[2]
		}
	}
	var eig mat.EigenSym
	var vecs mat.Dense
	for j := range segs {
		s := &segs[j]
		if s.Weight <= 0 {
			continue
		}
		c := cov[j]
		for k := range c {
			c[k] /= s.Weight
		}
		a := mat.NewSymDense(3, []float64{c[0], c[1], c[2], c[1], c[3], c[4], c[2], c[4], c[5]})
		s.Axis = mgl64.Vec3{1, 0, 0}
		if !eig.Factorize(a, true) {
			continue
		}
		vals := eig.Values(nil) // ascending
		eig.VectorsTo(&vecs)
		axis := mgl64.Vec3{vecs.At(0, 2), vecs.At(1, 2), vecs.At(2, 2)}
		n := axis.Len()
		if !(n > 0) || !(vals[2] > 0) {
			continue
		}
		axis = axis.Mul(1 / n)
		big := 0
		for k := 1; k < 3; k++ {
			if math.Abs(axis[k]) > math.Abs(axis[big]) {
				big = k
			}
		}
		if axis[big] < 0 {
			axis = axis.Mul(-1)
		}
		s.Axis, s.HalfLength = axis, 2*math.Sqrt(vals[2])
	}
	return segs
}
