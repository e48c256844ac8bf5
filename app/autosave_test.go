package app

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"gallop/assets"
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
	a.history.Do(&renameCmd{obj: a.doc.Scene.Objects[0], before: "bar", after: "edited"})
	if _, err := s.now(a); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("autosave with a panicking tool: %v", err)
	}
}

// panickyTool is a tool whose state panics.
type panickyTool struct{ panels.Select }

func (*panickyTool) Name() string                    { return "Panicky" }
func (*panickyTool) State() (json.RawMessage, error) { panic("a bug in the tool's state") }

// edited returns a test app whose document has an unsaved edit (the
// object renamed to name) and an autosaver in a fresh cache.
func edited(t *testing.T, name string) (*App, *autosaver) {
	t.Helper()
	a := testApp(t, &panels.Select{})
	a.history.Do(&renameCmd{obj: a.doc.Scene.Objects[0], before: a.doc.Scene.Objects[0].Name, after: name})
	s, err := newAutosaver(t.TempDir(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.close)
	return a, s
}

// savedName reads the first object's name from the recovery file, "" when
// there is none.
func savedName(t *testing.T, s *autosaver) string {
	t.Helper()
	b, err := os.ReadFile(s.path())
	if os.IsNotExist(err) {
		return ""
	}
	var f struct {
		Objects []struct{ Name string }
	}
	if err := json.Unmarshal(b, &f); err != nil || len(f.Objects) == 0 {
		t.Fatalf("recovery file: %v", err)
	}
	return f.Objects[0].Name
}

// TestAutosaveOrder (issue 34): a background write still in flight can
// never outlive what came after its snapshot: a removal (the document was
// saved: the file stays removed), the synchronous write after a caught
// panic (its newer state stays), or a recovery (the recovered file stays).
func TestAutosaveOrder(t *testing.T) {
	a, s := edited(t, "first")
	p, err := a.projectSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	s.seq++
	inFlight := s.seq // what start hands its goroutine
	s.remove()
	if err := s.put(p, inFlight); err != nil {
		t.Fatal(err)
	}
	if got := savedName(t, s); got != "" {
		t.Errorf("a write in flight brought back the removed recovery file (%q)", got)
	}

	s.seq++
	inFlight = s.seq
	a.history.Do(&renameCmd{obj: a.doc.Scene.Objects[0], before: "first", after: "second"})
	if wrote, err := s.now(a); !wrote || err != nil {
		t.Fatalf("now: %v, %v", wrote, err)
	}
	if err := s.put(p, inFlight); err != nil {
		t.Fatal(err)
	}
	if got := savedName(t, s); got != "second" {
		t.Errorf("after the synchronous write, an older one in flight left %q, want second", got)
	}

	s.seq++
	inFlight = s.seq
	orphan := filepath.Join(s.dir, "autosave-9-9.gallop")
	if err := os.Rename(s.path(), orphan); err != nil {
		t.Fatal(err)
	}
	if err := s.adopt(orphan); err != nil {
		t.Fatal(err)
	}
	if err := s.put(p, inFlight); err != nil {
		t.Fatal(err)
	}
	if got := savedName(t, s); got != "second" {
		t.Errorf("a write in flight overwrote the recovered session with %q", got)
	}
}

// TestAutosaveKeepsLastGood (issue 34): after a caught panic, a snapshot
// that is not a whole project (the state the bug left: here a position
// that is not a number) does not replace the last good recovery file; a
// document with nothing unsaved writes nothing.
func TestAutosaveKeepsLastGood(t *testing.T) {
	a, s := edited(t, "good")
	if wrote, err := s.now(a); !wrote || err != nil {
		t.Fatalf("now: %v, %v", wrote, err)
	}
	o := a.doc.Scene.Objects[0]
	broken := *o.Mesh
	broken.Positions = append([]assets.Vec3(nil), o.Mesh.Positions...)
	broken.Positions[0][1] = math.NaN()
	a.history.Do(&renameCmd{obj: o, before: "good", after: "broken"})
	o.Mesh = &broken
	if wrote, err := s.now(a); wrote || err == nil || !strings.Contains(err.Error(), "last autosave is kept") {
		t.Errorf("a broken state: wrote %v, %v", wrote, err)
	}
	if got := savedName(t, s); got != "good" {
		t.Errorf("the recovery file holds %q, want the last good one", got)
	}
	clean := testApp(t, &panels.Select{})
	if wrote, err := s.now(clean); wrote || err != nil {
		t.Errorf("nothing unsaved: wrote %v, %v", wrote, err)
	}
}

// TestRecoveryClaimed (issue 34): a dead session's recovery file that one
// session is recovering is neither offered to nor recoverable by another;
// one the artist declined goes when the session ends.
func TestRecoveryClaimed(t *testing.T) {
	cache := t.TempDir()
	dir := filepath.Join(cache, "gallop", "autosave")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(dir, "autosave-1-1.gallop")
	if err := os.WriteFile(orphan, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := newAutosaver(cache, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if first.orphan != orphan {
		t.Fatalf("offered %q, want %q", first.orphan, orphan)
	}
	lock, err := claim(orphan)
	if err != nil {
		t.Fatal(err)
	}
	second, err := newAutosaver(cache, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if second.orphan != "" {
		t.Errorf("a file being recovered was offered to a second session")
	}
	if _, err := claim(orphan); err == nil || !strings.Contains(err.Error(), "another Gallop is recovering it") {
		t.Errorf("a second claim: %v", err)
	}
	lock.Close()
	second.close()
	first.declined = true
	first.close()
	if _, err := os.Stat(orphan); !os.IsNotExist(err) {
		t.Errorf("a declined recovery file stayed after the session ended: %v", err)
	}
}
