package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/assets"
)

// barFrames writes the demo bar's clip as an OBJ sequence 1.obj..N.obj.
func barFrames(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bar", "frames")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	o := assets.DemoScene().Objects[0]
	for f := 0; f < n; f++ {
		if err := assets.SaveOBJ(filepath.Join(dir, fmt.Sprintf("%d.obj", f+1)), o.Mesh, o.Clip.Frames[f*5]); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func infoJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var out bytes.Buffer
	if err := runInfo(append([]string{"--json"}, args...), &out); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		t.Fatalf("info --json printed %q: %v", out.String(), err)
	}
	return m
}

func TestInfoJSON(t *testing.T) {
	dir := barFrames(t, 12)
	m := infoJSON(t, dir)
	for _, k := range []string{"vertices", "triangles", "frames", "groups", "bbox_min", "bbox_max"} {
		if _, ok := m[k]; !ok {
			t.Errorf("info --json lacks %q: %v", k, m)
		}
	}
	if m["vertices"].(float64) != 132 || m["triangles"].(float64) != 260 || m["frames"].(float64) != 12 || m["groups"].(float64) != 3 {
		t.Fatalf("info = %v", m)
	}
	if m["name"] != "bar" {
		t.Fatalf("a folder called frames should be named after its parent, got %v", m["name"])
	}
}

func TestConvertRoundTrips(t *testing.T) {
	dir := barFrames(t, 6)
	out := t.TempDir()
	glb := filepath.Join(out, "bar.glb")
	if err := runConvert([]string{"--fps", "12", dir, glb}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	m := infoJSON(t, glb)
	if m["frames"].(float64) != 6 || m["fps"].(float64) != 12 || m["vertices"].(float64) != 132 {
		t.Fatalf("converted glb: %v", m)
	}
	seq := filepath.Join(out, "seq") + "/"
	if err := runConvert([]string{glb, seq}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if m := infoJSON(t, seq); m["frames"].(float64) != 6 {
		t.Fatalf("sequence written from glb: %v", m)
	}
	proj := filepath.Join(out, "bar.gallop")
	if err := runConvert([]string{dir, proj}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if m := infoJSON(t, proj); m["frames"].(float64) != 6 {
		t.Fatalf("project: %v", m)
	}
	obj := filepath.Join(out, "f3.obj")
	if err := runConvert([]string{"--frame", "3", dir, obj}, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if m := infoJSON(t, obj); m["frames"].(float64) != 1 || m["vertices"].(float64) != 132 {
		t.Fatalf("obj: %v", m)
	}
}

func TestCommandErrors(t *testing.T) {
	dir := barFrames(t, 2)
	missing := filepath.Join(t.TempDir(), "nope.obj")
	bad := filepath.Join(t.TempDir(), "bad.obj")
	os.WriteFile(bad, []byte("v 0 0 0\nv 1 0 0\nf 1 2 7\n"), 0o644)
	cases := []struct {
		name string
		run  func() error
		want string
	}{
		{"missing file", func() error { return runInfo([]string{missing}, &bytes.Buffer{}) }, "nope.obj"},
		{"bad obj", func() error { return runInfo([]string{bad}, &bytes.Buffer{}) }, "bad.obj:3"},
		{"unknown output", func() error { return runConvert([]string{dir, "x.fbx"}, &bytes.Buffer{}) }, "unknown output type"},
		{"skin without rig", func() error {
			return runConvert([]string{"--skin", dir, filepath.Join(t.TempDir(), "x.glb")}, &bytes.Buffer{})
		}, "no rig"},
		{"bad fps", func() error {
			return runConvert([]string{"--fps", "-3", dir, filepath.Join(t.TempDir(), "x.glb")}, &bytes.Buffer{})
		}, "--fps"},
		{"frame out of range", func() error {
			return runConvert([]string{"--frame", "9", dir, filepath.Join(t.TempDir(), "x.obj")}, &bytes.Buffer{})
		}, "--frame 9"},
		{"no args", func() error { return runInfo(nil, &bytes.Buffer{}) }, "usage"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.run()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one mentioning %q", err, c.want)
			}
		})
	}
}

// TestFlagsAnywhere: flags go before, between or after the arguments, as
// people type them (Go's flag package alone stops at the first argument).
func TestFlagsAnywhere(t *testing.T) {
	dir := barFrames(t, 12)
	out := filepath.Join(t.TempDir(), "bar.glb")
	var b bytes.Buffer
	if err := runConvert([]string{dir, out, "--morph"}, &b); err != nil {
		t.Fatalf("convert IN OUT --morph: %v", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := runInfo([]string{dir, "--json"}, &b); err != nil {
		t.Fatalf("info DIR --json: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["frames"] != 12.0 {
		t.Fatalf("info DIR --json printed %q (%v)", b.String(), err)
	}
	b.Reset()
	if err := runRig([]string{dir, "--bones", "8", "--json", "--iterations=5"}, &b); err != nil {
		t.Fatalf("rig DIR --bones 8 --json: %v", err)
	}
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["bones"] != 8.0 {
		t.Fatalf("rig DIR --bones 8 --json printed %q (%v)", b.String(), err)
	}
	// -- ends the flags: what follows is a file name, even if it looks
	// like a flag.
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	j := fs.Bool("json", false, "")
	n := fs.Int("n", 0, "")
	if err := parse(fs, []string{"a", "-n", "-3", "b", "--", "--json"}); err != nil || *j || *n != -3 || !slices.Equal(fs.Args(), []string{"a", "b", "--json"}) {
		t.Errorf("parse: err %v, json %v, n %d, args %q", err, *j, *n, fs.Args())
	}
}

// TestUnknownFlagNamed: an unknown flag anywhere is a usage error (exit
// status 2) whose message names it as typed.
func TestUnknownFlagNamed(t *testing.T) {
	dir := barFrames(t, 2)
	var b bytes.Buffer
	if err := runInfo([]string{"--bogus", dir}, &b); !errors.Is(err, errUsage) {
		t.Fatalf("info --bogus DIR: %v, want a usage error", err)
	}
	var msg bytes.Buffer
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	fs.SetOutput(&msg)
	fs.Bool("json", false, "")
	if err := parse(fs, []string{dir, "--bogus=1"}); !errors.Is(err, errUsage) || !strings.Contains(msg.String(), "unknown flag --bogus") {
		t.Errorf("err %v, message %q; want one naming --bogus", err, msg.String())
	}
}

// TestProgressLineOnlyOnATerminal: the progress line is drawn on a
// terminal and nowhere else (go test's stderr is a pipe).
func TestProgressLineOnlyOnATerminal(t *testing.T) {
	if p := newProgress(); p.w != nil {
		t.Fatal("a progress line on stderr that is not a terminal")
	}
	var b bytes.Buffer
	p := &progress{w: &b}
	p.Report("rig: iteration %d", 3)
	p.Report("rig: iteration %d", 4) // within 0.1 s: not drawn
	p.Done()
	if got := b.String(); got != "\rrig: iteration 3\x1b[K\r\x1b[K" {
		t.Errorf("the terminal got %q", got)
	}
}

// TestUsageListsWindowOptions (issue 34): gallop --help names every option
// of the window, --autosave among them.
func TestUsageListsWindowOptions(t *testing.T) {
	var b strings.Builder
	usage(&b)
	for _, opt := range []string{"--save-to PATH", "--size WxH", "--autosave SECONDS"} {
		if !strings.Contains(b.String(), opt) {
			t.Errorf("usage does not list %s:\n%s", opt, b.String())
		}
	}
}

// TestInfoSeveralFiles (issue 34): gallop info on several glTF files
// describes each in turn (with --json, a line each), as its usage
// FILE|DIR... says; several .obj files are still one sequence.
func TestInfoSeveralFiles(t *testing.T) {
	dir := sharedSet(t, "gltf")
	a, b := filepath.Join(dir, "RiggedSimple.gltf"), filepath.Join(dir, "SimpleMorph.gltf")
	var out bytes.Buffer
	if err := runInfo([]string{"--json", a, b}, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2:\n%s", len(lines), out.String())
	}
	for i, want := range []string{a, b} {
		var fi fileInfo
		if err := json.Unmarshal([]byte(lines[i]), &fi); err != nil || fi.File != want || fi.Vertices == 0 {
			t.Errorf("line %d: %+v, %v; want %s", i+1, fi, err, want)
		}
	}
}
