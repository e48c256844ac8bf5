package deform

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/deform/deformtest"
	"gallop/solver/rotation"
)

// loadMesh reads a mesh of the shared data, skipping the test if absent.
func loadMesh(tb testing.TB, elem ...string) *assets.Mesh {
	tb.Helper()
	path := shareddata.Path(tb, elem...)
	m, err := assets.LoadOBJ(path)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

func frob(m mgl64.Mat3) float64 {
	s := 0.0
	for _, x := range m {
		s += x * x
	}
	return math.Sqrt(s)
}

func mustNew(tb testing.TB, pos []mgl64.Vec3, tris [][3]int) *Gradients {
	tb.Helper()
	g, err := New(pos, tris)
	if err != nil {
		tb.Fatal(err)
	}
	return g
}

func features(g *Gradients, pos []mgl64.Vec3) []mgl64.Mat3 {
	f := make([]mgl64.Mat3, g.NumTriangles())
	g.Features(f, pos)
	return f
}

// testMeshes returns the demo bar and, when the shared data is there (it
// must be with GALLOP_REQUIRE_DATA=1), the horse and lion reference meshes.
func testMeshes(t *testing.T) map[string]*assets.Mesh {
	ms := map[string]*assets.Mesh{"bar": assets.DemoBar()}
	dir, err := shareddata.Dir()
	for _, name := range []string{"horse-poses", "lion-poses"} {
		if err == nil {
			_, err = os.Stat(filepath.Join(dir, name))
		}
		if err == nil || shareddata.Required() {
			ms[name] = loadMesh(t, name, "reference.obj")
		} else {
			t.Logf("%s absent: tested on the bar only", name)
		}
	}
	return ms
}

// TestKnownAnswers: a right triangle stretched, sheared and collapsed.
func TestKnownAnswers(t *testing.T) {
	ref := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	tris := [][3]int{{0, 1, 2}}
	g := mustNew(t, ref, tris)
	if v4 := FourthVertex(ref[0], ref[1], ref[2]); v4 != (mgl64.Vec3{0, 0, 1}) {
		t.Fatalf("fourth vertex of the unit right triangle = %v, want (0, 0, 1)", v4)
	}
	for _, c := range []struct {
		name string
		pose []mgl64.Vec3
		want mgl64.Mat3
	}{
		// x doubled: area doubles, so the normal scales by √2.
		{"stretch", []mgl64.Vec3{{0, 0, 0}, {2, 0, 0}, {0, 1, 0}}, mgl64.Diag3(mgl64.Vec3{2, 1, math.Sqrt2})},
		// Shear x += y keeps the area and the normal.
		{"shear", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}}, mgl64.Mat3FromRows(mgl64.Vec3{1, 1, 0}, mgl64.Vec3{0, 1, 0}, mgl64.Vec3{0, 0, 1})},
		// Uniform scale by 3: the normal scales by 3 too.
		{"scale", []mgl64.Vec3{{1, 1, 1}, {4, 1, 1}, {1, 4, 1}}, mgl64.Ident3().Mul(3)},
		// Collapsed onto the x axis: rank 1, and no NaN.
		{"collapsed", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {1, 0, 0}}, mgl64.Mat3FromRows(mgl64.Vec3{1, 1, 0}, mgl64.Vec3{}, mgl64.Vec3{})},
	} {
		got := features(g, c.pose)[0]
		if frob(got.Sub(c.want)) > 1e-15 {
			t.Errorf("%s: T = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestNewErrors: bad reference meshes are reported with the element at
// fault, degenerate triangles as *DegenerateError.
func TestNewErrors(t *testing.T) {
	bar := assets.DemoBar()
	withTriangle := func(j int, tri [3]int) [][3]int {
		tris := append([][3]int(nil), bar.Triangles...)
		tris[j] = tri
		return tris
	}
	collinear := append([]mgl64.Vec3(nil), bar.Positions...)
	collinear[12] = collinear[3].Add(collinear[9]).Mul(0.5)
	coincident := append([]mgl64.Vec3(nil), bar.Positions...)
	coincident[12], coincident[9] = coincident[3], coincident[3]
	huge := append([]mgl64.Vec3(nil), bar.Positions...)
	for i := range huge {
		huge[i] = huge[i].Mul(1e200)
	}
	nan := append([]mgl64.Vec3(nil), bar.Positions...)
	nan[5][1] = math.NaN()
	for _, c := range []struct {
		name       string
		pos        []mgl64.Vec3
		tris       [][3]int
		want       string
		degenerate bool
	}{
		{"repeated vertex", bar.Positions, withTriangle(17, [3]int{3, 9, 3}), "triangle 17 (vertices 3, 9, 3) has zero area", true},
		{"coincident", coincident, withTriangle(17, [3]int{3, 9, 12}), "triangle 17 (vertices 3, 9, 12) has zero area", true},
		{"collinear", collinear, withTriangle(17, [3]int{3, 9, 12}), "triangle 17 (vertices 3, 9, 12) has zero area", true},
		{"overflow", huge, bar.Triangles, "triangle 0 (vertices 0, 1, 11) has non-finite area", true},
		{"out of range", bar.Positions, withTriangle(4, [3]int{0, 1, 132}), "triangle 4 (vertices 0, 1, 132): vertex index 132 out of range [0, 132)", false},
		{"negative index", bar.Positions, withTriangle(4, [3]int{-1, 1, 2}), "triangle 4 (vertices -1, 1, 2): vertex index -1 out of range [0, 132)", false},
		{"NaN", nan, bar.Triangles, "vertex 5 has a non-finite position", false},
	} {
		g, err := New(c.pos, c.tris)
		if err == nil {
			t.Errorf("%s: New succeeded (%d triangles)", c.name, g.NumTriangles())
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to start with %q", c.name, err, c.want)
		}
		var de *DegenerateError
		if errors.As(err, &de) != c.degenerate {
			t.Errorf("%s: error %q: DegenerateError %v, want %v", c.name, err, !c.degenerate, c.degenerate)
		}
	}
	// The smallest acceptable triangles: thin, and at extreme scales.
	thin := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0.5, 1e-9, 0}}
	tiny := []mgl64.Vec3{{0, 0, 0}, {1e-100, 0, 0}, {0, 1e-100, 0}}
	for _, pos := range [][]mgl64.Vec3{thin, tiny} {
		g := mustNew(t, pos, [][3]int{{0, 1, 2}})
		if d := frob(features(g, pos)[0].Sub(mgl64.Ident3())); d > 1e-6 {
			t.Errorf("triangle %v: reference gradient off identity by %g", pos, d)
		}
	}
}

// TestFourthVertexGivesTetrahedron: v₄ sits at √(2·area) along the unit
// normal, so |det V| = (2·area)^{3/2} > 0 for every triangle of every mesh.
func TestFourthVertexGivesTetrahedron(t *testing.T) {
	for name, m := range testMeshes(t) {
		g := mustNew(t, m.Positions, m.Triangles)
		v4 := make([]mgl64.Vec3, g.NumTriangles())
		g.FourthVertices(v4, m.Positions)
		for j, tri := range m.Triangles {
			p1, p2, p3 := m.Positions[tri[0]], m.Positions[tri[1]], m.Positions[tri[2]]
			n := p2.Sub(p1).Cross(p3.Sub(p1))
			off := v4[j].Sub(p1)
			if d := off.Sub(n.Normalize().Mul(math.Sqrt(n.Len()))).Len(); d > 1e-15*(off.Len()+p1.Len()) {
				t.Fatalf("%s triangle %d: v₄ − v₁ = %v, want √(2A)·n̂ = %v", name, j, off, n.Normalize().Mul(math.Sqrt(n.Len())))
			}
			v := mgl64.Mat3FromCols(p1.Sub(v4[j]), p2.Sub(v4[j]), p3.Sub(v4[j]))
			want := math.Pow(n.Len(), 1.5)
			if d := math.Abs(v.Det()); math.Abs(d-want) > 1e-12*want {
				t.Fatalf("%s triangle %d: |det V| = %g, want (2A)^1.5 = %g", name, j, d, want)
			}
			if d := frob(v.Mul3(g.InverseEdges(j)).Sub(mgl64.Ident3())); d > 1e-12 {
				t.Fatalf("%s triangle %d: ‖V·V⁻¹ − I‖ = %g", name, j, d)
			}
		}
	}
}

// TestReferenceAndRigid: the reference pose gives T_j = I, and a rigid
// motion x ↦ Q·x + t gives T_j = Q, on every mesh and at every scale.
func TestReferenceAndRigid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for name, m := range testMeshes(t) {
		for _, scale := range []float64{1e-6, 1, 1e6} {
			ref := scaled(m.Positions, scale)
			g := mustNew(t, ref, m.Triangles)
			for j, f := range features(g, ref) {
				if d := frob(f.Sub(mgl64.Ident3())); d > 1e-13 {
					t.Fatalf("%s ×%g triangle %d: reference T = %v", name, scale, j, f)
				}
			}
			q := rotation.Exp(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
			shift := mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(scale)
			moved := make([]mgl64.Vec3, len(ref))
			for i, p := range ref {
				moved[i] = q.Mul3x1(p).Add(shift)
			}
			// Rounding the moved positions costs up to ε·|x|/|edge|·κ(V):
			// the horse's smallest triangles are 1e-3 of its size.
			for j, f := range features(g, moved) {
				if d := frob(f.Sub(q)); d > 1e-11 {
					t.Fatalf("%s ×%g triangle %d: rigidly moved T = %v, want %v (error %g)", name, scale, j, f, q, d)
				}
			}
		}
	}
}

// TestRowsMatchFeatures: assembling G·x from Row, entry by entry, on the
// unknowns of a pose gives that pose's Features; Apply does the same; the
// rows have four distinct columns and sum to zero.
func TestRowsMatchFeatures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	poses := map[string][][]mgl64.Vec3{}
	meshes := testMeshes(t)
	bar := meshes["bar"]
	poses["bar"] = [][]mgl64.Vec3{assets.DemoBarBent(assets.DemoBendAngle), jitter(rng, bar.Positions, 0.05)}
	for name := range meshes {
		if name == "bar" {
			continue
		}
		poses[name] = [][]mgl64.Vec3{loadMesh(t, name, "frames", "1.obj").Positions, jitter(rng, meshes[name].Positions, 1e-3)}
	}
	for name, m := range meshes {
		g := mustNew(t, m.Positions, m.Triangles)
		if g.NumUnknowns() != len(m.Positions)+len(m.Triangles) || g.NumRows() != 3*len(m.Triangles) {
			t.Fatalf("%s: %d unknowns, %d rows", name, g.NumUnknowns(), g.NumRows())
		}
		for _, pose := range poses[name] {
			x := g.Unknowns(nil, pose)
			want := features(g, pose)
			applied := make([]mgl64.Mat3, g.NumTriangles())
			g.Apply(applied, x)
			for j := range want {
				var fromRows mgl64.Mat3
				for c := 0; c < 3; c++ {
					cols, coef := g.Row(j, c)
					sum := 0.0
					for k, col := range cols {
						sum += coef[k]
						for r := 0; r < 3; r++ {
							fromRows[3*c+r] += coef[k] * x[col][r]
						}
						for l := 0; l < k; l++ {
							if cols[l] == col {
								t.Fatalf("%s row %d: repeated column %d", name, 3*j+c, col)
							}
						}
					}
					if math.Abs(sum) > 1e-14*(math.Abs(coef[0])+math.Abs(coef[1])+math.Abs(coef[2])+math.Abs(coef[3])) {
						t.Fatalf("%s row %d: coefficients sum to %g", name, 3*j+c, sum)
					}
				}
				tol := 1e-10 * (1 + frob(want[j]))
				if d := frob(fromRows.Sub(want[j])); d > tol {
					t.Fatalf("%s triangle %d: rows give %v, Features %v (error %g)", name, j, fromRows, want[j], d)
				}
				if d := frob(applied[j].Sub(want[j])); d > tol {
					t.Fatalf("%s triangle %d: Apply gives %v, Features %v (error %g)", name, j, applied[j], want[j], d)
				}
			}
		}
	}
}

// TestApplyTransposeIsAdjoint: ⟨G·x, f⟩ = ⟨x, Gᵀ·f⟩ for random x and f.
func TestApplyTransposeIsAdjoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	bar := assets.DemoBar()
	g := mustNew(t, bar.Positions, bar.Triangles)
	x := make([]mgl64.Vec3, g.NumUnknowns())
	for i := range x {
		x[i] = mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	f := make([]mgl64.Mat3, g.NumTriangles())
	for j := range f {
		for i := range f[j] {
			f[j][i] = rng.NormFloat64()
		}
	}
	gx := make([]mgl64.Mat3, g.NumTriangles())
	g.Apply(gx, x)
	gtf := make([]mgl64.Vec3, g.NumUnknowns())
	g.ApplyTranspose(gtf, f)
	lhs, rhs, mag := 0.0, 0.0, 0.0
	for j := range f {
		for i := range f[j] {
			lhs += gx[j][i] * f[j][i]
			mag += math.Abs(gx[j][i] * f[j][i])
		}
	}
	for i := range x {
		rhs += x[i].Dot(gtf[i])
	}
	if math.Abs(lhs-rhs) > 1e-13*mag {
		t.Fatalf("⟨Gx, f⟩ = %v, ⟨x, Gᵀf⟩ = %v", lhs, rhs)
	}
}

// TestParallelMatchesSequential: Features on the horse (split across
// workers) equals the single-threaded loop bit for bit.
func TestParallelMatchesSequential(t *testing.T) {
	ref := loadMesh(t, "horse-poses", "reference.obj")
	pose := loadMesh(t, "horse-poses", "frames", "3.obj")
	g := mustNew(t, ref.Positions, ref.Triangles)
	if g.NumTriangles() < parallelMin {
		t.Fatalf("horse has %d triangles, below the parallel threshold", g.NumTriangles())
	}
	par := features(g, pose.Positions)
	seq := make([]mgl64.Mat3, g.NumTriangles())
	g.features(seq, pose.Positions, 0, len(seq))
	for j := range seq {
		if seq[j] != par[j] {
			t.Fatalf("triangle %d: parallel %v, sequential %v", j, par[j], seq[j])
		}
	}
}

// TestReconstruction solves Eq. 3, min ‖G·x − f‖ over the free unknowns
// with some vertices fixed, by dense QR on the demo bar (132 + 260 = 392
// unknowns per coordinate), and checks it gives back the pose the features
// came from: the reference from identity features, and the bent bar from
// its own features; with one vertex fixed and with a whole cap fixed; with
// the mesh at scale 1e-6, 1 and 1e6.
func TestReconstruction(t *testing.T) {
	bar := assets.DemoBar()
	bent := assets.DemoBarBent(assets.DemoBendAngle)
	cap0 := []int{}
	for _, gr := range bar.Groups {
		if gr.Name == "cap0" {
			for _, f := range gr.Triangles {
				cap0 = append(cap0, bar.Triangles[f][:]...)
			}
		}
	}
	for _, scale := range []float64{1e-6, 1, 1e6} {
		ref := scaled(bar.Positions, scale)
		g := mustNew(t, ref, bar.Triangles)
		for _, c := range []struct {
			name     string
			pose     []mgl64.Vec3
			fixed    []int
			identity bool // use identity features rather than the pose's
		}{
			{"identity, one vertex", ref, []int{7}, true},
			{"identity, cap0", ref, cap0, true},
			{"bent, one vertex", scaled(bent, scale), []int{0}, false},
			{"bent, cap0", scaled(bent, scale), cap0, false},
		} {
			f := make([]mgl64.Mat3, g.NumTriangles())
			g.Features(f, c.pose)
			if c.identity {
				for j := range f {
					f[j] = mgl64.Ident3()
				}
			}
			want := g.Unknowns(nil, c.pose)
			got := deformtest.SolveDense(t, g, f, c.fixed, want)
			maxErr := 0.0
			for i := range want {
				maxErr = math.Max(maxErr, got[i].Sub(want[i]).Len())
			}
			if maxErr > 1e-11*scale {
				t.Errorf("×%g %s: reconstruction off by %g", scale, c.name, maxErr)
			}
		}
	}
}

func scaled(p []mgl64.Vec3, s float64) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, len(p))
	for i := range p {
		out[i] = p[i].Mul(s)
	}
	return out
}

func jitter(rng *rand.Rand, p []mgl64.Vec3, size float64) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, len(p))
	for i := range p {
		out[i] = p[i].Add(mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Mul(size))
	}
	return out
}

// BenchmarkFeatures computes every deformation gradient of a horse pose
// (16,843 triangles) and of the subdivided horse (67,372 triangles).
func BenchmarkFeatures(b *testing.B) {
	ref := loadMesh(b, "horse-poses", "reference.obj")
	pose := loadMesh(b, "horse-poses", "frames", "1.obj")
	sub := assets.SubdivideMidpoint(ref)
	subPose := assets.SubdivideMidpointPositions(ref, pose.Positions)
	for _, c := range []struct {
		m    *assets.Mesh
		pose []mgl64.Vec3
	}{{ref, pose.Positions}, {sub, subPose}} {
		g := mustNew(b, c.m.Positions, c.m.Triangles)
		dst := make([]mgl64.Mat3, g.NumTriangles())
		b.Run(fmt.Sprintf("F=%d", g.NumTriangles()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				g.Features(dst, c.pose)
			}
		})
	}
}

// BenchmarkNew precomputes the horse's inverse edge matrices.
func BenchmarkNew(b *testing.B) {
	ref := loadMesh(b, "horse-poses", "reference.obj")
	b.ReportAllocs()
	for b.Loop() {
		mustNew(b, ref.Positions, ref.Triangles)
	}
}
