package cli

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"gallop/internal/shard"
	"gallop/tools/farmrun"
)

// shardOptions are the options every shardable command takes: --shard K/N
// runs shard K of the command's work and writes it to --shard-dir instead
// of printing; --prepare (for commands with a prepared stage) does the work
// every shard shares once and writes it there for them. `gallop merge`
// turns the shard files into what the unsharded run prints and writes.
type shardOptions struct {
	spec     string
	dir      string
	prepare  bool
	command  string   // as in the shard files: "sample", "ensemble build", ...
	args     []string // the command's arguments without the shard options
	prepared bool     // whether the command has a prepared stage
	rounds   int      // rounds of shards, each reading the one before (1: one round)
	round    int      // --shard-round
}

// addShardOptions adds the shard options of command (a name of
// farmrun.Commands) to fs, as its farmrun.Plan says: --prepare when it has
// a prepared stage, --shard-round when its shards run in rounds, shard K
// of round r reading every file of round r−1 (default the last round).
func addShardOptions(fs *flag.FlagSet, command string, args []string) *shardOptions {
	plan, _ := farmrun.PlanOf(command) // every command that adds them has one (TestShardMergesHavePlans)
	o := &shardOptions{command: command, args: shard.Strip(args), prepared: plan.Prepared, rounds: plan.Rounds, round: plan.Rounds}
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

// mode is what the options ask for: whether to run a shard (and which),
// or the prepared stage; neither is the plain run.
func (o *shardOptions) mode() (s shard.Spec, sharded bool, err error) {
	if o.spec == "" {
		return shard.Spec{}, false, nil
	}
	if o.prepare {
		return shard.Spec{}, false, fmt.Errorf("--prepare and --shard: give one")
	}
	s, err = shard.Parse(o.spec)
	if err != nil {
		return shard.Spec{}, false, fmt.Errorf("--shard: %w", err)
	}
	if o.round < 1 || o.round > o.rounds {
		return shard.Spec{}, false, fmt.Errorf("--shard-round %d: want 1 to %d", o.round, o.rounds)
	}
	return s, true, nil
}

// header is the header of this run's shard s over total units.
func (o *shardOptions) header(s shard.Spec, total int) shard.Header {
	lo, hi := s.Range(total)
	h := shard.Header{Kind: shard.KindShard, Command: o.command, Args: o.args, Shard: s.K, Of: s.N, Units: [2]int{lo, hi}, Total: total}
	if o.rounds > 1 {
		h.Round = o.round
	}
	return h
}

// fileName is the file of shard s in round r.
func (o *shardOptions) fileName(r int, s shard.Spec) string {
	if r == o.rounds {
		return shard.FileName(o.dir, s)
	}
	return shard.RoundFileName(o.dir, r, s)
}

// write writes shard s's payload into the shard folder.
func (o *shardOptions) write(s shard.Spec, total int, payload any) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	return shard.Write(o.fileName(o.round, s), o.header(s, total), payload)
}

// writePrepared writes the prepared stage's payload into the shard folder.
func (o *shardOptions) writePrepared(payload any) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	h := shard.Header{Kind: shard.KindPrepared, Command: o.command, Args: o.args}
	return shard.Write(shard.PreparedName(o.dir), h, payload)
}

// readPrepared reads the prepared stage's payload from the shard folder
// into v, reporting whether there was one made with these arguments. A
// prepared file from other arguments is an error.
func (o *shardOptions) readPrepared(v any) (bool, error) {
	path := shard.PreparedName(o.dir)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return false, nil
	}
	f, err := shard.ReadPrepared(path, o.command, o.args)
	if err != nil {
		return false, err
	}
	return true, f.Decode(v)
}

// readRound reads every shard file of round r for shards of N, checked
// to be one whole run of these arguments.
func (o *shardOptions) readRound(r, n int) ([]*shard.File, error) {
	paths := make([]string, n)
	for k := range paths {
		paths[k] = o.fileName(r, shard.Spec{K: k + 1, N: n})
	}
	files, err := shard.ReadSet(paths)
	if err != nil {
		return nil, fmt.Errorf("round %d: %w", r, err)
	}
	if f := files[0]; f.Command != o.command || !slices.Equal(f.Args, o.args) {
		return nil, fmt.Errorf("%s: shard of other settings (%s %s)", f.Path, f.Command, strings.Join(f.Args, " "))
	}
	return files, nil
}
