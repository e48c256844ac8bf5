package synth

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// SpliceReach is how many output frames on each side of a splice the
// smoothness figure looks at.
const SpliceReach = 3

// Quality holds the figures of one clip.
//
// Splice smoothness: for each splice at output frame s, the largest vertex
// acceleration ‖v(t+1) − 2v(t) + v(t−1)‖ over t = s−3 … s+3, divided by
// Analysis.Accel99, the 99th percentile over the input's frames of the
// per-frame largest vertex acceleration. 1 means the splice jerks no more
// than the input's own jerkiest 1% of frames.
//
// Shape: the largest relative change of an edge's length from the rest
// pose over the frames splices blend, divided by Analysis.EdgeMax, the
// input's own largest; at most 1 means the splices stretch the mesh no
// more than the input does.
type Quality struct {
	SpliceAccel []float64 // per splice, in the order of the parts' walks
	MaxAccel    float64   // the largest of SpliceAccel, 0 without splices
	EdgeRatio   float64
}

// Quality measures clip c.
func (a *Analysis) Quality(c *Clip, window int) Quality {
	L := len(c.Bones)
	need := make([]bool, L)
	var splices []int
	for _, w := range c.Walks {
		for _, s := range w.Splices {
			splices = append(splices, s)
			for t := max(0, s-SpliceReach-1); t <= min(L-1, s+max(SpliceReach+1, window)); t++ {
				need[t] = true
			}
			for t := max(0, s-window+1); t <= s; t++ {
				need[t] = true
			}
		}
	}
	pos := make([][]mgl64.Vec3, L)
	for t := range L {
		if need[t] {
			pos[t] = c.Pose(nil, t)
		}
	}
	q := Quality{}
	for _, s := range splices {
		m := 0.0
		for t := max(1, s-SpliceReach); t <= min(L-2, s+SpliceReach); t++ {
			m = max(m, maxAcceleration(pos[t-1], pos[t], pos[t+1]))
		}
		r := m / a.Accel99
		q.SpliceAccel = append(q.SpliceAccel, r)
		q.MaxAccel = max(q.MaxAccel, r)
	}
	edge := 0.0
	isFree := free(L, window, splices)
	for t := range L {
		if isFree[t] {
			edge = max(edge, a.edgeChange(pos[t]))
		}
	}
	if a.EdgeMax > 0 {
		q.EdgeRatio = edge / a.EdgeMax
	}
	return q
}

// Distance returns the RMS distance between the vertices of clips c and d
// over their common frames: √(mean over frames and vertices of ‖cᵢ − dᵢ‖²).
func Distance(c, d *Clip) float64 {
	L := min(len(c.Bones), len(d.Bones))
	var p, q []mgl64.Vec3
	sum, n := 0.0, 0
	for t := range L {
		p, q = c.Pose(p, t), d.Pose(q, t)
		for i := range p {
			e := p[i].Sub(q[i])
			sum += e.Dot(e)
		}
		n += len(p)
	}
	return math.Sqrt(sum / float64(max(n, 1)))
}

// SameWalks reports whether clips c and d take the same walks in every
// part.
func SameWalks(c, d *Clip) bool {
	if len(c.Walks) != len(d.Walks) {
		return false
	}
	for k := range c.Walks {
		if !slices.Equal(c.Walks[k].Source, d.Walks[k].Source) {
			return false
		}
	}
	return true
}
