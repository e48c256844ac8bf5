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
	"time"

	"gallop/assets"
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
	runners := make(map[string]func(context.Context, sampleRun) error, len(sampleScenarios))
	for name, add := range sampleScenarios {
		runners[name] = add(fs)
	}
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop sample --scenario ball2d|bowling|spell|dice [scenario options]
                     [--iterations N] [--chains C] [--seed S] [--json]

Samples plausible animations that satisfy the scenario's constraints by Markov
chain Monte Carlo (Chenney and Forsyth 2000), C chains at once, and reports
per chain: iterations, acceptance rate, the first iteration whose sample
satisfies the constraints (-1 if none), the fraction of samples after it that
satisfy them, how many satisfying samples it kept and how many of those are
distinct animations, and the wall time.`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
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
	runner, ok := runners[*scenario]
	switch {
	case *scenario == "":
		fs.Usage()
		return errUsage
	case !ok:
		return fmt.Errorf("--scenario %q: want ball2d, bowling, spell or dice", *scenario)
	}
	if run.dir != "" {
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
	return func(ctx context.Context, r sampleRun) error {
		b := &plausible.Ball2D{Target: *target, Sigma: *sigma, Tolerance: 0.1}
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
	lambda                       float64 // --lambda, 0 for the scenario's default
}

// sample runs the chains of one scenario (a plausible.Gallery, as the
// Gallery tool does) and prints a report per chain.
func sample[S, O any](ctx context.Context, sc plausible.Scenario[S, O], r sampleRun) error {
	seeds := make([]uint64, r.chains)
	for c := range seeds {
		seeds[c] = r.seed + uint64(c)
	}
	g, err := plausible.NewGallery(sc, seeds, r.iterations)
	if err != nil {
		return err
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
		return err
	}
	if r.dir != "" {
		for _, e := range g.Distinct(r.distinct) {
			rec, err := g.Record(e, r.fps)
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
		}
	}
	for c, st := range stats {
		rep := chainReport{
			Chain: c, Seed: seeds[c], Iterations: st.Iterations, AcceptanceRate: st.AcceptanceRate,
			FirstSatisfied: st.FirstSatisfied, SatisfiedFraction: st.SatisfiedAfter,
			Satisfying: g.Kept(c), Distinct: g.DistinctIn(c, r.distinct), WallSeconds: st.Wall.Seconds(),
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
