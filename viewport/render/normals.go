package render

import "gallop/assets"

// frameData is what OpenGL is given of a mesh: its triangles, and a
// frame's positions and vertex normals in float32, in buffers kept from
// frame to frame so that a new frame allocates nothing.
type frameData struct {
	idx      [][3]uint32 // the triangles
	pos, nrm [][3]float32
}

// setTriangles sets the mesh's triangles.
func (d *frameData) setTriangles(tris [][3]int) {
	d.idx = d.idx[:0]
	for _, t := range tris {
		d.idx = append(d.idx, [3]uint32{uint32(t[0]), uint32(t[1]), uint32(t[2])})
	}
}

// set computes a frame of positions pos: the positions in float32, then
// at each vertex the sum of its triangles' cross products
// (assets.AreaNormalSums), its area-weighted normal, which the vertex
// shader normalises (a GPU's work; (0, 1, 0) where the sum is
// 0), from the converted positions, which that pass has just brought
// into the cache. It takes 3-4 ms of CPU for a 135,000-vertex frame on
// the machines Gallop is measured on, on the UI thread: the other cores
// are left to the jobs, or to the software rasteriser, which on those
// machines keeps them busy while a clip plays. A normal only shades:
// float32 is enough.
func (d *frameData) set(pos []assets.Vec3) {
	if len(d.pos) != len(pos) {
		d.pos, d.nrm = make([][3]float32, len(pos)), make([][3]float32, len(pos))
	}
	p, sum := d.pos, d.nrm
	for i := range pos {
		q := &pos[i]
		p[i] = [3]float32{float32(q[0]), float32(q[1]), float32(q[2])}
	}
	assets.AreaNormalSums(sum, p, d.idx)
}
