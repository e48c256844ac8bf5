package bvh

import (
	"bufio"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/shareddata"
)

// loadOBJ reads the `v` and `f` lines of a triangle-only OBJ file: just
// enough for these tests, independent of the assets package's reader.
func loadOBJ(tb testing.TB, path string) ([]mgl64.Vec3, [][3]int) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var pos []mgl64.Vec3
	var tris [][3]int
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || (fields[0] != "v" && fields[0] != "f") {
			continue
		}
		var x [3]float64
		for i, s := range fields[1:] {
			s, _, _ = strings.Cut(s, "/")
			x[i], err = strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		if fields[0] == "v" {
			pos = append(pos, x)
		} else {
			tris = append(tris, [3]int{int(x[0]) - 1, int(x[1]) - 1, int(x[2]) - 1})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return pos, tris
}

func loadHorse(tb testing.TB) ([]mgl64.Vec3, [][3]int) {
	return loadOBJ(tb, shareddata.Path(tb, "horse-poses", "reference.obj"))
}

// bruteIntersect is Intersect by testing every triangle, in index order.
func bruteIntersect(pos []mgl64.Vec3, tris [][3]int, o, d mgl64.Vec3, tMax float64) (Hit, bool) {
	r := newRay(o, d)
	best := Hit{Triangle: -1}
	for f, tri := range tris {
		v := [3]mgl64.Vec3{pos[tri[0]], pos[tri[1]], pos[tri[2]]}
		if th, u, w, ok := r.triangle(&v, tMax); ok {
			tMax = th
			best = Hit{Triangle: f, T: th, U: u, V: w}
		}
	}
	return best, best.Triangle >= 0
}

// checkHit compares a tree's answer with the brute-force one. Equidistant
// hits on different triangles (shared edges and vertices) are both right.
func checkHit(t *testing.T, what string, got Hit, gotOK bool, want Hit, wantOK bool) {
	t.Helper()
	if gotOK != wantOK {
		t.Fatalf("%s: hit = %v (%+v), brute force %v (%+v)", what, gotOK, got, wantOK, want)
	}
	if !gotOK {
		return
	}
	for _, x := range []float64{got.T, got.U, got.V} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("%s: non-finite hit %+v", what, got)
		}
	}
	if got.Triangle == want.Triangle {
		if got != want {
			t.Fatalf("%s: hit %+v, brute force %+v", what, got, want)
		}
		return
	}
	if math.Abs(got.T-want.T) > 1e-12*math.Abs(want.T) {
		t.Fatalf("%s: hit %+v, brute force %+v", what, got, want)
	}
}

// randomRays returns n rays aimed through box: half start outside it (on a
// sphere around it) and point at a random inside point, half start inside
// and point in a random direction. Directions are not normalised.
func randomRays(rng *rand.Rand, box AABB, n int) (origins, dirs []mgl64.Vec3) {
	c := box.Min.Add(box.Max).Mul(0.5)
	ext := box.Max.Sub(box.Min)
	r := ext.Len()
	inside := func() mgl64.Vec3 {
		return mgl64.Vec3{
			box.Min[0] + rng.Float64()*ext[0],
			box.Min[1] + rng.Float64()*ext[1],
			box.Min[2] + rng.Float64()*ext[2],
		}
	}
	unit := func() mgl64.Vec3 {
		for {
			v := mgl64.Vec3{2*rng.Float64() - 1, 2*rng.Float64() - 1, 2*rng.Float64() - 1}
			if l := v.Len(); l > 0.1 && l < 1 {
				return v.Mul(1 / l)
			}
		}
	}
	for i := range n {
		if i%2 == 0 {
			o := c.Add(unit().Mul(r))
			origins = append(origins, o)
			dirs = append(dirs, inside().Sub(o).Mul(0.1+rng.Float64()))
		} else {
			origins = append(origins, inside())
			dirs = append(dirs, unit().Mul(0.1+rng.Float64()))
		}
	}
	return origins, dirs
}

// soup returns n random triangles in the unit cube of mixed sizes, with
// some zero-area ones (repeated or collinear corners) and some sharing
// vertices.
func soup(rng *rand.Rand, n int) ([]mgl64.Vec3, [][3]int) {
	var pos []mgl64.Vec3
	var tris [][3]int
	rnd := func() mgl64.Vec3 { return mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()} }
	for f := range n {
		base := len(pos)
		a := rnd()
		size := math.Pow(10, -3*rng.Float64())
		b := a.Add(rnd().Sub(mgl64.Vec3{0.5, 0.5, 0.5}).Mul(size))
		c := a.Add(rnd().Sub(mgl64.Vec3{0.5, 0.5, 0.5}).Mul(size))
		switch f % 10 {
		case 7:
			c = b // two equal corners
		case 8:
			c = a.Add(b.Sub(a).Mul(2)) // collinear corners
		}
		pos = append(pos, a, b, c)
		tri := [3]int{base, base + 1, base + 2}
		if f%5 == 4 && base > 0 {
			tri[0] = rng.IntN(base) // share a vertex with an earlier triangle
		}
		tris = append(tris, tri)
	}
	return pos, tris
}

// checkStructure verifies the invariants of the flattened tree: children
// adjacent and after their parent, every slot in exactly one leaf of at most
// MaxLeafSize triangles, boxes containing their contents, ids and slots
// inverse, depth within the traversal stacks.
func checkStructure(t *testing.T, tr *Tree, pos []mgl64.Vec3, tris [][3]int) {
	t.Helper()
	n := len(tris)
	if len(tr.ids) != n || len(tr.slots) != n || len(tr.verts) != n || len(tr.tris) != n {
		t.Fatalf("tables of %d, %d, %d, %d entries for %d triangles", len(tr.ids), len(tr.slots), len(tr.verts), len(tr.tris), n)
	}
	if n == 0 {
		if len(tr.nodes) != 0 {
			t.Fatalf("%d nodes for no triangles", len(tr.nodes))
		}
		return
	}
	for s, f := range tr.ids {
		if tr.slots[f] != int32(s) {
			t.Fatalf("slots[ids[%d]] = %d", s, tr.slots[f])
		}
		tri := tris[f]
		if tr.tris[s] != [3]int32{int32(tri[0]), int32(tri[1]), int32(tri[2])} {
			t.Fatalf("slot %d holds %v, triangle %d is %v", s, tr.tris[s], f, tri)
		}
	}
	contains := func(outer, inner AABB) bool {
		for k := range 3 {
			if inner.Min[k] < outer.Min[k] || inner.Max[k] > outer.Max[k] {
				return false
			}
		}
		return true
	}
	covered := make([]int, n)
	maxDepth := 0
	var walk func(i int32, depth int)
	walk = func(i int32, depth int) {
		maxDepth = max(maxDepth, depth)
		nd := tr.nodes[i]
		if nd.count > 0 {
			if nd.count > MaxLeafSize {
				t.Fatalf("leaf %d has %d triangles", i, nd.count)
			}
			for s := nd.start; s < nd.start+nd.count; s++ {
				covered[s]++
				tri := tris[tr.ids[s]]
				v := [3]mgl64.Vec3{pos[tri[0]], pos[tri[1]], pos[tri[2]]}
				if tr.verts[s] != v {
					t.Fatalf("slot %d has corners %v, want %v", s, tr.verts[s], v)
				}
				if !contains(nd.box, triangleBox(&v)) {
					t.Fatalf("leaf %d box %v does not contain triangle %d", i, nd.box, tr.ids[s])
				}
			}
			return
		}
		if nd.start <= i || int(nd.start)+1 >= len(tr.nodes) {
			t.Fatalf("node %d has children at %d, %d of %d nodes", i, nd.start, nd.start+1, len(tr.nodes))
		}
		for _, c := range []int32{nd.start, nd.start + 1} {
			if !contains(nd.box, tr.nodes[c].box) {
				t.Fatalf("node %d box %v does not contain child %d box %v", i, nd.box, c, tr.nodes[c].box)
			}
			walk(c, depth+1)
		}
	}
	walk(0, 0)
	for s, c := range covered {
		if c != 1 {
			t.Fatalf("slot %d is in %d leaves", s, c)
		}
	}
	if maxDepth >= stackSize {
		t.Fatalf("depth %d exceeds the traversal stack of %d", maxDepth, stackSize)
	}
}

func TestStructureHorse(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	checkStructure(t, tr, pos, tris)
	lo, hi := pos[0], pos[0]
	for _, p := range pos {
		for k := range 3 {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	if b := tr.Bounds(); b.Min != lo || b.Max != hi {
		t.Errorf("Bounds() = %v, want {%v %v}", b, lo, hi)
	}
	t.Logf("%d triangles, %d nodes", len(tris), len(tr.nodes))
}

func TestParallelBuildMatchesSequential(t *testing.T) {
	pos, tris := loadHorse(t)
	seq := build(pos, tris, 0)
	for _, depth := range []int{1, 2, 4} {
		if par := build(pos, tris, depth); !reflect.DeepEqual(par, seq) {
			t.Fatalf("parallel build to depth %d differs from the sequential one", depth)
		}
	}
}

func TestIntersectHorse(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	rng := rand.New(rand.NewPCG(1, 2))
	origins, dirs := randomRays(rng, tr.Bounds(), 2000)
	hits := 0
	for i := range origins {
		tMax := math.Inf(1)
		if i%4 == 3 {
			tMax = rng.Float64() * 2 // a bounded segment
		}
		got, ok := tr.Intersect(origins[i], dirs[i], tMax)
		want, wantOK := bruteIntersect(pos, tris, origins[i], dirs[i], tMax)
		checkHit(t, fmt.Sprintf("ray %d", i), got, ok, want, wantOK)
		if any := tr.IntersectAny(origins[i], dirs[i], tMax); any != wantOK {
			t.Fatalf("ray %d: IntersectAny = %v, brute force %v", i, any, wantOK)
		}
		if ok {
			hits++
		}
	}
	if hits < len(origins)/4 {
		t.Errorf("only %d of %d rays hit the horse: the test rays are too weak", hits, len(origins))
	}
}

func TestIntersectSoup(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 5, 17, 100, 3000} {
		pos, tris := soup(rng, n)
		tr := Build(pos, tris)
		checkStructure(t, tr, pos, tris)
		origins, dirs := randomRays(rng, AABB{Max: mgl64.Vec3{1, 1, 1}}, 2000)
		for i := range origins {
			got, ok := tr.Intersect(origins[i], dirs[i], math.Inf(1))
			want, wantOK := bruteIntersect(pos, tris, origins[i], dirs[i], math.Inf(1))
			checkHit(t, fmt.Sprintf("n=%d ray %d", n, i), got, ok, want, wantOK)
			if any := tr.IntersectAny(origins[i], dirs[i], math.Inf(1)); any != wantOK {
				t.Fatalf("n=%d ray %d: IntersectAny = %v, brute force %v", n, i, any, wantOK)
			}
		}
	}
}

// TestRefit moves the horse through its example poses: a refitted tree must
// agree with a fresh build on the new positions and with brute force.
func TestRefit(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	rng := rand.New(rand.NewPCG(5, 6))
	for _, name := range []string{"1.obj", "5.obj", "10.obj"} {
		pose, ptris := loadOBJ(t, shareddata.Path(t, "horse-poses", "frames", name))
		if !slices.Equal(ptris, tris) {
			t.Fatalf("pose %s: topology differs from the reference", name)
		}
		tr.Refit(pose)
		checkStructure(t, tr, pose, tris)
		fresh := Build(pose, tris)
		if tr.Bounds() != fresh.Bounds() {
			t.Fatalf("pose %s: refitted bounds %v, fresh build %v", name, tr.Bounds(), fresh.Bounds())
		}
		origins, dirs := randomRays(rng, fresh.Bounds(), 2000)
		for i := range origins {
			got, ok := tr.Intersect(origins[i], dirs[i], math.Inf(1))
			want, wantOK := fresh.Intersect(origins[i], dirs[i], math.Inf(1))
			checkHit(t, fmt.Sprintf("pose %s ray %d", name, i), got, ok, want, wantOK)
			if i%8 == 0 {
				want, wantOK = bruteIntersect(pose, tris, origins[i], dirs[i], math.Inf(1))
				checkHit(t, fmt.Sprintf("pose %s ray %d (brute force)", name, i), got, ok, want, wantOK)
			}
		}
	}
}

func TestRefitSoup(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pos, tris := soup(rng, 500)
	tr := Build(pos, tris)
	moved := make([]mgl64.Vec3, len(pos))
	for i, p := range pos {
		moved[i] = mgl64.Vec3{p[0] * p[1], p[2] + 0.3*math.Sin(5*p[0]), 1 - p[0]}
	}
	tr.Refit(moved)
	checkStructure(t, tr, moved, tris)
	origins, dirs := randomRays(rng, tr.Bounds(), 2000)
	for i := range origins {
		got, ok := tr.Intersect(origins[i], dirs[i], math.Inf(1))
		want, wantOK := bruteIntersect(moved, tris, origins[i], dirs[i], math.Inf(1))
		checkHit(t, fmt.Sprintf("ray %d", i), got, ok, want, wantOK)
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "bvh: ") {
			t.Errorf("Refit with the wrong vertex count: recovered %v, want a bvh panic", r)
		}
	}()
	tr.Refit(moved[1:])
}

// TestScale checks that ray casts give the same triangles on the horse
// scaled by 1e-8 and 1e8: no absolute tolerance hides in the code.
func TestScale(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	rng := rand.New(rand.NewPCG(9, 10))
	origins, dirs := randomRays(rng, tr.Bounds(), 500)
	for _, s := range []float64{1e-8, 1e8} {
		scaled := make([]mgl64.Vec3, len(pos))
		for i, p := range pos {
			scaled[i] = p.Mul(s)
		}
		ts := Build(scaled, tris)
		for i := range origins {
			want, wantOK := tr.Intersect(origins[i], dirs[i], math.Inf(1))
			got, ok := ts.Intersect(origins[i].Mul(s), dirs[i].Mul(s), math.Inf(1))
			if ok != wantOK || ok && got.Triangle != want.Triangle && math.Abs(got.T-want.T) > 1e-9*want.T {
				t.Fatalf("scale %g ray %d: hit %v %+v, unscaled %v %+v", s, i, ok, got, wantOK, want)
			}
		}
	}
}

func TestDegenerate(t *testing.T) {
	inf := math.Inf(1)
	o, d := mgl64.Vec3{0.2, 0.2, -1}, mgl64.Vec3{0, 0, 1}

	t.Run("no triangles", func(t *testing.T) {
		for _, tr := range []*Tree{Build(nil, nil), Build([]mgl64.Vec3{{1, 2, 3}}, nil), {}} {
			if _, ok := tr.Intersect(o, d, inf); ok {
				t.Error("Intersect hit an empty tree")
			}
			if tr.IntersectAny(o, d, inf) || tr.Occluded(o, o.Add(d), 0) {
				t.Error("IntersectAny or Occluded hit an empty tree")
			}
			tr.Query(AABB{Min: mgl64.Vec3{-inf, -inf, -inf}, Max: mgl64.Vec3{inf, inf, inf}}, func(int) bool {
				t.Error("Query visited a triangle of an empty tree")
				return true
			})
			if !tr.Bounds().Empty() {
				t.Errorf("Bounds() = %v, want empty", tr.Bounds())
			}
		}
	})

	t.Run("zero area", func(t *testing.T) {
		pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {0, 1, 0}, {0.5, 0.5, 0}}
		tris := [][3]int{{0, 1, 2}, {0, 0, 0}, {3, 3, 4}, {0, 4, 4}, {1, 2, 1}, {0, 2, 1}}
		tr := Build(pos, tris)
		checkStructure(t, tr, pos, tris)
		rng := rand.New(rand.NewPCG(11, 12))
		origins, dirs := randomRays(rng, AABB{Min: mgl64.Vec3{-1, -1, -1}, Max: mgl64.Vec3{2, 2, 1}}, 2000)
		// Rays along the collinear corners, and along the axes through them.
		origins = append(origins, mgl64.Vec3{-1, 0, 0}, mgl64.Vec3{0.5, 0, -1}, mgl64.Vec3{0.5, -1, 0}, mgl64.Vec3{0, 0, 0})
		dirs = append(dirs, mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 0, 1}, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{1, 1, 0})
		// Zero-area triangles are hit, if at all, only where the ray passes
		// through them.
		hits := 0
		for i := range origins {
			h, ok := tr.Intersect(origins[i], dirs[i], inf)
			want, wantOK := bruteIntersect(pos, tris, origins[i], dirs[i], inf)
			checkHit(t, fmt.Sprintf("ray %d", i), h, ok, want, wantOK)
			if !ok {
				continue
			}
			hits++
			tri := tris[h.Triangle]
			on := pos[tri[0]].Mul(1 - h.U - h.V).Add(pos[tri[1]].Mul(h.U)).Add(pos[tri[2]].Mul(h.V))
			if d := origins[i].Add(dirs[i].Mul(h.T)).Sub(on).Len(); d > 1e-9 {
				t.Fatalf("ray %d hits zero-area triangle %d %v at %g from it: %+v", i, h.Triangle, tri, d, h)
			}
		}
		if hits > len(origins)/100 {
			t.Errorf("%d of %d rays hit zero-area triangles", hits, len(origins))
		}
	})

	t.Run("parallel rays", func(t *testing.T) {
		// The unit right triangle in z = 0, and a second one in x = 0.
		pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
		tris := [][3]int{{0, 1, 2}, {0, 2, 3}}
		tr := Build(pos, tris)
		for i, r := range []struct{ o, d mgl64.Vec3 }{
			{mgl64.Vec3{-1, 0.2, 0}, mgl64.Vec3{1, 0, 0}},       // in the plane z = 0, through the first
			{mgl64.Vec3{-1, 0, 0}, mgl64.Vec3{1, 0, 0}},         // along the shared axis edge
			{mgl64.Vec3{0.2, 0.2, 0}, mgl64.Vec3{1, 1, 0}},      // starting inside the first, in its plane
			{mgl64.Vec3{-1, 0.2, 0.2}, mgl64.Vec3{0, 0, 0}},     // zero direction
			{mgl64.Vec3{0.2, 0.2, 5}, mgl64.Vec3{0, 1e-300, 0}}, // tiny direction, parallel
		} {
			h, ok := tr.Intersect(r.o, r.d, inf)
			if i == 0 {
				// In the plane of the first triangle, but it crosses the second
				// (x = 0) transversally at (0, 0.2, 0).
				if !ok || h.Triangle != 1 || h.T != 1 {
					t.Errorf("ray %d: %v %+v, want triangle 1 at T = 1", i, ok, h)
				}
				continue
			}
			for _, x := range []float64{h.T, h.U, h.V} {
				if math.IsNaN(x) {
					t.Errorf("ray %d: NaN in %+v", i, h)
				}
			}
			want, wantOK := bruteIntersect(pos, tris, r.o, r.d, inf)
			checkHit(t, fmt.Sprintf("ray %d", i), h, ok, want, wantOK)
		}
		// A ray parallel to an axis, outside the boxes, with an unbounded tMax.
		if tr.IntersectAny(mgl64.Vec3{5, 5, 5}, mgl64.Vec3{0, 0, -1}, inf) {
			t.Error("a ray beside the mesh hit it")
		}
		if _, ok := tr.Intersect(mgl64.Vec3{0.2, 0.2, 1}, mgl64.Vec3{0, 0, -1}, math.NaN()); ok {
			t.Error("a NaN tMax gave a hit")
		}
	})

	t.Run("non-finite vertex", func(t *testing.T) {
		pos := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {math.NaN(), 0, 0}, {inf, 1, 0}}
		tris := [][3]int{{0, 1, 2}, {0, 3, 2}, {0, 4, 2}}
		tr := Build(pos, tris)
		h, ok := tr.Intersect(mgl64.Vec3{0.2, 0.2, 1}, mgl64.Vec3{0, 0, -1}, inf)
		if !ok || h.Triangle != 0 || h.T != 1 {
			t.Errorf("hit %v %+v, want triangle 0 at T = 1", ok, h)
		}
	})

	t.Run("bad index", func(t *testing.T) {
		defer func() {
			if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "bvh: ") {
				t.Errorf("recovered %v, want a bvh panic", r)
			}
		}()
		Build([]mgl64.Vec3{{}, {}}, [][3]int{{0, 1, 2}})
	})
}

// TestDeepTree builds over triangles spaced exponentially along a line, on
// which the SAH splits off one triangle at a time: the depth limit must
// switch to median splits and keep traversal within its stack.
func TestDeepTree(t *testing.T) {
	var pos []mgl64.Vec3
	var tris [][3]int
	for i := range 400 {
		x := math.Ldexp(1, i)
		pos = append(pos, mgl64.Vec3{x, 0, 0}, mgl64.Vec3{x, 1, 0}, mgl64.Vec3{x, 0, 1})
		tris = append(tris, [3]int{3 * i, 3*i + 1, 3*i + 2})
	}
	tr := Build(pos, tris)
	checkStructure(t, tr, pos, tris)
	for i := range 400 {
		x := math.Ldexp(1, i)
		o := mgl64.Vec3{x * (1 - 1e-3), 0.25, 0.25}
		h, ok := tr.Intersect(o, mgl64.Vec3{1, 0, 0}, math.Inf(1))
		if !ok || h.Triangle != i {
			t.Fatalf("ray %d: %v %+v, want triangle %d", i, ok, h, i)
		}
	}
}

func TestOccluded(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	b := tr.Bounds()
	c := b.Min.Add(b.Max).Mul(0.5)
	eps := 1e-6 * b.Max.Sub(b.Min).Len()
	rng := rand.New(rand.NewPCG(13, 14))
	visible := 0
	for i := 0; i < 1000; i++ {
		v := rng.IntN(len(pos))
		eye := c.Add(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(3))
		got := tr.Occluded(eye, pos[v], eps)
		d := pos[v].Sub(eye)
		_, want := bruteIntersect(pos, tris, eye, d, 1-eps/d.Len())
		if got != want {
			t.Fatalf("vertex %d from %v: Occluded = %v, brute force %v", v, eye, got, want)
		}
		if !got {
			visible++
		}
	}
	if visible < 100 || visible > 900 {
		t.Errorf("%d of 1000 vertices visible: the test does not discriminate", visible)
	}
	if tr.Occluded(pos[0], pos[0].Add(mgl64.Vec3{eps / 2, 0, 0}), eps) {
		t.Error("a segment shorter than eps is occluded")
	}
}

func TestNearestVertex(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	rng := rand.New(rand.NewPCG(15, 16))
	origins, dirs := randomRays(rng, tr.Bounds(), 2000)
	for i := range origins {
		h, ok := tr.Intersect(origins[i], dirs[i], math.Inf(1))
		if !ok {
			continue
		}
		p := origins[i].Add(dirs[i].Mul(h.T))
		want, wantD := -1, math.Inf(1)
		for _, v := range tris[h.Triangle] {
			if d := pos[v].Sub(p).Len(); d < wantD {
				want, wantD = v, d
			}
		}
		got := tr.NearestVertex(h)
		if got != want && math.Abs(pos[got].Sub(p).Len()-wantD) > 1e-9 {
			t.Fatalf("ray %d: nearest vertex %d at %g, want %d at %g", i, got, pos[got].Sub(p).Len(), want, wantD)
		}
	}
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "bvh: ") {
			t.Errorf("NearestVertex of a miss: recovered %v, want a bvh panic", r)
		}
	}()
	tr.NearestVertex(Hit{Triangle: -1})
}

func TestQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	check := func(t *testing.T, pos []mgl64.Vec3, tris [][3]int, region AABB, queries int) {
		tr := Build(pos, tris)
		ext := region.Max.Sub(region.Min)
		for q := range queries {
			var box AABB
			for k := range 3 {
				a := region.Min[k] + ext[k]*(1.2*rng.Float64()-0.1)
				w := ext[k] * 0.3 * rng.Float64() * rng.Float64()
				box.Min[k], box.Max[k] = a, a+w
			}
			if q%7 == 0 {
				box.Max = box.Min // a point
			}
			var want []int
			for f, tri := range tris {
				v := [3]mgl64.Vec3{pos[tri[0]], pos[tri[1]], pos[tri[2]]}
				if triangleBox(&v).Overlaps(box) {
					want = append(want, f)
				}
			}
			var got []int
			tr.Query(box, func(f int) bool { got = append(got, f); return true })
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("query %d %v: %d triangles %v, brute force %d", q, box, len(got), got, len(want))
			}
			if len(want) > 1 {
				calls := 0
				tr.Query(box, func(int) bool { calls++; return false })
				if calls != 1 {
					t.Fatalf("query %d: fn called %d times after returning false", q, calls)
				}
			}
		}
	}
	t.Run("soup", func(t *testing.T) {
		pos, tris := soup(rng, 2000)
		check(t, pos, tris, AABB{Max: mgl64.Vec3{1, 1, 1}}, 500)
	})
	t.Run("horse", func(t *testing.T) {
		pos, tris := loadHorse(t)
		check(t, pos, tris, Build(pos, tris).Bounds(), 300)
	})
}

func TestAABB(t *testing.T) {
	a := AABB{Min: mgl64.Vec3{0, 0, 0}, Max: mgl64.Vec3{1, 1, 1}}
	b := AABB{Min: mgl64.Vec3{1, 0.5, -1}, Max: mgl64.Vec3{2, 0.6, 0}}
	e := EmptyAABB()
	if !a.Overlaps(b) || !b.Overlaps(a) {
		t.Error("boxes touching at a face should overlap")
	}
	if a.Overlaps(b.Expand(-0.01)) {
		t.Error("a shrunken box should not touch")
	}
	if !a.Overlaps(b.Expand(-0.01).Expand(0.02)) {
		t.Error("an expanded box should overlap")
	}
	if e.Overlaps(a) || a.Overlaps(e) || e.Overlaps(e) || !e.Empty() || a.Empty() {
		t.Error("the empty box overlaps nothing and is empty")
	}
	if a.Union(e) != a || e.Union(a) != a {
		t.Error("the empty box is the identity of Union")
	}
	if u := a.Union(b); u != (AABB{Min: mgl64.Vec3{0, 0, -1}, Max: mgl64.Vec3{2, 1, 1}}) {
		t.Errorf("Union = %v", u)
	}
	if p := e.Include(mgl64.Vec3{1, 2, 3}); p.Min != p.Max || p.Min != (mgl64.Vec3{1, 2, 3}) {
		t.Errorf("Include = %v", p)
	}
	if a.halfArea() != 3 {
		t.Errorf("halfArea = %v, want 3", a.halfArea())
	}
}

func TestNoAllocation(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 20))
	pos, tris := soup(rng, 1000)
	tr := Build(pos, tris)
	o, d := mgl64.Vec3{0.5, 0.5, -1}, mgl64.Vec3{0.01, 0.02, 1}
	box := AABB{Min: mgl64.Vec3{0.4, 0.4, 0.4}, Max: mgl64.Vec3{0.6, 0.6, 0.6}}
	count := 0
	visit := func(int) bool { count++; return true }
	for name, f := range map[string]func(){
		"Intersect":     func() { tr.Intersect(o, d, math.Inf(1)) },
		"IntersectAny":  func() { tr.IntersectAny(o, d, math.Inf(1)) },
		"Occluded":      func() { tr.Occluded(o, o.Add(d), 1e-6) },
		"Query":         func() { tr.Query(box, visit) },
		"Refit":         func() { tr.Refit(pos) },
		"NearestVertex": func() { tr.NearestVertex(Hit{Triangle: 3, U: 0.2, V: 0.3}) },
	} {
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s allocates %v times per call", name, a)
		}
	}
}

// TestWatertight aims rays from eyes near (3 horse lengths) and far (3000)
// at vertices and edge midpoints of the horse: none may pass through the
// surface or miss it, even at silhouettes. From 10⁶ horse lengths, where
// the rays themselves miss their targets by about 10⁻⁸ of a triangle, the
// targets whose incident triangles all face the eye must still stop the ray:
// no ray slips between the triangles of a fan.
func TestWatertight(t *testing.T) {
	pos, tris := loadHorse(t)
	tr := Build(pos, tris)
	b := tr.Bounds()
	c := b.Min.Add(b.Max).Mul(0.5)
	incident := make([][]int, len(pos))
	for f, tri := range tris {
		for _, v := range tri {
			incident[v] = append(incident[v], f)
		}
	}
	facing := func(f int, eye mgl64.Vec3) bool {
		tri := tris[f]
		n := pos[tri[1]].Sub(pos[tri[0]]).Cross(pos[tri[2]].Sub(pos[tri[0]])).Normalize()
		return n.Dot(eye.Sub(pos[tri[0]]).Normalize()) > 0.1
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for _, dist := range []float64{3, 3000, 1e6} {
		tested := 0
		for i := range 20000 {
			tri := tris[rng.IntN(len(tris))]
			eye := c.Add(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize().Mul(dist))
			p, fan := pos[tri[0]], incident[tri[0]]
			if i%2 == 1 { // the midpoint of edge 0-1 and the triangles sharing it
				p = pos[tri[0]].Add(pos[tri[1]]).Mul(0.5)
				fan = slices.DeleteFunc(slices.Clone(fan), func(f int) bool { return !slices.Contains(tris[f][:], tri[1]) })
			}
			if dist > 1e4 && slices.ContainsFunc(fan, func(f int) bool { return !facing(f, eye) }) {
				continue
			}
			tested++
			d := p.Sub(eye)
			l := d.Len()
			h, ok := tr.Intersect(eye, d.Mul(1/l), math.Inf(1))
			if !ok || h.T > l*(1+1e-9) {
				t.Fatalf("eye at %g, ray %d to %v (%g away): hit %v %+v: it slipped through the surface", dist, i, p, l, ok, h)
			}
		}
		if tested < 1000 {
			t.Fatalf("eye at %g: only %d rays tested", dist, tested)
		}
	}
}

// TestClamp checks the nearest point of a box: inside it is the point
// itself, outside each coordinate is cut to the box's face.
func TestClamp(t *testing.T) {
	b := AABB{Min: mgl64.Vec3{0, -1, 2}, Max: mgl64.Vec3{1, 1, 3}}
	for _, c := range []struct{ p, want mgl64.Vec3 }{
		{mgl64.Vec3{0.5, 0, 2.5}, mgl64.Vec3{0.5, 0, 2.5}},
		{mgl64.Vec3{-2, 5, 2.5}, mgl64.Vec3{0, 1, 2.5}},
		{mgl64.Vec3{3, -3, 0}, mgl64.Vec3{1, -1, 2}},
	} {
		if got := b.Clamp(c.p); got != c.want {
			t.Errorf("Clamp(%v) = %v, want %v", c.p, got, c.want)
		}
	}
}
