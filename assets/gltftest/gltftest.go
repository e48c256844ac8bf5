// Package gltftest checks glTF files in tests with Khronos'
// glTF-Validator, run by Node.js through scripts/gltf-validate.mjs.
package gltftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
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
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	modules := os.Getenv("GALLOP_NPM_DIR")
	if modules == "" {
		modules = filepath.Join(root, ".cache", "npm", "node_modules")
	}
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(modules, "gltf-validator", "package.json"))
	}
	if err != nil {
		msg := "glTF validator unavailable (" + err.Error() + "); install Node.js and run: npm install --prefix " +
			filepath.Join(root, ".cache", "npm") + " gltf-validator@2.0.0-dev.3.10"
		if os.Getenv("GALLOP_REQUIRE_VALIDATOR") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
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
