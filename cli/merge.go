package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"gallop/internal/shard"
)

// shardMerges are the merges of the commands that run in shards, by the
// name their shard files give (how each runs in shards is its
// farmrun.Plan): each runs the command as the shard files' arguments say,
// taking the work of its units from the files instead of doing it, and
// writes what the unsharded run writes.
func shardMerges() map[string]func(files []*shard.File, stdout io.Writer) error {
	return map[string]func(files []*shard.File, stdout io.Writer) error{
		"ensemble build": mergeEnsembleBuild,
		"rig":            mergeRig,
		"sample":         mergeSample,
		"synth":          mergeSynth,
	}
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
	merge, ok := shardMerges()[files[0].Command]
	if !ok {
		return fmt.Errorf("%s: command %q does not run in shards", files[0].Path, files[0].Command)
	}
	if err := merge(files, stdout); err != nil {
		if errors.Is(err, errUsage) {
			return fmt.Errorf("%s: the arguments it records are not valid for this Gallop", files[0].Path)
		}
		return err
	}
	return nil
}
