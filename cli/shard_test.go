package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/internal/shard"
	"gallop/tools/rig"
)

// shardRun is one command's test in shards: its arguments (without
// --out), what runs it, and whether it has a prepared stage.
type shardRun struct {
	args     []string
	run      func(args []string, stdout io.Writer) error
	prepared bool
}

// whole runs the command unsharded, writing --out to out (when not "").
func (c shardRun) whole(t *testing.T, out string) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.run(withOut(c.args, out), &b); err != nil {
		t.Fatalf("%v: %v", c.args, err)
	}
	return b.String()
}

// shards runs the command's prepared stage (if any) and its n shards into
// a new folder, with --out out, and returns the shard files' paths.
func (c shardRun) shards(t *testing.T, n int, out string, extra ...string) (dir string, paths []string) {
	t.Helper()
	dir = t.TempDir()
	args := append(withOut(c.args, out), extra...)
	if c.prepared {
		if err := c.run(append(slices.Clone(args), "--prepare", "--shard-dir", dir), io.Discard); err != nil {
			t.Fatalf("--prepare: %v", err)
		}
	}
	for k := 1; k <= n; k++ {
		s := shard.Spec{K: k, N: n}
		var b bytes.Buffer
		if err := c.run(append(slices.Clone(args), "--shard", s.String(), "--shard-dir", dir), &b); err != nil {
			t.Fatalf("--shard %s: %v", s, err)
		}
		if b.Len() > 0 {
			t.Errorf("--shard %s printed %q", s, b.String())
		}
		paths = append(paths, shard.FileName(dir, s))
	}
	return dir, paths
}

func withOut(args []string, out string) []string {
	if out == "" {
		return slices.Clone(args)
	}
	return append(slices.Clone(args), "--out", out)
}

// merge runs gallop merge on paths.
func merge(paths ...string) (string, error) {
	var b bytes.Buffer
	err := runMerge(paths, &b)
	return b.String(), err
}

// withoutTimes returns the JSON lines of out with every field whose name
// holds "seconds" removed (the timings), at any depth, and the string old replaced by
// new in every string.
func withoutTimes(t *testing.T, out, old, new string) string {
	t.Helper()
	var clean func(v any) any
	clean = func(v any) any {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if strings.Contains(k, "seconds") {
					delete(v, k)
					continue
				}
				v[k] = clean(x)
			}
		case []any:
			for i, x := range v {
				v[i] = clean(x)
			}
		case string:
			return strings.ReplaceAll(v, old, new)
		}
		return v
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var v any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("%v: %q", err, l)
		}
		b, err := json.Marshal(clean(v))
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n")
}

// sameFolders checks that folders a and b hold the same files, byte for
// byte, and at least one.
func sameFolders(t *testing.T, a, b string) {
	t.Helper()
	list := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	na, nb := list(a), list(b)
	if len(na) == 0 || !slices.Equal(na, nb) {
		t.Fatalf("the whole run wrote %q, the shards %q", na, nb)
	}
	for _, n := range na {
		x, err1 := os.ReadFile(filepath.Join(a, n))
		y, err2 := os.ReadFile(filepath.Join(b, n))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs (%v, %v)", n, err1, err2)
		}
	}
}

// checkSharded runs c whole and in n shards, both with --out, merges the
// shards and compares: the printed JSON with times removed, and the
// --out folders byte for byte. It returns the shard files.
func checkSharded(t *testing.T, c shardRun, n int) []string {
	t.Helper()
	outA, outB := filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "out")
	want := c.whole(t, outA)
	_, paths := c.shards(t, n, outB)
	got, err := merge(paths...)
	if err != nil {
		t.Fatal(err)
	}
	if w, g := withoutTimes(t, want, outA, "OUT"), withoutTimes(t, got, outB, "OUT"); w != g {
		t.Errorf("the whole run printed\n%s\nthe merge of %d shards\n%s", w, n, g)
	}
	sameFolders(t, outA, outB)
	return paths
}

// checkMergeErrors: a missing shard, a repeated shard and a shard of other
// settings (other, a shard file of a run with other arguments, unless "")
// are errors naming them.
func checkMergeErrors(t *testing.T, paths []string, other string) {
	t.Helper()
	n := len(paths)
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"missing", paths[:n-1], fmt.Sprintf("shard %d of %d missing", n, n)},
		{"repeated", append(slices.Clone(paths), paths[0]), fmt.Sprintf("shard 1 of %d given twice", n)},
		{"other settings", append(slices.Clone(paths[1:]), other), other + ": shard of another run"},
	} {
		if tc.name == "other settings" && other == "" {
			continue
		}
		if _, err := merge(tc.paths...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestShardSample: gallop sample (spell) in 3 shards merges into the whole
// run's report and --out files.
func TestShardSample(t *testing.T) {
	c := shardRun{args: []string{"--scenario", "spell", "--word", "xx/..", "--chains", "4", "--iterations", "150", "--distinct", "6", "--json"}, run: runSample}
	paths := checkSharded(t, c, 3)
	_, others := c.shards(t, 3, "", "--seed", "9")
	checkMergeErrors(t, paths, others[0])
}

// TestShardRig: gallop rig over a folder of three animations (two folders
// of OBJ frames, one glTF file) in 3 shards merges into the whole run's
// reports; the rigged files are the same.
func TestShardRig(t *testing.T) {
	cyl, gltf := sharedSet(t, "cylinder-rig"), sharedSet(t, "gltf")
	in := t.TempDir()
	for name, target := range map[string]string{
		"a-poses":     filepath.Join(cyl, "poses-1"),
		"b-poses":     filepath.Join(cyl, "poses-2"),
		"simple.gltf": filepath.Join(gltf, "RiggedSimple.gltf"),
	} {
		if err := os.Symlink(target, filepath.Join(in, name)); err != nil {
			t.Fatal(err)
		}
	}
	c := shardRun{args: []string{in, "--bones", "3", "--iterations", "5", "--json"}, run: runRig}
	paths := checkSharded(t, c, 3)
	var names []string
	for _, l := range strings.Split(strings.TrimSpace(c.whole(t, "")), "\n") {
		var r rig.Report
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		names = append(names, r.File)
	}
	if !slices.Equal(names, []string{"a-poses", "b-poses", "simple.gltf"}) {
		t.Errorf("reports of %q", names)
	}
	_, others := c.shards(t, 3, "", "--bones", "4")
	checkMergeErrors(t, paths, others[2])
	if err := runRig([]string{in, "--bones", "3", "--reference", filepath.Join(cyl, "cylinder.obj")}, io.Discard); err == nil || !strings.Contains(err.Error(), "not with a folder of animations") {
		t.Errorf("--reference with a folder of animations: %v", err)
	}
}

// TestShardSynth: gallop synth (pcow) with a prepared stage and 3 shards
// merges into the whole run's figures and --out files; a prepared file of
// other settings is refused.
func TestShardSynth(t *testing.T) {
	pcow := filepath.Join(sharedSet(t, "pcow"), "frames")
	c := shardRun{args: []string{pcow, "--bones", "8", "--count", "4", "--seconds", "2", "--json"}, run: runSynth, prepared: true}
	paths := checkSharded(t, c, 3)
	checkMergeErrors(t, paths, "")
	dir := filepath.Dir(paths[0])
	err := runSynth(append(slices.Clone(c.args), "--count", "5", "--shard", "1/3", "--shard-dir", dir), io.Discard)
	if err == nil || !strings.Contains(err.Error(), "prepared for other settings") {
		t.Errorf("a shard of other settings over the prepared file: %v", err)
	}
}
