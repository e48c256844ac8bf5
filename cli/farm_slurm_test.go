package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"gallop/internal/farm/farmtest"
)

// farmed runs `gallop farm submit --engine slurm --shards n --wait --
// command` through the Slurm cluster, the test binary standing in for
// gallop (TestMain), and returns what it printed and its work folder.
func farmed(t *testing.T, n int, command ...string) (string, string, error) {
	t.Helper()
	farmtest.RequireSlurm(t)
	t.Setenv("GALLOP_CLI_MAIN", "1")
	dir := filepath.Join(t.TempDir(), "run")
	var out bytes.Buffer
	err := runFarmSubmit(append([]string{"--engine", "slurm", "--shards", strconv.Itoa(n), "--dir", dir, "--wait", "--"}, command...), &out)
	return out.String(), dir, err
}

// TestFarmSlurmSample (issue 14): gallop sample (spell "HI", 8 chains) in
// 4 shards through Slurm prints what the local unsharded run prints, wall
// times aside.
func TestFarmSlurmSample(t *testing.T) {
	command := []string{"sample", "--scenario", "spell", "--word", "HI", "--chains", "8", "--iterations", "300", "--json"}
	got, _, err := farmed(t, 4, command...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := runSample(command[1:], &want); err != nil {
		t.Fatal(err)
	}
	if a, b := withoutTimes(t, got, "", ""), withoutTimes(t, want.String(), "", ""); a != b || strings.Count(b, "\n") != 7 {
		t.Errorf("through Slurm:\n%s\nunsharded:\n%s", a, b)
	}
}

// TestFarmSlurmSynth: gallop synth (pcow, 40 clips) in 4 shards, with its
// prepared stage, through Slurm.
func TestFarmSlurmSynth(t *testing.T) {
	pcow := filepath.Join(sharedSet(t, "pcow"), "frames")
	command := []string{"synth", pcow, "--count", "40", "--seconds", "2", "--json"}
	got, _, err := farmed(t, 4, command...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := runSynth(command[1:], &want); err != nil {
		t.Fatal(err)
	}
	if a, b := withoutTimes(t, got, "", ""), withoutTimes(t, want.String(), "", ""); a != b {
		t.Errorf("through Slurm:\n%s\nunsharded:\n%s", a, b)
	}
}

// TestFarmSlurmEnsemble: gallop ensemble build (the banner, a small
// search) in 4 shards, its prepared stage and two rounds, through Slurm:
// the same figures and the same graph file as the local unsharded build.
func TestFarmSlurmEnsemble(t *testing.T) {
	levels := bannerLevels(t)
	tmp := t.TempDir()
	command := append(append([]string{"ensemble", "build"}, levels...), "--tries", "1", "--samples", "2", "--json")
	farmedGraph, plainGraph := filepath.Join(tmp, "farmed.json"), filepath.Join(tmp, "plain.json")
	got, _, err := farmed(t, 4, append(command, "--out", farmedGraph)...)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := runEnsemble(append(command[1:], "--out", plainGraph), &want); err != nil {
		t.Fatal(err)
	}
	if a, b := withoutTimes(t, got, farmedGraph, "GRAPH"), withoutTimes(t, want.String(), plainGraph, "GRAPH"); a != b {
		t.Errorf("through Slurm:\n%s\nunsharded:\n%s", a, b)
	}
	a, err := os.ReadFile(farmedGraph)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(plainGraph)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the graph file written through Slurm differs from the unsharded one")
	}
}

// TestFarmSlurmKilledShard: a shard's process killed while it runs is run
// again (the task's one retry) and the job succeeds, its log saying so;
// killed on its retry too, the job fails, naming the shard and showing
// the end of its log.
func TestFarmSlurmKilledShard(t *testing.T) {
	command := []string{"sample", "--scenario", "spell", "--chains", "2", "--iterations", "1500", "--json"}
	for _, kills := range []int{1, 2} {
		farmtest.RequireSlurm(t)
		t.Setenv("GALLOP_CLI_MAIN", "1")
		dir := filepath.Join(t.TempDir(), "run")
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		killed := make(chan error, 1)
		go func() { killed <- killShard(ctx, dir, "1/2", kills) }()
		var out bytes.Buffer
		err := runFarmSubmit(append([]string{"--engine", "slurm", "--shards", "2", "--dir", dir, "--wait", "--"}, command...), &out)
		cancel()
		if kerr := <-killed; kerr != nil {
			t.Fatalf("%d kills: %v", kills, kerr)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "logs", "shard-1.log"))
		if !strings.Contains(string(log), "attempt 1 failed") || !strings.Contains(string(log), "retrying once") {
			t.Errorf("%d kills: the log does not show the retry:\n%s", kills, log)
		}
		switch kills {
		case 1:
			if err != nil || strings.Count(out.String(), "\n") != 2 {
				t.Errorf("killed once: %v, output %q", err, out.String())
			}
		case 2:
			if err == nil || !strings.Contains(err.Error(), "shard 1 failed") || !strings.Contains(string(log), "giving up") {
				t.Errorf("killed twice: %v; log:\n%s", err, log)
			}
		}
	}
}

// killShard kills the process of shard spec of the run in dir, times
// times (each attempt's own process: one it has not killed before), as
// soon as it runs.
func killShard(ctx context.Context, dir, spec string, times int) error {
	pattern := "--shard " + spec + " --shard-dir " + dir
	killed := map[string]bool{}
	for len(killed) < times {
		out, _ := exec.CommandContext(ctx, "pgrep", "-f", "--", pattern).Output()
		for _, pid := range strings.Fields(string(out)) {
			if !killed[pid] && exec.CommandContext(ctx, "kill", "-KILL", pid).Run() == nil {
				killed[pid] = true
				break
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}
