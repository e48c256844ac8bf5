package assets

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"

	"gallop/internal/shareddata"
)

// loadGLTFObject loads a glTF file that must hold exactly one object.
func loadGLTFObject(t testing.TB, path string) *Object {
	t.Helper()
	objs, err := LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 {
		t.Fatalf("%s: %d objects, want 1", path, len(objs))
	}
	return objs[0]
}

// gltfDiagonal returns the length of the bounding box diagonal of points.
func gltfDiagonal(points []Vec3) float64 {
	lo, hi := Bounds(points)
	return hi.Sub(lo).Len()
}

// gltfMaxDistance returns the largest distance between corresponding points.
func gltfMaxDistance(a, b []Vec3) float64 {
	d := 0.0
	for i := range a {
		d = max(d, a[i].Sub(b[i]).Len())
	}
	return d
}

// checkGLTFClip fails unless the clips have the same frame count and
// rate and every position agrees within tol.
func checkGLTFClip(t *testing.T, got, want *Clip, tol float64) {
	t.Helper()
	if got == nil || want == nil {
		t.Fatalf("clip %v, want %v", got, want)
	}
	if got.NumFrames() != want.NumFrames() || got.FPS != want.FPS {
		t.Fatalf("clip has %d frames at %v fps, want %d at %v", got.NumFrames(), got.FPS, want.NumFrames(), want.FPS)
	}
	worst := 0.0
	for f := range want.Frames {
		if len(got.Frames[f]) != len(want.Frames[f]) {
			t.Fatalf("frame %d: %d vertices, want %d", f, len(got.Frames[f]), len(want.Frames[f]))
		}
		worst = max(worst, gltfMaxDistance(got.Frames[f], want.Frames[f]))
	}
	if worst > tol {
		t.Errorf("clip positions differ by up to %g, tolerance %g", worst, tol)
	}
}

// gltfReferenceSkin skins the document's skinned mesh with every animated
// property of animation 0 at its key k, straight from the glTF 2.0 formula
// v = Σ_i w_i · G(joint_i) · IBM_i · p over the raw node hierarchy, reading
// the data with qmuntal/gltf's modeler rather than this package's reader.
func gltfReferenceSkin(t *testing.T, doc *gltf.Document, k int) []Vec3 {
	t.Helper()
	type trs struct {
		t, s     [3]float64
		r        [4]float64
		animated bool
	}
	nodes := make([]trs, len(doc.Nodes))
	for i, n := range doc.Nodes {
		nodes[i] = trs{t: n.Translation, s: n.Scale, r: n.Rotation}
	}
	an := doc.Animations[0]
	for _, ch := range an.Channels {
		out, err := modeler.ReadAccessor(doc, doc.Accessors[an.Samplers[ch.Sampler].Output], nil)
		if err != nil {
			t.Fatal(err)
		}
		n := &nodes[*ch.Target.Node]
		n.animated = true
		switch ch.Target.Path {
		case gltf.TRSTranslation:
			v := out.([][3]float32)[k]
			n.t = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
		case gltf.TRSScale:
			v := out.([][3]float32)[k]
			n.s = [3]float64{float64(v[0]), float64(v[1]), float64(v[2])}
		case gltf.TRSRotation:
			v := out.([][4]float32)[k]
			n.r = [4]float64{float64(v[0]), float64(v[1]), float64(v[2]), float64(v[3])}
		}
	}
	parent := make([]int, len(doc.Nodes))
	for i := range parent {
		parent[i] = -1
	}
	for i, n := range doc.Nodes {
		for _, c := range n.Children {
			parent[c] = i
		}
	}
	var global func(i int) mgl64.Mat4
	global = func(i int) mgl64.Mat4 {
		n := nodes[i]
		m := mgl64.Mat4(doc.Nodes[i].Matrix)
		if n.animated || m == mgl64.Mat4(gltf.DefaultMatrix) {
			q := mgl64.Quat{W: n.r[3], V: Vec3{n.r[0], n.r[1], n.r[2]}}.Normalize()
			m = mgl64.Translate3D(n.t[0], n.t[1], n.t[2]).Mul4(q.Mat4()).Mul4(mgl64.Scale3D(n.s[0], n.s[1], n.s[2]))
		}
		if parent[i] >= 0 {
			return global(parent[i]).Mul4(m)
		}
		return m
	}
	for _, n := range doc.Nodes {
		if n.Skin == nil {
			continue
		}
		skin := doc.Skins[*n.Skin]
		prim := doc.Meshes[*n.Mesh].Primitives[0]
		pos, err := modeler.ReadPosition(doc, doc.Accessors[prim.Attributes[gltf.POSITION]], nil)
		if err != nil {
			t.Fatal(err)
		}
		joints, err := modeler.ReadJoints(doc, doc.Accessors[prim.Attributes[gltf.JOINTS_0]], nil)
		if err != nil {
			t.Fatal(err)
		}
		weights, err := modeler.ReadWeights(doc, doc.Accessors[prim.Attributes[gltf.WEIGHTS_0]], nil)
		if err != nil {
			t.Fatal(err)
		}
		ibm, err := modeler.ReadInverseBindMatrices(doc, doc.Accessors[*skin.InverseBindMatrices], nil)
		if err != nil {
			t.Fatal(err)
		}
		skinMat := make([]mgl64.Mat4, len(skin.Joints))
		for j, node := range skin.Joints {
			var b mgl64.Mat4
			for r := 0; r < 4; r++ {
				for c := 0; c < 4; c++ {
					b[c*4+r] = float64(ibm[j][r][c])
				}
			}
			skinMat[j] = global(node).Mul4(b)
		}
		out := make([]Vec3, len(pos))
		for v, p := range pos {
			p4 := mgl64.Vec4{float64(p[0]), float64(p[1]), float64(p[2]), 1}
			var s mgl64.Vec4
			for c := 0; c < 4; c++ {
				s = s.Add(skinMat[joints[v][c]].Mul4x1(p4).Mul(float64(weights[v][c])))
			}
			out[v] = s.Vec3()
		}
		return out
	}
	t.Fatal("no skinned node")
	return nil
}

// checkGLTFRig checks a rig's joint count and that parents precede children.
func checkGLTFRig(t *testing.T, o *Object, joints int) {
	t.Helper()
	if o.Rig == nil || len(o.Rig.Joints) != joints {
		t.Fatalf("rig %v, want %d joints", o.Rig, joints)
	}
	for j, jt := range o.Rig.Joints {
		if jt.Parent >= j {
			t.Errorf("joint %d (%s) has parent %d", j, jt.Name, jt.Parent)
		}
	}
	if o.Skin == nil || len(o.Skin.Frames) != o.Clip.NumFrames() || o.Skin.FPS != o.Clip.FPS {
		t.Fatalf("joint animation %v does not match the clip", o.Skin)
	}
	baked, err := o.Rig.Bake(o.Mesh.Positions, o.Skin)
	if err != nil {
		t.Fatal(err)
	}
	checkGLTFClip(t, baked, o.Clip, 1e-12)
}

func TestGltfImportRiggedFigure(t *testing.T) {
	path := shareddata.Path(t, "gltf", "RiggedFigure.gltf")
	o := loadGLTFObject(t, path)
	if o.Name != "Proxy" || o.Mesh.NumVertices() != 370 || o.Mesh.NumTriangles() != 256 {
		t.Fatalf("%q: %d vertices, %d triangles; want Proxy, 370, 256", o.Name, o.Mesh.NumVertices(), o.Mesh.NumTriangles())
	}
	if len(o.Mesh.Normals) != 370 || len(o.Mesh.NormalTriangles) != 256 || len(o.Mesh.Groups) != 1 {
		t.Errorf("%d normals, %d normal triangles, %d groups", len(o.Mesh.Normals), len(o.Mesh.NormalTriangles), len(o.Mesh.Groups))
	}
	// Two keys per channel, 1.25 s apart: baked at 24 fps, 31 frames.
	if o.Clip == nil || o.Clip.FPS != 24 || o.Clip.NumFrames() != 31 {
		t.Fatalf("clip %v", o.Clip)
	}
	checkGLTFRig(t, o, 19)
	if r := o.Rig.Joints[0]; r.Name != "torso_joint_1" || r.Parent != -1 {
		t.Errorf("root joint %q, parent %d", r.Name, r.Parent)
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	tol := 1e-6 * gltfDiagonal(o.Clip.Frames[0])
	for _, c := range []struct{ frame, key int }{{0, 0}, {30, 1}} {
		if d := gltfMaxDistance(o.Clip.Frames[c.frame], gltfReferenceSkin(t, doc, c.key)); d > tol {
			t.Errorf("frame %d differs from skinning at key %d by %g", c.frame, c.key, d)
		}
	}
}

func TestGltfImportRiggedSimple(t *testing.T) {
	path := shareddata.Path(t, "gltf", "RiggedSimple.gltf")
	o := loadGLTFObject(t, path)
	if o.Mesh.NumVertices() != 160 || o.Mesh.NumTriangles() != 188 {
		t.Fatalf("%d vertices, %d triangles; want 160, 188", o.Mesh.NumVertices(), o.Mesh.NumTriangles())
	}
	// 50 keys at 1/24 s, the first at 1/24: the clip starts at the first
	// key, frames 0..49 at 24 fps.
	if o.Clip == nil || o.Clip.FPS != 24 || o.Clip.NumFrames() != 50 {
		t.Fatalf("clip of %d frames at %v fps, want 50 at 24", o.NumFrames(), o.FPS())
	}
	checkGLTFRig(t, o, 2)
	if got := o.Rig.MaxInfluences(); got != 2 {
		t.Errorf("%d influences per vertex, want 2", got)
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	// Frame f falls on key f (the time before the first key, which only
	// holds it, is not read).
	tol := 1e-6 * gltfDiagonal(o.Clip.Frames[0])
	for _, c := range []struct{ frame, key int }{{0, 0}, {1, 1}, {25, 25}, {49, 49}} {
		if d := gltfMaxDistance(o.Clip.Frames[c.frame], gltfReferenceSkin(t, doc, c.key)); d > tol {
			t.Errorf("frame %d differs from skinning at key %d by %g", c.frame, c.key, d)
		}
	}
}

func TestGltfImportSimpleMorph(t *testing.T) {
	o := loadGLTFObject(t, shareddata.Path(t, "gltf", "SimpleMorph.gltf"))
	if o.Mesh.NumVertices() != 3 || o.Mesh.NumTriangles() != 1 || o.Rig != nil {
		t.Fatalf("%d vertices, %d triangles, rig %v", o.Mesh.NumVertices(), o.Mesh.NumTriangles(), o.Rig)
	}
	// Keys at t = 0, 1, 2, 3, 4 s: 24 fps, frames 0..96.
	if o.Clip == nil || o.Clip.FPS != 24 || o.Clip.NumFrames() != 97 {
		t.Fatalf("clip %v", o.Clip)
	}
	// Base (0,0,0) (1,0,0) (0.5,0.5,0); targets move only vertex 2, by
	// (-1,1,0) and (1,1,0). Weight keys (0,0) (0,1) (1,1) (1,0) (0,0);
	// mesh.weights (0.5, 0.5) give the rest pose.
	v2 := func(w1, w2 float64) Vec3 { return Vec3{0.5 - w1 + w2, 0.5 + w1 + w2, 0} }
	if got, want := o.Mesh.Positions[2], v2(0.5, 0.5); got != want {
		t.Errorf("rest vertex 2 = %v, want %v", got, want)
	}
	for _, c := range []struct {
		frame  int
		w1, w2 float64
	}{{0, 0, 0}, {12, 0, 0.5}, {24, 0, 1}, {48, 1, 1}, {60, 1, 0.5}, {72, 1, 0}, {90, 0.25, 0}, {96, 0, 0}} {
		f := o.Clip.Frames[c.frame]
		if f[0] != (Vec3{}) || f[1] != (Vec3{1, 0, 0}) || f[2].Sub(v2(c.w1, c.w2)).Len() > 1e-12 {
			t.Errorf("frame %d = %v, want vertex 2 at %v", c.frame, f, v2(c.w1, c.w2))
		}
	}
}

// TestGltfReexport exports the three sample files, validates the exports
// and reads them back.
func TestGltfReexport(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		file string
		mode ExportMode
	}{
		{"RiggedFigure.gltf", ExportSkin},
		{"RiggedSimple.gltf", ExportSkin},
		{"RiggedFigure.gltf", ExportMorph},
		{"RiggedSimple.gltf", ExportMorph},
		{"SimpleMorph.gltf", ExportMorph},
	} {
		o := loadGLTFObject(t, shareddata.Path(t, "gltf", c.file))
		for _, ext := range []string{".glb", ".gltf"} {
			name := c.file[:len(c.file)-5] + map[ExportMode]string{ExportSkin: "-skin", ExportMorph: "-morph"}[c.mode] + ext
			t.Run(name, func(t *testing.T) {
				path := filepath.Join(dir, name)
				if err := SaveGLTF(path, o, ExportOptions{Mode: c.mode}); err != nil {
					t.Fatal(err)
				}
				back := loadGLTFObject(t, path)
				if back.Mesh.NumVertices() != o.Mesh.NumVertices() || back.Mesh.SameTopology(o.Mesh) != nil {
					t.Fatalf("re-imported mesh: %v", back.Mesh.SameTopology(o.Mesh))
				}
				diag := gltfDiagonal(o.Clip.Frames[0])
				switch c.mode {
				case ExportSkin:
					checkGLTFRig(t, back, len(o.Rig.Joints))
					checkGLTFClip(t, back.Clip, o.Clip, 1e-5*diag)
				case ExportMorph:
					if back.Rig != nil {
						t.Errorf("morph export came back with a rig")
					}
					checkGLTFClip(t, back.Clip, o.Clip, 1e-6*diag)
				}
				if d := gltfMaxDistance(back.Mesh.Positions, o.Mesh.Positions); d > 1e-6*diag {
					t.Errorf("rest positions differ by %g", d)
				}
				validateGLTF(t, path)
			})
		}
	}
}

// gltfHorseGallop loads the horse-gallop OBJ sequence as an object.
func gltfHorseGallop(t testing.TB) *Object {
	t.Helper()
	files, err := ListOBJSequence(shareddata.Path(t, "horse-gallop", "frames"))
	if err != nil {
		t.Fatal(err)
	}
	m, clip, err := LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Object{Name: "horse-gallop", Mesh: m, Clip: clip}
}

// TestGltfHorseGallopRoundTrip exports the horse gallop as morph targets,
// validates the files and reads them back: the positions must come back
// within float32 precision.
func TestGltfHorseGallopRoundTrip(t *testing.T) {
	o := gltfHorseGallop(t)
	if o.Mesh.NumVertices() != 8431 || o.Clip.NumFrames() != 48 {
		t.Fatalf("horse: %d vertices, %d frames", o.Mesh.NumVertices(), o.Clip.NumFrames())
	}
	lo, hi := o.Clip.Bounds()
	tol := 1e-6 * hi.Sub(lo).Len()
	for _, name := range []string{"horse-gallop.glb", "horse-gallop.gltf"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if err := SaveGLTF(path, o, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			back := loadGLTFObject(t, path)
			if err := back.Mesh.SameTopology(o.Mesh); err != nil {
				t.Fatal(err)
			}
			if d := gltfMaxDistance(back.Mesh.Positions, o.Mesh.Positions); d > tol {
				t.Errorf("rest positions differ by %g, tolerance %g", d, tol)
			}
			checkGLTFClip(t, back.Clip, o.Clip, tol)
			validateGLTF(t, path)
		})
	}
}

func BenchmarkExportHorseGallopGLB(b *testing.B) {
	o := gltfHorseGallop(b)
	path := filepath.Join(b.TempDir(), "horse-gallop.glb")
	b.ResetTimer()
	for b.Loop() {
		if err := SaveGLTF(path, o, ExportOptions{Mode: ExportMorph}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLoadHorseGallopGLB(b *testing.B) {
	o := gltfHorseGallop(b)
	path := filepath.Join(b.TempDir(), "horse-gallop.glb")
	if err := SaveGLTF(path, o, ExportOptions{Mode: ExportMorph}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := LoadGLTF(path); err != nil {
			b.Fatal(err)
		}
	}
}

func TestGltfSampler(t *testing.T) {
	lin := &gltfSampler{times: []float64{1, 2, 4}, values: []float64{0, 10, 30}, width: 1}
	step := &gltfSampler{times: lin.times, values: lin.values, width: 1, interp: gltf.InterpolationStep}
	// Cubic: keys (t=0, v=0, out-tangent 1) and (t=2, in-tangent 3, v=1).
	// With u = t/2, p(u) = h00·0 + 2·h10·1 + h01·1 + 2·h11·3.
	cubic := &gltfSampler{times: []float64{0, 2}, values: []float64{9, 0, 1, 3, 1, 9}, width: 1, interp: gltf.InterpolationCubicSpline}
	hermite := func(u float64) float64 {
		return 2*(u*u*u-2*u*u+u) + (-2*u*u*u + 3*u*u) + 2*3*(u*u*u-u*u)
	}
	for _, c := range []struct {
		s    *gltfSampler
		t    float64
		want float64
	}{
		{lin, 0, 0}, {lin, 1, 0}, {lin, 1.5, 5}, {lin, 2, 10}, {lin, 3.5, 25}, {lin, 9, 30},
		{step, 0.5, 0}, {step, 1.99, 0}, {step, 2, 10}, {step, 3.9, 10}, {step, 4, 30}, {step, 5, 30},
		{cubic, -1, 0}, {cubic, 0, 0}, {cubic, 0.5, hermite(0.25)}, {cubic, 1, hermite(0.5)}, {cubic, 2, 1}, {cubic, 3, 1},
	} {
		if got := c.s.eval(nil, c.t)[0]; math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%v at t=%v: %v, want %v", c.s.interp, c.t, got, c.want)
		}
	}
	// Rotation: halfway between identity and 90° about z is 45°, by the
	// shorter arc even when the second key is given as -q.
	q90 := mgl64.QuatRotate(math.Pi/2, Vec3{0, 0, 1})
	rot := &gltfSampler{times: []float64{0, 1}, values: []float64{0, 0, 0, 1, -q90.V[0], -q90.V[1], -q90.V[2], -q90.W}, width: 4, rot: true}
	got := quatXYZW(rot.eval(nil, 0.5)).Normalize()
	if want := mgl64.QuatRotate(math.Pi/4, Vec3{0, 0, 1}); math.Abs(math.Abs(got.Dot(want))-1) > 1e-12 {
		t.Errorf("slerp halfway = %v, want ±%v", got, want)
	}
}

func TestGltfFrameRate(t *testing.T) {
	anim := func(times ...[]float64) *gltfAnimation {
		a := &gltfAnimation{name: "test", start: math.Inf(1)}
		for _, ts := range times {
			a.channels = append(a.channels, gltfChannel{sampler: &gltfSampler{times: ts, width: 1}})
			a.start = min(a.start, ts[0])
			a.end = max(a.end, ts[len(ts)-1])
		}
		return a
	}
	f24 := func(keys ...int) []float64 {
		var ts []float64
		for _, k := range keys {
			ts = append(ts, float64(float32(float64(k)/24)))
		}
		return ts
	}
	for _, c := range []struct {
		name   string
		a      *gltfAnimation
		fps    float64
		frames int
	}{
		{"24 fps keys from the first frame on", anim(f24(1, 2, 3, 4)), 24, 4},
		{"24 fps grid, several channels", anim(f24(0, 2, 4), f24(3, 9)), 24, 10},
		{"2 keys 1.25 s apart", anim([]float64{0, 1.25}), 24, 31},
		{"1 s keys", anim([]float64{0, 1, 2, 3, 4}), 24, 97},
		{"60 fps keys", anim([]float64{0, 1.0 / 60, 2.0 / 60}), 60, 3},
		{"irregular", anim([]float64{0, 0.3, 0.7}), DefaultFPS, 22},
		{"single key", anim([]float64{0}), DefaultFPS, 1},
		{"too fine", anim([]float64{0, 0.001, 1}), DefaultFPS, 31},
	} {
		fps := c.a.frameRate()
		n, err := c.a.frames(fps)
		if err != nil || fps != c.fps || n != c.frames {
			t.Errorf("%s: %v fps, %d frames, %v; want %v fps, %d frames", c.name, fps, n, err, c.fps, c.frames)
		}
	}
	if _, err := anim([]float64{0, 1e9}).frames(24); err == nil {
		t.Errorf("a 1e9 s animation did not fail")
	}
}
