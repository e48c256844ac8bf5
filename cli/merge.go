package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"gallop/internal/shard"
	tens "gallop/tools/ensemble"
	"gallop/tools/gallery"
	"gallop/tools/rig"
	tsynth "gallop/tools/synth"
)

// shardCommand is a command that runs in shards: how (its tool's plan),
// and the command, which with merged set (gallop merge's shard files of
// its last round, in order) takes its units' results from them instead of
// doing their work, and prints and writes what the unsharded run does.
type shardCommand struct {
	plan shard.Plan
	run  func(args []string, stdout io.Writer, merged []*shard.File) error
}

// shardCommands are the commands that run in shards, by name: the one
// list that gallop merge, gallop farm and the shard options read.
func shardCommands() []shardCommand {
	return []shardCommand{
		{tens.BuildPlan, ensembleBuild},
		{rig.Plan, rigCommand},
		{gallery.SamplePlan, sampleCommand},
		{tsynth.Plan, synthCommand},
	}
}

// findShardCommand returns the shardable command that args (as after
// `gallop`, for example ["sample", "--scenario", "spell"]) runs; a command
// that does not run in shards is an error naming those that do.
func findShardCommand(args []string) (shardCommand, error) {
	cs := shardCommands()
	var names []string
	for _, c := range cs {
		if w := c.plan.Words(); len(args) >= w && strings.Join(args[:w], " ") == c.plan.Command {
			return c, nil
		}
		names = append(names, c.plan.Command)
	}
	list := strings.Join(names, ", ")
	if len(args) == 0 {
		return shardCommand{}, fmt.Errorf("no command; these run in shards: %s", list)
	}
	return shardCommand{}, fmt.Errorf("%q does not run in shards; these do: %s", strings.Join(args[:min(2, len(args))], " "), list)
}

const mergeUsage = `Usage: gallop merge SHARD...

Combines the shard files that a command run with --shard K/N wrote (one per
shard, each exactly once, all of one run) into exactly what the command run
without --shard prints and writes: the same seeds, the same results. A
missing or repeated shard, or a shard of other settings, is an error naming
it.`

func runMerge(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = usageOf(fs, mergeUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	files, err := shard.ReadSet(fs.Args())
	if err != nil {
		return err
	}
	f := files[0]
	i := slices.IndexFunc(shardCommands(), func(c shardCommand) bool { return c.plan.Command == f.Command })
	if i < 0 {
		return fmt.Errorf("%s: command %q does not run in shards", f.Path, f.Command)
	}
	c := shardCommands()[i]
	if c.plan.Rounds > 1 && f.Round != c.plan.Rounds {
		return fmt.Errorf("%s: a shard of round %d; the merge takes round %d's", f.Path, f.Round, c.plan.Rounds)
	}
	if err := c.run(f.Args, stdout, files); err != nil {
		if errors.Is(err, errUsage) {
			return fmt.Errorf("%s: the arguments it records are not valid for this Gallop", f.Path)
		}
		return err
	}
	return nil
}
