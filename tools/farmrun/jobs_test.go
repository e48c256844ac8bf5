package farmrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gallop/internal/farm"
	"gallop/tools/toolstest"
)

// fakeGallop writes a script standing for gallop: `merge` prints
// "merged N" (its shard files), every other command exits with status
// fail (0: success) after printing its arguments.
func fakeGallop(t *testing.T, fail int) string {
	exe := filepath.Join(t.TempDir(), "gallop")
	script := "#!/bin/sh\nif [ \"$1\" = merge ]; then shift; echo merged $#; exit 0; fi\necho \"$@\"\nexit " + string(rune('0'+fail)) + "\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

// submit runs a synth request through the local engine with the fake
// gallop and waits for it to end.
func submit(t *testing.T, fail int, loaded *string) (*toolstest.Host, *Job) {
	h := toolstest.New(nil)
	js := &Jobs{Parent: t.TempDir(), Exe: fakeGallop(t, fail), Settings: Settings{Engine: "local", Shards: 3}}
	var input string
	js.Submit(h, Request{
		Tool: "synth",
		Plan: synthPlan,
		Command: func(_ context.Context, dir string) ([]string, error) {
			input = filepath.Join(dir, "input")
			return []string{"synth", input, "--out", filepath.Join(dir, "clips")}, os.WriteFile(input, nil, 0o644)
		},
		Load: func(_ context.Context, dir string, out []byte) (func() error, error) {
			return func() error { *loaded = strings.TrimSpace(string(out)); return nil }, nil
		},
	})
	h.Runner.Wait()
	j := js.List()[0]
	if j.Active() {
		t.Fatal("the job is still followed after its job ended")
	}
	if filepath.Dir(input) != j.Status().Dir {
		t.Errorf("the input %s is not in the work folder %s", input, j.Status().Dir)
	}
	return h, j
}

func TestSubmitLoadsTheResult(t *testing.T) {
	var loaded string
	h, j := submit(t, 0, &loaded)
	st := j.Status()
	if st.Phase != Loaded || loaded != "merged 3" || len(h.Errs) > 0 {
		t.Fatalf("phase %v, loaded %q, errors %v", st.Phase, loaded, h.Errs)
	}
	if st.Run == nil || st.Run.N != 3 || !st.Run.Prepare {
		t.Errorf("run %+v", st.Run)
	}
	if line := j.Line(); !strings.HasPrefix(line, "synth on local, tasks of pid ") || !strings.HasSuffix(line, ": loaded") {
		t.Errorf("status line %q", line)
	}
}

func TestSubmitReportsTheFailedTask(t *testing.T) {
	var loaded string
	h, j := submit(t, 3, &loaded)
	st := j.Status()
	var te *farm.TaskError
	if st.Phase != Failed || !errors.As(st.Err, &te) || loaded != "" || len(h.Errs) != 1 {
		t.Fatalf("phase %v, error %v, loaded %q, reported %v", st.Phase, st.Err, loaded, h.Errs)
	}
	if te.Task != "prepare" || len(te.Tail) == 0 || !strings.Contains(strings.Join(te.Tail, "\n"), "--prepare") {
		t.Errorf("the failure %+v", te)
	}
	if line := j.Line(); !strings.Contains(line, ": failed: prepare failed: its command exited with status 3") {
		t.Errorf("status line %q", line)
	}
}

func TestSettingsCheck(t *testing.T) {
	for _, s := range []Settings{{Engine: "condor", Shards: 2}, {Engine: "local"}, {Engine: "slurm", Shards: 2, CPUs: -1}, {Engine: "slurm", Shards: 2, Partition: "a b"}} {
		if s.Check() == nil {
			t.Errorf("%+v: no error", s)
		}
	}
	if err := (Settings{Engine: "slurm", Shards: 4}).Check(); err != nil {
		t.Error(err)
	}
}
