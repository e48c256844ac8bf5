package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite: a write that fails leaves the previous file as it was and no
// temporary file behind; one that succeeds replaces it.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(path, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "before" {
		t.Errorf("after a failed write: %q", b)
	}
	if err := Write(path, func(w io.Writer) error { _, err := w.Write([]byte("after")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "after" {
		t.Errorf("after a write: %q", b)
	}
	if es, _ := os.ReadDir(dir); len(es) != 1 {
		t.Errorf("%d files in the folder, want 1", len(es))
	}
}
