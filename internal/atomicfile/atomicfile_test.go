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

// TestWriteKeepsMode: a file that exists keeps its permissions (a script
// the user made executable, a file made private); a new one gets
// WriteMode's.
func TestWriteKeepsMode(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "private")
	if err := os.WriteFile(private, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteBytes(private, []byte("y")); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "job.sh")
	if err := WriteMode(script, 0o755, func(w io.Writer) error { _, err := w.Write([]byte("#!/bin/sh\n")); return err }); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]os.FileMode{private: 0o600, script: 0o755} {
		if st, err := os.Stat(path); err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want %v", path, st.Mode().Perm(), err, want)
		}
	}
}
