package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gallop/assets"
	"gallop/internal/shard"
	"gallop/internal/words"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
	"gallop/tools/gallery"
)

// chainReport is one line of `gallop sample --json`.
type chainReport struct {
	Chain             int     `json:"chain"`
	Seed              uint64  `json:"seed"`
	Iterations        int     `json:"iterations"`
	AcceptanceRate    float64 `json:"acceptance_rate"`
	FirstSatisfied    int     `json:"first_satisfied"`
	SatisfiedFraction float64 `json:"satisfied_fraction"`
	Satisfying        int     `json:"satisfying"`
	Distinct          int     `json:"distinct_satisfying"`
	BestMet           int     `json:"best_met"`    // most constraints met by a state
	Constraints       int     `json:"constraints"` // out of`
	WallSeconds       float64 `json:"wall_seconds"`
}

func runSample(args []string, stdout io.Writer) error {
	return sampleCommand(args, stdout, nil)
}

// sampleCommand runs `gallop sample` with args: the plain run, a shard of
// it, or (files not nil) the merge of its shard files.
func sampleCommand(args []string, stdout io.Writer, files []*shard.File) error {
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
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop sample --scenario ball2d|bowling|spell|dice [scenario options]
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
does, wall times aside.`)
		fs.PrintDefaults()
	}
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
	run := sampleRun{iterations: *iterations, chains: *chains, seed: *seed, distinct: *distinct, json: *asJSON, out: stdout, dir: *out, fps: *fps, name: *scenario, lambda: *lambda}
	if *weights != "" {
		if run.weights, err = words.Floats(*weights, strings.Count(*weights, ",")+1); err != nil {
			return fmt.Errorf("--weights %q: %v", *weights, err)
		}
	}
	if run.shards, err = shards.run(files); err != nil {
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
	if run.dir != "" && !run.shards.Sharded() {
		if err := os.MkdirAll(run.dir, 0o755); err != nil {
			return err
		}
	}
	return runner(ctx, run)
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
	iterations, chains, distinct int
	seed                         uint64
	json                         bool
	out                          io.Writer
	dir, name                    string // --out and the scenario's name
	fps                          float64
	lambda                       float64   // --lambda, 0 for the scenario's default
	weights                      []float64 // --weights, nil for the scenario's

	shards *shard.Run // a shard, the merge of shard files, or the plain run
}

// sampleChain is one chain's result, the unit of gallop sample's shards:
// what its line of the report says and, with --out, every satisfying
// sample it kept (State and Outcome, the Chain numbered as in the whole
// run), which the selection of the most different samples over all
// chains needs. Encoded with gob, the statistics, states and outcomes keep
// every bit, so the merge's report and selection are the whole run's.
type sampleChain[S, O any] struct {
	Stats    mcmc.Stats
	Kept     int // satisfying samples kept
	Distinct int // how many of them are distinct, up to --distinct
	Samples  []mcmc.Kept[S, O]
}

// samplePayload is a shard file's payload: its chains, in order.
type samplePayload[S, O any] struct {
	Chains []sampleChain[S, O]
}

// sample runs the chains of one scenario (a plausible.Gallery, as the
// Gallery tool does) and prints a report per chain; or, sharded, runs its
// shard's chains and writes their results; or merges the shard files.
func sample[S, O any](ctx context.Context, sc plausible.Scenario[S, O], r sampleRun) error {
	if r.weights != nil {
		var err error
		if sc, err = plausible.Reweight(sc, r.weights); err != nil {
			return fmt.Errorf("--weights: %w", err)
		}
	}
	var chains []sampleChain[S, O]
	switch {
	case r.shards.Merged != nil:
		for _, f := range r.shards.Merged {
			var p samplePayload[S, O]
			if err := f.Decode(&p); err != nil {
				return err
			}
			if len(p.Chains) != f.Units[1]-f.Units[0] {
				return fmt.Errorf("%s: %d chains, want %d", f.Path, len(p.Chains), f.Units[1]-f.Units[0])
			}
			chains = append(chains, p.Chains...)
		}
		if len(chains) != r.chains {
			return fmt.Errorf("the shards hold %d chains, their arguments ask for %d", len(chains), r.chains)
		}
	case r.shards.Sharded():
		lo, hi := r.shards.Range(r.chains)
		cs, err := runChains(ctx, sc, r, lo, hi)
		if err != nil {
			return err
		}
		return r.shards.Write(r.chains, samplePayload[S, O]{Chains: cs})
	default:
		var err error
		if chains, err = runChains(ctx, sc, r, 0, r.chains); err != nil {
			return err
		}
	}
	return finishSample(sc, r, chains)
}

// runChains runs chains lo to hi−1 of r (chain c has seed r.seed + c) and
// returns their results.
func runChains[S, O any](ctx context.Context, sc plausible.Scenario[S, O], r sampleRun, lo, hi int) ([]sampleChain[S, O], error) {
	seeds := make([]uint64, hi-lo)
	for i := range seeds {
		seeds[i] = r.seed + uint64(lo+i)
	}
	if len(seeds) == 0 {
		return nil, nil
	}
	g, err := plausible.NewGallery(sc, seeds, r.iterations)
	if err != nil {
		return nil, err
	}
	line := newProgress()
	stop := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				done, total := g.Progress()
				line.Report("sample: %d of %d iterations (%.0f%%)", done, total, 100*float64(done)/float64(max(1, total)))
			}
		}
	}()
	stats, err := g.Run(ctx)
	close(stop)
	line.Done()
	if err != nil {
		return nil, err
	}
	out := make([]sampleChain[S, O], len(seeds))
	for i, st := range stats {
		out[i] = sampleChain[S, O]{Stats: st, Kept: g.Kept(i), Distinct: g.DistinctIn(i, r.distinct)}
		if r.dir == "" {
			continue
		}
		kept, err := plausible.KeptIn[S, O](g, i)
		if err != nil {
			return nil, err
		}
		out[i].Samples = slices.Clone(kept)
		for k := range out[i].Samples {
			out[i].Samples[k].Chain = lo + i
		}
	}
	return out, nil
}

// finishSample writes (--out) the most different satisfying samples of
// all chains, chosen over the chains' kept samples in chain order, and
// prints a report per chain.
func finishSample[S, O any](sc plausible.Scenario[S, O], r sampleRun, chains []sampleChain[S, O]) error {
	if r.dir != "" {
		var all []mcmc.Kept[S, O]
		for _, c := range chains {
			all = append(all, c.Samples...)
		}
		var list []gallery.SampleFile
		for _, e := range mcmc.Distinct(all, r.distinct, sc.Distance, sc.Same()) {
			rec, err := sc.Record(e.State, r.fps)
			if err != nil {
				return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
			}
			a, err := gallery.Animation(rec)
			if err != nil {
				return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
			}
			a.Name = fmt.Sprintf("%s chain %d iteration %d", r.name, e.Chain, e.Iteration)
			path := filepath.Join(r.dir, fmt.Sprintf("%s-chain%d-%06d.glb", r.name, e.Chain, e.Iteration))
			if err := assets.SaveRigidGLTF(path, a); err != nil {
				return err
			}
			state, err := json.Marshal(e.State)
			if err != nil {
				return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
			}
			list = append(list, gallery.SampleFile{File: filepath.Base(path), Chain: e.Chain, Iteration: e.Iteration, LogP: e.LogP, State: state})
		}
		if err := gallery.WriteSampleFiles(filepath.Join(r.dir, gallery.SamplesList), list); err != nil {
			return err
		}
	}
	for c, ch := range chains {
		st := ch.Stats
		rep := chainReport{
			Chain: c, Seed: r.seed + uint64(c), Iterations: st.Iterations, AcceptanceRate: st.AcceptanceRate,
			FirstSatisfied: st.FirstSatisfied, SatisfiedFraction: st.SatisfiedAfter,
			Satisfying: ch.Kept, Distinct: ch.Distinct, WallSeconds: st.Wall.Seconds(),
			BestMet: st.BestMet, Constraints: st.Of,
		}
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
			c, rep.Seed, rep.Iterations, rep.WallSeconds, rep.AcceptanceRate, first, rep.Distinct, rep.Satisfying)
	}
	return nil
}
