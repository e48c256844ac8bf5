package cli

import (
	"flag"
	"fmt"
	"os"

	"gallop/internal/shard"
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
}

// addShardOptions adds the shard options to fs; prepared says whether the
// command has a prepared stage (--prepare).
func addShardOptions(fs *flag.FlagSet, command string, args []string, prepared bool) *shardOptions {
	o := &shardOptions{command: command, args: shard.Strip(args), prepared: prepared}
	fs.StringVar(&o.spec, "shard", "", "run only shard K of N of the work (K/N) and write it to --shard-dir for `gallop merge`")
	fs.StringVar(&o.dir, "shard-dir", ".", "with --shard or --prepare: the folder of the shard files")
	if prepared {
		fs.BoolVar(&o.prepare, "prepare", false, "do the work every shard shares and write it to --shard-dir for them")
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
	return s, true, nil
}

// header is the header of this run's shard s over total units.
func (o *shardOptions) header(s shard.Spec, total int) shard.Header {
	lo, hi := s.Range(total)
	return shard.Header{Kind: shard.KindShard, Command: o.command, Args: o.args, Shard: s.K, Of: s.N, Units: [2]int{lo, hi}, Total: total}
}

// write writes shard s's payload into the shard folder.
func (o *shardOptions) write(s shard.Spec, total int, payload any) error {
	if err := os.MkdirAll(o.dir, 0o755); err != nil {
		return err
	}
	return shard.Write(shard.FileName(o.dir, s), o.header(s, total), payload)
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
