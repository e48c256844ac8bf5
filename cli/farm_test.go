package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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

// TestShardCommands: each command that runs in shards is listed once,
// under its plan's name, which names a command of gallop, and has at
// least one round.
func TestShardCommands(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range shardCommands() {
		p := c.plan
		if seen[p.Command] || p.Rounds < 1 || p.Words() < 1 || !Handles(strings.Fields(p.Command)[0]) {
			t.Errorf("plan %+v", p)
		}
		seen[p.Command] = true
	}
	if _, err := findShardCommand([]string{"ensemble", "play"}); err == nil || err.Error() != `"ensemble play" does not run in shards; these do: ensemble build, rig, sample, synth` {
		t.Errorf("ensemble play: %v", err)
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

// TestFarmDefaultDir: without --dir the work folder is a new one among the
// window's (the user's cache), never in the working directory.
func TestFarmDefaultDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	d, err := farmDir("")
	if err != nil {
		t.Fatal(err)
	}
	if rel, err := filepath.Rel(filepath.Join(cache, "gallop", "farm"), d); err != nil || strings.HasPrefix(rel, "..") || rel == "." {
		t.Errorf("work folder %s, want a new folder in %s", d, filepath.Join(cache, "gallop", "farm"))
	}
}
