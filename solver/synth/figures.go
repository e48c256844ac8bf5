package synth

import (
	"github.com/go-gl/mathgl/mgl64"
)

// figureEdges is the most edges the quality figures measure. A mesh with
// more is measured on every k-th edge (k the least that keeps at most
// this many) and on their end points, so that the figures of a clip cost
// the same whatever the mesh's resolution; meshes up to this size (the
// shared data sets up to horse-gallop's 25,272 edges) are measured whole.
const figureEdges = 32768

// figureSample picks the edges the figures measure (every edge, or every
// k-th) and the vertices they pose (the edges' end points, increasing),
// and each edge's part.
func (a *Analysis) figureSample(edges [][2]int32) {
	stride := (len(edges) + figureEdges - 1) / figureEdges
	index := make(map[int32]int32)
	var picked [][2]int32
	for k := 0; k < len(edges); k += max(stride, 1) {
		picked = append(picked, edges[k])
		for _, v := range edges[k] {
			index[v] = -1
		}
	}
	a.figVerts = make([]int, 0, len(index))
	for v := range int32(len(a.Model.Rest)) {
		if _, ok := index[v]; ok {
			index[v] = int32(len(a.figVerts))
			a.figVerts = append(a.figVerts, int(v))
		}
	}
	a.edges = make([][2]int32, len(picked))
	for k, e := range picked {
		a.edges[k] = [2]int32{index[e[0]], index[e[1]]}
	}
	a.flattenFigures()
}

// setEdgeParts records each sampled edge's part: its first end point's
// (Vertex).
func (a *Analysis) setEdgeParts() {
	a.edgePart = make([]int, len(a.edges))
	for k, e := range a.edges {
		a.edgePart[k] = a.Vertex[a.figVerts[e[0]]]
	}
}

// figInfluence is one influence on a figure vertex, flattened for posed.
type figInfluence struct {
	bone   int32
	last   bool // the vertex's last influence
	weight float64
}

// flattenFigures lays out the figure vertices' influences and rest
// positions for posed.
func (a *Analysis) flattenFigures() {
	m := a.Model
	a.figRest = make([]mgl64.Vec3, len(a.figVerts))
	for k, v := range a.figVerts {
		a.figRest[k] = m.Rest[v]
		l := m.Weights[v]
		if len(l) == 0 { // no influence: posed at the origin, as Σ over none
			a.figInf = append(a.figInf, figInfluence{bone: 0, last: true})
			continue
		}
		for x, in := range l {
			a.figInf = append(a.figInf, figInfluence{bone: int32(in.Bone), last: x == len(l)-1, weight: in.Weight})
		}
	}
}

// posed writes the figures' vertices posed by bones into dst (grown as
// needed) and returns it: Σᵦ wᵢᵦ (Fᵦ pᵢ + tᵦ) for each of figVerts. This is
// the figures' inner loop (a clip's frames near its splices), so it runs
// on scalars over flat influences.
func (a *Analysis) posed(dst []mgl64.Vec3, bones []Affine) []mgl64.Vec3 {
	if cap(dst) < len(a.figRest) {
		dst = make([]mgl64.Vec3, len(a.figRest))
	}
	dst = dst[:len(a.figRest)]
	k := 0
	for v, p := range a.figRest {
		px, py, pz := p[0], p[1], p[2]
		var x, y, z float64
		for {
			in := &a.figInf[k]
			k++
			b := &bones[in.bone]
			w := in.weight
			r := &b.R
			x += w * (r[0]*px + r[3]*py + r[6]*pz + b.T[0])
			y += w * (r[1]*px + r[4]*py + r[7]*pz + b.T[1])
			z += w * (r[2]*px + r[5]*py + r[8]*pz + b.T[2])
			if in.last {
				break
			}
		}
		dst[v] = mgl64.Vec3{x, y, z}
	}
	return dst
}
