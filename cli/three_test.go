package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/solver/dynskin"
	"gallop/solver/plausible"
	"gallop/tools/dynamics"
	tens "gallop/tools/ensemble"
	"gallop/tools/gallery"
	"gallop/tools/rig"
)

// The tests of this file (issue 35, acceptance 3) play each kind of glTF
// file Gallop exports in three.js, the web's reference loader
// (gltftest.Three: three's GLTFLoader and AnimationMixer, each vertex
// evaluated as its vertex shader does), and check that it draws what
// Gallop plays: every vertex of every frame within threeTolerance of the
// bounding-box diagonal, the vertices in the same number and order.

// threeTolerance is how far from Gallop's position three.js may put a
// vertex, as a fraction of the bounding-box diagonal.
const threeTolerance = 1e-4

// threeFrames returns 0, 1, ..., n−1.
func threeFrames(n int) []int {
	f := make([]int, n)
	for i := range f {
		f[i] = i
	}
	return f
}

// threeDiagonal returns the diagonal of the bounding box of ps.
func threeDiagonal(ps []mgl64.Vec3) float64 {
	lo, hi := assets.Bounds(ps)
	return hi.Sub(lo).Len()
}

// compareThree checks s, a file as three.js plays it at frames, against
// want[k], Gallop's position of every vertex (in the file's order) at
// frames[k]: the same number of vertices, and each within threeTolerance
// times diag[m], the diagonal of the mesh m it belongs to (diag of one
// value: the same for every mesh). It logs the worst distance over the frames, and
// each frame's when some are too far.
func compareThree(t *testing.T, s gltftest.ThreeScene, frames []int, want [][]mgl64.Vec3, diag []float64) {
	t.Helper()
	n := s.VertexCount()
	if len(s.Frames) != len(frames) || len(want) != len(frames) {
		t.Fatalf("three.js played %d frames, Gallop %d, of %d asked", len(s.Frames), len(want), len(frames))
	}
	if len(want[0]) != n {
		t.Fatalf("three.js reads %d vertices (meshes %q with %v), Gallop plays %d", n, s.Meshes, s.Vertices, len(want[0]))
	}
	// mesh[i] is the mesh of vertex i.
	mesh := make([]int, 0, n)
	for m, c := range s.Vertices {
		for range c {
			mesh = append(mesh, m)
		}
	}
	tol := func(i int) float64 {
		if len(diag) == 1 {
			return diag[0]
		}
		return diag[mesh[i]]
	}
	worst, worstFrame, worstVertex := 0.0, 0, 0
	perFrame := make([]float64, len(frames))
	bad := 0
	for k, f := range frames {
		for i, p := range want[k] {
			q := s.Frames[k][i]
			d := mgl64.Vec3{q[0], q[1], q[2]}.Sub(p).Len() / tol(i)
			perFrame[k] = max(perFrame[k], d)
			if d > worst {
				worst, worstFrame, worstVertex = d, f, i
			}
		}
		if perFrame[k] > threeTolerance {
			bad++
		}
	}
	var what strings.Builder
	if slices.ContainsFunc(s.Targets, func(n int) bool { return n > 0 }) {
		fmt.Fprintf(&what, "; morph targets %v, at once %v", s.Targets, s.ActiveTargets)
	}
	if slices.Contains(s.Skinned, true) {
		fmt.Fprintf(&what, "; skin influences %v, ignored %v", s.Influences, s.IgnoredInfluences)
	}
	t.Logf("three.js %s, %s: %d meshes, %d vertices, %d frames; worst %.3g of the diagonal (frame %d, vertex %d)%s",
		s.Version, filepath.Base(s.File), len(s.Meshes), n, len(frames), worst, worstFrame, worstVertex, what.String())
	if bad > 0 {
		var b strings.Builder
		for k, f := range frames {
			fmt.Fprintf(&b, " %d:%.3g", f, perFrame[k])
		}
		t.Errorf("three.js plays %d of %d frames of %s more than %g of the diagonal away from Gallop; worst per frame (frame:distance/diagonal):%s",
			bad, len(frames), filepath.Base(s.File), threeTolerance, b.String())
	}
}

// TestThreeMorph: `gallop convert` of pcow's first 48 OBJ frames to a
// glb (the morph-target export, assets.SaveGLTF with ExportMorph: one
// target per frame, a weights channel) plays in three.js as those frames.
// Gallop's own positions are the OBJ frames themselves: the clip the
// export wrote.
func TestThreeMorph(t *testing.T) {
	dir := filepath.Join(sharedSet(t, "pcow"), "frames")
	const n = 48
	var files []string
	var want [][]mgl64.Vec3
	for f := 1; f <= n; f++ {
		file := filepath.Join(dir, fmt.Sprintf("%d.obj", f))
		m, err := assets.LoadOBJ(file)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
		want = append(want, m.Positions)
	}
	out := filepath.Join(t.TempDir(), "pcow.glb")
	if err := runConvert(append([]string{"--fps", "24"}, append(files, out)...), &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	s := gltftest.Three(t, 24, threeFrames(n), out)[0]
	if len(s.Meshes) != 1 || s.Targets[0] != n || s.Skinned[0] {
		t.Errorf("three.js reads meshes %q, %v morph targets, skinned %v; want one mesh with %d targets", s.Meshes, s.Targets, s.Skinned, n)
	}
	compareThree(t, s, threeFrames(n), want, []float64{threeDiagonal(want[0])})
}

// threeRigReport runs `gallop rig` with args and returns its report.
func threeRigReport(t *testing.T, args ...string) rig.Report {
	t.Helper()
	var stdout bytes.Buffer
	if err := runRig(append(args, "--json"), &stdout); err != nil {
		t.Fatal(err)
	}
	var r rig.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	return r
}

// threeRig checks the skinned file out that `gallop rig` wrote from the
// OBJ frames in dir, reporting r: three.js plays it as Gallop reads it
// back (assets.LoadGLTF: the joint animation and the weights skinned by
// Gallop's own Rig.Bake, in float64, nothing of three.js), and the RMSE
// of three's positions against the input frames is the RMSE the rig
// reported, to 1e-5 of the diagonal, which ties three.js to the poses the
// rig computed.
func threeRig(t *testing.T, dir, out string, r rig.Report) {
	t.Helper()
	objs, err := assets.LoadGLTF(out)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Clip == nil || o.Rig == nil {
		t.Fatalf("%s reads back without a clip or a rig", out)
	}
	frames := threeFrames(len(o.Clip.Frames))
	s := gltftest.Three(t, int(math.Round(o.Clip.FPS)), frames, out)[0]
	if len(s.Meshes) != 1 || !s.Skinned[0] {
		t.Fatalf("three.js reads meshes %q, skinned %v; want one skinned mesh", s.Meshes, s.Skinned)
	}
	compareThree(t, s, frames, o.Clip.Frames, []float64{r.Diagonal})
	files, err := assets.ListOBJSequence(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum, count := 0.0, 0
	for f, file := range files {
		m, err := assets.LoadOBJ(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range m.Positions {
			q := s.Frames[f][i]
			d := mgl64.Vec3{q[0], q[1], q[2]}.Sub(p)
			sum += d.Dot(d)
			count++
		}
	}
	rmse := math.Sqrt(sum / float64(count))
	t.Logf("three.js plays the capture with RMSE %.6g, the rig reported %.6g", rmse, r.RMSE)
	if math.Abs(rmse-r.RMSE) > 1e-5*r.Diagonal {
		t.Errorf("three.js plays the capture with RMSE %.6g, the rig reported %.6g", rmse, r.RMSE)
	}
}

// TestThreeRigFreeBones: the skinned export of free bones (`gallop rig
// poses-1 --bones 4 --out x.glb` on the cylinder) plays in three.js as
// Gallop reads it back and with the rig's RMSE (threeRig).
func TestThreeRigFreeBones(t *testing.T) {
	set := sharedSet(t, "cylinder-rig")
	dir := filepath.Join(set, "poses-1")
	out := filepath.Join(t.TempDir(), "cylinder.glb")
	r := threeRigReport(t, dir, "--reference", filepath.Join(set, "cylinder.obj"), "--bones", "4", "--out", out)
	threeRig(t, dir, out, r)
}

// TestThreeRigSkeleton: the skeleton rig's export (`gallop rig
// --skeleton --bones 4 --out x.glb` on the cylinder: one root, joints in
// a hierarchy) plays in three.js as Gallop reads it back and with the
// rig's RMSE (threeRig).
func TestThreeRigSkeleton(t *testing.T) {
	set := sharedSet(t, "cylinder-rig")
	dir := filepath.Join(set, "poses-1")
	out := filepath.Join(t.TempDir(), "cylinder-skeleton.glb")
	r := threeRigReport(t, dir, "--reference", filepath.Join(set, "cylinder.obj"), "--bones", "4", "--skeleton", "--out", out)
	if r.Skeleton == nil || r.Skeleton.Roots != 1 {
		t.Fatalf("no skeleton of one root in the report: %+v", r.Skeleton)
	}
	threeRig(t, dir, out, r)
}

// TestThreeDynamicsSkinned: the dynamics' skinned export (`gallop
// dynamics apply --skinned --out x.glb`: the rig, its joint animation and
// the secondary motion as corrective morph targets, blended before the
// skin) of dynskin-tube's test animation, every vertex of a uniform jelly,
// plays in three.js as Gallop reads it back (assets.LoadGLTF: Gallop's
// own morphing and skinning of the file, in float64). Gallop reading the
// file back is the reference rather than the simulation because the
// corrective shapes carry the simulation only to within the export's
// correction error (a fraction of the diagonal, larger than
// threeTolerance), by design; the distance from three.js to the
// simulation itself (written as OBJ frames by the same command) is
// logged.
func TestThreeDynamicsSkinned(t *testing.T) {
	dir := sharedSet(t, "dynskin-tube")
	tmp := t.TempDir()
	rigPath := filepath.Join(dir, "rig.glb")
	params := filepath.Join(tmp, "jelly.csv")
	jelly := dynamics.Presets[len(dynamics.Presets)-1]
	if jelly.Name != "Jelly" {
		t.Fatalf("the last preset is %q, not Jelly", jelly.Name)
	}
	if err := dynamics.SaveParams(params, dynskin.Uniform(2282, jelly.Material)); err != nil {
		t.Fatal(err)
	}
	skinned := filepath.Join(tmp, "test-skinned.glb")
	sim := filepath.Join(tmp, "sim") + "/"
	for _, out := range []string{skinned, sim} {
		args := []string{"apply", "--rig", rigPath, "--animation", "test", "--params", params, "--out", out}
		if out == skinned {
			args = append(args, "--skinned")
		}
		if err := runDynamics(args, &bytes.Buffer{}); err != nil {
			t.Fatalf("gallop dynamics %s: %v", strings.Join(args, " "), err)
		}
	}
	objs, err := assets.LoadGLTF(skinned)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Rig == nil || o.Clip == nil {
		t.Fatal("the --skinned file reads back without a rig or a clip")
	}
	frames := threeFrames(len(o.Clip.Frames))
	s := gltftest.Three(t, int(math.Round(o.Clip.FPS)), frames, skinned)[0]
	if len(s.Meshes) != 1 || !s.Skinned[0] || s.Targets[0] == 0 {
		t.Fatalf("three.js reads meshes %q, skinned %v, morph targets %v; want one skinned mesh with corrective targets", s.Meshes, s.Skinned, s.Targets)
	}
	diag := threeDiagonal(o.Mesh.Positions)
	compareThree(t, s, frames, o.Clip.Frames, []float64{diag})

	files, err := assets.ListOBJSequence(sim)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(frames) {
		t.Fatalf("%d simulated frames, %d in the file", len(files), len(frames))
	}
	toSim, plain := 0.0, 0.0
	base, err := o.Rig.Bake(o.Mesh.Positions, o.Skin)
	if err != nil {
		t.Fatal(err)
	}
	for f, file := range files {
		m, err := assets.LoadOBJ(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range m.Positions {
			q := s.Frames[f][i]
			toSim = max(toSim, mgl64.Vec3{q[0], q[1], q[2]}.Sub(p).Len())
			plain = max(plain, base.Frames[f][i].Sub(p).Len())
		}
	}
	t.Logf("three.js plays the simulation within %.3g of the diagonal (plain skinning is %.3g away from it)", toSim/diag, plain/diag)
}

// TestThreeSampleBowling: a rigid-body sample of the Gallery (`gallop
// sample --scenario bowling --out DIR`: a node per body with translation
// and rotation channels, the lane and the rest static) plays in three.js
// as the simulation: Gallop's own positions are the sample's state from
// DIR/samples.json replayed (the scenario's Record and gallery.Animation,
// as the Gallery tool replays a farm's samples; the simulation is
// deterministic), each body's mesh turned and moved per frame. The
// export splits vertices whose corners have different normals (a box's
// corners, a cylinder's rims): the first vertices of each glTF mesh are
// its mesh's, in order (checked), and each copy is matched to the
// vertex it copies by its position in the file. Each mesh is held to its
// own diagonal, the pins' and the ball's rather than the lane's.
func TestThreeSampleBowling(t *testing.T) {
	dir := t.TempDir()
	const fps, pins = 30, "dd????????"
	if err := runSample([]string{"--scenario", "bowling", "--pins", pins, "--iterations", "60", "--chains", "1", "--distinct", "1",
		"--out", dir, "--fps", fmt.Sprint(fps), "--json"}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, gallery.SamplesList))
	if err != nil {
		t.Fatal(err)
	}
	var list []gallery.SampleFile
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) == 0 {
		t.Fatal("gallop sample wrote no sample: no chain satisfied the target in 60 iterations")
	}
	sc, err := plausible.NewBowling(pins, 0)
	if err != nil {
		t.Fatal(err)
	}
	var st plausible.BowlingState
	if err := json.Unmarshal(list[0].State, &st); err != nil {
		t.Fatal(err)
	}
	rec, err := sc.Record(st, fps)
	if err != nil {
		t.Fatal(err)
	}
	a, err := gallery.Animation(rec)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, list[0].File)
	frames := threeFrames(a.NumFrames())
	s := gltftest.Three(t, fps, frames, file)[0]
	if len(s.Meshes) != len(a.Bodies)+len(a.Static) {
		t.Fatalf("three.js reads %d meshes, the sample has %d bodies and %d static parts", len(s.Meshes), len(a.Bodies), len(a.Static))
	}
	// src[i] is the mesh vertex that the file's vertex i is or copies,
	// of[i] its mesh; place[m](f, p) is where Gallop has point p of mesh
	// m at frame f.
	var meshes []*assets.Mesh
	var place []func(f int, p mgl64.Vec3) mgl64.Vec3
	for b := range a.Bodies {
		body := &a.Bodies[b]
		meshes = append(meshes, body.Mesh)
		place = append(place, func(f int, p mgl64.Vec3) mgl64.Vec3 { return body.Rotations[f].Rotate(p).Add(body.Positions[f]) })
	}
	for _, part := range a.Static {
		meshes = append(meshes, part.Mesh)
		place = append(place, func(_ int, p mgl64.Vec3) mgl64.Vec3 { return p })
	}
	f32 := func(p [3]float64) [3]float32 { return [3]float32{float32(p[0]), float32(p[1]), float32(p[2])} }
	var src []mgl64.Vec3
	var of []int
	diag := make([]float64, len(meshes))
	first := 0
	for m, mesh := range meshes {
		diag[m] = threeDiagonal(mesh.Positions)
		n := s.Vertices[m]
		if n < len(mesh.Positions) {
			t.Fatalf("mesh %d (%s): three.js reads %d vertices, Gallop's mesh has %d", m, s.Meshes[m], n, len(mesh.Positions))
		}
		at := map[[3]float32]int{}
		for v, p := range mesh.Positions {
			at[f32(p)] = v
		}
		for j := range n {
			v := j
			if j >= len(mesh.Positions) {
				var ok bool
				if v, ok = at[f32(s.Rest[first+j])]; !ok {
					t.Fatalf("mesh %d (%s): the file's vertex %d, at %v, copies none of the mesh's", m, s.Meshes[m], j, s.Rest[first+j])
				}
			} else if got := f32(s.Rest[first+j]); got != f32(mesh.Positions[j]) {
				t.Fatalf("mesh %d (%s): vertex %d is %v in the file, %v in Gallop's mesh", m, s.Meshes[m], j, got, mesh.Positions[j])
			}
			src = append(src, mesh.Positions[v])
			of = append(of, m)
		}
		first += n
	}
	want := make([][]mgl64.Vec3, len(frames))
	for f := range frames {
		want[f] = make([]mgl64.Vec3, len(src))
		for i, p := range src {
			want[f][i] = place[of[i]](f, p)
		}
	}
	compareThree(t, s, frames, want, diag)
}

// writeSmallEnsemble writes a small ensemble with no shared data to dir:
// a strip (a root group of 2 × 8 vertices) and a flag (2 × 3 vertices)
// sewn to its edge by three vertices, waving in two folders wind-1 and
// wind-2 of 110 OBJ frames each (the wind stronger in the second), with
// groups.csv and attachments.csv beside them. It returns the two
// folders. (110 frames: reading the folders checks them against the
// default τ_max of 30, which asks for 102, whatever --tau-max says.)
func writeSmallEnsemble(t *testing.T, dir string) []string {
	t.Helper()
	strip := func(cols int) (tri [][3]int) {
		for c := range cols - 1 {
			tri = append(tri, [3]int{c, c + 1, c + cols}, [3]int{c + 1, c + cols + 1, c + cols})
		}
		return tri
	}
	var rest []mgl64.Vec3
	for r := range 2 {
		for c := range 8 {
			rest = append(rest, mgl64.Vec3{0.1 * float64(c), 1, -0.05 * float64(r)})
		}
	}
	for r := range 2 {
		for c := range 3 {
			rest = append(rest, mgl64.Vec3{0.1 * float64(2+c), 1 - 0.08*float64(r), 0})
		}
	}
	groups := []assets.EnsembleGroup{
		{Name: "strip", First: 0, Count: 16, Parent: -1, Triangles: strip(8)},
		{Name: "flag", First: 16, Count: 6, Parent: 0, Triangles: strip(3)},
	}
	files := map[string]string{
		"groups.csv":      "name,first_vertex,vertex_count,parent\nstrip,1,16,\nflag,17,6,strip\n",
		"attachments.csv": "group,vertex,parent_vertex\nflag,17,3\nflag,18,4\nflag,19,5\n",
	}
	var levels []string
	for l := range 2 {
		level := filepath.Join(dir, fmt.Sprintf("wind-%d", l+1))
		levels = append(levels, level)
		amp := 0.5 + 0.5*float64(l)
		for f := range 110 {
			s := float64(f) / 30
			wave := func(p mgl64.Vec3) mgl64.Vec3 {
				return p.Add(mgl64.Vec3{0.01 * amp * math.Sin(3*p[0]+4*s), 0.05 * amp * math.Sin(5*p[0]+4*s), 0.02 * amp * math.Cos(2*p[0]+5*s)})
			}
			x := make([]mgl64.Vec3, len(rest))
			for v := range 16 {
				x[v] = wave(rest[v])
			}
			for v := 16; v < 22; v++ {
				p := rest[v]
				depth := 1 - p[1]
				x[v] = wave(mgl64.Vec3{p[0], 1, 0}).Add(mgl64.Vec3{0, -depth, 0.3 * depth * amp * math.Sin(4*s+3*p[0])})
			}
			var b bytes.Buffer
			if err := assets.WriteEnsembleOBJ(&b, groups, x); err != nil {
				t.Fatal(err)
			}
			files[filepath.Join(filepath.Base(level), fmt.Sprintf("%d.obj", f+1))] = b.String()
		}
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return levels
}

// TestThreeEnsembleCompact: the compact ensemble export (`gallop ensemble
// play --out x.glb`: a node per group with translation and rotation
// channels, its PCA basis and sewing fields as morph targets with a
// weights channel, all of them weighed at every frame) of a small
// synthetic ensemble (writeSmallEnsemble, built with `gallop ensemble
// build`) plays in three.js as Gallop plays the graph: Gallop's own
// positions are the same play (same graph, seed and wind) written as OBJ
// frames by the same command, the player's positions themselves.
func TestThreeEnsembleCompact(t *testing.T) {
	tmp := t.TempDir()
	levels := writeSmallEnsemble(t, filepath.Join(tmp, "data"))
	graph := filepath.Join(tmp, "small.graph.json")
	var stdout bytes.Buffer
	if err := runEnsemble(append(append([]string{"build"}, levels...), "--tau-max", "6", "--tries", "1", "--samples", "2", "--out", graph, "--json"), &stdout); err != nil {
		t.Fatal(err)
	}
	var b tens.BuildReport
	if err := json.Unmarshal(stdout.Bytes(), &b); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	t.Logf("build: %d groups, %d levels, %d transitions", b.Groups, b.Levels, b.Transitions)
	glb := filepath.Join(tmp, "played.glb")
	objs := filepath.Join(tmp, "played") + "/"
	var p tens.PlayReport
	for _, out := range []string{glb, objs} {
		stdout.Reset()
		if err := runEnsemble([]string{"play", graph, "--seconds", "4", "--wind", "1,2", "--change-every", "1", "--seed", "3", "--out", out, "--json"}, &stdout); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
			t.Fatalf("%v: %s", err, stdout.Bytes())
		}
	}
	t.Logf("play: %d frames, %d transitions, %d wind changes", p.Frames, p.Transitions, p.WindChanges)
	files, err := assets.ListOBJSequence(objs)
	if err != nil {
		t.Fatal(err)
	}
	var want [][]mgl64.Vec3
	for _, file := range files {
		m, err := assets.LoadOBJ(file)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, m.Positions)
	}
	if len(want) != p.Frames {
		t.Fatalf("%d OBJ frames for %d played", len(want), p.Frames)
	}
	frames := threeFrames(len(want))
	s := gltftest.Three(t, int(math.Round(p.FPS)), frames, glb)[0]
	if len(s.Meshes) != b.Groups || s.Meshes[0] != "strip" || s.Meshes[1] != "flag" {
		t.Fatalf("three.js reads meshes %q, the ensemble has %d groups (strip, flag)", s.Meshes, b.Groups)
	}
	compareThree(t, s, frames, want, []float64{threeDiagonal(want[0])})
}
