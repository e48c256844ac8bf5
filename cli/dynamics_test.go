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
	"gallop/internal/shareddata"
)

func runDynamicsJSON(t *testing.T, args ...string) dynamicsResult {
	t.Helper()
	var out bytes.Buffer
	if err := runDynamics(append(args, "--json"), &out); err != nil {
		t.Fatalf("gallop dynamics %s: %v", strings.Join(args, " "), err)
	}
	var r dynamicsResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, out.Bytes())
	}
	return r
}

// TestDynamicsTube fits dynskin-tube's train example and applies the
// parameters to test, never seen by the fit (acceptance 3): the fitted
// simulation is at most 0.70 × plain skinning's RMSE on train and 0.93 ×
// on test. The baked test animation passes glTF-Validator.
func TestDynamicsTube(t *testing.T) {
	dir := sharedSet(t, "dynskin-tube")
	tmp := t.TempDir()
	params := filepath.Join(tmp, "tube.csv")
	rigPath := filepath.Join(dir, "rig.glb")
	fit := runDynamicsJSON(t, "fit", "--rig", rigPath, "--animation", "train", "--example", filepath.Join(dir, "train", "example"), "--out", params)
	t.Logf("fit: %d iterations (best %d) in %.1f s, RMSE %.4g vs skinning %.4g: %.3f", fit.Iterations, fit.BestIteration, fit.Seconds, fit.RMSEDynamic, fit.RMSELBS, fit.Ratio)
	if fit.Vertices != 2282 || fit.Frames != 72 || len(fit.EnergyHistory) != fit.Iterations+1 {
		t.Errorf("%d vertices, %d frames, %d energies for %d iterations", fit.Vertices, fit.Frames, len(fit.EnergyHistory), fit.Iterations)
	}
	if !(fit.Ratio <= 0.70) {
		t.Errorf("train: the fitted simulation's RMSE is %.3f × plain skinning's, want ≤ 0.70", fit.Ratio)
	}
	out := filepath.Join(tmp, "test.glb")
	apply := runDynamicsJSON(t, "apply", "--rig", rigPath, "--animation", "test", "--params", params, "--example", filepath.Join(dir, "test", "example"), "--out", out)
	t.Logf("test: RMSE %.4g vs skinning %.4g: %.3f", apply.RMSEDynamic, apply.RMSELBS, apply.Ratio)
	if !(apply.Ratio <= 0.93) {
		t.Errorf("test: the simulation's RMSE is %.3f × plain skinning's, want ≤ 0.93", apply.Ratio)
	}
	gltftest.Validate(t, out)
	objs, err := assets.LoadGLTF(out)
	if err != nil {
		t.Fatal(err)
	}
	if objs[0].NumFrames() != 72 {
		t.Errorf("the baked file has %d frames, want 72", objs[0].NumFrames())
	}

	// --skinned: the rig and its joint animation, the secondary motion as
	// corrective morph targets; read back, the same clip as the morph
	// export, away from plain skinning.
	skinned := filepath.Join(tmp, "test-skinned.glb")
	sr := runDynamicsJSON(t, "apply", "--rig", rigPath, "--animation", "test", "--params", params, "--out", skinned, "--skinned")
	e := sr.Export
	if e == nil {
		t.Fatal("--skinned reports no export figures")
	}
	st, err := os.Stat(filepath.Join(tmp, "test.glb"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("--skinned: %d bytes (the morph export %d), %d corrective shapes, %d active, missing by %.3g of the diagonal", e.Bytes, st.Size(), e.CorrectiveShapes, e.ActiveTargets, e.MissRelative)
	if e.MissRelative > 1e-3 || e.CorrectiveShapes == 0 || e.RootJoints != 1 {
		t.Errorf("--skinned export figures %+v", e)
	}
	tol := 1e-3 * sr.Diagonal
	gltftest.Validate(t, skinned)
	sk, err := assets.LoadGLTF(skinned)
	if err != nil {
		t.Fatal(err)
	}
	o := sk[0]
	if o.Rig == nil || o.Skin == nil {
		t.Fatal("the --skinned file has no rig")
	}
	plain, err := o.Rig.Bake(o.Mesh.Positions, o.Skin)
	if err != nil {
		t.Fatal(err)
	}
	worst, away := 0.0, 0.0
	for f := range plain.Frames {
		for i := range plain.Frames[f] {
			worst = max(worst, o.Clip.Frames[f][i].Sub(objs[0].Clip.Frames[f][i]).Len())
			away = max(away, o.Clip.Frames[f][i].Sub(plain.Frames[f][i]).Len())
		}
	}
	t.Logf("--skinned: %.3g from the morph export, up to %.3g from plain skinning", worst, away)
	if worst > tol || away < 1e-3 {
		t.Errorf("--skinned plays %.3g from the morph export and %.3g from plain skinning", worst, away)
	}

	// In Blender (issue 25: "in Blender the jiggle survives"): the skinned
	// file, its armature and shape keys evaluated, plays what the morph
	// file plays; its armature alone does not.
	frames := []int{5, 20, 40, 60}
	bl := gltftest.Blender(t, int(math.Round(objs[0].Clip.FPS)), frames, skinned, out)
	if bl[0].Armatures != 1 || bl[0].ShapeKeys == 0 {
		t.Fatalf("Blender reads the skinned file as %d armatures and %d shape keys", bl[0].Armatures, bl[0].ShapeKeys)
	}
	for k, f := range frames {
		d, plain := bl[0].Apart(bl[1], k)
		t.Logf("Blender, frame %d: skinned with its shape keys %.3g from the morph file, its armature alone %.3g", f, d, plain)
		if d > tol || plain < 1e-2 {
			t.Errorf("Blender, frame %d: the skinned file plays %.3g from the morph file (%.3g without its shape keys)", f, d, plain)
		}
	}
}

// TestDynamicsBadInput: each kind of bad input is refused with a message
// naming the file and what is wrong (acceptance 6).
func TestDynamicsBadInput(t *testing.T) {
	dir := sharedSet(t, "dynskin-tube")
	rigPath := filepath.Join(dir, "rig.glb")
	tmp := t.TempDir()
	// Two frames of the example.
	short := filepath.Join(tmp, "short")
	os.Mkdir(short, 0o755)
	for _, f := range []string{"1.obj", "2.obj"} {
		data, err := os.ReadFile(filepath.Join(dir, "train", "example", f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(short, f), data, 0o644)
	}
	// The example at 24 fps, as a glb.
	objs, err := assets.Import(t.Context(), []string{filepath.Join(dir, "train", "example")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	slow := filepath.Join(tmp, "slow.glb")
	ex := objs[0]
	ex.Clip.FPS = 24
	if err := assets.SaveGLTF(slow, ex, assets.ExportOptions{Mode: assets.ExportMorph}); err != nil {
		t.Fatal(err)
	}
	// Another mesh: the horse.
	other := sharedSet(t, "horse-gallop")
	// A params file with λ out of range.
	badParams := filepath.Join(tmp, "bad.csv")
	os.WriteFile(badParams, []byte("vertex,alpha,beta,gamma,lambda,kappa\n0,1,0,0,0.7,0\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--rig", rigPath, "--animation", "train", "--example", short}, "short: 2 frames, at least 3 are needed"},
		{[]string{"fit", "--rig", rigPath, "--animation", "train", "--example", slow}, "slow.glb: 24 frames per second, the goal animation has 30"},
		{[]string{"fit", "--rig", rigPath, "--animation", "train", "--example", other}, "vertices, tube has 2282"},
		{[]string{"fit", "--rig", rigPath, "--animation", "walk", "--example", short}, `rig.glb: no animation called "walk" (the file has "test", "train")`},
		{[]string{"fit", "--rig", shareddata.Path(t, "gltf", "SimpleMorph.gltf"), "--example", short}, "SimpleMorph.gltf: no skinned object"},
		{[]string{"apply", "--rig", rigPath, "--animation", "test", "--params", badParams}, "bad.csv:2: vertex 0: lambda = 0.7 is outside [0, 0.5]"},
	} {
		err := runDynamics(c.args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("gallop dynamics %s: %v, want %q", strings.Join(c.args, " "), err, c.want)
		}
	}
}
