package synth

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/solver/meshgraph"
	"gallop/solver/synth"
)

// TestSkinnedExportRoundTrip (acceptance 5 of issue 12): a synthesised
// pcow clip written as skinned glTF (one joint per rigid bone) passes
// the validator and re-imports to the synthesised positions within 1e-5
// of the bounding-box diagonal at every frame; so does the morph export.
// The clip rebuilt from the skinned file (ClipFromSkinned, as the tool
// reads a farm run's clips) poses the mesh within the same bound.
func TestSkinnedExportRoundTrip(t *testing.T) {
	ref, a := analysed(t, "pcow")
	g, err := a.Parts[0].Graph(a.Parts[0].DefaultThreshold())
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSynthesizer([]*synth.Graph{g}, synth.Request{Frames: 120})
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Clip(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	skinned, err := SkinnedObject(c, "clip", 30, ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		obj  *assets.Object
		mode assets.ExportMode
	}{
		{"skin.glb", skinned, assets.ExportSkin},
		{"morph.glb", BakedObject(c, "clip", 30, ref), assets.ExportMorph},
	} {
		path := filepath.Join(tmp, tc.name)
		if err := assets.SaveGLTF(path, tc.obj, assets.ExportOptions{Mode: tc.mode}); err != nil {
			t.Fatal(err)
		}
		gltftest.Validate(t, path)
		objs, err := assets.LoadGLTF(path)
		if err != nil {
			t.Fatal(err)
		}
		o := objs[0]
		if o.Clip == nil || len(o.Clip.Frames) != 120 {
			t.Fatalf("%s: re-imported without its 120 frames", tc.name)
		}
		worst := 0.0
		var want []assets.Vec3
		for f, got := range o.Clip.Frames {
			want = c.Pose(want, f)
			for i := range want {
				worst = max(worst, got[i].Sub(want[i]).Len())
			}
		}
		t.Logf("%s: largest error %.3g of the diagonal", tc.name, worst/a.Diagonal)
		if worst > 1e-5*a.Diagonal {
			t.Errorf("%s: re-imported positions differ by %.3g of the diagonal", tc.name, worst/a.Diagonal)
		}
		if tc.mode != assets.ExportSkin {
			continue
		}
		model, bones, err := ClipFromSkinned(o)
		if err != nil {
			t.Fatal(err)
		}
		back := &synth.Clip{Bones: bones, Analysis: &synth.Analysis{Model: model}}
		worst = 0
		var got []assets.Vec3
		for f := range c.Bones {
			want, got = c.Pose(want, f), back.Pose(got, f)
			for i := range want {
				worst = max(worst, got[i].Sub(want[i]).Len())
			}
		}
		t.Logf("rebuilt from %s: largest error %.3g of the diagonal", tc.name, worst/a.Diagonal)
		if len(bones) != 120 || worst > 1e-5*a.Diagonal {
			t.Errorf("the clip rebuilt from %s: %d frames, posed %.3g of the diagonal away", tc.name, len(bones), worst/a.Diagonal)
		}
	}
}

// TestJointsAreRigid (issue 24, acceptance 2): 20 clips of horse-gallop
// exported as skinned glTF and read back have every joint's scale within
// [0.99, 1.01] at every frame; and a clip made with affine bones (for
// comparisons only) is refused as a skin, naming the bone.
func TestJointsAreRigid(t *testing.T) {
	ref, a := analysed(t, "horse-gallop")
	graphs, s := synthesizer(t, a)
	lo, hi := 1.0, 1.0
	for seed := range uint64(20) {
		for _, f := range exported(t, s, seed+1, ref, false).Skin.Frames {
			for _, j := range f {
				for _, x := range j.Scale {
					lo, hi = min(lo, x), max(hi, x)
				}
			}
		}
	}
	t.Logf("joint scales of 20 clips: %.6f to %.6f", lo, hi)
	if lo < 0.99 || hi > 1.01 {
		t.Errorf("joint scales span %.4f to %.4f, want [0.99, 1.01]", lo, hi)
	}
	af, err := a.NewSynthesizer(graphs, synth.Request{Frames: 300, Affine: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := af.Clip(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SkinnedObject(c, "affine", 30, ref); err == nil || !strings.Contains(err.Error(), "is not a rigid motion") {
		t.Errorf("a clip of affine bones as a skin: %v", err)
	}
}

// analysed returns the rest mesh of shared data set name and the analysis
// of its frames on the tool's default rig.
func analysed(t *testing.T, name string) (*assets.Mesh, *synth.Analysis) {
	t.Helper()
	dir := shareddata.Path(t, name)
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := assets.ListOBJSequence(filepath.Join(dir, "frames"))
	if err != nil {
		t.Fatal(err)
	}
	_, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	model, err := Infer(context.Background(), ref, clip, DefaultBones, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := synth.Analyze(context.Background(), model, synth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return ref, a
}

// TestExportedClipsSmooth (issue 24, acceptance 4), on the frames as
// exported (morph targets, read back): the largest vertex acceleration of
// every clip is at most twice the input's own largest, and no edge's
// length departs further from its rest length, relative to it, than 1.2
// times the input's largest such change (edges shorter than a tenth of the
// mean floored there, as Quality does: the horse's slivers are noise).
func TestExportedClipsSmooth(t *testing.T) {
	for _, name := range []string{"pcow", "horse-gallop"} {
		ref, a := analysed(t, name)
		_, s := synthesizer(t, a)
		accel := func(frames [][]assets.Vec3) float64 {
			m := 0.0
			for x := 1; x+1 < len(frames); x++ {
				for i := range frames[x] {
					m = max(m, frames[x+1][i].Sub(frames[x][i].Mul(2)).Add(frames[x-1][i]).Len())
				}
			}
			return m
		}
		adj, err := meshgraph.New(ref.NumVertices(), ref.Triangles)
		if err != nil {
			t.Fatal(err)
		}
		edges := adj.Edges()
		mean := 0.0
		for _, e := range edges {
			mean += ref.Positions[e[0]].Sub(ref.Positions[e[1]]).Len() / float64(len(edges))
		}
		stretch := func(frames [][]assets.Vec3) float64 {
			m := 0.0
			for _, f := range frames {
				for _, e := range edges {
					l0 := ref.Positions[e[0]].Sub(ref.Positions[e[1]]).Len()
					m = max(m, math.Abs(f[e[0]].Sub(f[e[1]]).Len()-l0)/max(l0, 0.1*mean))
				}
			}
			return m
		}
		inAccel, inStretch := accel(a.Model.Input), stretch(a.Model.Input)
		worstA, worstS := 0.0, 0.0
		for seed := range uint64(5) {
			o := exported(t, s, seed+1, ref, true)
			worstA = max(worstA, accel(o.Clip.Frames)/inAccel)
			worstS = max(worstS, stretch(o.Clip.Frames)/inStretch)
		}
		t.Logf("%s: largest acceleration %.3f of the input's, edge stretch %.3f of the input's", name, worstA, worstS)
		if worstA > 2 || worstS > 1.2 {
			t.Errorf("%s: acceleration %.3f (want ≤ 2) and edge stretch %.3f (want ≤ 1.2) of the input's", name, worstA, worstS)
		}
	}
}

// synthesizer returns the graphs at the default threshold and a
// synthesizer of 300-frame clips on them.
func synthesizer(t *testing.T, a *synth.Analysis) ([]*synth.Graph, *synth.Synthesizer) {
	t.Helper()
	graphs, err := Graphs(a, 0)
	if err != nil {
		t.Fatal(err)
	}
	s, err := a.NewSynthesizer(graphs, synth.Request{Frames: 300})
	if err != nil {
		t.Fatal(err)
	}
	return graphs, s
}

// exported synthesises the clip of seed, saves it (morph targets or a
// skin) and returns the object read back from the file.
func exported(t *testing.T, s *synth.Synthesizer, seed uint64, rest *assets.Mesh, morph bool) *assets.Object {
	t.Helper()
	c, err := s.Clip(context.Background(), seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "clip.glb")
	if err := Save(path, c, "clip", 30, rest, morph); err != nil {
		t.Fatal(err)
	}
	objs, err := assets.LoadGLTF(path)
	if err != nil {
		t.Fatal(err)
	}
	return objs[0]
}
