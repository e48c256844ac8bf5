// Package farmrun runs Gallop's shardable commands on a cluster scheduler
// through package internal/farm, for the headless `gallop farm submit` and
// for the tools' "Run on farm…" alike: the farm.Job of a command run in
// shards as its shard.Plan says (NewJob), a new work folder (NewDir), and
// a tool's submitted jobs followed in the background (Jobs). The plans are
// the tools' (each tool's command runs its own steps), the list of the
// commands that run in shards the command line's (package cli).
package farmrun

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"gallop/internal/farm"
	"gallop/internal/shard"
)

// NewJob is the job of running `gallop command` (the gallop binary exe)
// in n shards as plan says, with the work folder dir: the shard files go
// to dir, and the prepared stage's too when the command has one; the merge
// is `gallop merge` of the shard files, whose output is the command's. The
// command must be plan's and leave out the shard options, which the job
// adds.
func NewJob(exe string, command []string, plan shard.Plan, n int, dir string) (farm.Job, error) {
	if len(shard.Strip(command)) != len(command) {
		return farm.Job{}, fmt.Errorf("leave --shard, --shard-dir and --prepare out of the command: gallop farm adds them")
	}
	if w := plan.Words(); len(command) < w || strings.Join(command[:w], " ") != plan.Command {
		return farm.Job{}, fmt.Errorf("%q is not a %s command", strings.Join(command, " "), plan.Command)
	}
	options := []string{"--shard", farm.ShardToken + "/" + strconv.Itoa(n), "--shard-dir", dir}
	if plan.Rounds > 1 {
		options = append(options, "--shard-round", farm.RoundToken)
	}
	job := farm.Job{
		Dir:    dir,
		Shard:  withOptions(exe, command, options...),
		Merge:  []string{exe, "merge"},
		N:      n,
		Rounds: plan.Rounds,
	}
	if plan.Prepared {
		job.Prepare = withOptions(exe, command, "--prepare", "--shard-dir", dir)
	}
	for k := 1; k <= n; k++ {
		job.Merge = append(job.Merge, shard.FileName(dir, shard.Spec{K: k, N: n}))
	}
	return job, nil
}

// withOptions is the argv of `exe command` with options added before any
// "--" in command, after which they would be taken for arguments.
func withOptions(exe string, command []string, options ...string) []string {
	i := slices.Index(command, "--")
	if i < 0 {
		i = len(command)
	}
	argv := append([]string{exe}, command[:i]...)
	argv = append(argv, options...)
	return append(argv, command[i:]...)
}

// Executable is the gallop binary that runs the tasks: this process's.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the gallop binary: %w", err)
	}
	return exe, nil
}
