package synth

import (
	"github.com/go-gl/mathgl/mgl64"
)

// figureTriangles is the most triangles whose edges and corners the
// quality figures measure. A mesh with more is measured on the triangle
// fans (one-rings) of every k-th vertex, k the least that keeps at most
// this many triangles, so that a clip's figures cost the same whatever
// the mesh's resolution. Fans share their corners: a fan of six triangles
// poses 7 vertices where six scattered triangles pose 18, so the figures
// pose about 1,200 vertices a frame on a mesh of any size (pcow's fans of
// every 17th vertex, horse-gallop's of every 50th). Its figures are then
// those of the sample; Quality says so.
const figureTriangles = 1024

// figureSample picks the triangles the figures measure (every one, or
// the fans of every k-th vertex), their edges, and the vertices they pose
// (the triangles' corners, increasing).
func (a *Analysis) figureSample(all [][2]int32) {
	m := a.Model
	if len(m.Triangles) == 0 { // no triangles: the edges given, whole
		a.setFigures(all)
		return
	}
	var picked []int
	if len(m.Triangles) <= figureTriangles {
		for f := range m.Triangles {
			picked = append(picked, f)
		}
	} else {
		// A fan has 3T/V triangles on average: seeds every 3T/1024-th vertex
		// give about 1,024; the count is capped at figureTriangles.
		stride := max(1, (3*len(m.Triangles)+figureTriangles-1)/figureTriangles)
		taken := make([]bool, len(m.Triangles))
	seeds:
		for v := 0; v < len(m.Rest); v += stride {
			for _, f := range a.incidence.Of(v) {
				if len(picked) == figureTriangles {
					break seeds
				}
				if !taken[f] {
					taken[f] = true
					picked = append(picked, int(f))
				}
			}
		}
	}
	seen := make(map[[2]int32]bool)
	var edges [][2]int32
	for _, f := range picked {
		t := m.Triangles[f]
		for c := range 3 {
			e := [2]int32{int32(t[c]), int32(t[(c+1)%3])}
			if e[0] > e[1] {
				e[0], e[1] = e[1], e[0]
			}
			if e[0] != e[1] && !seen[e] {
				seen[e] = true
				edges = append(edges, e)
			}
		}
	}
	a.setFigures(edges)
}

// setFigures takes edges as the figures' edges and their end points,
// increasing, as the figures' vertices.
func (a *Analysis) setFigures(edges [][2]int32) {
	index := make(map[int32]int32)
	for _, e := range edges {
		index[e[0]], index[e[1]] = -1, -1
	}
	a.figVerts = make([]int, 0, len(index))
	for v := range int32(len(a.Model.Rest)) {
		if _, ok := index[v]; ok {
			index[v] = int32(len(a.figVerts))
			a.figVerts = append(a.figVerts, int(v))
		}
	}
	a.edges = make([][2]int32, len(edges))
	for k, e := range edges {
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
