// Package gltftest checks glTF files in tests with Khronos'
// glTF-Validator, run by Node.js through scripts/gltf-validate.mjs.
package gltftest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Report is the validator's verdict on one file: one line of
// scripts/gltf-validate.mjs's output.
type Report struct {
	File     string            `json:"file"`
	Errors   int               `json:"errors"`
	Warnings int               `json:"warnings"`
	Infos    int               `json:"infos"`
	Messages []json.RawMessage `json:"messages"`
}

// Validate runs Khronos' glTF-Validator on path and fails the test if it
// reports any error or warning; it logs the counts and returns the report.
// The validator module is looked for in $GALLOP_NPM_DIR, else in the
// repository's .cache/npm/node_modules. When Node.js or the module is
// missing it skips the test, saying how to install it, unless
// GALLOP_REQUIRE_VALIDATOR=1 (as in CI), when it fails instead; call it
// after a test's other checks, so that they run either way.
func Validate(t testing.TB, path string) Report {
	t.Helper()
	root, node, modules := nodeModule(t, "glTF validator", "GALLOP_REQUIRE_VALIDATOR", "gltf-validator@2.0.0-dev.3.10", func(modules string) error {
		_, err := os.Stat(filepath.Join(modules, "gltf-validator", "package.json"))
		return err
	})
	cmd := exec.Command(node, filepath.Join(root, "scripts", "gltf-validate.mjs"), "--modules", modules, path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("glTF validator: %v\n%s", err, stderr.Bytes())
	}
	var rep Report
	if jerr := json.Unmarshal(bytes.TrimSpace(out), &rep); jerr != nil {
		t.Fatalf("glTF validator: %v (status %v)\nstdout: %s\nstderr: %s", jerr, err, out, stderr.Bytes())
	}
	t.Logf("glTF validator: %s: %d errors, %d warnings, %d infos", filepath.Base(path), rep.Errors, rep.Warnings, rep.Infos)
	for _, m := range rep.Messages {
		t.Logf("  %s", m)
	}
	if rep.Errors > 0 || rep.Warnings > 0 || err != nil {
		t.Errorf("glTF validator: %s: %d errors, %d warnings (status %v)", path, rep.Errors, rep.Warnings, err)
	}
	return rep
}

// nodeModule finds, for a test, Node.js and the npm module that check
// accepts in the modules folder ($GALLOP_NPM_DIR, else the repository's
// .cache/npm/node_modules), and returns the repository's root, node's
// path and that folder. When either is missing it skips the test, saying
// how to install what (npm's spec install), unless the environment
// variable require is "1" (as in CI), when it fails the test instead.
func nodeModule(t testing.TB, what, require, install string, check func(modules string) error) (root, node, modules string) {
	t.Helper()
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	modules = os.Getenv("GALLOP_NPM_DIR")
	if modules == "" {
		modules = filepath.Join(root, ".cache", "npm", "node_modules")
	}
	node, err = exec.LookPath("node")
	if err == nil {
		err = check(modules)
	}
	if err != nil {
		msg := what + " unavailable (" + err.Error() + "); install Node.js and run: npm install --prefix " +
			filepath.Join(root, ".cache", "npm") + " " + install
		if os.Getenv(require) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return root, node, modules
}

// resultLines decodes the lines of out that start with "GALLOP ", each a
// JSON value of type T (the form of the Blender and three.js scripts'
// reports), in order; what names the client in an error.
func resultLines[T any](t testing.TB, out []byte, what string) []T {
	t.Helper()
	var all []T
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "GALLOP ")
		if !ok {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s's output: %v", what, err)
		}
		all = append(all, v)
	}
	return all
}

// repoRoot returns the directory holding go.mod above the working
// directory (a test runs in its package's directory).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("go.mod not found above the test's directory")
		}
		dir = parent
	}
}
