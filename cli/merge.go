package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"gallop/internal/shard"
)

// shardCommand is a command that runs in shards.
type shardCommand struct {
	// prepared: the command has a prepared stage (--prepare), run once
	// before the shards.
	prepared bool
	// rounds of shards (0 means 1): shard K of round r runs with
	// --shard K/N --shard-round r after every shard of round r−1.
	rounds int
	// merge runs the command as the shard files' arguments say, taking the
	// work of its units from the files instead of doing it, and writes
	// what the unsharded run writes.
	merge func(files []*shard.File, stdout io.Writer) error
}

// shardCommands are the commands that run in shards, by the name their
// shard files give.
func shardCommands() map[string]shardCommand {
	return map[string]shardCommand{
		"ensemble build": {prepared: true, rounds: 2, merge: mergeEnsembleBuild},
		"rig":            {merge: mergeRig},
		"sample":         {merge: mergeSample},
		"synth":          {prepared: true, merge: mergeSynth},
	}
}

// ShardPlan is how a command runs in shards.
type ShardPlan struct {
	Words    int  // the words naming the command ("ensemble build" has two)
	Prepared bool // it has a prepared stage (--prepare)
	Rounds   int  // its rounds of shards (--shard-round R when more than 1)
}

// PlanShards says how to run the command args (as after `gallop`, for
// example ["sample", "--scenario", "spell"]) in shards. A command that
// does not run in shards is an error.
func PlanShards(args []string) (ShardPlan, error) {
	cmds := shardCommands()
	for n := 2; n >= 1; n-- {
		if len(args) < n {
			continue
		}
		if c, ok := cmds[strings.Join(args[:n], " ")]; ok {
			return ShardPlan{Words: n, Prepared: c.prepared, Rounds: max(1, c.rounds)}, nil
		}
	}
	names := make([]string, 0, len(cmds))
	for name := range cmds {
		names = append(names, name)
	}
	sort.Strings(names)
	if len(args) == 0 {
		return ShardPlan{}, fmt.Errorf("no command; these run in shards: %s", strings.Join(names, ", "))
	}
	return ShardPlan{}, fmt.Errorf("%q does not run in shards; these do: %s", strings.Join(args[:min(2, len(args))], " "), strings.Join(names, ", "))
}

func runMerge(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop merge SHARD...

Combines the shard files that a command run with --shard K/N wrote (one per
shard, each exactly once, all of one run) into exactly what the command run
without --shard prints and writes: the same seeds, the same results. A
missing or repeated shard, or a shard of other settings, is an error naming
it.`)
		fs.PrintDefaults()
	}
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
	c, ok := shardCommands()[files[0].Command]
	if !ok {
		return fmt.Errorf("%s: command %q does not run in shards", files[0].Path, files[0].Command)
	}
	if err := c.merge(files, stdout); err != nil {
		if errors.Is(err, errUsage) {
			return fmt.Errorf("%s: the arguments it records are not valid for this Gallop", files[0].Path)
		}
		return err
	}
	return nil
}
