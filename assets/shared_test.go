package assets

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns the absolute path of elem joined under the shared test
// data folder, ../shared/data beside the repository root (the folder holding
// go.mod, found by walking up from the package directory). It skips the
// test, saying why, when that path does not exist.
func sharedData(t testing.TB, elem ...string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatalf("sharedData: %v", err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			t.Skipf("shared test data: no go.mod in %s or above it", wd)
		}
		root = parent
	}
	p := filepath.Join(append([]string{root, "..", "shared", "data"}, elem...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared test data %s is absent (it belongs at ../shared/data beside the repository): %v", p, err)
	}
	return p
}
