package collide

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/bvh"
)

// corners returns the corner positions of triangle f.
func corners(pos []mgl64.Vec3, tris [][3]int, f int) tri {
	t := tris[f]
	return tri{pos[t[0]], pos[t[1]], pos[t[2]]}
}

// brutePairs is MeshPairs by testing every pair of triangles (bounding
// boxes first), in index order.
func brutePairs(pa []mgl64.Vec3, ta [][3]int, pb []mgl64.Vec3, tb [][3]int) [][2]int {
	boxes := make([]bvh.AABB, len(tb))
	for j := range tb {
		c := corners(pb, tb, j)
		boxes[j] = triBox(&c)
	}
	var pairs [][2]int
	for i := range ta {
		a := corners(pa, ta, i)
		box := triBox(&a)
		for j := range tb {
			if box.Overlaps(boxes[j]) && TrianglesIntersect(a, corners(pb, tb, j)) {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	return pairs
}

// meshPairs collects MeshPairs(a, b).
func meshPairs(a, b *Mesh) [][2]int {
	var pairs [][2]int
	MeshPairs(a, b, func(i, j int) bool {
		pairs = append(pairs, [2]int{i, j})
		return true
	})
	return pairs
}

// TestMeshPairsHorse compares MeshPairs and MeshesIntersect with brute
// force over all triangle pairs, between frames of the galloping horse
// (every third triangle, for time): two poses in place, a pose and its
// copy moved a little, a pose and itself (every triangle coincides with
// its copy and touches its neighbours' copies), and a pose and a copy
// moved clear of it.
func TestMeshPairsHorse(t *testing.T) {
	p1, tris := loadHorse(t, "0001")
	p24, _ := loadHorse(t, "0024")
	var sub [][3]int
	for f := 0; f < len(tris); f += 3 {
		sub = append(sub, tris[f])
	}
	for _, c := range []struct {
		name    string
		pa, pb  []mgl64.Vec3
		atLeast int // pairs expected at least
	}{
		{"0001 and 0024", p1, p24, 100},
		{"0001 and itself moved 0.02 along x", p1, translate(p1, mgl64.Vec3{0.02, 0, 0}), 100},
		{"0001 and itself", p1, p1, len(sub)},
		{"0001 and itself moved clear", p1, translate(p1, mgl64.Vec3{0.5, 0, 0}), 0},
	} {
		want := brutePairs(c.pa, sub, c.pb, sub)
		a, b := NewMesh(c.pa, sub), NewMesh(c.pb, sub)
		got := meshPairs(a, b)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: MeshPairs found %d pairs, brute force %d", c.name, len(got), len(want))
		}
		if len(want) < c.atLeast {
			t.Errorf("%s: %d intersecting pairs, expected at least %d", c.name, len(want), c.atLeast)
		}
		for _, ab := range [2][2]*Mesh{{a, b}, {b, a}} {
			if got := MeshesIntersect(ab[0], ab[1]); got != (len(want) > 0) {
				t.Errorf("%s: MeshesIntersect = %v with %d intersecting pairs", c.name, got, len(want))
			}
		}
		t.Logf("%s: %d intersecting triangle pairs", c.name, len(want))
	}
}

// TestMeshRefit checks that a mesh built in one pose and refitted to
// another answers as one built in the other.
func TestMeshRefit(t *testing.T) {
	p1, tris := loadHorse(t, "0001")
	p24, _ := loadHorse(t, "0024")
	other := NewMesh(translate(p1, mgl64.Vec3{0.03, 0.01, 0}), tris)
	refit := NewMesh(p1, tris)
	refit.Refit(p24)
	fresh := NewMesh(p24, tris)
	got, want := meshPairs(refit, other), meshPairs(fresh, other)
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("refitted mesh: %d pairs, a mesh built in the pose: %d", len(got), len(want))
	}
	if refit.Bounds() != fresh.Bounds() {
		t.Errorf("refitted bounds %v, built %v", refit.Bounds(), fresh.Bounds())
	}
}

// TestMeshPairsStop checks that MeshPairs stops when fn returns false.
func TestMeshPairsStop(t *testing.T) {
	a := NewMesh([]mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}, [][3]int{{0, 1, 2}, {1, 3, 2}})
	calls := 0
	MeshPairs(a, a, func(i, j int) bool {
		calls++
		return false
	})
	if calls != 1 {
		t.Errorf("fn called %d times after returning false", calls)
	}
	if got := meshPairs(a, a); !reflect.DeepEqual(got, [][2]int{{0, 0}, {0, 1}, {1, 0}, {1, 1}}) {
		t.Errorf("MeshPairs of two triangles sharing an edge with themselves: %v", got)
	}
}

// TestMeshUnusualCoordinates checks that triangles with a non-finite
// corner intersect nothing while the others still do, also with
// coordinates outside the narrow range (decided in big integers).
func TestMeshUnusualCoordinates(t *testing.T) {
	pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {math.NaN(), 0, 0}, {0, math.Inf(1), 0}, {1e-300, 1e-300, 1}, {1e-300, 1e-300, -1}}
	a := NewMesh(pos, [][3]int{{0, 1, 3}, {0, 1, 2}, {0, 4, 2}})
	if got := meshPairs(a, a); !reflect.DeepEqual(got, [][2]int{{1, 1}}) {
		t.Errorf("pairs %v, want only triangle 1 with itself", got)
	}
	// A thin triangle through (10⁻³⁰⁰, 10⁻³⁰⁰, 0), inside triangle 1.
	b := NewMesh(pos[5:], [][3]int{{0, 1, 1}})
	if got := meshPairs(a, b); !reflect.DeepEqual(got, [][2]int{{1, 0}}) {
		t.Errorf("pairs with a wide triangle %v, want triangle 1 with it", got)
	}
	if !MeshesIntersect(a, b) || !MeshesIntersect(b, a) || !MeshesIntersect(a, a) {
		t.Error("MeshesIntersect misses the wide triangle or triangle 1")
	}
	if !a.Contains(mgl64.Vec3{0.25, 0.25, 0}) || a.Contains(mgl64.Vec3{0.25, 0.25, 1e-300}) {
		t.Error("Contains: a point on triangle 1 is not contained, or one off it is")
	}
	// A point whose ray meets only the box of a triangle with a NaN.
	c := NewMesh(append(pos[:5:5], mgl64.Vec3{5, 5, 5}, mgl64.Vec3{6, 5, 5}, mgl64.Vec3{5, 6, 5}), [][3]int{{0, 1, 3}, {5, 6, 7}})
	if c.Contains(mgl64.Vec3{0.5, 0, 0}) {
		t.Error("Contains: a point on a triangle with a NaN is contained")
	}
	if a.Contains(mgl64.Vec3{math.NaN(), 0, 0}) || SphereMesh(mgl64.Vec3{math.Inf(1), 0, 0}, 1, a) {
		t.Error("a non-finite point is contained or touches")
	}
}

func TestMeshPanics(t *testing.T) {
	pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"index out of range", func() { NewMesh(pos, [][3]int{{0, 1, 3}}) }},
		{"negative index", func() { NewMesh(pos, [][3]int{{0, -1, 2}}) }},
		{"Refit with another vertex count", func() { NewMesh(pos, [][3]int{{0, 1, 2}}).Refit(pos[:2]) }},
	} {
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "collide: ") {
					t.Errorf("%s: recovered %v, want a collide: panic", c.name, r)
				}
			}()
			c.f()
		}()
	}
}

// TestSphereMeshHorse compares SphereMesh with SphereTriangle on every
// triangle, for balls of several sizes around the horse.
func TestSphereMeshHorse(t *testing.T) {
	pos, tris := loadHorse(t, "0001")
	m := NewMesh(pos, tris)
	b := m.Bounds()
	rng := rand.New(rand.NewPCG(12, 12))
	hits := 0
	for i := range 200 {
		c := mgl64.Vec3{}
		for k := range 3 {
			c[k] = b.Min[k] + (b.Max[k]-b.Min[k])*(1.2*rng.Float64()-0.1)
		}
		r := []float64{0, 0.005, 0.02, 0.1, 0.5}[i%5]
		want := false
		for f := range tris {
			if SphereTriangle(c, r, corners(pos, tris, f)) {
				want = true
				break
			}
		}
		if got := SphereMesh(c, r, m); got != want {
			t.Fatalf("SphereMesh(%v, %g) = %v, brute force %v", c, r, got, want)
		}
		if want {
			hits++
		}
	}
	if hits < 20 || hits > 180 {
		t.Errorf("%d of 200 balls touch the horse: the test is lopsided", hits)
	}
	// A ball centred on a vertex always touches.
	if !SphereMesh(pos[100], 0, m) {
		t.Error("a ball of radius 0 on a vertex does not touch")
	}
}

// cube returns the 8 corners and 12 triangles of the box [0,1]³, each
// face split along its diagonal.
func cube() ([]mgl64.Vec3, [][3]int) {
	pos := make([]mgl64.Vec3, 8)
	for i := range pos {
		pos[i] = mgl64.Vec3{float64(i & 1), float64(i >> 1 & 1), float64(i >> 2 & 1)}
	}
	return pos, [][3]int{
		{0, 2, 3}, {0, 3, 1}, // z = 0
		{4, 5, 7}, {4, 7, 6}, // z = 1
		{0, 1, 5}, {0, 5, 4}, // y = 0
		{2, 6, 7}, {2, 7, 3}, // y = 1
		{0, 4, 6}, {0, 6, 2}, // x = 0
		{1, 3, 7}, {1, 7, 5}, // x = 1
	}
}

// TestContainsCube checks Contains on the unit cube at points inside,
// outside and on the surface, many of them on rays along +x that pass
// through edges, vertices or along faces of the surface.
func TestContainsCube(t *testing.T) {
	pos, tris := cube()
	m := NewMesh(pos, tris)
	for _, c := range []struct {
		p    mgl64.Vec3
		want bool
	}{
		{mgl64.Vec3{0.5, 0.5, 0.5}, true}, // the ray crosses x = 1 on its diagonal
		{mgl64.Vec3{0.3, 0.2, 0.9}, true}, // generic
		{mgl64.Vec3{-1, 0.5, 0.5}, false}, // through two face diagonals
		{mgl64.Vec3{-1, 0.3, 0.6}, false}, // generic, through the cube
		{mgl64.Vec3{2, 0.5, 0.5}, false},  // beyond, the ray meets nothing
		{mgl64.Vec3{-1, 0, 0}, false},     // along an edge of the cube
		{mgl64.Vec3{-1, 0, 0.5}, false},   // along the face y = 0
		{mgl64.Vec3{-1, 1, 1}, false},     // along the far edge
		{mgl64.Vec3{0.5, 0, 0.5}, true},   // on the face y = 0
		{mgl64.Vec3{0.5, 0, 0}, true},     // on an edge
		{mgl64.Vec3{1, 1, 1}, true},       // on a corner
		{mgl64.Vec3{0.5, 0.5, 0}, true},   // on a face's diagonal
		{mgl64.Vec3{up(1, 1), 0.5, 0.5}, false},
		{mgl64.Vec3{0.5, up(0, -1), 0.5}, false}, // an ulp off the face y = 0
		{mgl64.Vec3{0.5, up(0, 1), 0.5}, true},   // an ulp inside it
		{mgl64.Vec3{0.5, 0.5, up(1, -1)}, true},
		{mgl64.Vec3{0.5, 0.5, up(1, 1)}, false},
	} {
		if got := m.Contains(c.p); got != c.want {
			t.Errorf("Contains(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}

// closeHoles adds a vertex at the centroid of every boundary loop of a
// mesh (edges used by one triangle) and a fan of triangles from it,
// oriented like their neighbours, so that every edge has two triangles.
func closeHoles(tb testing.TB, pos []mgl64.Vec3, tris [][3]int) ([]mgl64.Vec3, [][3]int) {
	tb.Helper()
	count := map[[2]int]int{}
	for _, f := range tris {
		for i := range 3 {
			u, v := f[i], f[(i+1)%3]
			count[[2]int{min(u, v), max(u, v)}]++
		}
	}
	next := map[int]int{} // boundary edge u → v, reversed: the cap runs v → u
	for _, f := range tris {
		for i := range 3 {
			u, v := f[i], f[(i+1)%3]
			if count[[2]int{min(u, v), max(u, v)}] == 1 {
				next[v] = u
			}
		}
	}
	pos = append([]mgl64.Vec3(nil), pos...)
	tris = append([][3]int(nil), tris...)
	seen := map[int]bool{}
	for start := range next {
		if seen[start] {
			continue
		}
		var loop []int
		for v := start; !seen[v]; v = next[v] {
			seen[v] = true
			loop = append(loop, v)
		}
		var c mgl64.Vec3
		for _, v := range loop {
			c = c.Add(pos[v])
		}
		pos = append(pos, c.Mul(1/float64(len(loop))))
		ci := len(pos) - 1
		for i, v := range loop {
			tris = append(tris, [3]int{v, loop[(i+1)%len(loop)], ci})
		}
	}
	return pos, tris
}

// windingNumber returns the generalised winding number of the triangles
// around p: the sum of their signed solid angles (Van Oosterom and
// Strackee, IEEE Transactions on Biomedical Engineering 30(2), 1983) over
// 4π.
func windingNumber(pos []mgl64.Vec3, tris [][3]int, p mgl64.Vec3) float64 {
	sum := 0.0
	for _, f := range tris {
		a, b, c := pos[f[0]].Sub(p), pos[f[1]].Sub(p), pos[f[2]].Sub(p)
		la, lb, lc := a.Len(), b.Len(), c.Len()
		sum += 2 * math.Atan2(a.Dot(b.Cross(c)), la*lb*lc+a.Dot(b)*lc+a.Dot(c)*lb+b.Dot(c)*la)
	}
	return sum / (4 * math.Pi)
}

// TestContainsHorse compares Contains with the parity of the winding
// number at random points around the horse (its holes capped), away from
// the surface where the winding number is near an integer; the horse's
// own vertices are on the surface, so contained.
func TestContainsHorse(t *testing.T) {
	pos, tris := loadHorse(t, "0001")
	pos, tris = closeHoles(t, pos, tris)
	m := NewMesh(pos, tris)
	b := m.Bounds()
	rng := rand.New(rand.NewPCG(13, 13))
	inside, tested := 0, 0
	for range 400 {
		var p mgl64.Vec3
		for k := range 3 {
			p[k] = b.Min[k] + (b.Max[k]-b.Min[k])*(1.1*rng.Float64()-0.05)
		}
		if rng.IntN(4) == 0 { // on the ray through a vertex
			v := pos[rng.IntN(len(pos))]
			p[1], p[2] = v[1], v[2]
		}
		w := windingNumber(pos, tris, p)
		r := math.Round(w)
		if math.Abs(w-r) > 0.01 {
			continue // too near the surface for the reference
		}
		tested++
		want := int(math.Abs(r))%2 == 1
		if want {
			inside++
		}
		if got := m.Contains(p); got != want {
			t.Fatalf("Contains(%v) = %v, winding number %.4f", p, got, w)
		}
	}
	if tested < 300 || inside < 20 {
		t.Errorf("tested %d points, %d inside: too few", tested, inside)
	}
	for i := 0; i < len(pos); i += 97 {
		if !m.Contains(pos[i]) {
			t.Errorf("vertex %d %v is not contained", i, pos[i])
		}
	}
}

// TestNested checks the documented containment recipe: a small
// tetrahedron deep inside the horse meets no triangle of it, but the horse
// contains its vertices; one outside is not contained.
func TestNested(t *testing.T) {
	pos, tris := loadHorse(t, "0001")
	pos, tris = closeHoles(t, pos, tris)
	horse := NewMesh(pos, tris)
	tet := func(c mgl64.Vec3, s float64) *Mesh {
		return NewMesh([]mgl64.Vec3{c, c.Add(mgl64.Vec3{s, 0, 0}), c.Add(mgl64.Vec3{0, s, 0}), c.Add(mgl64.Vec3{0, 0, s})},
			[][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}})
	}
	// A point inside the horse at least 0.02 from its surface, by the
	// winding number.
	b := horse.Bounds()
	rng := rand.New(rand.NewPCG(14, 14))
	var c mgl64.Vec3
	for {
		for k := range 3 {
			c[k] = b.Min[k] + (b.Max[k]-b.Min[k])*rng.Float64()
		}
		if w := windingNumber(pos, tris, c); math.Abs(math.Abs(w)-1) < 0.01 && !SphereMesh(c, 0.02, horse) {
			break
		}
	}
	in := tet(c, 0.01)
	if MeshesIntersect(in, horse) || MeshesIntersect(horse, in) || !horse.Contains(c) {
		t.Fatalf("a tetrahedron at %v: surfaces meet %v, contained %v; want false, true", c, MeshesIntersect(in, horse), horse.Contains(c))
	}
	if in.Contains(pos[0]) {
		t.Error("the tetrahedron contains a horse vertex")
	}
	if SphereMesh(c, 0.01, horse) || !horse.Contains(c) {
		t.Error("a small ball in the body touches the surface or is not contained")
	}
	out := tet(b.Max.Add(mgl64.Vec3{0.1, 0.1, 0.1}), 0.01)
	if MeshesIntersect(out, horse) || horse.Contains(b.Max.Add(mgl64.Vec3{0.1, 0.1, 0.1})) {
		t.Error("a tetrahedron outside the horse meets it or is contained")
	}
}
