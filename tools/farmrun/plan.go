// Package farmrun runs Gallop's shardable commands on a cluster scheduler
// through package internal/farm, for the headless `gallop farm submit` and
// for the tools' "Run on farm…" alike: which commands run in shards and
// how (their Plan), the farm.Job of a command (NewJob), a new work folder
// (NewDir), and a tool's submitted jobs followed in the background (Jobs).
// It knows the commands by name only; what they do and how their shard
// files merge is the command line's (package cli).
package farmrun

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gallop/internal/farm"
	"gallop/internal/shard"
)

// Plan is how a command runs in shards.
type Plan struct {
	Words    int  // the words naming the command ("ensemble build" has two)
	Prepared bool // it has a prepared stage (--prepare), run once before the shards
	Rounds   int  // its rounds of shards, at least 1 (--shard-round R when more than 1)
}

// plans are the commands that run in shards, by the name their shard
// files give (shard.Header.Command): whether each has a prepared stage,
// and its rounds of shards (0 means 1). The command line's merge
// functions are keyed by the same names.
var plans = map[string]Plan{
	"ensemble build": {Prepared: true, Rounds: 2},
	"rig":            {},
	"sample":         {},
	"synth":          {Prepared: true},
}

// Commands returns the names of the commands that run in shards, sorted.
func Commands() []string {
	names := make([]string, 0, len(plans))
	for name := range plans {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// PlanOf returns the plan of the command named name (as in Commands), ok
// false for a command that does not run in shards.
func PlanOf(name string) (Plan, bool) {
	p, ok := plans[name]
	if !ok {
		return Plan{}, false
	}
	p.Words, p.Rounds = len(strings.Fields(name)), max(1, p.Rounds)
	return p, true
}

// PlanShards says how to run the command args (as after `gallop`, for
// example ["sample", "--scenario", "spell"]) in shards. A command that
// does not run in shards is an error naming those that do.
func PlanShards(args []string) (Plan, error) {
	for n := 2; n >= 1; n-- {
		if len(args) < n {
			continue
		}
		if p, ok := PlanOf(strings.Join(args[:n], " ")); ok {
			return p, nil
		}
	}
	names := strings.Join(Commands(), ", ")
	if len(args) == 0 {
		return Plan{}, fmt.Errorf("no command; these run in shards: %s", names)
	}
	return Plan{}, fmt.Errorf("%q does not run in shards; these do: %s", strings.Join(args[:min(2, len(args))], " "), names)
}

// NewJob is the job of running `gallop command` (the gallop binary exe)
// in n shards with the work folder dir: the shard files go to dir, and
// the prepared stage's too when the command has one; the merge is
// `gallop merge` of the shard files, whose output is the command's. It
// returns the command's plan with it. The command must leave out the
// shard options, which the job adds.
func NewJob(exe string, command []string, n int, dir string) (farm.Job, Plan, error) {
	if len(shard.Strip(command)) != len(command) {
		return farm.Job{}, Plan{}, fmt.Errorf("leave --shard, --shard-dir and --prepare out of the command: gallop farm adds them")
	}
	plan, err := PlanShards(command)
	if err != nil {
		return farm.Job{}, Plan{}, err
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
	return job, plan, nil
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
