package ssdr

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSegments checks the principal axes on known point sets: bone 0 owns
// a line of points along a tilted direction (its axis, centroid and 2σ
// extent are known in closed form), bone 1 shares one vertex at half
// weight, bone 2 owns nothing.
func TestSegments(t *testing.T) {
	dir := mgl64.Vec3{1, 2, -2}.Normalize()
	centre := mgl64.Vec3{3, -1, 0.5}
	const n = 11
	var rest []mgl64.Vec3
	var weights [][]Influence
	for k := range n {
		s := float64(k - n/2) // −5 … 5
		rest = append(rest, centre.Add(dir.Mul(s)))
		weights = append(weights, []Influence{{Bone: 0, Weight: 1}})
	}
	// A vertex off the line shared half and half with bone 1.
	rest = append(rest, centre.Add(mgl64.Vec3{0, 0, 1}))
	weights = append(weights, []Influence{{Bone: 1, Weight: 0.5}, {Bone: 0, Weight: 0.5}})

	segs := Segments(rest, weights, 3)
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	// Bone 0: the line's points (weight 1 each) and the shared vertex
	// (weight 0.5); centroid and covariance by direct summation.
	var c mgl64.Vec3
	wsum := 0.0
	for i, l := range weights {
		for _, in := range l {
			if in.Bone == 0 {
				c = c.Add(rest[i].Mul(in.Weight))
				wsum += in.Weight
			}
		}
	}
	c = c.Mul(1 / wsum)
	s0 := segs[0]
	if d := s0.Centre.Sub(c).Len(); d > 1e-12 {
		t.Errorf("bone 0 centre %v, want %v", s0.Centre, c)
	}
	if math.Abs(s0.Weight-wsum) > 1e-12 {
		t.Errorf("bone 0 weight %g, want %g", s0.Weight, wsum)
	}
	if math.Abs(s0.Axis.Len()-1) > 1e-12 {
		t.Errorf("bone 0 axis %v is not a unit vector", s0.Axis)
	}
	// The axis maximises the weighted variance: no direction does better.
	variance := func(u mgl64.Vec3) float64 {
		v := 0.0
		for i, l := range weights {
			for _, in := range l {
				if in.Bone == 0 {
					d := rest[i].Sub(c).Dot(u)
					v += in.Weight * d * d
				}
			}
		}
		return v / wsum
	}
	best := variance(s0.Axis)
	if want := s0.HalfLength * s0.HalfLength / 4; math.Abs(best-want) > 1e-9*want {
		t.Errorf("bone 0 half length %g, want 2σ = %g", s0.HalfLength, 2*math.Sqrt(best))
	}
	for _, u := range []mgl64.Vec3{dir, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, dir.Add(mgl64.Vec3{0.1, 0, 0}).Normalize()} {
		if v := variance(u); v > best*(1+1e-12) {
			t.Errorf("direction %v has variance %g > the axis' %g", u, v, best)
		}
	}
	if s0.Axis.Dot(dir) < 0.99 && s0.Axis.Dot(dir) > -0.99 {
		t.Errorf("bone 0 axis %v, want close to ±%v", s0.Axis, dir)
	}
	// Bone 1: one vertex, so its centre is that vertex and its length 0.
	if s1 := segs[1]; s1.Centre.Sub(rest[n]).Len() > 1e-12 || s1.HalfLength != 0 || s1.Weight != 0.5 {
		t.Errorf("bone 1 %+v, want a point at %v of weight 0.5", s1, rest[n])
	}
	if segs[2] != (Segment{}) {
		t.Errorf("bone 2 owns nothing, got %+v", segs[2])
	}
	a, b := s0.Ends()
	if d := a.Add(b).Mul(0.5).Sub(s0.Centre).Len(); d > 1e-12 || math.Abs(b.Sub(a).Len()-2*s0.HalfLength) > 1e-12 {
		t.Errorf("ends %v %v do not match the segment %+v", a, b, s0)
	}
}
