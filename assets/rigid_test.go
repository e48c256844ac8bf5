package assets

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
)

// rigidTestAnimation returns 30 frames at 30 fps of three bodies over a
// static floor: a sphere rolling along x, a box thrown up while tumbling,
// and a capsule spinning about a tilted axis by 1.5 turns; every seventh
// rotation of the capsule is negated (the same rotation), as simulators
// may hand them out.
func rigidTestAnimation() *RigidAnimation {
	const nf = 30
	a := &RigidAnimation{
		Name: "tumble",
		FPS:  30,
		Bodies: []RigidBody{
			{Name: "ball", Mesh: SphereMesh(0.3, 16), Color: [3]float32{0.9, 0.9, 0.9}},
			{Name: "box", Mesh: BoxMesh(Vec3{0.4, 0.2, 0.6})},
			{Name: "capsule", Mesh: CapsuleMesh(0.15, 0.5, 12)},
		},
		Static: []RigidPart{{Name: "floor", Mesh: BoxMesh(Vec3{6, 0.1, 4})}},
	}
	for i := range a.Static[0].Mesh.Positions {
		a.Static[0].Mesh.Positions[i][1] -= 0.05 // top face at y = 0
	}
	axis := Vec3{1, 2, 0.5}.Normalize()
	for f := 0; f < nf; f++ {
		t := float64(f) / a.FPS
		ball, box, capsule := &a.Bodies[0], &a.Bodies[1], &a.Bodies[2]
		ball.Positions = append(ball.Positions, Vec3{-2 + 2*t, 0.3, 0.5})
		ball.Rotations = append(ball.Rotations, mgl64.QuatRotate(-2*t/0.3, Vec3{0, 0, 1}))
		box.Positions = append(box.Positions, Vec3{0.5, 0.3 + 4*t - 4.9*t*t, -1})
		box.Rotations = append(box.Rotations, mgl64.AnglesToQuat(3*t, 5*t, 1.5*t, mgl64.XYZ))
		q := mgl64.QuatRotate(3*math.Pi*float64(f)/(nf-1), axis)
		if f%7 == 3 {
			q = q.Scale(-1)
		}
		capsule.Positions = append(capsule.Positions, Vec3{1.5, 0.8, 1})
		capsule.Rotations = append(capsule.Rotations, q)
	}
	return a
}

// TestRigidObjects checks Objects against a hand computation: a body's
// vertex in frame f is R_f·p + t_f, its mesh is frame 0 with rotated
// normals, and the floor is a static copy.
func TestRigidObjects(t *testing.T) {
	a := rigidTestAnimation()
	objs, err := a.Objects()
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("%d objects, want 4", len(objs))
	}
	for i, o := range objs {
		if err := o.Validate(); err != nil {
			t.Errorf("object %d: %v", i, err)
		}
	}
	box := objs[1]
	if box.Name != "box" || box.Clip == nil || box.Clip.NumFrames() != 30 || box.Clip.FPS != 30 || box.Clip.Name != "tumble" {
		t.Fatalf("box object %q, clip %+v", box.Name, box.Clip)
	}
	b := a.Bodies[1]
	for _, f := range []int{0, 17, 29} {
		for v, p := range b.Mesh.Positions {
			want := b.Rotations[f].Rotate(p).Add(b.Positions[f])
			if d := box.Clip.Frames[f][v].Sub(want).Len(); d > 1e-12 {
				t.Errorf("frame %d vertex %d: %v, want %v", f, v, box.Clip.Frames[f][v], want)
			}
		}
	}
	if d := gltfMaxDistance(box.Mesh.Positions, box.Clip.Frames[0]); d != 0 {
		t.Errorf("mesh differs from frame 0 by %g", d)
	}
	for k, n := range box.Mesh.Normals {
		if d := n.Sub(b.Rotations[0].Rotate(b.Mesh.Normals[k])).Len(); d > 1e-12 {
			t.Errorf("normal %d not rotated: %v", k, n)
		}
	}
	floor := objs[3]
	if floor.Name != "floor" || floor.Clip != nil || gltfMaxDistance(floor.Mesh.Positions, a.Static[0].Mesh.Positions) != 0 {
		t.Errorf("floor object %q, clip %v", floor.Name, floor.Clip)
	}
	if floor.Mesh == a.Static[0].Mesh || box.Mesh == b.Mesh {
		t.Errorf("objects share meshes with the animation")
	}
}

// TestRigidGLTFRoundTrip exports the test animation as .glb and .gltf,
// reads each back and compares it with Objects: the same objects in the
// same order, every vertex of every frame (and every triangle corner,
// since the box's sharp edges split vertices) within 1e-6 of the scene's
// size, which is float32 precision. The validator must report nothing at
// all: no errors, warnings or infos (such as unused objects).
func TestRigidGLTFRoundTrip(t *testing.T) {
	a := rigidTestAnimation()
	want, err := a.Objects()
	if err != nil {
		t.Fatal(err)
	}
	var all []Vec3
	for _, o := range want {
		for f := 0; f < o.NumFrames(); f++ {
			all = append(all, o.PositionsAt(f)...)
		}
	}
	tol := 1e-6 * gltfDiagonal(all)
	for _, ext := range []string{".glb", ".gltf"} {
		t.Run(ext, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "tumble"+ext)
			if err := SaveRigidGLTF(path, a); err != nil {
				t.Fatal(err)
			}
			got, err := LoadGLTF(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%d objects, want %d", len(got), len(want))
			}
			for i, w := range want {
				g := got[i]
				if g.Name != w.Name {
					t.Errorf("object %d is %q, want %q", i, g.Name, w.Name)
				}
				nv := w.Mesh.NumVertices()
				if d := gltfMaxDistance(g.Mesh.Positions[:nv], w.Mesh.Positions); d > tol {
					t.Errorf("%s: rest positions off by %g", w.Name, d)
				}
				if w.Clip == nil {
					if g.Clip != nil {
						t.Errorf("%s: static part came back with a clip", w.Name)
					}
					continue
				}
				checkGLTFClip(t, gltfCornerClip(g), gltfCornerClip(w), tol)
				for f := range w.Clip.Frames {
					if d := gltfMaxDistance(g.Clip.Frames[f][:nv], w.Clip.Frames[f]); d > tol {
						t.Errorf("%s: frame %d off by %g", w.Name, f, d)
					}
				}
			}
			if rep := validateGLTF(t, path); rep.Infos > 0 {
				t.Errorf("validator: %d infos", rep.Infos)
			}
		})
	}
}

// TestRigidGLTFStructure checks the document: one node per body and part,
// one animation of LINEAR translation and rotation channels recording the
// frame rate, one material per colour, and a geometry shared by bodies
// with the same mesh or an equal copy of it, even in different colours.
func TestRigidGLTFStructure(t *testing.T) {
	a := rigidTestAnimation()
	ball := a.Bodies[0]
	twin := ball
	twin.Name = "twin"
	copied := ball
	copied.Name, copied.Mesh, copied.Color = "copy", ball.Mesh.Clone(), [3]float32{0, 0, 1}
	a.Bodies = append(a.Bodies, twin, copied)
	doc, err := buildRigidGLTF(a)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Nodes) != 6 || len(doc.Scenes[0].Nodes) != 6 {
		t.Errorf("%d nodes, %d in the scene; want 6", len(doc.Nodes), len(doc.Scenes[0].Nodes))
	}
	// Geometries: sphere, box, capsule, floor box, each POSITION, NORMAL
	// and indices; plus the time keys and 2 × 5 channel outputs.
	if n := len(doc.Accessors); n != 4*3+1+10 {
		t.Errorf("%d accessors, want %d", n, 4*3+1+10)
	}
	// Meshes: ball (white), box, capsule, floor, ball in blue.
	if len(doc.Meshes) != 5 || len(doc.Materials) != 5 {
		t.Errorf("%d meshes, %d materials; want 5 and 5", len(doc.Meshes), len(doc.Materials))
	}
	if *doc.Nodes[3].Mesh != *doc.Nodes[0].Mesh || *doc.Nodes[4].Mesh == *doc.Nodes[0].Mesh {
		t.Errorf("meshes of ball, twin, copy: %d, %d, %d", *doc.Nodes[0].Mesh, *doc.Nodes[3].Mesh, *doc.Nodes[4].Mesh)
	}
	if len(doc.Animations) != 1 {
		t.Fatalf("%d animations", len(doc.Animations))
	}
	an := doc.Animations[0]
	if fps, _ := an.Extras.(map[string]any)[gltfFPSExtra].(float64); fps != 30 || an.Name != "tumble" || len(an.Channels) != 10 {
		t.Errorf("animation %q: fps %v, %d channels", an.Name, fps, len(an.Channels))
	}
	for _, s := range an.Samplers {
		if s.Interpolation != 0 || s.Input != an.Samplers[0].Input {
			t.Errorf("sampler %+v: want LINEAR over the shared key times", s)
		}
	}
	for _, c := range an.Channels {
		if *c.Target.Node >= 5 {
			t.Errorf("channel on static node %d", *c.Target.Node)
		}
	}
}

// TestRigidInvalid checks that malformed animations are refused with a
// message naming the body and frame, and that no file (nor a temporary
// one) is left behind.
func TestRigidInvalid(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(a *RigidAnimation)
		want string
	}{
		{"frame counts", func(a *RigidAnimation) { a.Bodies[1].Positions = a.Bodies[1].Positions[:29] }, `body 1 ("box"): 29 positions and 30 rotations, want 30`},
		{"NaN position", func(a *RigidAnimation) { a.Bodies[2].Positions[7][1] = math.NaN() }, `body 2 ("capsule"): frame 7: non-finite position`},
		{"Inf rotation", func(a *RigidAnimation) { a.Bodies[0].Rotations[3].W = math.Inf(-1) }, `body 0 ("ball"): frame 3: non-finite rotation`},
		{"non-unit rotation", func(a *RigidAnimation) { a.Bodies[1].Rotations[12] = a.Bodies[1].Rotations[12].Scale(1.01) }, `body 1 ("box"): frame 12: rotation`},
		{"zero rotation", func(a *RigidAnimation) { a.Bodies[1].Rotations[5] = mgl64.Quat{} }, `body 1 ("box"): frame 5: rotation`},
		{"no mesh", func(a *RigidAnimation) { a.Bodies[2].Mesh = nil }, `body 2 ("capsule"): no mesh`},
		{"bad mesh", func(a *RigidAnimation) { a.Bodies[0].Mesh.Triangles[4][2] = 9999 }, `body 0 ("ball"): mesh "sphere": triangle 4`},
		{"colour", func(a *RigidAnimation) { a.Static[0].Color = [3]float32{2, 0, 0} }, `static part 0 ("floor"): colour`},
		{"no frames", func(a *RigidAnimation) {
			for i := range a.Bodies {
				a.Bodies[i].Positions, a.Bodies[i].Rotations = nil, nil
			}
		}, `body 0 ("ball"): no frames`},
		{"no bodies", func(a *RigidAnimation) { a.Bodies = nil }, `no bodies`},
		{"fps", func(a *RigidAnimation) { a.FPS = 0 }, `frame rate 0`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := rigidTestAnimation()
			c.edit(a)
			dir := t.TempDir()
			path := filepath.Join(dir, "bad.glb")
			err := SaveRigidGLTF(path, a)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path+`: rigid animation "tumble": `) {
				t.Errorf("error %q, want it to name the file and contain %q", err, c.want)
			}
			if _, oerr := a.Objects(); oerr == nil || !strings.Contains(oerr.Error(), c.want) {
				t.Errorf("Objects: error %v, want %q", oerr, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("%d files written", len(entries))
			}
		})
	}
	if err := SaveRigidGLTF(filepath.Join(t.TempDir(), "x.glb"), nil); err == nil {
		t.Error("nil animation: no error")
	}
	if err := SaveRigidGLTF(filepath.Join(t.TempDir(), "x.obj"), rigidTestAnimation()); err == nil {
		t.Error(".obj: no error")
	}
}

// morphTestAnimation is rigidTestAnimation with the box deforming in its
// own frame by two morph targets (a stretch along x and a shear of its
// top), weighted differently in every frame.
func morphTestAnimation() *RigidAnimation {
	a := rigidTestAnimation()
	box := &a.Bodies[1]
	box.Mesh = box.Mesh.Clone()
	stretch := make([]Vec3, len(box.Mesh.Positions))
	shear := make([]Vec3, len(box.Mesh.Positions))
	for v, p := range box.Mesh.Positions {
		stretch[v] = Vec3{p[0], 0, 0}
		shear[v] = Vec3{0, 0, 0.5 * p[1]}
	}
	box.Targets = [][]Vec3{stretch, shear}
	for f := range box.Positions {
		x := float64(f) / 29
		box.Weights = append(box.Weights, []float64{0.5 * math.Sin(3*x), x * x})
	}
	return a
}

// TestRigidMorphObjects checks a morphing body against a hand computation:
// R_f·(p + Σ w_fk d_k) + t_f.
func TestRigidMorphObjects(t *testing.T) {
	a := morphTestAnimation()
	objs, err := a.Objects()
	if err != nil {
		t.Fatal(err)
	}
	b := a.Bodies[1]
	for _, f := range []int{0, 11, 29} {
		for v, p := range b.Mesh.Positions {
			local := p.Add(b.Targets[0][v].Mul(b.Weights[f][0])).Add(b.Targets[1][v].Mul(b.Weights[f][1]))
			want := b.Rotations[f].Rotate(local).Add(b.Positions[f])
			if d := objs[1].Clip.Frames[f][v].Sub(want).Len(); d > 1e-12 {
				t.Fatalf("frame %d vertex %d: %v, want %v", f, v, objs[1].Clip.Frames[f][v], want)
			}
		}
	}
}

// TestRigidMorphGLTFRoundTrip writes the morphing animation as .glb, reads
// it back and compares every frame of every body with Objects within
// float32 precision; the validator reports nothing.
func TestRigidMorphGLTFRoundTrip(t *testing.T) {
	a := morphTestAnimation()
	want, err := a.Objects()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "morph.glb")
	if err := SaveRigidGLTF(path, a); err != nil {
		t.Fatal(err)
	}
	got, err := LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d objects, want %d", len(got), len(want))
	}
	tol := 1e-6 * 8 // float32 precision of a scene a few units across
	for i, w := range want {
		if w.Clip == nil {
			continue
		}
		nv := w.Mesh.NumVertices()
		if got[i].Clip == nil || got[i].Clip.NumFrames() != w.Clip.NumFrames() {
			t.Fatalf("%s: clip %v, want %d frames", w.Name, got[i].Clip, w.Clip.NumFrames())
		}
		for f := range w.Clip.Frames {
			if d := gltfMaxDistance(got[i].Clip.Frames[f][:nv], w.Clip.Frames[f]); d > tol {
				t.Errorf("%s: frame %d off by %g", w.Name, f, d)
			}
		}
	}
	if rep := validateGLTF(t, path); rep.Infos > 0 {
		t.Errorf("validator: %d infos", rep.Infos)
	}
}

// TestRigidMorphWeightsWrittenInUnitRange: weights below 0 and above 1
// are written in [0, 1], where players clamp them (Blender's shape-key
// sliders), the targets scaled and the base shape moved to match, so the
// file still reads back as Objects within float32 precision; weights
// already in [0, 1] are written as they are.
func TestRigidMorphWeightsWrittenInUnitRange(t *testing.T) {
	a := morphTestAnimation()
	box := &a.Bodies[1]
	for f, row := range box.Weights {
		x := float64(f) / 29
		row[0], row[1] = 1.5*math.Sin(6*x), 3*x-1
	}
	want, err := a.Objects()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "morph.glb")
	if err := SaveRigidGLTF(path, a); err != nil {
		t.Fatal(err)
	}
	doc, err := gltf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var ws []float64
	for _, s := range doc.Animations[0].Samplers {
		if _, out, err := readAccessor(doc, s.Output, gltf.AccessorScalar); err == nil {
			ws = append(ws, out...)
		}
	}
	for _, m := range doc.Meshes {
		ws = append(ws, m.Weights...)
	}
	if len(ws) != 2*30+2 || slices.Min(ws) < 0 || slices.Max(ws) > 1 {
		t.Errorf("%d weights written in [%g, %g], want %d in [0, 1]", len(ws), slices.Min(ws), slices.Max(ws), 2*30+2)
	}
	got, err := LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	nv := want[1].Mesh.NumVertices()
	for f := range want[1].Clip.Frames {
		if d := gltfMaxDistance(got[1].Clip.Frames[f][:nv], want[1].Clip.Frames[f]); d > 8e-6 {
			t.Errorf("frame %d off by %g", f, d)
		}
	}
}

func TestRigidMorphInvalid(t *testing.T) {
	a := morphTestAnimation()
	a.Bodies[1].Weights[4] = a.Bodies[1].Weights[4][:1]
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), `body 1 ("box"): frame 4: 1 morph weights, want 2`) {
		t.Errorf("short weight row: %v", err)
	}
	a = morphTestAnimation()
	a.Bodies[1].Targets[1] = a.Bodies[1].Targets[1][:3]
	if err := a.Validate(); err == nil || !strings.Contains(err.Error(), "morph target 1 has 3 displacements") {
		t.Errorf("short target: %v", err)
	}
}
