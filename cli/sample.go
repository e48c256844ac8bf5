package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"gallop/internal/shard"
	"gallop/internal/words"
	"gallop/solver/plausible"
	"gallop/tools/gallery"
)

const sampleUsage = `Usage: gallop sample --scenario ball2d|bowling|spell|dice [scenario options]
                     [--iterations N] [--chains C] [--seed S] [--json]
                     [--distinct N] [--out DIR [--fps F]] [--weights W,...]
                     [--shard K/N [--shard-dir D]]

Samples plausible animations that satisfy the scenario's constraints by Markov
chain Monte Carlo (Chenney and Forsyth 2000), C chains at once, and reports
per chain: iterations, acceptance rate, the first iteration whose sample
satisfies the constraints (-1 if none), the fraction of samples after it that
satisfy them, how many satisfying samples it kept and how many of those are
distinct animations, and the wall time. With --out it writes the most
different satisfying samples of all chains (chain by chain, each in the
order found) as .glb files, and DIR/samples.json listing them with each
one's chain (from 0), iteration, log p and random variables (its state, from
which the Gallery tool replays it).

With --shard K/N it runs only chains ⌊(K−1)·C/N⌋ to ⌊K·C/N⌋−1 (their seeds
as in the whole run) and writes their results to --shard-dir for
gallop merge, which prints and writes (--out) exactly what the whole run
does, wall times aside.`

func runSample(args []string, stdout io.Writer) error {
	return sampleCommand(args, stdout, nil)
}

// sampleCommand runs `gallop sample` with args: the plain run, a shard of
// it, or (merged not nil) the merge of its shard files.
func sampleCommand(args []string, stdout io.Writer, merged []*shard.File) error {
	fs := flag.NewFlagSet("sample", flag.ContinueOnError)
	scenario := fs.String("scenario", "", "ball2d, bowling, spell or dice")
	iterations := fs.Int("iterations", 1000, "iterations per chain")
	chains := fs.Int("chains", 2, "number of chains, run at once")
	seed := fs.Uint64("seed", 1, "seed of the first chain; chain c uses seed+c")
	asJSON := fs.Bool("json", false, "print one JSON object per chain")
	distinct := fs.Int("distinct", 100, "how many distinct satisfying samples to look for (per chain, and for --out)")
	out := fs.String("out", "", "write the distinct satisfying samples of all chains to this folder as .glb files")
	fps := fs.Float64("fps", 60, "frame rate of the animations --out writes")
	lambda := fs.Float64("lambda", 0, "λ of the Gibbs constraint term λ^k (bowling, spell, dice), > 1; 0: the scenario's default")
	weights := fs.String("weights", "", "the proposal kernels' weights, comma-separated, one per kernel in the scenario's order (default: the scenario's)")
	shards := addShardOptions(fs, gallery.SamplePlan, args)
	runners := make(map[string]func(context.Context, sampleRun) error, len(sampleScenarios))
	for name, add := range sampleScenarios {
		runners[name] = add(fs)
	}
	fs.Usage = usageOf(fs, sampleUsage)
	err := parse(fs, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	switch {
	case *iterations < 1:
		return fmt.Errorf("--iterations %d: want at least 1", *iterations)
	case *chains < 1:
		return fmt.Errorf("--chains %d: want at least 1", *chains)
	case *distinct < 1:
		return fmt.Errorf("--distinct %d: want at least 1", *distinct)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *fps <= 0 || *fps > 240 {
		return fmt.Errorf("--fps %v: want a rate in (0, 240]", *fps)
	}
	if *lambda != 0 && !(*lambda > 1) {
		return fmt.Errorf("--lambda %v: λ must be greater than 1 (λ ≤ 1 would not reward meeting constraints)", *lambda)
	}
	r := sampleRun{cmd: gallery.SampleCommand{Name: *scenario, Iterations: *iterations, Chains: *chains, Seed: *seed, Distinct: *distinct, Out: *out, FPS: *fps},
		json: *asJSON, out: stdout, lambda: *lambda, line: newProgress()}
	defer r.line.Done()
	r.cmd.Status = r.line.Report
	if *weights != "" {
		if r.cmd.Weights, err = words.Floats(*weights, strings.Count(*weights, ",")+1); err != nil {
			return fmt.Errorf("--weights %q: %v", *weights, err)
		}
	}
	if r.run, err = shards.run(merged); err != nil {
		return err
	}
	runner, ok := runners[*scenario]
	switch {
	case *scenario == "":
		fs.Usage()
		return errUsage
	case !ok:
		return fmt.Errorf("--scenario %q: want ball2d, bowling, spell or dice", *scenario)
	}
	if *out != "" && !r.run.Sharded() {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	return runner(ctx, r)
}

// sampleScenarios are the scenarios of gallop sample. Each adds its own
// options to the flag set (names must not clash) and returns the function
// that validates them and runs the chains once the flags are parsed.
var sampleScenarios = map[string]func(fs *flag.FlagSet) func(context.Context, sampleRun) error{
	"ball2d":  ball2dSample,
	"bowling": bowlingSample,
	"dice":    diceSample,
	"spell":   spellSample,
}

// ball2dSample is the 2D ball of Section 5.1.
func ball2dSample(fs *flag.FlagSet) func(context.Context, sampleRun) error {
	target := fs.Float64("target", 1, "ball2d: where the ball should land, in ball diameters")
	sigma := fs.Float64("sigma", 0.1, "ball2d: σ_d of the landing constraint, in ball diameters")
	tolerance := fs.Float64("tolerance", 0.1, "ball2d: how near the target a landing satisfies the constraint, in ball diameters")
	return func(ctx context.Context, r sampleRun) error {
		b := &plausible.Ball2D{Target: *target, Sigma: *sigma, Tolerance: *tolerance}
		if err := b.Validate(); err != nil {
			return err
		}
		return sample(ctx, b, r)
	}
}

// sampleRun is what runSample was asked for.
type sampleRun struct {
	cmd    gallery.SampleCommand
	run    *shard.Run // a shard, the merge of shard files, or the plain run
	json   bool
	out    io.Writer
	lambda float64 // --lambda, 0 for the scenario's default
	line   *progress
}

// sample runs the chains of one scenario as r asks and prints a report
// per chain; a shard prints nothing.
func sample[S, O any](ctx context.Context, sc plausible.Scenario[S, O], r sampleRun) error {
	reports, err := gallery.RunSample(ctx, &r.cmd, sc, r.run)
	if err != nil || r.run.Partial() {
		return err
	}
	r.line.Done()
	for _, rep := range reports {
		if r.json {
			if err := json.NewEncoder(r.out).Encode(rep); err != nil {
				return err
			}
			continue
		}
		first := fmt.Sprintf("never satisfied (at best %d of %d constraints met)", rep.BestMet, rep.Constraints)
		if rep.FirstSatisfied >= 0 {
			first = fmt.Sprintf("first satisfied at %d, %.0f%% satisfying after", rep.FirstSatisfied, 100*rep.SatisfiedFraction)
		}
		fmt.Fprintf(r.out, "chain %d (seed %d): %d iterations in %.3f s, acceptance %.2f, %s, %d distinct of %d kept\n",
			rep.Chain, rep.Seed, rep.Iterations, rep.WallSeconds, rep.AcceptanceRate, first, rep.Distinct, rep.Satisfying)
	}
	return nil
}
