package gltftest

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BlenderScene is a glTF file as Blender 3.4's own importer reads it:
// the world positions of its first mesh's vertices at each frame asked
// (armature and shape keys evaluated), and the same with the shape keys
// muted (the armature alone); and its armatures, with how many bones
// each has and how many of them have no parent.
type BlenderScene struct {
	File      string         `json:"file"`
	ShapeKeys int            `json:"shape_keys"`
	Armatures int            `json:"armatures"`
	Bones     []int          `json:"bones"`
	BoneRoots []int          `json:"bone_roots"`
	Frames    [][][3]float64 `json:"frames"`
	Muted     [][][3]float64 `json:"muted"`
}

// Blender imports each file into Blender, headless (scripts/blender-
// positions.py), with the scene at fps so that key i of a file written at
// fps is Blender frame i, and returns the positions at those frames.
// Blender's axes are Z up: its positions are glTF's (x, y, z) as (x, −z,
// y). When Blender is missing it skips the test, unless
// GALLOP_REQUIRE_BLENDER=1 (as in CI), when it fails.
func Blender(t testing.TB, fps int, frames []int, files ...string) []BlenderScene {
	t.Helper()
	exe, err := exec.LookPath("blender")
	if err != nil {
		msg := "Blender unavailable: apt-get install blender python3-numpy (scripts/setup.sh --test)"
		if os.Getenv("GALLOP_REQUIRE_BLENDER") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	fs := make([]string, len(frames))
	for i, f := range frames {
		fs[i] = fmt.Sprint(f)
	}
	args := append([]string{"-b", "--factory-startup", "--python", filepath.Join(root, "scripts", "blender-positions.py"), "--",
		fmt.Sprint(fps), strings.Join(fs, ",")}, files...)
	cmd := exec.Command(exe, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("blender: %v\n%s%s", err, lastLines(string(out), 10), stderr.Bytes())
	}
	scenes := resultLines[BlenderScene](t, out, "blender")
	if len(scenes) != len(files) {
		t.Fatalf("blender read %d of %d files:\n%s%s", len(scenes), len(files), lastLines(string(out), 10), stderr.Bytes())
	}
	return scenes
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n") + "\n"
}

// Apart returns the largest distance between the vertices of s and of ref
// at frame k (the k-th frame asked), first as Blender plays s, then with
// s's shape keys muted; the two files must have the same vertices.
func (s BlenderScene) Apart(ref BlenderScene, k int) (played, muted float64) {
	dist := func(a, b [3]float64) float64 {
		return math.Sqrt((a[0]-b[0])*(a[0]-b[0]) + (a[1]-b[1])*(a[1]-b[1]) + (a[2]-b[2])*(a[2]-b[2]))
	}
	for i, p := range ref.Frames[k] {
		played = max(played, dist(s.Frames[k][i], p))
		muted = max(muted, dist(s.Muted[k][i], p))
	}
	return played, muted
}
