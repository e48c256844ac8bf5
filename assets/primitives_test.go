package assets

import (
	"math"
	"testing"
)

// checkClosedMesh fails unless m is valid, every directed edge is used by
// exactly one triangle and its reverse by exactly one other (closed and
// consistently oriented), no triangle is degenerate, and every corner
// normal is a unit vector on the outer side of its triangle.
func checkClosedMesh(t *testing.T, m *Mesh) {
	t.Helper()
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(m.NormalTriangles) != len(m.Triangles) {
		t.Fatalf("%d normal triangles for %d triangles", len(m.NormalTriangles), len(m.Triangles))
	}
	edges := map[[2]int]int{}
	for f, tri := range m.Triangles {
		for c := 0; c < 3; c++ {
			e := [2]int{tri[c], tri[(c+1)%3]}
			if e[0] == e[1] {
				t.Fatalf("triangle %d %v repeats a vertex", f, tri)
			}
			edges[e]++
		}
		a, b, c := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
		n := b.Sub(a).Cross(c.Sub(a))
		if n.Len() == 0 {
			t.Fatalf("triangle %d %v has no area", f, tri)
		}
		for c, k := range m.NormalTriangles[f] {
			if l := m.Normals[k].Len(); math.Abs(l-1) > 1e-12 {
				t.Errorf("triangle %d corner %d: normal of length %v", f, c, l)
			}
			if m.Normals[k].Dot(n) <= 0 {
				t.Errorf("triangle %d corner %d: normal %v on the inner side (face normal %v)", f, c, m.Normals[k], n)
			}
		}
	}
	for e, n := range edges {
		if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v is used %d times, its reverse %d times; want 1 and 1", e, n, edges[[2]int{e[1], e[0]}])
		}
	}
}

// meshVolume returns the volume enclosed by a closed mesh (divergence
// theorem: Σ a·(b×c)/6 over its triangles), positive when it is oriented
// outwards.
func meshVolume(m *Mesh) float64 {
	v := 0.0
	for _, t := range m.Triangles {
		v += m.Positions[t[0]].Dot(m.Positions[t[1]].Cross(m.Positions[t[2]]))
	}
	return v / 6
}

// TestPrimitives checks each generator: closed and outward, volume within
// a stated fraction below the analytic one (an inscribed polyhedron has
// less), bounding box exact, vertex and triangle counts.
func TestPrimitives(t *testing.T) {
	const r, l = 0.5, 2.0
	for _, c := range []struct {
		name       string
		m          *Mesh
		volume     float64
		rel        float64 // the volume may be this fraction smaller
		lo, hi     Vec3
		verts, tri int
	}{
		{"box", BoxMesh(Vec3{1, 2, 3}), 6, 0, Vec3{-0.5, -1, -1.5}, Vec3{0.5, 1, 1.5}, 8, 12},
		{"sphere 32", SphereMesh(r, 32), 4.0 / 3 * math.Pi * r * r * r, 0.017, Vec3{-r, -r, -r}, Vec3{r, r, r}, 2 + 15*32, 2 * 32 * 15},
		{"sphere 3", SphereMesh(r, 3), 4.0 / 3 * math.Pi * r * r * r, 0.8, Vec3{-r / 2, -r * math.Sqrt(3) / 2, -r}, Vec3{r, r * math.Sqrt(3) / 2, r}, 5, 6},
		{"capsule", CapsuleMesh(r, l, 32), math.Pi*r*r*l + 4.0/3*math.Pi*r*r*r, 0.01, Vec3{-r, -r, -l/2 - r}, Vec3{r, r, l/2 + r}, 2 + 16*32, 2 * 32 * 16},
		{"capsule 0", CapsuleMesh(r, 0, 32), 4.0 / 3 * math.Pi * r * r * r, 0.017, Vec3{-r, -r, -r}, Vec3{r, r, r}, 2 + 15*32, 2 * 32 * 15},
		{"cylinder", CylinderMesh(r, l, 32), math.Pi * r * r * l, 0.007, Vec3{-r, -r, -l / 2}, Vec3{r, r, l / 2}, 2 + 2*32, 4 * 32},
	} {
		t.Run(c.name, func(t *testing.T) {
			checkClosedMesh(t, c.m)
			if c.m.NumVertices() != c.verts || c.m.NumTriangles() != c.tri {
				t.Errorf("%d vertices, %d triangles; want %d, %d", c.m.NumVertices(), c.m.NumTriangles(), c.verts, c.tri)
			}
			v := meshVolume(c.m)
			if rel := (c.volume - v) / c.volume; rel < -1e-12 || rel > c.rel {
				t.Errorf("volume %v, analytic %v: %.3g%% below, allowed [0, %g%%]", v, c.volume, 100*rel, 100*c.rel)
			}
			lo, hi := Bounds(c.m.Positions)
			if lo.Sub(c.lo).Len() > 1e-12 || hi.Sub(c.hi).Len() > 1e-12 {
				t.Errorf("bounds %v %v, want %v %v", lo, hi, c.lo, c.hi)
			}
		})
	}
}

// TestPrimitivesExport writes every primitive's geometry as glTF does: the
// sharp edges of boxes and cylinders split vertices, the smooth shapes keep
// theirs. (TestRigidGLTFRoundTrip runs the validator over them.)
func TestPrimitivesExport(t *testing.T) {
	for _, c := range []struct {
		m     *Mesh
		split int // glTF vertices
	}{
		{BoxMesh(Vec3{1, 1, 1}), 24},
		{SphereMesh(1, 12), 2 + 5*12},
		{CapsuleMesh(1, 1, 12), 2 + 6*12},
		{CylinderMesh(1, 1, 12), 2 + 4*12},
	} {
		g := writeGeometry(newGLTFDocument(""), c.m)
		if len(g.verts.src) != c.split {
			t.Errorf("%s: %d glTF vertices, want %d", c.m.Name, len(g.verts.src), c.split)
		}
	}
}

// TestPrimitivesPanic checks that bad sizes are refused.
func TestPrimitivesPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"sphere radius 0":      func() { SphereMesh(0, 8) },
		"sphere 2 segments":    func() { SphereMesh(1, 2) },
		"capsule length -1":    func() { CapsuleMesh(1, -1, 8) },
		"cylinder length NaN":  func() { CylinderMesh(1, math.NaN(), 8) },
		"box infinite":         func() { BoxMesh(Vec3{1, math.Inf(1), 1}) },
		"capsule radius -0.25": func() { CapsuleMesh(-0.25, 1, 8) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestMergeMeshes merges two boxes: indices shifted, normals kept when
// every mesh has them and dropped otherwise.
func TestMergeMeshes(t *testing.T) {
	a, b := BoxMesh(Vec3{1, 1, 1}), BoxMesh(Vec3{2, 2, 2}).Translate(Vec3{5, 0, 0})
	m := MergeMeshes(a, b)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.NumVertices() != 2*a.NumVertices() || m.NumTriangles() != 2*a.NumTriangles() || len(m.Normals) != 2*len(a.Normals) {
		t.Fatalf("%d vertices, %d triangles, %d normals", m.NumVertices(), m.NumTriangles(), len(m.Normals))
	}
	last := m.Triangles[len(m.Triangles)-1]
	if p := m.Positions[last[0]]; p[0] < 4 {
		t.Errorf("the second box's last triangle uses vertex %v of the first", p)
	}
	bare := &Mesh{Positions: a.Positions, Triangles: a.Triangles}
	if m := MergeMeshes(a, bare); len(m.Normals) != 0 || len(m.NormalTriangles) != 0 {
		t.Errorf("normals kept though one mesh has none")
	}
}
