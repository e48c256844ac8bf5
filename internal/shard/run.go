package shard

import (
	"fmt"
	"os"
	"slices"
	"strings"
)

// Plan is how a command runs in shards.
type Plan struct {
	// Command names the command as its shard files do (Header.Command):
	// its words after gallop, as "synth" or "ensemble build".
	Command string
	// Prepared says it has a prepared stage (--prepare), run once before
	// the shards.
	Prepared bool
	// Rounds is its rounds of shards, at least 1: shard K of round r reads
	// every file of round r−1 (--shard-round R when more than 1).
	Rounds int
}

// Words is the number of words naming the command ("ensemble build" has
// two).
func (p Plan) Words() int { return len(strings.Fields(p.Command)) }

// Run is one run of a command that runs in shards, as its shard options
// ask: the whole run, its prepared stage (Prepare), shard Shard of round
// Round (Sharded), or the merge of its last round's files (Merged). A
// command's work reads and writes its shard files through it.
type Run struct {
	Plan Plan
	Args []string // the command's arguments without the shard options (Strip)
	Dir  string   // the folder of the shard files and the prepared file

	Prepare bool    // do the work every shard shares and write it to Dir
	Shard   Spec    // with N > 0: run this shard and write its file to Dir
	Round   int     // the shard's round, 1 to Plan.Rounds
	Merged  []*File // not nil: take the units' results from these files (the last round's, in order)
}

// Sharded reports whether the run is one shard.
func (r *Run) Sharded() bool { return r.Shard.N > 0 }

// Partial reports whether the run does part of the work and writes it to
// Dir for the others: the prepared stage or a shard. It prints nothing.
func (r *Run) Partial() bool { return r.Prepare || r.Sharded() }

// Range is the block [lo, hi) of total units the run does: the shard's,
// or every unit.
func (r *Run) Range(total int) (lo, hi int) {
	if !r.Sharded() {
		return 0, total
	}
	return r.Shard.Range(total)
}

// fileName is the file of shard s in round round.
func (r *Run) fileName(round int, s Spec) string {
	if round == r.Plan.Rounds {
		return FileName(r.Dir, s)
	}
	return RoundFileName(r.Dir, round, s)
}

// Write writes the shard's payload, its results for its block of total
// units, into Dir.
func (r *Run) Write(total int, payload any) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	lo, hi := r.Shard.Range(total)
	h := Header{Kind: KindShard, Command: r.Plan.Command, Args: r.Args, Shard: r.Shard.K, Of: r.Shard.N, Units: [2]int{lo, hi}, Total: total}
	if r.Plan.Rounds > 1 {
		h.Round = r.Round
	}
	return Write(r.fileName(r.Round, r.Shard), h, payload)
}

// WritePrepared writes the prepared stage's payload into Dir.
func (r *Run) WritePrepared(payload any) error {
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	h := Header{Kind: KindPrepared, Command: r.Plan.Command, Args: r.Args}
	return Write(PreparedName(r.Dir), h, payload)
}

// ReadPrepared reads the prepared stage's payload from Dir into v,
// reporting whether there was one made with these arguments; a prepared
// file of other arguments is an error. Only a shard and a merge read it:
// the whole run and the prepared stage itself do the work.
func (r *Run) ReadPrepared(v any) (bool, error) {
	if !r.Sharded() && r.Merged == nil {
		return false, nil
	}
	path := PreparedName(r.Dir)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return false, nil
	}
	f, err := ReadPrepared(path, r.Plan.Command, r.Args)
	if err != nil {
		return false, err
	}
	return true, f.Decode(v)
}

// ReadRound reads every file of round round of the shard's run, checked
// to be one whole run of these arguments.
func (r *Run) ReadRound(round int) ([]*File, error) {
	paths := make([]string, r.Shard.N)
	for k := range paths {
		paths[k] = r.fileName(round, Spec{K: k + 1, N: r.Shard.N})
	}
	files, err := ReadSet(paths)
	if err != nil {
		return nil, fmt.Errorf("round %d: %w", round, err)
	}
	if f := files[0]; f.Command != r.Plan.Command || !slices.Equal(f.Args, r.Args) {
		return nil, fmt.Errorf("%s: shard of other settings (%s %s)", f.Path, f.Command, strings.Join(f.Args, " "))
	}
	return files, nil
}

// Gather decodes the payload of each of files (one whole run, in order)
// into a P and returns the units that units takes from each, in order,
// checking that each file holds as many as its block (Header.Units); noun
// names the units in the error ("clips").
func Gather[P, U any](files []*File, noun string, units func(p *P) []U) ([]U, error) {
	var all []U
	for _, f := range files {
		var p P
		if err := f.Decode(&p); err != nil {
			return nil, err
		}
		us := units(&p)
		if want := f.Units[1] - f.Units[0]; len(us) != want {
			return nil, fmt.Errorf("%s: %d %s, want %d", f.Path, len(us), noun, want)
		}
		all = append(all, us...)
	}
	return all, nil
}
