package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/assets/gltftest"
	tens "gallop/tools/ensemble"
)

// bannerLevels returns the banner's three level folders.
func bannerLevels(t *testing.T) []string {
	dir := sharedSet(t, "ensemble-banner")
	return []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3")}
}

// TestEnsembleBuildPlay runs `gallop ensemble build` on the banner with a
// small search (one leaving frame per interval and target, two programs
// per transition) and `gallop ensemble play` on its graph: transitions
// found, none with a new interpenetration, cheaper than the synchronous
// ones; ten seconds played across the three wind levels within the
// sources' steps, flags sewn to the rope, the compact glTF valid and
// smaller than the plain one; two seconds written as OBJ frames that read
// back as the banner's 31 groups.
func TestEnsembleBuildPlay(t *testing.T) {
	levels := bannerLevels(t)
	tmp := t.TempDir()
	graph := filepath.Join(tmp, "banner.graph.json")
	var stdout bytes.Buffer
	if err := runEnsemble(append(append([]string{"build"}, levels...), "--tries", "1", "--samples", "2", "--out", graph, "--json"), &stdout); err != nil {
		t.Fatal(err)
	}
	var b tens.BuildReport
	if err := json.Unmarshal(stdout.Bytes(), &b); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	t.Logf("build: %+v", b)
	if b.Groups != 31 || b.Levels != 3 || b.Frames != 630 || b.Transitions == 0 || b.IntervalsServed == 0 {
		t.Errorf("figures %+v", b)
	}
	if b.InterpenetrationsAfter != 0 || !(b.MeanPhi < b.MeanPhiSync) {
		t.Errorf("%d new interpenetrations; mean Φ %.3g against synchronous %.3g", b.InterpenetrationsAfter, b.MeanPhi, b.MeanPhiSync)
	}

	glb := filepath.Join(tmp, "played.glb")
	// A file beside the output named as the plain export once was stays.
	beside := filepath.Join(tmp, "played.plain.glb")
	if err := os.WriteFile(beside, []byte("the artist's"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout.Reset()
	if err := runEnsemble([]string{"play", graph, "--seconds", "10", "--wind", "1,3,2", "--change-every", "3", "--out", glb, "--json"}, &stdout); err != nil {
		t.Fatal(err)
	}
	var p tens.PlayReport
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	t.Logf("play: %+v", p)
	if p.Frames != 300 || p.WindChanges != 3 || p.MaxStepRatio > 1+1e-9 || p.MaxSewnGap > 1e-12 || !(p.Bytes > 0 && p.Bytes < p.PlainBytes) {
		t.Errorf("figures %+v", p)
	}
	gltftest.Validate(t, glb)
	if b, err := os.ReadFile(beside); err != nil || string(b) != "the artist's" {
		t.Errorf("%s beside the export: %q, %v", beside, b, err)
	}

	frames := filepath.Join(tmp, "frames")
	stdout.Reset()
	if err := runEnsemble([]string{"play", graph, "--seconds", "2", "--wind", "1,3", "--change-every", "1", "--out", frames + "/", "--check", "--json"}, &stdout); err != nil {
		t.Fatal(err)
	}
	p = tens.PlayReport{}
	if err := json.Unmarshal(stdout.Bytes(), &p); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	if !p.Checked || p.NewPairFrames != 0 || p.FramesWithNew != 0 {
		t.Errorf("frames checked %v: %d new (frame, pair)s in %d frames", p.Checked, p.NewPairFrames, p.FramesWithNew)
	}
	e, err := assets.LoadEnsemble(context.Background(), []string{frames}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Levels[0].NumFrames() != 60 || len(e.Groups) != 31 || e.Groups[30].Name != "flag_30" {
		t.Errorf("OBJ frames read back: %d frames, %d groups", e.Levels[0].NumFrames(), len(e.Groups))
	}
}

// TestEnsembleBadInput (acceptance 7 of issue 13): groups that overlap, a
// hierarchy naming a missing group or with a cycle, levels whose groups
// differ, and a time-out so small that nothing is feasible, each a clear
// message naming what is wrong.
func TestEnsembleBadInput(t *testing.T) {
	const obj = "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n"
	const swapped = "o b\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no a\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n"
	const h = "name,first_vertex,vertex_count,parent\n"
	tiny := func(objs [2]string, groups string) []string {
		dir := t.TempDir()
		var dirs []string
		for l, o := range objs {
			d := filepath.Join(dir, fmt.Sprintf("wind-%d", l+1))
			if err := os.Mkdir(d, 0o755); err != nil {
				t.Fatal(err)
			}
			for f := 1; f <= 3; f++ {
				if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("%d.obj", f)), []byte(o), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dirs = append(dirs, d)
		}
		if groups != "" {
			if err := os.WriteFile(filepath.Join(dir, "groups.csv"), []byte(groups), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dirs
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"overlap", tiny([2]string{obj, obj}, h+"a,1,4,\nb,4,3,\n"), `groups.csv:3: group "b" overlaps group "a" (line 2) at vertex 4`},
		{"missing group", tiny([2]string{obj, obj}, h+"a,1,3,\nb,4,3,rope\n"), `groups.csv:3: group "b" names parent "rope", which is not a group of the file`},
		{"cycle", tiny([2]string{obj, obj}, h+"a,1,3,b\nb,4,3,a\n"), `cycle`},
		{"levels differ", tiny([2]string{obj, swapped}, ""), `wind-2/1.obj differs from level`},
		{"range overflows", tiny([2]string{obj, obj}, h+"a,1,3,\nb,4,3,\nx,9223372036854775800,100,\n"), `groups.csv:4: group "x" ends at vertex 9223372036854775899; the mesh has 6`},
		{"vertex counts differ", tiny([2]string{obj, obj + "v 2 2 2\n"}, ""), `wind-2/1.obj differs from level`},
		{"empty level", append(tiny([2]string{obj, obj}, ""), t.TempDir()), `no .obj files`},
		{"too few frames", tiny([2]string{obj, obj}, ""), `has 3 frames`},
		{"change within", append(tiny([2]string{obj, obj}, ""), "--change-within", "0"), `--change-within 0: want 0.1 to 10 seconds`},
	} {
		err := runEnsemble(append([]string{"build"}, tc.args...), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want a one-line error containing %q", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
}

// TestEnsembleBuildShards (issue 14): a shard of the build's second round
// run before the first round ended names the missing file, and the merge
// refuses the first round's files. (TestFarmSlurmEnsemble checks that the
// prepared stage, both rounds and the merge give the unsharded build.)
func TestEnsembleBuildShards(t *testing.T) {
	levels := bannerLevels(t)
	dir := t.TempDir()
	args := append(append([]string{"build"}, levels...), "--tries", "1", "--samples", "2", "--json", "--shard-dir", dir)
	run := func(extra ...string) error {
		return runEnsemble(append(slices.Clone(args), extra...), &bytes.Buffer{})
	}
	if err := run("--prepare"); err != nil {
		t.Fatal(err)
	}
	if err := run("--shard", "1/2", "--shard-round", "1"); err != nil {
		t.Fatal(err)
	}
	if err := run("--shard", "1/2", "--shard-round", "2"); err == nil || !strings.Contains(err.Error(), "round 1") || !strings.Contains(err.Error(), "round-1-shard-2-of-2.gsh") {
		t.Errorf("round 2 before round 1 ended: %v", err)
	}
	if err := run("--shard", "2/2", "--shard-round", "1"); err != nil {
		t.Fatal(err)
	}
	if err := runMerge([]string{filepath.Join(dir, "round-1-shard-1-of-2.gsh"), filepath.Join(dir, "round-1-shard-2-of-2.gsh")}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "round 2") {
		t.Errorf("merge of round 1: %v", err)
	}
	if err := run("--shard", "1/2", "--shard-round", "3"); err == nil || !strings.Contains(err.Error(), "--shard-round 3") {
		t.Errorf("round 3: %v", err)
	}
}

// TestEnsembleNoLoop (issue 23): a build whose solver can find nothing
// (η ≈ 0, one leaving frame, one program) exits 0 with every level
// reported as without a loop and why, writes a graph, and the graph
// plays: each level plays its frames and cuts back.
func TestEnsembleNoLoop(t *testing.T) {
	dir := t.TempDir()
	graph := filepath.Join(dir, "noloop.graph.json")
	var out bytes.Buffer
	args := append([]string{"build"}, bannerLevels(t)...)
	args = append(args, "--eta", "1e-9", "--tries", "1", "--samples", "1", "--harder", "0", "--json", "--out", graph)
	if err := runEnsemble(args, &out); err != nil {
		t.Fatalf("build: %v", err)
	}
	var res tens.BuildReport
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	noLoop := 0
	for _, l := range res.LevelReports {
		if !l.Loops {
			noLoop++
			if !strings.Contains(l.Note, "no loop") || l.Component != l.Frames {
				t.Errorf("level %s: note %q, component %d of %d frames", l.Name, l.Note, l.Component, l.Frames)
			}
		}
	}
	if res.Loops || noLoop == 0 {
		t.Fatalf("every_level_loops %v, %d levels without: %+v", res.Loops, noLoop, res.LevelReports)
	}
	t.Logf("%d levels without a loop: %s", noLoop, res.LevelReports[0].Note)
	out.Reset()
	if err := runEnsemble([]string{"play", graph, "--seconds", "20", "--wind", "1,3,2", "--change-every", "5", "--json"}, &out); err != nil {
		t.Fatalf("play: %v", err)
	}
	var played tens.PlayReport
	if err := json.Unmarshal(out.Bytes(), &played); err != nil {
		t.Fatal(err)
	}
	if played.Frames != 600 || len(played.LevelsShown) == 0 {
		t.Fatalf("played %+v", played)
	}
}

// TestEnsembleUnreachable (issue 33, acceptance 4): the reeds' three
// levels, each simulated from rest on its own, built with a search that
// finds nothing (η tiny, one program per transition) so that every level
// is cut off from the others, as a full build finds too: exit 0, and per
// ordered pair of levels the report (JSON and text) names the blade
// pairs that stop the closest transitions whatever the offsets, and the
// remedy, a clip in which the wind changes.
func TestEnsembleUnreachable(t *testing.T) {
	dir := sharedSet(t, "ensemble-reeds")
	args := []string{"build", filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3"), "--eta", "1e-9", "--tries", "1", "--samples", "1", "--harder", "0"}
	var out bytes.Buffer
	if err := runEnsemble(append(args, "--json"), &out); err != nil {
		t.Fatalf("build: %v", err)
	}
	var res tens.BuildReport
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Unreachable) != 6 {
		t.Fatalf("%d unreachable pairs of levels, want all 6: %+v", len(res.Unreachable), res.Unreachable)
	}
	for _, u := range res.Unreachable {
		named := false
		for _, p := range u.Pairs {
			named = named || strings.HasPrefix(p.A, "blade_") && strings.HasPrefix(p.B, "blade_")
		}
		if u.Blocked == 0 || !named || !strings.Contains(u.Message, "opposite sides") || !strings.Contains(u.Message, fmt.Sprintf("Add a clip in which the wind changes from %g to %g", u.From, u.To)) {
			t.Errorf("wind %g → %g: %d of %d impossible, pairs %+v, message %q", u.From, u.To, u.Blocked, u.Tried, u.Pairs, u.Message)
		}
	}
	t.Log(res.Unreachable[0].Message)
	out.Reset()
	if err := runEnsemble(args, &out); err != nil {
		t.Fatalf("build: %v", err)
	}
	for _, u := range res.Unreachable {
		if !strings.Contains(out.String(), u.Message) {
			t.Errorf("the text report lacks %q", u.Message)
		}
	}
}
