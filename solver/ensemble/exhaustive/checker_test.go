package exhaustive

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/collide"
)

// square is a parent group: the unit square in z = 0 as two triangles,
// vertices 0 (0,0,0), 1 (1,0,0), 2 (1,1,0), 3 (0,1,0).
var squareVerts = []mgl64.Vec3{v(0, 0, 0), v(1, 0, 0), v(1, 1, 0), v(0, 1, 0)}

func TestFrameHandMade(t *testing.T) {
	// Group 0: the square. Group 1 (vertices 4-6): a triangle hanging from
	// the square's corner 2, touching the square only there. Group 2
	// (vertices 7-9): a triangle piercing the square at (0.25, 0.5, 0).
	// Group 3 (vertices 10-12): far away.
	pos := append(slices.Clone(squareVerts),
		v(1, 1, 0), v(1.5, 1.5, -1), v(1.2, 1.8, -1),
		v(0.25, 0.5, -1), v(0.25, 0.5, 1), v(0.25, 2, 0),
		v(5, 5, 5), v(6, 5, 5), v(5, 6, 5),
	)
	groups := []Group{
		{First: 0, Count: 4, Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}}, Parent: -1},
		{First: 4, Count: 3, Triangles: [][3]int{{0, 1, 2}}, Parent: 0},
		{First: 7, Count: 3, Triangles: [][3]int{{0, 1, 2}}, Parent: -1},
		{First: 10, Count: 3, Triangles: [][3]int{{0, 1, 2}}, Parent: -1},
	}
	run := func(groups []Group) []Pair {
		c, err := New(groups, len(pos))
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Frame(pos)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// Without the attachment, group 1 touches the square at its corner.
	if got, want := run(groups), []Pair{{0, 1, 0, 0}, {0, 2, 1, 0}}; !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// Sewn: group 1's vertex 0 is the square's vertex 2, held by both of
	// its triangles: skipped.
	groups[1].Attach = []Attachment{{Vertex: 0, ParentVertex: 2}}
	if got, want := run(groups), []Pair{{0, 2, 1, 0}}; !slices.Equal(got, want) {
		t.Fatalf("sewn: got %v, want %v", got, want)
	}
	// Sewn, but the triangle also crosses a parent triangle elsewhere:
	// only triangle pairs sharing the sewn vertex are skipped, so a
	// second child triangle crossing the square is found.
	pos[6] = v(0.5, 0.2, -1)
	groups[1].Count = 4
	groups[1].Triangles = append(groups[1].Triangles, [3]int{1, 2, 3})
	groups[2].First, groups[3].First = 8, 11
	pos = slices.Insert(pos, 7, v(0.5, 0.2, 1))
	if got, want := run(groups), []Pair{{0, 1, 0, 1}, {0, 2, 1, 0}}; !slices.Equal(got, want) {
		t.Fatalf("sewn and crossing: got %v, want %v", got, want)
	}
}

func TestNewAndFrameErrors(t *testing.T) {
	one := [][3]int{{0, 1, 2}}
	bad := []struct {
		groups []Group
		want   string
	}{
		{[]Group{{First: 0, Count: 4, Triangles: one, Parent: -1}, {First: 3, Count: 3, Triangles: one, Parent: -1}}, "overlap"},
		{[]Group{{First: 0, Count: 7, Triangles: one, Parent: -1}}, "outside the 6 vertices"},
		{[]Group{{First: 0, Count: 3, Triangles: [][3]int{{0, 1, 3}}, Parent: -1}}, "triangle 0"},
		{[]Group{{First: 0, Count: 3, Triangles: one, Parent: 0}}, "parent 0"},
		{[]Group{{First: 0, Count: 3, Triangles: one, Parent: 2}}, "parent 2"},
		{[]Group{{First: 0, Count: 3, Triangles: one, Parent: -1, Attach: []Attachment{{0, 0}}}}, "no parent"},
		{[]Group{{First: 0, Count: 3, Triangles: one, Parent: -1}, {First: 3, Count: 3, Triangles: one, Parent: 0, Attach: []Attachment{{0, 3}}}}, "attachment 0 → 3"},
	}
	for _, b := range bad {
		_, err := New(b.groups, 6)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want one naming %q", b.groups, err, b.want)
		}
	}
	c, err := New([]Group{{First: 0, Count: 3, Triangles: one, Parent: -1}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Frame(make([]mgl64.Vec3, 4)); err == nil {
		t.Error("a frame of 4 vertices accepted")
	}
	if _, err := c.Frames([][]mgl64.Vec3{make([]mgl64.Vec3, 3), {{}, {math.NaN(), 0, 0}, {}}}); err == nil || !strings.Contains(err.Error(), "frame 1: exhaustive: vertex 1") {
		t.Errorf("NaN frame: %v", err)
	}
}

// TestFramesAgainstCollide compares the checker with a naive loop over
// collide.TrianglesIntersect on random ensembles of small triangles, some
// sewn to a parent.
func TestFramesAgainstCollide(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const g, per = 5, 8 // groups, vertices per group
	groups := make([]Group, g)
	for k := range groups {
		groups[k] = Group{First: k * per, Count: per, Parent: -1}
		for range 6 {
			groups[k].Triangles = append(groups[k].Triangles, [3]int{rng.IntN(per), rng.IntN(per), rng.IntN(per)})
		}
		if k > 0 {
			groups[k].Parent = 0
			groups[k].Attach = []Attachment{{Vertex: 0, ParentVertex: k}}
		}
	}
	c, err := New(groups, g*per)
	if err != nil {
		t.Fatal(err)
	}
	sewn := func(k, tk, l, tl int) bool { // the rule, restated
		if groups[k].Parent != l {
			if groups[l].Parent != k {
				return false
			}
			k, tk, l, tl = l, tl, k, tk
		}
		for _, a := range groups[k].Attach {
			if slices.Contains(groups[k].Triangles[tk][:], a.Vertex) && slices.Contains(groups[l].Triangles[tl][:], a.ParentVertex) {
				return true
			}
		}
		return false
	}
	var frames [][]mgl64.Vec3
	for range 300 {
		pos := make([]mgl64.Vec3, g*per)
		for k := range g { // each group within a random cube of side 2 in [0, 6)³
			o := v(float64(rng.IntN(5)), float64(rng.IntN(5)), float64(rng.IntN(5)))
			for i := range per {
				pos[k*per+i] = o.Add(v(float64(rng.IntN(3)), float64(rng.IntN(3)), float64(rng.IntN(3))))
			}
		}
		for k := 1; k < g; k++ { // sewn vertices coincide
			pos[groups[k].First] = pos[k]
		}
		frames = append(frames, pos)
	}
	got, err := c.Frames(frames)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for f, pos := range frames {
		var want [][2]int
		for k := range groups {
			for l := k + 1; l < g; l++ {
			pairs:
				for tk, a := range groups[k].Triangles {
					for tl, b := range groups[l].Triangles {
						ta := [3]mgl64.Vec3{pos[groups[k].First+a[0]], pos[groups[k].First+a[1]], pos[groups[k].First+a[2]]}
						tb := [3]mgl64.Vec3{pos[groups[l].First+b[0]], pos[groups[l].First+b[1]], pos[groups[l].First+b[2]]}
						if !sewn(k, tk, l, tl) && collide.TrianglesIntersect(ta, tb) {
							want = append(want, [2]int{k, l})
							break pairs
						}
					}
				}
			}
		}
		var have [][2]int
		for _, p := range got[f] {
			have = append(have, [2]int{p.K, p.L})
			ta, tb := groups[p.K].Triangles[p.TK], groups[p.L].Triangles[p.TL]
			if sewn(p.K, p.TK, p.L, p.TL) || !collide.TrianglesIntersect(
				[3]mgl64.Vec3{pos[groups[p.K].First+ta[0]], pos[groups[p.K].First+ta[1]], pos[groups[p.K].First+ta[2]]},
				[3]mgl64.Vec3{pos[groups[p.L].First+tb[0]], pos[groups[p.L].First+tb[1]], pos[groups[p.L].First+tb[2]]}) {
				t.Fatalf("frame %d: witness %+v does not hold", f, p)
			}
		}
		if !slices.Equal(have, want) {
			t.Fatalf("frame %d: got %v, want %v", f, have, want)
		}
		n += len(want)
	}
	t.Logf("%d intersecting pairs in 300 frames", n)
	if n < 300 || n > 300*g*(g-1)/2*9/10 {
		t.Errorf("weak test: %d pairs in 300 frames", n)
	}
}
