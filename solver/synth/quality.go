package synth

import (
	"gallop/internal/parallel"
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
// It sweeps the output frames once, posing each frame a figure needs once
// (three at a time: acceleration reads t−1, t and t+1) and measuring each
// frame's edge lengths once for every splice whose window holds it.
func (a *Analysis) Quality(c *Clip, window int) Quality {
	L := len(c.Bones)
	type splice struct{ part, s, i, j int }
	var all []splice
	var starts []int
	for k, w := range c.Walks {
		for _, s := range w.Splices {
			all = append(all, splice{k, s, w.Source[s], w.Source[s+1] - 1})
			starts = append(starts, s)
		}
	}
	q := Quality{}
	if len(all) == 0 {
		return q
	}
	q.SpliceAccel = make([]float64, len(all))
	q.SpliceStrain = make([]float64, len(all))
	sums := make([]float64, len(all))
	counts := make([]int, len(all))
	blended := free(L, window, starts)
	var ring [3][]mgl64.Vec3
	ringAt := [3]int{-1, -1, -1}
	at := func(t int) []mgl64.Vec3 {
		r := t % 3
		if ringAt[r] != t {
			ring[r], ringAt[r] = a.posed(ring[r], c.Bones[t]), t
		}
		return ring[r]
	}
	n := a.Model.NumFrames()
	var lens []float64
	edge := 0.0
	for t := 1; t < L; t++ {
		acc := -1.0 // the frame's largest acceleration, once measured
		lensDone := false
		for k, sp := range all {
			if t >= sp.s-SpliceReach && t <= sp.s+SpliceReach && t <= L-2 {
				if acc < 0 {
					acc = maxAcceleration(at(t-1), at(t), at(t+1))
				}
				q.SpliceAccel[k] = max(q.SpliceAccel[k], acc/a.Accel99)
			}
			if t < sp.s-window+1 || t > sp.s+window {
				continue
			}
			if !lensDone {
				lens, lensDone = edgeLengths(lens, at(t), a.edges), true
			}
			al := float64(t-sp.s+window) / float64(2*window+1)
			la, lb := a.inputLen[clamp(sp.i+t-sp.s, n)], a.inputLen[clamp(sp.j+t-sp.s, n)]
			sum, cnt := 0.0, 0
			for e, l := range lens {
				if p := a.edgePart[e]; p != sp.part && p != -1 && len(a.Parts) > 1 {
					continue
				}
				sum += math.Abs(l-((1-al)*la[e]+al*lb[e])) / a.restDen[e]
				cnt++
			}
			sums[k] += sum
			counts[k] += cnt
		}
		if blended[t] {
			if !lensDone {
				lens = edgeLengths(lens, at(t), a.edges)
			}
			edge = max(edge, a.edgeChange(lens))
		}
	}
	for k := range all {
		q.MaxAccel = max(q.MaxAccel, q.SpliceAccel[k])
		q.SpliceStrain[k] = sums[k] / float64(max(counts[k], 1))
		q.MeanStrain += q.SpliceStrain[k] / float64(len(all))
	}
	if a.EdgeMax > 0 {
		q.EdgeRatio = edge / a.EdgeMax
	}
	return q
}

// MeanDistance returns the mean over the pairs of clips (of one analysis)
// of their RMS distance over the frames they all have, √(mean over frames and
// vertices of ‖cᵢ − dᵢ‖²), on the figures' sample of the mesh; 0 for fewer
// than two clips. Each clip's frame is posed once for all its pairs; the
// frames are split across cores and summed in a fixed order.
func MeanDistance(clips []*Clip) float64 {
	m := len(clips)
	if m < 2 {
		return 0
	}
	a := clips[0].Analysis
	pairs := m * (m - 1) / 2
	L := len(clips[0].Bones)
	for _, c := range clips {
		L = min(L, len(c.Bones))
	}
	// per[k·pairs + p]: pair p's sum over chunk k's frames.
	chunks := min(L, 4*parallel.Workers())
	per := make([]float64, chunks*pairs)
	parallel.For(chunks, func(k int) {
		pos := make([][]mgl64.Vec3, m)
		sums := per[k*pairs : (k+1)*pairs]
		for t := k * L / chunks; t < (k+1)*L/chunks; t++ {
			for i, c := range clips {
				pos[i] = a.posed(pos[i], c.Bones[t])
			}
			p := 0
			for i := range m {
				for j := range i {
					sum := 0.0
					for v, x := range pos[i] {
						y := pos[j][v]
						dx, dy, dz := x[0]-y[0], x[1]-y[1], x[2]-y[2]
						sum += dx*dx + dy*dy + dz*dz
					}
					sums[p] += sum
					p++
				}
			}
		}
	})
	mean := 0.0
	for p := range pairs {
		sum := 0.0
		for k := range chunks {
			sum += per[k*pairs+p]
		}
		mean += math.Sqrt(sum/float64(max(L*len(a.figVerts), 1))) / float64(pairs)
	}
	return mean
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
