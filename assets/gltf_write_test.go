package assets

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// gltfTetra returns a tetrahedron whose triangles each have their own three
// UVs (so every vertex has three UVs), animated over three frames at 10 fps.
func gltfTetra() *Object {
	m := &Mesh{
		Name:      "tetra",
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		Triangles: [][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}},
	}
	for f := range m.Triangles {
		for c := 0; c < 3; c++ {
			m.UVs = append(m.UVs, Vec2{0.25 * float64(f), 0.1 * float64(c)})
		}
		m.UVTriangles = append(m.UVTriangles, [3]int{3 * f, 3*f + 1, 3*f + 2})
	}
	clip := &Clip{Name: "wobble", FPS: 10}
	for f := 0; f < 3; f++ {
		frame := make([]Vec3, 4)
		for v, p := range m.Positions {
			frame[v] = p.Add(Vec3{0.5 * float64(f), float64(f*v) * 0.125, 0})
		}
		clip.Frames = append(clip.Frames, frame)
	}
	return &Object{Name: "tetra", Mesh: m, Clip: clip}
}

// gltfRiggedTetra returns a tetrahedron skinned to a rig of 6 joints with
// two roots; vertex 0 has six influences. The joints rotate over 4 frames
// at 24 fps.
func gltfRiggedTetra() *Object {
	o := gltfTetra()
	o.Clip = nil
	rig := &Rig{}
	for j := 0; j < 6; j++ {
		parent := j - 1
		if j == 3 {
			parent = -1
		}
		rest := IdentityTransform()
		rest.Translation = Vec3{0, 0.2 * float64(j), 0}
		rig.Joints = append(rig.Joints, Joint{Name: "j" + string(rune('0'+j)), Parent: parent, Rest: rest})
	}
	rest := make([]Transform, 6)
	for j := range rest {
		rest[j] = rig.Joints[j].Rest
	}
	global := rig.GlobalMatrices(nil, rest)
	for j := range rig.Joints {
		rig.Joints[j].InverseBind = global[j].Inv()
	}
	rig.Weights = [][]Influence{
		{{0, 0.1}, {1, 0.3}, {2, 0.05}, {3, 0.25}, {4, 0.2}, {5, 0.1}},
		{{1, 1}},
		{{2, 0.5}, {4, 0.5}},
		{{5, 0.7}, {0, 0.3}},
	}
	anim := &SkinAnimation{Name: "bend", FPS: 24}
	for f := 0; f < 4; f++ {
		local := append([]Transform(nil), rest...)
		for j := range local {
			local[j].Rotation = mgl64.QuatRotate(0.3*float64(f*(j+1)), Vec3{1, 0, 0})
		}
		local[2].Scale = Vec3{1, 1 + 0.1*float64(f), 1}
		anim.Frames = append(anim.Frames, local)
	}
	o.Rig, o.Skin = rig, anim
	clip, err := rig.Bake(o.Mesh.Positions, anim)
	if err != nil {
		panic(err)
	}
	o.Clip = clip
	return o
}

// TestGltfExportSeams exports a mesh whose vertices have several UVs: they
// are split, the mesh's vertices keep their indices, and each corner keeps
// its position, UV and animation. The 10 fps clip comes back at 10 fps
// (the rate Gallop records in the animation's extras), frame for frame.
func TestGltfExportSeams(t *testing.T) {
	o := gltfTetra()
	path := filepath.Join(t.TempDir(), "tetra.glb")
	if err := SaveGLTF(path, o, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	back := loadGLTFObject(t, path)
	bm := back.Mesh
	if bm.NumVertices() != 12 || bm.NumTriangles() != 4 || len(bm.UVTriangles) != 4 {
		t.Fatalf("%d vertices, %d triangles, %d UV triangles; want 12, 4, 4", bm.NumVertices(), bm.NumTriangles(), len(bm.UVTriangles))
	}
	if d := gltfMaxDistance(bm.Positions[:4], o.Mesh.Positions); d != 0 {
		t.Errorf("the first 4 vertices moved by %g", d)
	}
	if back.Clip.FPS != o.Clip.FPS || back.Clip.NumFrames() != o.Clip.NumFrames() {
		t.Fatalf("clip: %d frames at %v fps, want %d at %v", back.Clip.NumFrames(), back.Clip.FPS, o.Clip.NumFrames(), o.Clip.FPS)
	}
	const eps = 1e-6
	for f, tri := range o.Mesh.Triangles {
		for c, v := range tri {
			bv := bm.Triangles[f][c]
			if d := bm.Positions[bv].Sub(o.Mesh.Positions[v]).Len(); d > eps {
				t.Errorf("triangle %d corner %d: position off by %g", f, c, d)
			}
			if d := bm.UVs[bm.UVTriangles[f][c]].Sub(o.Mesh.UVs[o.Mesh.UVTriangles[f][c]]).Len(); d > eps {
				t.Errorf("triangle %d corner %d: UV off by %g", f, c, d)
			}
			for i, frame := range back.Clip.Frames {
				if d := frame[bv].Sub(o.Clip.Frames[i][v]).Len(); d > eps {
					t.Errorf("frame %d, triangle %d corner %d: off by %g", i, f, c, d)
				}
			}
		}
	}
	validateGLTF(t, path)

}

// TestGltfExportSkinInfluences exports a rig with two root joints and a
// vertex of six influences: asked for 8 influences, JOINTS_1 / WEIGHTS_1
// carry them; by default (issue 35: what engines take) the file has 4 a
// vertex, renormalised, and corrective shapes make it play the clip all
// the same. Either way the two roots hang from one root joint.
func TestGltfExportSkinInfluences(t *testing.T) {
	o := gltfRiggedTetra()
	var four ExportReport
	trimmed := filepath.Join(t.TempDir(), "four.glb")
	if err := SaveGLTF(trimmed, o, ExportOptions{Report: &four}); err != nil {
		t.Fatal(err)
	}
	back4 := loadGLTFObject(t, trimmed)
	if got := back4.Rig.MaxInfluences(); got != 4 || four.TrimmedVertices != 1 || four.CorrectiveShapes == 0 || four.RootJoints != 1 {
		t.Errorf("by default: %d influences, report %+v; want 4 influences, 1 vertex trimmed, corrective shapes, one root", got, four)
	}
	checkGLTFClip(t, gltfCornerClip(back4), gltfCornerClip(o), 1e-3*gltfDiagonal(o.Mesh.Positions))
	validateGLTF(t, trimmed)

	path := filepath.Join(t.TempDir(), "rigged.gltf")
	var eight ExportReport
	if err := SaveGLTF(path, o, ExportOptions{Influences: 8, Report: &eight}); err != nil {
		t.Fatal(err)
	}
	back := loadGLTFObject(t, path)
	if back.Rig == nil || back.Skin == nil || len(back.Rig.Joints) != 7 || back.Rig.Joints[0].Name != "root" {
		t.Fatalf("rig %v, joint animation %v; want the 6 joints under a root joint", back.Rig, back.Skin)
	}
	if got := back.Rig.MaxInfluences(); got != 6 || eight.TrimmedVertices != 0 || eight.CorrectiveShapes != 0 {
		t.Errorf("%d influences, report %+v; want 6 and no corrections", got, eight)
	}
	if err := SaveGLTF(path, o, ExportOptions{Influences: 5}); err == nil {
		t.Error("5 influences a vertex were accepted")
	}
	// Vertex 0's weights, by joint name, survive in float32.
	want := map[string]float64{}
	for _, in := range o.Rig.Weights[0] {
		want[o.Rig.Joints[in.Joint].Name] = in.Weight
	}
	for _, in := range back.Rig.Weights[0] {
		if d := math.Abs(in.Weight - want[back.Rig.Joints[in.Joint].Name]); d > 1e-7 {
			t.Errorf("joint %s: weight %v, want %v", back.Rig.Joints[in.Joint].Name, in.Weight, want[back.Rig.Joints[in.Joint].Name])
		}
	}
	// 4 keys at 24 fps: the clip comes back frame for frame, the seams
	// split (12 vertices) but every triangle corner where it was.
	checkGLTFClip(t, gltfCornerClip(back), gltfCornerClip(o), 1e-6)
	validateGLTF(t, path)

}

// gltfCornerClip returns o's clip with one position per triangle corner.
func gltfCornerClip(o *Object) *Clip {
	c := &Clip{FPS: o.Clip.FPS}
	for _, frame := range o.Clip.Frames {
		var corners []Vec3
		for _, tri := range o.Mesh.Triangles {
			for _, v := range tri {
				corners = append(corners, frame[v])
			}
		}
		c.Frames = append(c.Frames, corners)
	}
	return c
}

// TestGltfExportManyJoints exports a chain of 300 joints, whose indices
// need unsigned short JOINTS.
func TestGltfExportManyJoints(t *testing.T) {
	o := gltfTetra()
	o.Clip = nil
	rig := &Rig{}
	for j := 0; j < 300; j++ {
		rest := IdentityTransform()
		rest.Translation = Vec3{0.001, 0, 0}
		rig.Joints = append(rig.Joints, Joint{Name: "chain", Parent: j - 1, Rest: rest, InverseBind: mgl64.Translate3D(-0.001*float64(j+1), 0, 0)})
	}
	rig.Weights = [][]Influence{{{299, 1}}, {{0, 1}}, {{150, 0.5}, {151, 0.5}}, {{298, 1}}}
	o.Rig = rig
	path := filepath.Join(t.TempDir(), "chain.glb")
	if err := SaveGLTF(path, o, ExportOptions{Mode: ExportSkin}); err != nil {
		t.Fatal(err)
	}
	back := loadGLTFObject(t, path)
	if back.Rig == nil || len(back.Rig.Joints) != 300 || back.Clip != nil {
		t.Fatalf("rig %v, clip %v", back.Rig, back.Clip)
	}
	if in := back.Rig.Weights[0]; len(in) != 1 || in[0].Joint != 299 || in[0].Weight != 1 {
		t.Errorf("vertex 0 influences %v", in)
	}
	validateGLTF(t, path)

}

// TestGltfExportStatic exports a mesh without animation, with normals
// computed, and an object with a rig but no joint animation as morph.
func TestGltfExportStatic(t *testing.T) {
	o := gltfTetra()
	o.Clip = nil
	o.Mesh.UVs, o.Mesh.UVTriangles = nil, nil
	path := filepath.Join(t.TempDir(), "static.gltf")
	if err := SaveGLTF(path, o, ExportOptions{Mode: ExportMorph}); err != nil {
		t.Fatal(err)
	}
	back := loadGLTFObject(t, path)
	if back.Clip != nil || back.Mesh.NumVertices() != 4 || len(back.Mesh.Normals) != 4 {
		t.Fatalf("clip %v, %d vertices, %d normals", back.Clip, back.Mesh.NumVertices(), len(back.Mesh.Normals))
	}
	want := VertexNormals(nil, o.Mesh.Positions, o.Mesh.Triangles)
	if d := gltfMaxDistance(back.Mesh.Normals, want); d > 1e-6 {
		t.Errorf("normals off by %g", d)
	}
	validateGLTF(t, path)

}

// TestGLTFSize: the bytes counted without a file are those SaveGLTF
// writes, as .glb and as .gltf.
func TestGLTFSize(t *testing.T) {
	o := gltfTetra()
	for _, ext := range []string{".glb", ".gltf"} {
		path := filepath.Join(t.TempDir(), "tetra"+ext)
		if err := SaveGLTF(path, o, ExportOptions{Mode: ExportMorph}); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		n, err := GLTFSize(o, ExportOptions{Mode: ExportMorph}, ext == ".glb")
		if err != nil || n != st.Size() {
			t.Errorf("%s: counted %d (%v), the file has %d", ext, n, err, st.Size())
		}
	}
}

// TestGltfExportErrors checks refusals: no triangles, an unknown
// extension, a skin export without a rig.
func TestGltfExportErrors(t *testing.T) {
	dir := t.TempDir()
	empty := &Object{Name: "empty", Mesh: &Mesh{Positions: []Vec3{{0, 0, 0}}}}
	if err := SaveGLTF(filepath.Join(dir, "empty.glb"), empty, ExportOptions{}); err == nil {
		t.Errorf("a mesh without triangles was exported")
	}
	if err := SaveGLTF(filepath.Join(dir, "tetra.obj"), gltfTetra(), ExportOptions{}); err == nil {
		t.Errorf("a .obj path was accepted")
	}
	if err := SaveGLTF(filepath.Join(dir, "tetra.glb"), gltfTetra(), ExportOptions{Mode: ExportSkin}); err == nil {
		t.Errorf("a skin export without a rig succeeded")
	}
}

// gltfBytes exports o in memory.
func gltfBytes(t testing.TB, o *Object, mode ExportMode, asBinary bool) []byte {
	t.Helper()
	doc, err := buildGLTF(o, ExportOptions{Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := encodeGLTF(&b, doc, asBinary); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestItem2SkinnedExportCarriesSecondaryMotion (issue 25, item 2): a skinned
// export of an object whose clip is more than its skinning (baked
// dynamics) plays the clip: read back, the clip is the one exported, and
// plain skinning of the file's rig differs from it where it moved. A clip
// that is plain skinning gets no morph targets.
func TestItem2SkinnedExportCarriesSecondaryMotion(t *testing.T) {
	o := gltfRiggedTetra()
	doc, err := buildGLTF(o, ExportOptions{Mode: ExportSkin, Influences: 8})
	if err != nil {
		t.Fatal(err)
	}
	jiggle := &Clip{Name: o.Clip.Name, FPS: o.Clip.FPS}
	for f, frame := range o.Clip.Frames {
		fr := append([]Vec3(nil), frame...)
		fr[2] = fr[2].Add(Vec3{0.05 * float64(f), -0.03, 0.02 * float64(f*f)})
		jiggle.Frames = append(jiggle.Frames, fr)
	}
	o.Clip = jiggle
	path := filepath.Join(t.TempDir(), "jiggle.glb")
	var rep ExportReport
	if err := SaveGLTF(path, o, ExportOptions{Mode: ExportSkin, Report: &rep}); err != nil {
		t.Fatal(err)
	}
	validateGLTF(t, path)
	back := loadGLTFObject(t, path)
	checkGLTFClip(t, gltfCornerClip(back), gltfCornerClip(o), rep.CorrectionMiss+1e-6)
	skinned, err := back.Rig.Bake(back.Mesh.Positions, back.Skin)
	if err != nil {
		t.Fatal(err)
	}
	if d := skinned.Frames[3][2].Sub(back.Clip.Frames[3][2]).Len(); d < 0.1 {
		t.Errorf("vertex 2 of frame 3 is %g from plain skinning, want the 0.18 it was moved", d)
	}

	if n := len(doc.Meshes[0].Primitives[0].Targets); n != 0 {
		t.Errorf("a clip that is plain skinning got %d morph targets", n)
	}
}

// TestSingularIsRelative (issue 34): a skinning matrix's singularity is
// judged against its own scale: a uniform scaling by 10⁻⁵ (a rig in tiny
// units; |det| = 10⁻¹⁵) is not singular, a matrix that collapses a
// direction is, at any scale.
func TestSingularIsRelative(t *testing.T) {
	for _, c := range []struct {
		name string
		A    mgl64.Mat3
		want bool
	}{
		{"identity", mgl64.Ident3(), false},
		{"scaled by 1e-5", mgl64.Ident3().Mul(1e-5), false},
		{"scaled by 1e5", mgl64.Ident3().Mul(1e5), false},
		{"flattened", mgl64.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 0}, true},
		{"flattened, scaled by 1e-5", mgl64.Mat3{1, 0, 0, 0, 1, 0, 0, 0, 0}.Mul(1e-5), true},
		{"zero", mgl64.Mat3{}, true},
	} {
		if got := singular(c.A); got != c.want {
			t.Errorf("%s: singular %v, want %v", c.name, got, c.want)
		}
	}
}

// TestSkinnedExportRefusesLongClipsAtOnce (issue 34): a skinned export of a
// clip longer than MaxMorphFrames that differs from its skinning in its
// first frame fails there, naming the frame, without computing the other
// frames' corrections (which would hold every vertex of every frame).
func TestSkinnedExportRefusesLongClipsAtOnce(t *testing.T) {
	o := gltfRiggedTetra()
	const n = 400
	for len(o.Mesh.Positions) < n {
		v := len(o.Mesh.Positions)
		o.Mesh.Positions = append(o.Mesh.Positions, Vec3{0.01 * float64(v), 0.3, 0})
		o.Rig.Weights = append(o.Rig.Weights, []Influence{{1, 1}})
	}
	anim := &SkinAnimation{Name: "still", FPS: 24}
	rest := make([]Transform, len(o.Rig.Joints))
	for j := range rest {
		rest[j] = o.Rig.Joints[j].Rest
	}
	for range MaxMorphFrames + 1 {
		anim.Frames = append(anim.Frames, rest)
	}
	o.Skin = anim
	clip, err := o.Rig.Bake(o.Mesh.Positions, anim)
	if err != nil {
		t.Fatal(err)
	}
	clip.Frames[0] = append([]Vec3(nil), clip.Frames[0]...)
	clip.Frames[0][5] = clip.Frames[0][5].Add(Vec3{0.1, 0, 0})
	o.Clip = clip
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = buildGLTF(o, ExportOptions{Mode: ExportSkin})
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "in frame 1;") {
		t.Fatalf("got %v, want the morph-target limit named at frame 1", err)
	}
	// The corrections of every frame would be n·12 bytes each, 39 MB.
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Errorf("%d MB allocated before refusing", got>>20)
	}
}

// TestStretch: ‖A‖₂ of a rotation is 1 (its Frobenius norm is √3), of a
// rotated diag(2, 1, 0.5) 2, of a blend of two rotations at most 1, of a
// flattening its largest axis, of zero 0.
func TestStretch(t *testing.T) {
	rot := mgl64.HomogRotate3D(0.7, mgl64.Vec3{1, 2, 3}.Normalize()).Mat3()
	other := mgl64.HomogRotate3D(-1.1, mgl64.Vec3{0, 1, 0}).Mat3()
	for _, c := range []struct {
		name string
		A    mgl64.Mat3
		want float64
	}{
		{"rotation", rot, 1},
		{"rotated scaling", rot.Mul3(mgl64.Diag3(mgl64.Vec3{2, 1, 0.5})).Mul3(other), 2},
		{"flattened", mgl64.Diag3(mgl64.Vec3{3, 0, 0}), 3},
		{"zero", mgl64.Mat3{}, 0},
	} {
		if got := stretch(c.A); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s: ‖A‖₂ %.15g, want %g", c.name, got, c.want)
		}
	}
	blend := rot.Mul(0.5).Add(other.Mul(0.5))
	if got := stretch(blend); got > 1+1e-12 || got < 0.5 {
		t.Errorf("a blend of two rotations stretches by %g", got)
	}
}

// TestSkinnedExportSmallDifferenceNeedsNoShapes (found by FuzzReadGLB): a
// clip that differs from its skinning by more than CorrectionTolerance
// but less than the export's error everywhere, or only where the skinning
// is singular, exports with no morph targets, validates, and reports
// what it misses by, where it panicked before.
func TestSkinnedExportSmallDifferenceNeedsNoShapes(t *testing.T) {
	o := gltfRiggedTetra()
	lo, hi := Bounds(o.Mesh.Positions)
	diag := hi.Sub(lo).Len()
	clip, err := o.Rig.Bake(o.Mesh.Positions, o.Skin)
	if err != nil {
		t.Fatal(err)
	}
	moved := 1e-4 * diag // between CorrectionTolerance and DefaultCorrectionError
	clip.Frames[1] = append([]Vec3(nil), clip.Frames[1]...)
	clip.Frames[1][2] = clip.Frames[1][2].Add(Vec3{moved, 0, 0})
	o.Clip = clip
	path := filepath.Join(t.TempDir(), "small.glb")
	var rep ExportReport
	if err := SaveGLTF(path, o, ExportOptions{Mode: ExportSkin, Influences: 8, Report: &rep}); err != nil {
		t.Fatal(err)
	}
	validateGLTF(t, path)
	if rep.CorrectiveShapes != 0 || rep.ActiveTargets != 0 {
		t.Errorf("%d corrective shapes (%d active), want none", rep.CorrectiveShapes, rep.ActiveTargets)
	}
	if math.Abs(rep.CorrectionMiss-moved) > 1e-3*moved {
		t.Errorf("reported miss %g, want the %g the vertex was moved", rep.CorrectionMiss, moved)
	}
	doc, err := buildGLTF(o, ExportOptions{Mode: ExportSkin, Influences: 8})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(doc.Meshes[0].Primitives[0].Targets); n != 0 {
		t.Errorf("%d morph targets, want none", n)
	}

	// Corrections that are all zero (every differing vertex singular).
	d := [][][3]float64{make([][3]float64, 3), make([][3]float64, 3)}
	if b := compressCorrections(d, []float64{1, 1, 1}, 1e-3); len(b.shapes) != 0 || len(b.weights) != 0 || b.miss != 0 {
		t.Errorf("zero corrections gave %d shapes, %d weights, miss %g", len(b.shapes), len(b.weights), b.miss)
	}
}
