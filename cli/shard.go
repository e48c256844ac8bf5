package cli

import (
	"flag"
	"fmt"
	"path/filepath"

	"gallop/internal/shard"
)

// shardOptions are the options every shardable command takes: --shard K/N
// runs shard K of the command's work and writes it to --shard-dir instead
// of printing; --prepare (for commands with a prepared stage) does the work
// every shard shares once and writes it there for them. `gallop merge`
// turns the shard files into what the unsharded run prints and writes.
type shardOptions struct {
	plan    shard.Plan
	args    []string // the command's arguments without the shard options
	spec    string
	dir     string
	prepare bool
	round   int // --shard-round
}

// addShardOptions adds the shard options of the command that runs in
// shards as plan says to fs: --prepare when it has a prepared stage,
// --shard-round when its shards run in rounds, shard K of round r
// reading every file of round r−1 (default the last round).
func addShardOptions(fs *flag.FlagSet, plan shard.Plan, args []string) *shardOptions {
	o := &shardOptions{plan: plan, args: shard.Strip(args), round: plan.Rounds}
	fs.StringVar(&o.spec, "shard", "", "run only shard K of N of the work (K/N) and write it to --shard-dir for `gallop merge`")
	fs.StringVar(&o.dir, "shard-dir", ".", "with --shard or --prepare: the folder of the shard files")
	if plan.Prepared {
		fs.BoolVar(&o.prepare, "prepare", false, "do the work every shard shares and write it to --shard-dir for them")
	}
	if plan.Rounds > 1 {
		fs.IntVar(&o.round, "shard-round", plan.Rounds, fmt.Sprintf("with --shard: which round of shards to run, 1 to %d, each reading the files of the round before", plan.Rounds))
	}
	return o
}

// run is the run the parsed options ask for: a shard (and which), the
// prepared stage, or the plain run; with merged (gallop merge's shard
// files, in order) the merge, whose prepared file lies beside them.
func (o *shardOptions) run(merged []*shard.File) (*shard.Run, error) {
	r := &shard.Run{Plan: o.plan, Args: o.args, Dir: o.dir, Prepare: o.prepare, Round: o.round, Merged: merged}
	if merged != nil {
		r.Dir = filepath.Dir(merged[0].Path)
	}
	if o.spec == "" {
		return r, nil
	}
	if o.prepare {
		return nil, fmt.Errorf("--prepare and --shard: give one")
	}
	s, err := shard.Parse(o.spec)
	if err != nil {
		return nil, fmt.Errorf("--shard: %w", err)
	}
	if o.round < 1 || o.round > o.plan.Rounds {
		return nil, fmt.Errorf("--shard-round %d: want 1 to %d", o.round, o.plan.Rounds)
	}
	r.Shard = s
	return r, nil
}
