package assets

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"gallop/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// riggedBar is the demo bar with a two-joint rig and a joint animation, so
// project tests cover every part of an Object.
func riggedBar() *Object {
	s := DemoScene()
	o := s.Objects[0]
	r := &Rig{Joints: []Joint{
		{Name: "root", Parent: -1, Rest: IdentityTransform(), InverseBind: mgl64.Ident4()},
		{Name: "tip", Parent: 0, Rest: Transform{Translation: Vec3{3, 0, 0}, Rotation: mgl64.QuatIdent(), Scale: Vec3{1, 1, 1}}, InverseBind: mgl64.Translate3D(-3, 0, 0)},
	}}
	for _, p := range o.Mesh.Positions {
		w := min(1, max(0, p[0]/6))
		r.Weights = append(r.Weights, []Influence{{0, 1 - w}, {1, w}})
	}
	o.Rig = r
	o.Skin = &SkinAnimation{Name: "wave", FPS: 24}
	for i := 0; i < 5; i++ {
		tip := r.Joints[1].Rest
		tip.Rotation = mgl64.QuatRotate(float64(i)*0.2, Vec3{0, 0, 1})
		o.Skin.Frames = append(o.Skin.Frames, []Transform{IdentityTransform(), tip})
	}
	o.Mesh.UVs = []Vec2{{0, 0}, {1, 0}, {0, 1}}
	o.Mesh.UVTriangles = make([][3]int, len(o.Mesh.Triangles))
	for i := range o.Mesh.UVTriangles {
		o.Mesh.UVTriangles[i] = [3]int{0, 1, 2}
	}
	return o
}

func TestProjectRoundTripEmbedded(t *testing.T) {
	o := riggedBar()
	captured := &Clip{Name: "captured", FPS: 24, Frames: [][]Vec3{o.Mesh.Positions, o.Clip.Frames[0]}}
	o.Takes = []Take{{Clip: captured}, {Clip: o.Clip, Skin: o.Skin}} // issue 25: the clip a tool's result replaced
	if err := o.Validate(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bar.gallop")
	p := &Project{
		Scene: &Scene{Objects: []*Object{o}}, Active: 0, Frame: 17, Selection: []int{3, 5, 131},
		Settings: map[string]json.RawMessage{"camera": json.RawMessage(`{"yaw":1.5}`)},
		Tools:    map[string]json.RawMessage{"pose": json.RawMessage(`{"handles":[[1,2]]}`)},
	}
	if err := SaveProject(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := LoadProject(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q.Frame != 17 || !reflect.DeepEqual(q.Selection, p.Selection) {
		t.Fatalf("frame %d selection %v", q.Frame, q.Selection)
	}
	if compact(q.Settings["camera"]) != `{"yaw":1.5}` || compact(q.Tools["pose"]) != `{"handles":[[1,2]]}` {
		t.Fatalf("settings %s tools %s", q.Settings["camera"], q.Tools["pose"])
	}
	got := q.Scene.Objects[0]
	if !reflect.DeepEqual(got.Mesh, o.Mesh) {
		t.Fatal("mesh differs after round trip")
	}
	if !reflect.DeepEqual(got.Clip, o.Clip) {
		t.Fatal("clip differs after round trip")
	}
	if !reflect.DeepEqual(got.Takes, o.Takes) {
		t.Fatal("takes differ after round trip")
	}
	if !reflect.DeepEqual(got.Rig, o.Rig) || !reflect.DeepEqual(got.Skin, o.Skin) {
		t.Fatal("rig or joint animation differs after round trip")
	}
}

func TestProjectReferencesSourceByRelativePath(t *testing.T) {
	dir := t.TempDir()
	bar := DemoBar()
	frames := filepath.Join(dir, "data", "frames")
	if err := os.MkdirAll(frames, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, a := range []float64{0, 0.5, 1} {
		if err := SaveOBJ(filepath.Join(frames, []string{"1.obj", "2.obj", "10.obj"}[i]), bar, DemoBarBent(a)); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := Import(context.Background(), []string{frames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs[0].Clip.FPS = 12 // an edit of the frame rate is kept as an override
	path := filepath.Join(dir, "proj", "p.gallop")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := SaveProject(path, &Project{Scene: &Scene{Objects: objs}}); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if !strings.Contains(string(raw), `"../data/frames"`) {
		t.Fatalf("project does not reference the folder by relative path:\n%s", raw)
	}
	if strings.Contains(string(raw), `"positions"`) {
		t.Fatal("referenced object was embedded")
	}
	// Move the whole tree: relative references still resolve.
	moved := filepath.Join(t.TempDir(), "moved")
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	q, err := LoadProject(context.Background(), filepath.Join(moved, "proj", "p.gallop"), nil)
	if err != nil {
		t.Fatal(err)
	}
	o := q.Scene.Objects[0]
	if o.Clip.FPS != 12 || o.NumFrames() != 3 {
		t.Fatalf("fps %v frames %d", o.Clip.FPS, o.NumFrames())
	}
	if !reflect.DeepEqual(o.Clip.Frames[2], DemoBarBent(1)) {
		t.Fatal("frame 10.obj is not the third frame")
	}
	// Embed writes the data instead.
	if err := SaveProject(path, &Project{Scene: q.Scene, Embed: true}); err == nil {
		t.Fatal("saving into the moved-away folder should fail")
	}
	path2 := filepath.Join(moved, "proj", "embedded.gallop")
	if err := SaveProject(path2, &Project{Scene: q.Scene, Embed: true}); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(moved, "data"))
	if _, err := LoadProject(context.Background(), path2, nil); err != nil {
		t.Fatalf("embedded project needs its source: %v", err)
	}
	if _, err := LoadProject(context.Background(), filepath.Join(moved, "proj", "p.gallop"), nil); err == nil || !strings.Contains(err.Error(), "frames") {
		t.Fatalf("missing referenced folder: err = %v", err)
	}
}

func TestSaveKeepsPreviousFileOnFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keep.gallop")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := atomicfile.Write(path, func(w io.Writer) error {
		w.Write([]byte("half a proj"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "previous" {
		t.Fatalf("previous file changed to %q", b)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary file left behind: %v", entries)
	}
}

func TestLoadProjectRejectsBadFiles(t *testing.T) {
	good := func() map[string]any {
		path := filepath.Join(t.TempDir(), "g.gallop")
		if err := SaveProject(path, &Project{Scene: DemoScene()}); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		b, _ := os.ReadFile(path)
		json.Unmarshal(b, &m)
		return m
	}
	obj := func(m map[string]any) map[string]any { return m["objects"].([]any)[0].(map[string]any) }
	cases := []struct {
		name, want string
		edit       func(m map[string]any)
		raw        string
	}{
		{name: "not json", raw: "{oops", want: "not a Gallop project"},
		{name: "truncated", raw: `{"format":"gallop-project","version":1,"objects":[{"name":"a","mesh":{"positions":"AAAA`, want: "not a Gallop project"},
		{name: "format", edit: func(m map[string]any) { m["format"] = "blend" }, want: "format"},
		{name: "future version", edit: func(m map[string]any) { m["version"] = 99 }, want: "version 99 was written by a newer Gallop"},
		{name: "next version", edit: func(m map[string]any) { m["version"] = ProjectVersion + 1 }, want: "newer Gallop"},
		{name: "version 0", edit: func(m map[string]any) { m["version"] = 0 }, want: "version 0"},
		{name: "bad base64", edit: func(m map[string]any) { obj(m)["mesh"].(map[string]any)["positions"] = "!!!" }, want: "positions"},
		{name: "ragged positions", edit: func(m map[string]any) { obj(m)["mesh"].(map[string]any)["positions"] = EncodeFloat64s([]float64{1, 2}) }, want: "triples"},
		{name: "triangle out of range", edit: func(m map[string]any) { obj(m)["mesh"].(map[string]any)["triangles"] = encodeInts([]int{0, 1, 999}) }, want: "out of range"},
		{name: "nan", edit: func(m map[string]any) {
			p := DemoBar().Positions
			p[7][1] = 0 / zero()
			obj(m)["mesh"].(map[string]any)["positions"] = EncodeVec3s(p)
		}, want: "non-finite"},
		{name: "frame size", edit: func(m map[string]any) {
			obj(m)["clip"].(map[string]any)["frames"].([]any)[3] = EncodeVec3s(DemoBar().Positions[:5])
		}, want: "frame 3"},
		{name: "selection", edit: func(m map[string]any) { m["selection"] = []int{5000} }, want: "selected vertex 5000"},
		{name: "active", edit: func(m map[string]any) { m["active"] = 3 }, want: "active object 3"},
		{name: "no mesh", edit: func(m map[string]any) { delete(obj(m), "mesh") }, want: "neither a source"},
		{name: "unknown source", edit: func(m map[string]any) { obj(m)["source"] = map[string]any{"kind": "fbx", "paths": []string{"x.fbx"}} }, want: "unknown source kind"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bad.gallop")
			raw := []byte(c.raw)
			if c.edit != nil {
				m := good()
				c.edit(m)
				raw, _ = json.Marshal(m)
			}
			os.WriteFile(path, raw, 0o644)
			_, err := LoadProject(context.Background(), path, nil)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "bad.gallop") {
				t.Fatalf("error %q should name the file and contain %q", err, c.want)
			}
		})
	}
}

func zero() float64 { return 0 }

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return "invalid: " + err.Error()
	}
	return b.String()
}

// TestProjectVersion1Opens (issue 34): a version 1 file (before hidden
// objects, takes and embedded graphs) opens, its objects shown and without
// takes; a saved project says version 2.
func TestProjectVersion1Opens(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.gallop")
	if err := SaveProject(path, &Project{Scene: DemoScene()}); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["version"] != float64(2) {
		t.Fatalf("saved as version %v, want 2", m["version"])
	}
	m["version"] = 1
	for _, o := range m["objects"].([]any) {
		delete(o.(map[string]any), "hidden")
		delete(o.(map[string]any), "takes")
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProject(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Scene.Objects) != len(DemoScene().Objects) {
		t.Fatalf("%d objects", len(p.Scene.Objects))
	}
	for _, o := range p.Scene.Objects {
		if o.Hidden || len(o.Takes) > 0 {
			t.Errorf("%s: hidden %v, %d takes", o.Name, o.Hidden, len(o.Takes))
		}
	}
}
