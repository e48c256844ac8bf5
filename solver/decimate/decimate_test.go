package decimate

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/meshgraph"
)

// check verifies a result's promises against the full mesh: the kept
// vertices ascending and used, the triangles on them without repeats and
// degenerate ones, every edge on at most two triangles, each full vertex
// owned by a kept one, and the topology (components, boundary edges per
// component, Euler characteristic) that of the full mesh. It returns the
// worst shape quality.
func check(t *testing.T, pos []mgl64.Vec3, tris [][3]int, r *Result) float64 {
	t.Helper()
	if !slices.IsSorted(r.Kept) {
		t.Fatal("kept vertices not ascending")
	}
	k := len(r.Kept)
	used := make([]bool, k)
	seen := map[[3]int]bool{}
	edges := map[[2]int]int{}
	worst := 1.0
	for f, tr := range r.Triangles {
		s := tr
		slices.Sort(s[:])
		if s[0] < 0 || s[2] >= k || s[0] == s[1] || s[1] == s[2] {
			t.Fatalf("coarse triangle %d %v is bad", f, tr)
		}
		if seen[s] {
			t.Fatalf("coarse triangle %d %v repeats another", f, tr)
		}
		seen[s] = true
		for c := range 3 {
			used[tr[c]] = true
			a, b := tr[c], tr[(c+1)%3]
			edges[[2]int{min(a, b), max(a, b)}]++
		}
		q, _ := quality(pos[r.Kept[tr[0]]], pos[r.Kept[tr[1]]], pos[r.Kept[tr[2]]])
		worst = math.Min(worst, q)
	}
	for i, u := range used {
		if !u {
			t.Fatalf("kept vertex %d (full %d) on no triangle", i, r.Kept[i])
		}
	}
	boundary := 0
	for e, c := range edges {
		if c > 2 {
			t.Fatalf("edge %v on %d triangles", e, c)
		}
		if c == 1 {
			boundary++
		}
	}
	for u, o := range r.Owner {
		if o < 0 || o >= k {
			t.Fatalf("full vertex %d owned by %d", u, o)
		}
		if i, ok := slices.BinarySearch(r.Kept, u); ok && o != i {
			t.Fatalf("kept vertex %d owned by %d, not itself", u, o)
		}
	}
	_, c0 := meshgraph.Components(len(pos), tris)
	_, c1 := meshgraph.Components(k, r.Triangles)
	if c0 != c1 {
		t.Errorf("%d components, the full mesh has %d", c1, c0)
	}
	// Euler characteristic V − E + F.
	fullEdges := map[[2]int]int{}
	for _, tr := range tris {
		for c := range 3 {
			a, b := tr[c], tr[(c+1)%3]
			fullEdges[[2]int{min(a, b), max(a, b)}]++
		}
	}
	fullBoundary := 0
	for _, c := range fullEdges {
		if c == 1 {
			fullBoundary++
		}
	}
	chi0 := len(pos) - len(fullEdges) + len(tris)
	chi1 := k - len(edges) + len(r.Triangles)
	if chi0 != chi1 {
		t.Errorf("Euler characteristic %d, the full mesh's %d", chi1, chi0)
	}
	if (fullBoundary == 0) != (boundary == 0) {
		t.Errorf("%d boundary edges, the full mesh has %d", boundary, fullBoundary)
	}
	return worst
}

func load(t *testing.T, elem ...string) *assets.Mesh {
	t.Helper()
	m, err := assets.LoadOBJ(shareddata.Path(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSimplifyKeepsTopologyAndShape simplifies real meshes made by
// others, closed (the horse, subdivided as the bench's production mesh),
// open (the reeds' clump, many components with boundaries) and the
// elastic cow: each reaches its target, keeps its topology, has no
// triangle worse than the quality bound, and its owners stay near what
// they stand for (on the closed meshes every full vertex within 1.5 and
// 4% of the bounding box's diagonal from its owner).
func TestSimplifyKeepsTopologyAndShape(t *testing.T) {
	cases := []struct {
		name   string
		mesh   *assets.Mesh
		target int
		near   float64
	}{
		{"horse-gallop x4", assets.SubdivideMidpoint(load(t, "horse-gallop", "reference.obj")), 8000, 0.015},
		{"pcow", load(t, "pcow", "reference.obj"), 800, 0.04},
		// Flat strips: their length is what goes (a reed of 48
		// vertices keeps 12), so owners lie far along them.
		{"ensemble-reeds", load(t, "ensemble-reeds", "reference.obj"), 0, 0.3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pos, tris := c.mesh.Positions, c.mesh.Triangles
			target := c.target
			if target == 0 {
				target = len(pos) / 4
			}
			r, err := Simplify(pos, tris, target)
			if err != nil {
				t.Fatal(err)
			}
			worst := check(t, pos, tris, r)
			if worst < minQuality {
				t.Errorf("a coarse triangle of quality %.3f, below %g", worst, minQuality)
			}
			if len(r.Kept) > target+target/20 {
				t.Errorf("%d vertices kept, the target is %d", len(r.Kept), target)
			}
			lo, hi := assets.Bounds(pos)
			diag := hi.Sub(lo).Len()
			far := 0.0
			for u, o := range r.Owner {
				far = math.Max(far, pos[u].Sub(pos[r.Kept[o]]).Len()/diag)
			}
			if far > c.near {
				t.Errorf("a vertex %.3g of the diagonal from its owner, more than %.3g", far, c.near)
			}
			t.Logf("%d → %d vertices, %d triangles; worst quality %.3f; farthest owner %.4f of the diagonal", len(pos), len(r.Kept), len(r.Triangles), worst, far)
		})
	}
}

// TestSimplifyBadInput: bad input is refused by name, never a panic.
func TestSimplifyBadInput(t *testing.T) {
	pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	tet := [][3]int{{0, 2, 1}, {0, 1, 3}, {1, 2, 3}, {0, 3, 2}}
	for _, c := range []struct {
		name   string
		pos    []mgl64.Vec3
		tris   [][3]int
		target int
	}{
		{"index", pos, [][3]int{{0, 1, 4}}, 4},
		{"negative", pos, [][3]int{{0, -1, 2}}, 4},
		{"repeat", pos, [][3]int{{0, 1, 1}}, 4},
		{"nan", []mgl64.Vec3{{math.NaN(), 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, tet, 4},
		{"target", pos, tet, 3},
	} {
		if _, err := Simplify(c.pos, c.tris, c.target); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	// A tetrahedron cannot lose a vertex and stay a closed surface.
	r, err := Simplify(pos, tet, 4)
	if err != nil || len(r.Kept) != 4 || len(r.Triangles) != 4 {
		t.Fatalf("tetrahedron: %v, %+v", err, r)
	}
}

// FuzzSimplify: any small mesh (positions on a coarse grid, so that
// coincident and collinear vertices and repeated, flipped and
// non-manifold triangles are common) either is refused with an error or
// gives a result that keeps its promises: kept vertices ascending, each
// triangle on three distinct kept vertices, every used vertex owned by a
// kept one, unused ones by none. Never a panic or a hang.
func FuzzSimplify(f *testing.F) {
	f.Add([]byte{4, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 2, 1, 0, 1, 3, 1, 2, 3, 0, 3, 2})
	f.Add([]byte{6, 4, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 2, 2, 2, 3, 3, 0, 0, 1, 2, 1, 2, 3, 2, 3, 4, 3, 4, 5, 0, 2, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := int(data[0]%16) + 1
		target := int(data[1]%16) + 1
		data = data[2:]
		if len(data) < 3*n {
			return
		}
		pos := make([]mgl64.Vec3, n)
		for i := range pos {
			pos[i] = mgl64.Vec3{float64(data[3*i] % 4), float64(data[3*i+1] % 4), float64(data[3*i+2] % 4)}
		}
		data = data[3*n:]
		var tris [][3]int
		for len(data) >= 3 && len(tris) < 40 {
			tris = append(tris, [3]int{int(data[0]) % (n + 1), int(data[1]) % (n + 1), int(data[2]) % (n + 1)})
			data = data[3:]
		}
		r, err := Simplify(pos, tris, target)
		if err != nil {
			return
		}
		if !slices.IsSorted(r.Kept) || len(r.Owner) != n {
			t.Fatalf("kept %v, %d owners for %d vertices", r.Kept, len(r.Owner), n)
		}
		used := make([]bool, n)
		for _, tr := range tris {
			for _, v := range tr {
				used[v] = true
			}
		}
		for _, tr := range r.Triangles {
			for c, a := range tr {
				if a < 0 || a >= len(r.Kept) || a == tr[(c+1)%3] {
					t.Fatalf("coarse triangle %v over %d kept vertices", tr, len(r.Kept))
				}
			}
		}
		for u, o := range r.Owner {
			if (o >= 0) != used[u] || o >= len(r.Kept) {
				t.Fatalf("vertex %d (used %v) owned by %d of %d", u, used[u], o, len(r.Kept))
			}
		}
	})
}
