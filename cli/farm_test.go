package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"gallop/internal/farm"
	"gallop/internal/shard"
)

// TestMain lets the test binary stand in for gallop in the tasks that
// gallop farm runs (os.Executable): with GALLOP_CLI_MAIN=1 it runs the
// command its arguments name.
func TestMain(m *testing.M) {
	if os.Getenv("GALLOP_CLI_MAIN") == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func TestFarmJob(t *testing.T) {
	job := farmJob("/bin/gallop", []string{"synth", "in.glb", "--count", "3", "--", "-odd"}, 3, ShardPlan{Words: 1, Prepared: true, Rounds: 1}, "/w")
	wantShard := []string{"/bin/gallop", "synth", "in.glb", "--count", "3", "--shard", farm.ShardToken + "/3", "--shard-dir", "/w", "--", "-odd"}
	wantPrepare := []string{"/bin/gallop", "synth", "in.glb", "--count", "3", "--prepare", "--shard-dir", "/w", "--", "-odd"}
	wantMerge := []string{"/bin/gallop", "merge", "/w/shard-1-of-3.gsh", "/w/shard-2-of-3.gsh", "/w/shard-3-of-3.gsh"}
	if !slices.Equal(job.Shard, wantShard) || !slices.Equal(job.Prepare, wantPrepare) || !slices.Equal(job.Merge, wantMerge) || job.N != 3 {
		t.Errorf("farmJob =\n%q\n%q\n%q\nwant\n%q\n%q\n%q", job.Shard, job.Prepare, job.Merge, wantShard, wantPrepare, wantMerge)
	}
	if job := farmJob("/bin/gallop", []string{"sample"}, 2, ShardPlan{Words: 1, Rounds: 1}, "/w"); job.Prepare != nil {
		t.Errorf("a command without a prepared stage got %q", job.Prepare)
	}
}

func TestFarmSubmitErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--shards", "2"},
		{"--", "sample"},
		{"--shards", "2", "--", "sample", "--shard", "1/2"},
		{"--shards", "2", "--", "info", "x.obj"},
		{"--shards", "2", "--engine", "condor", "--", "sample"},
	} {
		if err := runFarmSubmit(args, &bytes.Buffer{}); err == nil {
			t.Errorf("farm submit %q: no error", args)
		}
	}
}

// The real command through the local engine prints what it prints
// unsharded (but for its timings).
func TestFarmSubmitLocalMatchesPlainRun(t *testing.T) {
	command := []string{"sample", "--scenario", "ball2d", "--iterations", "300", "--chains", "5"}
	var plain, farmed bytes.Buffer
	if err := runSample(command[1:], &plain); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GALLOP_CLI_MAIN", "1")
	dir := filepath.Join(t.TempDir(), "run")
	args := append([]string{"--engine", "local", "--shards", "3", "--dir", dir, "--wait", "--"}, command...)
	if err := runFarmSubmit(args, &farmed); err != nil {
		t.Fatal(err)
	}
	timing := regexp.MustCompile(`in [0-9.]+ s`)
	got, want := timing.ReplaceAllString(farmed.String(), "in T s"), timing.ReplaceAllString(plain.String(), "in T s")
	if got != want || want == "" {
		t.Errorf("farmed:\n%s\nplain:\n%s", got, want)
	}
	for k := 1; k <= 3; k++ {
		if _, err := os.Stat(shard.FileName(dir, shard.Spec{K: k, N: 3})); err != nil {
			t.Error(err)
		}
	}
}
