package render

import (
	"math"
	"testing"

	"gallop/assets"
)

// TestFrameDataNormals checks frameData's float32 positions and normals,
// normalised as the vertex shader does, against assets.VertexNormals on
// the demo bar subdivided (16,640 triangles) with a vertex of no
// triangle, twice with the same buffers.
func TestFrameDataNormals(t *testing.T) {
	m := assets.SubdivideMidpoint(assets.SubdivideMidpoint(assets.SubdivideMidpoint(assets.DemoBar())))
	pos := append(m.Positions, assets.Vec3{5, 5, 5}) // a vertex of no triangle
	want := assets.VertexNormals(nil, pos, m.Triangles)
	var d frameData
	d.setTriangles(m.Triangles)
	for range 2 {
		d.set(pos)
		for i := range pos {
			n := d.nrm[i]
			l := math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]))
			if l == 0 {
				n, l = [3]float32{0, 1, 0}, 1 // the shader's fallback
			}
			for k := range 3 {
				if math.Abs(float64(n[k])/l-want[i][k]) > 1e-5 || float32(pos[i][k]) != d.pos[i][k] {
					t.Fatalf("vertex %d: normal %v, position %v; want %v, %v", i, n, d.pos[i], want[i], pos[i])
				}
			}
		}
	}
}
