package assets

import (
	"testing"

	"gallop/internal/shareddata"
)

func TestSubdivideMidpointBar(t *testing.T) {
	m := DemoBar()
	s := SubdivideMidpoint(m)
	// Euler: E = 3F/2 on a closed surface; V' = V + E, F' = 4F.
	e := 3 * m.NumTriangles() / 2
	if s.NumVertices() != m.NumVertices()+e || s.NumTriangles() != 4*m.NumTriangles() {
		t.Fatalf("%d vertices, %d triangles; want %d, %d", s.NumVertices(), s.NumTriangles(), m.NumVertices()+e, 4*m.NumTriangles())
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// Area is preserved: the four children tile the parent.
	area := func(p []Vec3, tris [][3]int) float64 {
		a := 0.0
		for _, t := range tris {
			a += p[t[1]].Sub(p[t[0]]).Cross(p[t[2]].Sub(p[t[0]])).Len() / 2
		}
		return a
	}
	if a, b := area(m.Positions, m.Triangles), area(s.Positions, s.Triangles); absf(a-b) > 1e-9*a {
		t.Fatalf("area %v became %v", a, b)
	}
	// Orientation is kept: every child normal agrees with its parent's.
	for f, tr := range m.Triangles {
		n := m.Positions[tr[1]].Sub(m.Positions[tr[0]]).Cross(m.Positions[tr[2]].Sub(m.Positions[tr[0]]))
		for c := 0; c < 4; c++ {
			ct := s.Triangles[4*f+c]
			cn := s.Positions[ct[1]].Sub(s.Positions[ct[0]]).Cross(s.Positions[ct[2]].Sub(s.Positions[ct[0]]))
			if cn.Dot(n) <= 0 {
				t.Fatalf("child %d of triangle %d flipped", c, f)
			}
		}
	}
	// Another pose subdivides to the same topology consistently.
	bent := DemoBarBent(DemoBendAngle)
	p := SubdivideMidpointPositions(m, bent)
	for f, tr := range m.Triangles {
		ab := s.Triangles[4*f][1]
		if p[ab] != bent[tr[0]].Add(bent[tr[1]]).Mul(0.5) {
			t.Fatalf("triangle %d: edge vertex %d is not the midpoint in the bent pose", f, ab)
		}
	}
	if len(s.Groups) != 3 || len(s.Groups[0].Triangles) != 4*len(m.Groups[0].Triangles) {
		t.Fatal("groups not carried over")
	}
}

func TestSubdivideMidpointHorse(t *testing.T) {
	m, err := LoadOBJ(shareddata.Path(t, "horse-poses", "reference.obj"))
	if err != nil {
		t.Fatal(err)
	}
	s := SubdivideMidpoint(m)
	if s.NumVertices() != 33705 || s.NumTriangles() != 67372 {
		t.Fatalf("subdivided horse: %d vertices, %d triangles; want 33,705 and 67,372", s.NumVertices(), s.NumTriangles())
	}
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
