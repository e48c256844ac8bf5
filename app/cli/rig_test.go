package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
)

// TestRigCylinder rigs the cylinder's posed meshes with 4 bones, writes a
// skinned glTF, re-imports it and checks that it plays the animation the
// rig reproduces (its RMSE against the input matches the reported one),
// then validates the file.
func TestRigCylinder(t *testing.T) {
	dir := sharedSet(t, "cylinder-rig")
	out := filepath.Join(t.TempDir(), "cylinder.glb")
	frames := filepath.Join(dir, "poses-1")
	var stdout bytes.Buffer
	err := runRig([]string{frames, "--reference", filepath.Join(dir, "cylinder.obj"), "--bones", "4",
		"--trans-affine", "0", "--out", out, "--json"}, &stdout)
	if err != nil {
		t.Fatal(err)
	}
	var r rigResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	t.Logf("%d iterations, RMSE %.3g (%.3g of the diagonal), %.3f s", r.Iterations, r.RMSE, r.RMSERelative, r.Seconds)
	if r.Bones != 4 || r.Frames != 4 || r.Vertices != 420 || !(r.Seconds > 0) {
		t.Errorf("unexpected figures %+v", r)
	}
	if r.RMSERelative > 1e-3 {
		t.Errorf("rmse_relative %.3g, want ≤ 1e-3", r.RMSERelative)
	}

	objs, err := assets.LoadGLTF(out)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Rig == nil || len(o.Rig.Joints) != 4 || o.Clip == nil || len(o.Clip.Frames) != 4 {
		t.Fatalf("re-imported object: rig %v, clip %v", o.Rig != nil, o.Clip != nil)
	}
	files, err := assets.ListOBJSequence(frames)
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for f, file := range files {
		m, err := assets.LoadOBJ(file)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range m.Positions {
			d := o.Clip.Frames[f][i].Sub(p)
			sum += d.Dot(d)
		}
	}
	played := math.Sqrt(sum / float64(4*420))
	if math.Abs(played-r.RMSE) > 1e-5*r.Diagonal {
		t.Errorf("the glTF plays back with RMSE %.6g, the rig's is %.6g", played, r.RMSE)
	}
	gltftest.Validate(t, out)
}

func TestRigBadInput(t *testing.T) {
	dir := sharedSet(t, "cylinder-rig")
	one := t.TempDir()
	data, err := os.ReadFile(filepath.Join(dir, "poses-1", "cylinder-1.obj"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(one, "1.obj"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tri := filepath.Join(t.TempDir(), "tri.obj")
	if err := os.WriteFile(tri, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	poses := filepath.Join(dir, "poses-1")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{one, "--bones", "2"}, "at least 2 frames"},
		{[]string{poses, "--bones", "421"}, "421 bones for 420 vertices"},
		{[]string{poses, "--bones", "4", "--reference", tri}, "3 vertices, the animation"},
		{[]string{poses, "--bones", "4", "--max-influences", "17"}, "--max-influences 17"},
		{[]string{tri, "--bones", "4"}, "want a folder of OBJ frames"},
	} {
		err := runRig(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gallop rig %v: error %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}
