package assets

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

// Vec3 is a point or direction in model space.
type Vec3 = mgl64.Vec3

// Vec2 is a texture coordinate.
type Vec2 = mgl64.Vec2

// Mesh is a triangle mesh in its rest pose.
//
// Positions keep the vertex order of the file they came from (for OBJ, the
// order of its `v` lines): tools address vertices by this index. Optional
// attributes are stored per triangle corner, as in libigl's (V, F, TC, FTC):
// UVTriangles[f][c] indexes UVs for corner c of triangle f, and likewise for
// normals. Either attribute is absent when its slices are empty; when present,
// its corner-index slice has one entry per triangle.
type Mesh struct {
	Name      string
	Positions []Vec3   // #V rest positions
	Triangles [][3]int // #F counter-clockwise vertex indices

	UVs         []Vec2   // texture coordinates (origin bottom-left, as in OBJ), referenced by UVTriangles
	UVTriangles [][3]int // #F, or empty when the mesh has no UVs

	Normals         []Vec3   // normals as read from the file, referenced by NormalTriangles
	NormalTriangles [][3]int // #F, or empty when the mesh has no normals

	Groups []Group // named triangle groups (OBJ `o` / `g`, glTF primitives)
}

// Group names a set of triangles of a mesh.
type Group struct {
	Name      string
	Triangles []int // indices into Mesh.Triangles, increasing
}

// NumVertices returns #V.
func (m *Mesh) NumVertices() int { return len(m.Positions) }

// NumTriangles returns #F.
func (m *Mesh) NumTriangles() int { return len(m.Triangles) }

// Validate checks the invariants documented on Mesh: indices in range, corner
// attribute tables of the right length, finite positions. It names the first
// offending element.
func (m *Mesh) Validate() error {
	nv := len(m.Positions)
	for i, p := range m.Positions {
		if !finite.Vec3(p) {
			return fmt.Errorf("vertex %d: non-finite position %v", i, p)
		}
	}
	for f, t := range m.Triangles {
		for _, v := range t {
			if v < 0 || v >= nv {
				return fmt.Errorf("triangle %d: vertex index %d out of range [0, %d)", f, v, nv)
			}
		}
	}
	check := func(what string, corners [][3]int, n int) error {
		if len(corners) == 0 {
			return nil
		}
		if len(corners) != len(m.Triangles) {
			return fmt.Errorf("%s: %d corner triples for %d triangles", what, len(corners), len(m.Triangles))
		}
		for f, t := range corners {
			for _, i := range t {
				if i < 0 || i >= n {
					return fmt.Errorf("triangle %d: %s index %d out of range [0, %d)", f, what, i, n)
				}
			}
		}
		return nil
	}
	if err := check("uv", m.UVTriangles, len(m.UVs)); err != nil {
		return err
	}
	if err := check("normal", m.NormalTriangles, len(m.Normals)); err != nil {
		return err
	}
	for _, g := range m.Groups {
		for _, f := range g.Triangles {
			if f < 0 || f >= len(m.Triangles) {
				return fmt.Errorf("group %q: triangle index %d out of range [0, %d)", g.Name, f, len(m.Triangles))
			}
		}
	}
	return nil
}

// SameTopology reports whether m and o have the same vertex count and the same
// triangles in the same order, the condition for o to be a frame or pose of m.
func (m *Mesh) SameTopology(o *Mesh) error {
	if len(o.Positions) != len(m.Positions) {
		return fmt.Errorf("%d vertices, want %d", len(o.Positions), len(m.Positions))
	}
	if len(o.Triangles) != len(m.Triangles) {
		return fmt.Errorf("%d triangles, want %d", len(o.Triangles), len(m.Triangles))
	}
	for f := range m.Triangles {
		if m.Triangles[f] != o.Triangles[f] {
			return fmt.Errorf("triangle %d is %v, want %v", f, o.Triangles[f], m.Triangles[f])
		}
	}
	return nil
}

// Clone returns a deep copy of m.
func (m *Mesh) Clone() *Mesh {
	c := &Mesh{
		Name:            m.Name,
		Positions:       append([]Vec3(nil), m.Positions...),
		Triangles:       append([][3]int(nil), m.Triangles...),
		UVs:             append([]Vec2(nil), m.UVs...),
		UVTriangles:     append([][3]int(nil), m.UVTriangles...),
		Normals:         append([]Vec3(nil), m.Normals...),
		NormalTriangles: append([][3]int(nil), m.NormalTriangles...),
	}
	for _, g := range m.Groups {
		c.Groups = append(c.Groups, Group{Name: g.Name, Triangles: append([]int(nil), g.Triangles...)})
	}
	return c
}

// Bounds returns the axis-aligned bounding box of points. For an empty slice
// it returns the zero box.
func Bounds(points []Vec3) (lo, hi Vec3) {
	if len(points) == 0 {
		return
	}
	lo, hi = points[0], points[0]
	for _, p := range points[1:] {
		for k := 0; k < 3; k++ {
			lo[k] = math.Min(lo[k], p[k])
			hi[k] = math.Max(hi[k], p[k])
		}
	}
	return
}

// VertexNormals writes into dst (grown as needed and returned) the unit
// area-weighted vertex normals of the triangles over positions: each vertex
// gets the sum of (b-a)×(c-a) over its incident triangles, normalised.
// Vertices with no incident triangle, or whose sum vanishes, get (0, 1, 0).
func VertexNormals(dst []Vec3, positions []Vec3, triangles [][3]int) []Vec3 {
	if cap(dst) < len(positions) {
		dst = make([]Vec3, len(positions))
	}
	dst = dst[:len(positions)]
	AreaNormalSums(dst, positions, triangles)
	for i, n := range dst {
		l := n.Len()
		if l > 0 && !math.IsInf(l, 0) && !math.IsNaN(l) {
			dst[i] = n.Mul(1 / l)
		} else {
			dst[i] = Vec3{0, 1, 0}
		}
	}
	return dst
}

// AreaNormalSums sets dst[v] (len(dst) = len(positions)) to the sum of
// the cross products (b − a) × (c − a) over the triangles (a, b, c) that
// have v as a corner: twice the area-weighted normal, not normalised,
// zero at a vertex of no triangle. In float64 for VertexNormals and the
// files Gallop writes; in float32 for the viewport, which normalises it
// in its vertex shader (a normal only shades).
func AreaNormalSums[V ~[3]T, T float32 | float64, I int | uint32](dst, positions []V, triangles [][3]I) {
	clear(dst)
	for _, t := range triangles {
		a, b, c := &positions[t[0]], &positions[t[1]], &positions[t[2]]
		ux, uy, uz := (*b)[0]-(*a)[0], (*b)[1]-(*a)[1], (*b)[2]-(*a)[2]
		vx, vy, vz := (*c)[0]-(*a)[0], (*c)[1]-(*a)[1], (*c)[2]-(*a)[2]
		nx, ny, nz := uy*vz-uz*vy, uz*vx-ux*vz, ux*vy-uy*vx
		for _, v := range t {
			s := &dst[v]
			(*s)[0], (*s)[1], (*s)[2] = (*s)[0]+nx, (*s)[1]+ny, (*s)[2]+nz
		}
	}
}

// Translate moves every vertex of m by d, in place (normals and texture
// coordinates are unchanged by a translation), and returns m.
func (m *Mesh) Translate(d Vec3) *Mesh {
	for i := range m.Positions {
		m.Positions[i] = m.Positions[i].Add(d)
	}
	return m
}

// MergeMeshes returns one mesh holding the vertices and triangles of all
// of ms, in order (indices shifted accordingly). Normals are kept when
// every mesh has them; texture coordinates and groups are dropped.
func MergeMeshes(ms ...*Mesh) *Mesh {
	out := &Mesh{}
	normals := true
	for _, m := range ms {
		normals = normals && len(m.NormalTriangles) == len(m.Triangles)
	}
	shifted := func(dst [][3]int, ts [][3]int, base int) [][3]int {
		for _, t := range ts {
			dst = append(dst, [3]int{t[0] + base, t[1] + base, t[2] + base})
		}
		return dst
	}
	for _, m := range ms {
		out.Triangles = shifted(out.Triangles, m.Triangles, len(out.Positions))
		out.Positions = append(out.Positions, m.Positions...)
		if normals {
			out.NormalTriangles = shifted(out.NormalTriangles, m.NormalTriangles, len(out.Normals))
			out.Normals = append(out.Normals, m.Normals...)
		}
	}
	return out
}
