package synth

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// SpliceReach is how many output frames on each side of a splice the
// smoothness figure looks at.
const SpliceReach = 3

// Quality holds the figures of one clip, measured on the figures' sample
// of the mesh: the edges and corners of every triangle of a mesh of up to
// 1,024 triangles, else of every k-th (see figureTriangles), so that they
// cost the same whatever the mesh's resolution.
//
// Splice smoothness: for each splice at output frame s, the largest vertex
// acceleration ‖v(t+1) − 2v(t) + v(t−1)‖ over t = s−3 … s+3, divided by
// Analysis.Accel99, the 99th percentile over the input's frames of the
// per-frame largest vertex acceleration. 1 means the splice jerks no more
// than the input's own jerkiest 1% of frames.
//
// Splice strain: for each splice, how far its blend bends the mesh out of
// shape beyond what the two segments themselves do. Over the window's
// frames t = s−W+1 … s+W, each edge's length ℓ(t) against the crossfade
// ℓ̂(t) = (1−a)·ℓ(A) + a·ℓ(B) of its lengths in the two segments' frames
// (A and B as the crossfade blend takes them, a = (t−s+W)/(2W+1)),
// relative to its rest length: the mean over the frames and the part's
// edges of |ℓ − ℓ̂| / ℓ⁰ (ℓ⁰ floored as for the edge ratio).
//
// Shape: the largest relative change of an edge's length from the rest
// pose over the frames splices blend, divided by Analysis.EdgeMax, the
// input's own largest; at most 1 means the splices stretch the mesh no
// more than the input does.
type Quality struct {
	SpliceAccel  []float64 // per splice, in the order of the parts' walks
	SpliceStrain []float64 // per splice, the same order
	MaxAccel     float64   // the largest of SpliceAccel, 0 without splices
	MeanStrain   float64   // the mean of SpliceStrain, 0 without splices
	EdgeRatio    float64
}

// Quality measures clip c, whose splices blend window frames on each side.
func (a *Analysis) Quality(c *Clip, window int) Quality {
	L := len(c.Bones)
	need := make([]bool, L)
	var splices []int
	type splice struct{ part, s, i, j int }
	var all []splice
	for k, w := range c.Walks {
		for _, s := range w.Splices {
			splices = append(splices, s)
			all = append(all, splice{k, s, w.Source[s], w.Source[s+1] - 1})
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
			pos[t] = a.posed(nil, c.Bones[t])
		}
	}
	q := Quality{}
	n := a.Model.NumFrames()
	lens := make([]float64, len(a.edges))
	for _, sp := range all {
		s := sp.s
		m := 0.0
		for t := max(1, s-SpliceReach); t <= min(L-2, s+SpliceReach); t++ {
			m = max(m, maxAcceleration(pos[t-1], pos[t], pos[t+1]))
		}
		r := m / a.Accel99
		q.SpliceAccel = append(q.SpliceAccel, r)
		q.MaxAccel = max(q.MaxAccel, r)
		sum, cnt := 0.0, 0
		for t := max(1, s-window+1); t <= min(L-1, s+window); t++ {
			al := float64(t-s+window) / float64(2*window+1)
			la, lb := a.inputLen[clamp(sp.i+t-s, n)], a.inputLen[clamp(sp.j+t-s, n)]
			lens = edgeLengths(lens, pos[t], a.edges)
			for e := range a.edges {
				if p := a.edgePart[e]; p != sp.part && p != -1 && len(a.Parts) > 1 {
					continue
				}
				sum += math.Abs(lens[e]-((1-al)*la[e]+al*lb[e])) / a.restDen[e]
				cnt++
			}
		}
		st := sum / float64(max(cnt, 1))
		q.SpliceStrain = append(q.SpliceStrain, st)
		q.MeanStrain += st / float64(len(all))
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
// (of one analysis) over their common frames, √(mean over frames and
// vertices of ‖cᵢ − dᵢ‖²), on the figures' sample of the mesh.
func Distance(c, d *Clip) float64 {
	a := c.Analysis
	L := min(len(c.Bones), len(d.Bones))
	var p, q []mgl64.Vec3
	sum, n := 0.0, 0
	for t := range L {
		p, q = a.posed(p, c.Bones[t]), a.posed(q, d.Bones[t])
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
