// Package shareddata finds the shared test meshes for tests and benchmarks:
// ../shared/data beside the repository (the folder holding go.mod), or
// $GALLOP_DATA. Gallop itself never needs them at run time.
//
// A test that needs a set asks Path for it. When the set is absent the test
// is skipped, saying which set and where it belongs, unless
// GALLOP_REQUIRE_DATA=1 (as `make test` and CI set it): then the test fails
// with that message, so a missing set can never pass as a skipped test.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the shared data folder: $GALLOP_DATA if set, otherwise
// ../shared/data beside the first folder at or above the working directory
// that holds go.mod. It does not check that the folder exists.
func Dir() (string, error) {
	if d := os.Getenv("GALLOP_DATA"); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for root := wd; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			return filepath.Join(root, "..", "shared", "data"), nil
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("no go.mod in %s or above it", wd)
		}
		root = parent
	}
}

// Required reports whether missing shared data fails tests
// (GALLOP_REQUIRE_DATA=1) instead of skipping them.
func Required() bool { return os.Getenv("GALLOP_REQUIRE_DATA") == "1" }

// Path returns elem joined under the shared data folder, the first element
// naming the set (horse-gallop, lion-poses, ...). When that path does not
// exist it skips tb, or fails it when Required, naming the set.
func Path(tb testing.TB, elem ...string) string {
	tb.Helper()
	dir, err := Dir()
	if err == nil {
		p := filepath.Join(append([]string{dir}, elem...)...)
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	set := "the shared data"
	if len(elem) > 0 {
		set = "shared data set " + elem[0]
	}
	msg := fmt.Sprintf("%s is missing (it belongs at ../shared/data/%s beside the repository): %v", set, filepath.Join(elem...), err)
	if Required() {
		tb.Fatal(msg + " [GALLOP_REQUIRE_DATA=1]")
	}
	tb.Skip(msg)
	return ""
}
