package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"gallop/panels"
)

// TestOrphanIsASessionThatDied: a recovery file whose session holds its
// lock is not offered; once the lock is free (the process died), the
// newest such file is.
func TestOrphanIsASessionThatDied(t *testing.T) {
	cache := t.TempDir()
	alive, err := newAutosaver(cache, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(alive.path(), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(cache, "gallop", "autosave")
	old := filepath.Join(dir, "autosave-1-1.gallop")
	newer := filepath.Join(dir, "autosave-2-2.gallop")
	for i, p := range []string{old, newer} {
		os.WriteFile(p, []byte("x"), 0o644)
		os.WriteFile(strings.TrimSuffix(p, ".gallop")+".lock", nil, 0o644) // a lock nobody holds
		at := time.Now().Add(time.Duration(i-5) * time.Minute)
		os.Chtimes(p, at, at)
	}
	second, err := newAutosaver(cache, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if second.orphan != newer {
		t.Errorf("offered %q, want the newest dead session's %q (not the live one's %q)", second.orphan, newer, alive.path())
	}
	alive.close()
	if _, err := os.Stat(alive.path()); !os.IsNotExist(err) {
		t.Error("a clean exit left its recovery file")
	}
	second.close()
}

// TestPanicSiteNamesGallopFunction: the function named is the one that
// panicked, below the runtime's frames.
func TestPanicSiteNamesGallopFunction(t *testing.T) {
	var stack []byte
	func() {
		defer func() {
			recover()
			stack = debug.Stack()
		}()
		var s []int
		_ = s[len(os.Args)+3]
	}()
	got := panicSite(stack)
	if !strings.HasPrefix(got, "app.TestPanicSiteNamesGallopFunction.func") || !strings.Contains(got, "autosave_test.go:") {
		t.Errorf("panicSite = %q\n%s", got, stack)
	}
}

// TestAutosaveSurvivesABrokenTool: a tool whose state panics (the bug a
// caught panic may come from) makes the autosave fail with an error, not
// a second panic.
func TestAutosaveSurvivesABrokenTool(t *testing.T) {
	a := testApp(t, &panels.Select{}, &panickyTool{})
	s, err := newAutosaver(t.TempDir(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if err := s.now(a); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("autosave with a panicking tool: %v", err)
	}
}

// panickyTool is a tool whose state panics.
type panickyTool struct{ panels.Select }

func (*panickyTool) Name() string                    { return "Panicky" }
func (*panickyTool) State() (json.RawMessage, error) { panic("a bug in the tool's state") }
