package assets

import (
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/qmuntal/gltf"
	"github.com/qmuntal/gltf/modeler"
)

// readGLTFBytes decodes and converts a file's bytes as LoadGLTF does,
// reading external buffers from fsys.
func readGLTFBytes(data []byte, fsys fs.FS) ([]*Object, error) {
	doc, err := decodeGLTF(data, fsys)
	if err != nil {
		return nil, err
	}
	return ReadGLTF(doc, "test.gltf")
}

// mutateGLTF applies edit to the JSON of a .gltf file.
func mutateGLTF(t *testing.T, data []byte, edit func(doc map[string]any)) []byte {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// gltfJSONAt returns element i of the array doc[key] as an object.
func gltfJSONAt(doc map[string]any, key string, i int) map[string]any {
	return doc[key].([]any)[i].(map[string]any)
}

// TestGltfMalformed feeds broken variants of a valid file to the reader:
// each must give an error naming the problem, never a panic. The base file
// is the tetrahedron's morph export: accessors 0 POSITION, 1 NORMAL,
// 2 TEXCOORD_0, 3 indices, 4-6 targets, 7 times, 8 weights.
func TestGltfMalformed(t *testing.T) {
	base := gltfBytes(t, gltfTetra(), ExportMorph, false)
	dir := os.DirFS(t.TempDir())
	if _, err := readGLTFBytes(base, dir); err != nil {
		t.Fatalf("base file: %v", err)
	}
	prim := func(doc map[string]any) map[string]any {
		return gltfJSONAt(gltfJSONAt(doc, "meshes", 0), "primitives", 0)
	}
	for _, c := range []struct {
		name string
		edit func(doc map[string]any)
		want string
	}{
		{"accessor index out of range", func(d map[string]any) { prim(d)["attributes"].(map[string]any)["POSITION"] = 99 }, "accessor 99 does not exist"},
		{"negative accessor index", func(d map[string]any) { prim(d)["indices"] = -1 }, "accessor -1 does not exist"},
		{"count mismatch", func(d map[string]any) { gltfJSONAt(d, "accessors", 1)["count"] = 3 }, "NORMAL: accessor 1 has 3 elements, POSITION has 12"},
		{"count beyond the buffer view", func(d map[string]any) { gltfJSONAt(d, "accessors", 0)["count"] = 1000 }, "accessor 0: 1000 elements"},
		{"huge count", func(d map[string]any) { gltfJSONAt(d, "accessors", 0)["count"] = 1 << 62 }, "accessor 0:"},
		{"wrong accessor type", func(d map[string]any) { gltfJSONAt(d, "accessors", 0)["type"] = "VEC2" }, "accessor 0: type VEC2"},
		{"float indices", func(d map[string]any) { gltfJSONAt(d, "accessors", 3)["componentType"] = 5126 }, "indices"},
		{"no buffer view, huge count", func(d map[string]any) {
			a := gltfJSONAt(d, "accessors", 4)
			delete(a, "bufferView")
			a["count"] = 1 << 40
		}, "accessor 4:"},
		{"buffer view out of range", func(d map[string]any) { gltfJSONAt(d, "accessors", 0)["bufferView"] = 50 }, "buffer view 50 does not exist"},
		{"negative byteOffset", func(d map[string]any) { gltfJSONAt(d, "accessors", 0)["byteOffset"] = -4 }, "byteOffset -4"},
		{"buffer view past the buffer", func(d map[string]any) { gltfJSONAt(d, "bufferViews", 0)["byteLength"] = 1 << 30 }, "buffer view 0"},
		{"byteLength past the data", func(d map[string]any) { gltfJSONAt(d, "buffers", 0)["byteLength"] = 1 << 30 }, "buffer 0: byteLength"},
		{"missing buffer file", func(d map[string]any) { gltfJSONAt(d, "buffers", 0)["uri"] = "missing.bin" }, "missing.bin"},
		{"buffer outside the folder", func(d map[string]any) { gltfJSONAt(d, "buffers", 0)["uri"] = "../x.bin" }, "../x.bin"},
		{"no buffer URI", func(d map[string]any) { delete(gltfJSONAt(d, "buffers", 0), "uri") }, "buffer 0: no uri"},
		{"bad base64", func(d map[string]any) {
			gltfJSONAt(d, "buffers", 0)["uri"] = "data:application/octet-stream;base64,@@@"
		}, "buffer 0: data URI"},
		{"lines", func(d map[string]any) { prim(d)["mode"] = 1 }, "only TRIANGLES"},
		{"node cycle", func(d map[string]any) { gltfJSONAt(d, "nodes", 0)["children"] = []any{0} }, "cycle"},
		{"child out of range", func(d map[string]any) { gltfJSONAt(d, "nodes", 0)["children"] = []any{7} }, "child 7 does not exist"},
		{"mesh out of range", func(d map[string]any) { gltfJSONAt(d, "nodes", 0)["mesh"] = 3 }, "mesh 3 does not exist"},
		{"scene out of range", func(d map[string]any) { d["scene"] = 2 }, "scene 2 does not exist"},
		{"null node", func(d map[string]any) { d["nodes"] = []any{nil} }, "node 0: null"},
		{"morph weights count", func(d map[string]any) { gltfJSONAt(d, "meshes", 0)["weights"] = []any{1} }, "1 default morph weights for 3 targets"},
		{"sampler out of range", func(d map[string]any) { gltfJSONAt(gltfJSONAt(d, "animations", 0), "channels", 0)["sampler"] = 4 }, "sampler 4 does not exist"},
		{"output count", func(d map[string]any) { gltfJSONAt(d, "accessors", 8)["count"] = 8 }, "output accessor 8 has 8 values, want 9"},
		{"keys not increasing", func(d map[string]any) {
			gltfJSONAt(gltfJSONAt(d, "animations", 0), "samplers", 0)["input"] = 8 // weights: 1 0 0 0 1 0 ...
		}, "not increasing"},
		{"skin out of range", func(d map[string]any) { gltfJSONAt(d, "nodes", 0)["skin"] = 0 }, "skin 0 does not exist"},
		{"sparse index out of range", func(d map[string]any) {
			gltfJSONAt(d, "accessors", 0)["sparse"] = map[string]any{
				"count":   1,
				"indices": map[string]any{"bufferView": 3, "componentType": 5125},
				"values":  map[string]any{"bufferView": 0},
			}
		}, "sparse: index"},
		{"not JSON", nil, "JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := []byte("{not json")
			if c.edit != nil {
				data = mutateGLTF(t, base, c.edit)
			}
			_, err := readGLTFBytes(data, dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestGltfNaN checks that a NaN position is an error naming the file and
// the accessor.
func TestGltfNaN(t *testing.T) {
	doc, err := decodeGLTF(gltfBytes(t, gltfTetra(), ExportMorph, true), nil)
	if err != nil {
		t.Fatal(err)
	}
	bv := doc.BufferViews[*doc.Accessors[0].BufferView]
	binary.LittleEndian.PutUint32(doc.Buffers[0].Data[bv.ByteOffset+16:], math.Float32bits(float32(math.NaN())))
	_, err = ReadGLTF(doc, "nan.glb")
	if err == nil || !strings.HasPrefix(err.Error(), "nan.glb: ") || !strings.Contains(err.Error(), "accessor 0: element 1: non-finite value NaN") {
		t.Errorf("error %v", err)
	}
}

// TestGltfTruncatedGLB cuts a .glb at every length: each must fail, never
// panic, and LoadGLTF must name the file.
func TestGltfTruncatedGLB(t *testing.T) {
	data := gltfBytes(t, gltfRiggedTetra(), ExportSkin, true)
	for n := 0; n < len(data); n++ {
		if _, err := readGLTFBytes(data[:n], nil); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(data))
		}
	}
	path := filepath.Join(t.TempDir(), "cut.glb")
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadGLTF(path); err == nil || !strings.HasPrefix(err.Error(), "cut.glb: truncated GLB") {
		t.Errorf("error %v", err)
	}
}

// TestGltfExternalBuffer reads a .gltf whose buffer is a separate file.
func TestGltfExternalBuffer(t *testing.T) {
	dir := t.TempDir()
	doc, err := buildGLTF(gltfTetra(), ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tetra data.bin"), doc.Buffers[0].Data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc.Buffers[0].URI = "tetra%20data.bin"
	path := filepath.Join(dir, "tetra.gltf")
	if err := gltf.Save(doc, path); err != nil {
		t.Fatal(err)
	}
	o := loadGLTFObject(t, path)
	if o.Mesh.NumVertices() != 12 || o.Clip == nil {
		t.Errorf("%d vertices, clip %v", o.Mesh.NumVertices(), o.Clip)
	}
	validateGLTF(t, path)

}

// gltfRigidDoc returns a document with a triangle (normals +z) under a
// parent node whose matrix mirrors x and translates by (1, 2, 3), rotated
// 90° about z by its own node, whose translation is animated with STEP keys
// (0, 0, 0) at t = 0 and (0, 0, 1) at t = 0.5.
func gltfRigidDoc() *gltf.Document {
	doc := &gltf.Document{Scene: gltf.Index(0)}
	pos := modeler.WritePosition(doc, [][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}})
	nrm := modeler.WriteNormal(doc, [][3]float32{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}})
	idx := modeler.WriteIndices(doc, []uint16{0, 1, 2})
	doc.Meshes = []*gltf.Mesh{{Primitives: []*gltf.Primitive{{
		Attributes: gltf.PrimitiveAttributes{gltf.POSITION: pos, gltf.NORMAL: nrm},
		Indices:    gltf.Index(idx),
	}}}}
	mirror := mgl64.Translate3D(1, 2, 3).Mul4(mgl64.Scale3D(-1, 1, 1))
	q := mgl64.QuatRotate(math.Pi/2, Vec3{0, 0, 1})
	doc.Nodes = []*gltf.Node{
		{Name: "parent", Matrix: mirror, Children: []int{1}, Rotation: gltf.DefaultRotation, Scale: gltf.DefaultScale},
		{Name: "tri", Mesh: gltf.Index(0), Rotation: xyzw(q), Scale: gltf.DefaultScale},
	}
	doc.Scenes = []*gltf.Scene{{Nodes: []int{0}}}
	times := modeler.WriteAccessor(doc, gltf.TargetNone, []float32{0, 0.5})
	moves := modeler.WriteAccessor(doc, gltf.TargetNone, [][3]float32{{0, 0, 0}, {0, 0, 1}})
	doc.Animations = []*gltf.Animation{{
		Samplers: []*gltf.AnimationSampler{{Input: times, Output: moves, Interpolation: gltf.InterpolationStep}},
		Channels: []*gltf.AnimationChannel{{Sampler: 0, Target: gltf.AnimationChannelTarget{Node: gltf.Index(1), Path: gltf.TRSTranslation}}},
	}}
	return doc
}

// TestGltfRigidHierarchy reads gltfRigidDoc and checks positions, normals,
// winding and frames by hand.
func TestGltfRigidHierarchy(t *testing.T) {
	doc := gltfRigidDoc()
	objs, err := ReadGLTF(doc, "rigid.gltf")
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	// Rotating by 90° about z maps (1,0,0) to (0,1,0) and (0,1,0) to
	// (-1,0,0); the parent negates x and adds (1,2,3).
	want := []Vec3{{1, 2, 3}, {1, 3, 3}, {2, 2, 3}}
	if d := gltfMaxDistance(o.Mesh.Positions, want); d > 1e-12 {
		t.Errorf("positions %v, want %v", o.Mesh.Positions, want)
	}
	if o.Mesh.Triangles[0] != [3]int{0, 2, 1} || o.Mesh.NormalTriangles[0] != [3]int{0, 2, 1} {
		t.Errorf("mirrored triangle %v, normal corners %v; want the winding reversed", o.Mesh.Triangles[0], o.Mesh.NormalTriangles[0])
	}
	if d := gltfMaxDistance(o.Mesh.Normals, []Vec3{{0, 0, 1}, {0, 0, 1}, {0, 0, 1}}); d > 1e-12 {
		t.Errorf("normals %v", o.Mesh.Normals)
	}
	// Keys 0.5 s apart: 24 fps, 13 frames; STEP jumps at the last one.
	if o.Clip == nil || o.Clip.FPS != 24 || o.Clip.NumFrames() != 13 {
		t.Fatalf("clip %v", o.Clip)
	}
	for f, frame := range o.Clip.Frames {
		z := 3.0
		if f == 12 {
			z = 4
		}
		for v, p := range frame {
			if w := (Vec3{want[v][0], want[v][1], z}); p.Sub(w).Len() > 1e-12 {
				t.Errorf("frame %d vertex %d = %v, want %v", f, v, p, w)
			}
		}
	}
}
