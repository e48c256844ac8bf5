package gltftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ThreeVersion is the version of three.js (npm package three) the tests
// play glTF files with, pinned in the Makefile.
const ThreeVersion = "0.187.0"

// ThreeScene is a glTF file as three.js's own GLTFLoader reads it and its
// AnimationMixer plays it: one line of scripts/three-positions.mjs's
// output. Meshes are the scene's Mesh and SkinnedMesh objects in scene
// traversal order (depth first, children in the file's order), and a
// frame of Frames lists every vertex of every mesh in that order, each
// mesh's in its POSITION accessor's order: Vertices[k] of them for mesh
// k. Positions are in glTF's coordinates (+Y up): no axis swap.
type ThreeScene struct {
	File     string   `json:"file"`
	Version  string   `json:"three"` // three's version
	Meshes   []string `json:"meshes"`
	Vertices []int    `json:"vertices"`
	Skinned  []bool   `json:"skinned"`
	// Targets is each mesh's number of morph targets, ActiveTargets the
	// most of them with an influence other than 0 at once over the frames
	// asked.
	Targets       []int `json:"targets"`
	ActiveTargets []int `json:"active_targets"`
	// Influences is, per skinned mesh, the most non-zero skin weights a
	// vertex has among the four three.js skins with (JOINTS_0 / WEIGHTS_0,
	// renormalised by GLTFLoader); IgnoredInfluences the number of
	// vertices with a weight in JOINTS_1 / WEIGHTS_1 or beyond, which
	// three.js reads but never skins with.
	Influences        []int       `json:"influences"`
	IgnoredInfluences []int       `json:"ignored_influences"`
	Clips             []ThreeClip `json:"clips"`
	// Rest is every vertex's POSITION as the file stores it (before morph
	// targets, skinning and node transforms), in a frame's order.
	Rest [][3]float64 `json:"rest"`
	// Frames holds, for each frame asked, the world position of every
	// vertex.
	Frames [][][3]float64 `json:"frames"`
	Error  string         `json:"error"`
}

// ThreeClip is one of a file's animations as three.js reads it.
type ThreeClip struct {
	Name     string  `json:"name"`
	Duration float64 `json:"duration"` // seconds
	Tracks   int     `json:"tracks"`
}

// VertexCount returns the number of vertices of a frame: the sum of
// Vertices.
func (s ThreeScene) VertexCount() int {
	n := 0
	for _, v := range s.Vertices {
		n += v
	}
	return n
}

// Three reads each file with three.js (scripts/three-positions.mjs, run by
// Node.js), plays every animation of the file at once from time 0, once
// and held at its end, and returns the world position of every vertex of
// every mesh at each of frames, frame i being time i/fps: where three.js
// would draw it, its morph targets and skinning evaluated on the CPU as
// its WebGL vertex shader does (see the script). The coordinates are
// glTF's, as the file stores them (+Y up, metres), with no axis swap, and
// vertices keep the file's order (GLTFLoader neither welds nor reorders
// them).
//
// The three module (version ThreeVersion) is looked for in
// $GALLOP_NPM_DIR, else in the repository's .cache/npm/node_modules. When
// Node.js or the module is missing, or the module is another version, it
// skips the test, saying how to install it, unless GALLOP_REQUIRE_THREE=1
// (as in CI), when it fails instead; call it after a test's other checks,
// so that they run either way. A file three.js cannot read fails the
// test.
func Three(t testing.TB, fps int, frames []int, files ...string) []ThreeScene {
	t.Helper()
	root, node, modules := nodeModule(t, "three.js", "GALLOP_REQUIRE_THREE", "three@"+ThreeVersion, threeVersion)
	fs := make([]string, len(frames))
	for i, f := range frames {
		fs[i] = fmt.Sprint(f)
	}
	args := append([]string{filepath.Join(root, "scripts", "three-positions.mjs"), "--modules", modules,
		fmt.Sprint(fps), strings.Join(fs, ",")}, files...)
	cmd := exec.Command(node, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	scenes := resultLines[ThreeScene](t, out, "three.js")
	for _, s := range scenes {
		if s.Error != "" {
			t.Fatalf("three.js cannot play %s: %s", s.File, s.Error)
		}
	}
	if runErr != nil || len(scenes) != len(files) {
		var other strings.Builder // what the script printed besides its lines
		for _, l := range strings.Split(string(out), "\n") {
			if !strings.HasPrefix(l, "GALLOP ") {
				other.WriteString(l + "\n")
			}
		}
		t.Fatalf("three.js read %d of %d files (%v):\n%s%s", len(scenes), len(files), runErr, lastLines(other.String(), 10), stderr.Bytes())
	}
	return scenes
}

// threeVersion checks that modules holds three at ThreeVersion.
func threeVersion(modules string) error {
	data, err := os.ReadFile(filepath.Join(modules, "three", "package.json"))
	if err != nil {
		return err
	}
	var p struct{ Version string }
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(modules, "three", "package.json"), err)
	}
	if p.Version != ThreeVersion {
		return fmt.Errorf("%s holds three %s, the tests want %s", modules, p.Version, ThreeVersion)
	}
	return nil
}
