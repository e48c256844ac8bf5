package gallery

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"gallop/assets"
	"gallop/internal/shard"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
)

// SamplePlan is how `gallop sample` runs in shards: one round, each shard
// running its block of the chains.
var SamplePlan = shard.Plan{Command: "sample", Rounds: 1}

// ChainReport is one chain's line of `gallop sample` (with --json, its
// JSON object).
type ChainReport struct {
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

// SampleCommand is the work of `gallop sample`: Chains chains of a
// scenario, chain c of seed Seed + c, run at once, and the most different
// satisfying samples of all of them written to Out.
type SampleCommand struct {
	Name       string // the scenario's, which names the files
	Iterations int    // per chain
	Chains     int
	Seed       uint64
	Distinct   int       // distinct satisfying samples looked for, per chain and for Out
	Weights    []float64 // the proposal kernels' weights; nil for the scenario's
	// Out is the folder the samples are written to, as .glb files at FPS
	// frames a second listed in SamplesList; "" for none. It must exist.
	Out string
	FPS float64
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style).
	Status func(format string, args ...any)
}

// sampleChain is one chain's result, the unit of gallop sample's shards:
// what its line of the report says and, with Out, every satisfying sample
// it kept (State and Outcome, the Chain numbered as in the whole run),
// which the selection of the most different samples over all chains
// needs. Encoded with gob, the statistics, states and outcomes keep every
// bit, so the merge's report and selection are the whole run's.
type sampleChain[S, O any] struct {
	Stats    mcmc.Stats
	Kept     int // satisfying samples kept
	Distinct int // how many of them are distinct, up to Distinct
	Samples  []mcmc.Kept[S, O]
}

// samplePayload is a shard file's payload: its chains, in order.
type samplePayload[S, O any] struct {
	Chains []sampleChain[S, O]
}

// RunSample runs c's chains of scenario sc as run asks (a plausible.Gallery,
// as the Gallery tool runs them) and returns a report per chain: every
// chain in the whole run; a shard's block in a shard, which writes their
// results to its file and returns none; none in a merge, which takes them
// from the shard files. The whole run and the merge write Out.
func RunSample[S, O any](ctx context.Context, c *SampleCommand, sc plausible.Scenario[S, O], run *shard.Run) ([]ChainReport, error) {
	if c.Weights != nil {
		var err error
		if sc, err = plausible.Reweight(sc, c.Weights); err != nil {
			return nil, fmt.Errorf("--weights: %w", err)
		}
	}
	var chains []sampleChain[S, O]
	var err error
	switch {
	case run.Merged != nil:
		chains, err = shard.Gather(run.Merged, "chains", func(p *samplePayload[S, O]) []sampleChain[S, O] { return p.Chains })
		if err == nil && len(chains) != c.Chains {
			err = fmt.Errorf("the shards hold %d chains, their arguments ask for %d", len(chains), c.Chains)
		}
	default:
		lo, hi := run.Range(c.Chains)
		if chains, err = runChains(ctx, c, sc, lo, hi); err == nil && run.Sharded() {
			return nil, run.Write(c.Chains, samplePayload[S, O]{Chains: chains})
		}
	}
	if err != nil {
		return nil, err
	}
	if c.Out != "" {
		if err := writeSamples(c, sc, chains); err != nil {
			return nil, err
		}
	}
	reports := make([]ChainReport, len(chains))
	for i, ch := range chains {
		st := ch.Stats
		reports[i] = ChainReport{
			Chain: i, Seed: c.Seed + uint64(i), Iterations: st.Iterations, AcceptanceRate: st.AcceptanceRate,
			FirstSatisfied: st.FirstSatisfied, SatisfiedFraction: st.SatisfiedAfter,
			Satisfying: ch.Kept, Distinct: ch.Distinct, WallSeconds: st.Wall.Seconds(),
			BestMet: st.BestMet, Constraints: st.Of,
		}
	}
	return reports, nil
}

// runChains runs chains lo to hi−1 of c (chain k has seed c.Seed + k) and
// returns their results.
func runChains[S, O any](ctx context.Context, c *SampleCommand, sc plausible.Scenario[S, O], lo, hi int) ([]sampleChain[S, O], error) {
	seeds := make([]uint64, hi-lo)
	for i := range seeds {
		seeds[i] = c.Seed + uint64(lo+i)
	}
	if len(seeds) == 0 {
		return nil, nil
	}
	g, err := plausible.NewGallery(sc, seeds, c.Iterations)
	if err != nil {
		return nil, err
	}
	stop := make(chan struct{})
	if c.Status != nil {
		go func() {
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					done, total := g.Progress()
					c.Status("sample: %d of %d iterations (%.0f%%)", done, total, 100*float64(done)/float64(max(1, total)))
				}
			}
		}()
	}
	stats, err := g.Run(ctx)
	close(stop)
	if err != nil {
		return nil, err
	}
	out := make([]sampleChain[S, O], len(seeds))
	for i, st := range stats {
		out[i] = sampleChain[S, O]{Stats: st, Kept: g.Kept(i), Distinct: g.DistinctIn(i, c.Distinct)}
		if c.Out == "" {
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

// writeSamples writes the most different satisfying samples of all
// chains to c.Out, chosen over the chains' kept samples in chain order, as
// .glb files listed in SamplesList.
func writeSamples[S, O any](c *SampleCommand, sc plausible.Scenario[S, O], chains []sampleChain[S, O]) error {
	var all []mcmc.Kept[S, O]
	for _, ch := range chains {
		all = append(all, ch.Samples...)
	}
	var list []SampleFile
	for _, e := range mcmc.Distinct(all, c.Distinct, sc.Distance, sc.Same()) {
		rec, err := sc.Record(e.State, c.FPS)
		if err != nil {
			return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
		}
		a, err := Animation(rec)
		if err != nil {
			return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
		}
		a.Name = fmt.Sprintf("%s chain %d iteration %d", c.Name, e.Chain, e.Iteration)
		path := filepath.Join(c.Out, fmt.Sprintf("%s-chain%d-%06d.glb", c.Name, e.Chain, e.Iteration))
		if err := assets.SaveRigidGLTF(path, a); err != nil {
			return err
		}
		state, err := json.Marshal(e.State)
		if err != nil {
			return fmt.Errorf("chain %d, iteration %d: %w", e.Chain, e.Iteration, err)
		}
		list = append(list, SampleFile{File: filepath.Base(path), Chain: e.Chain, Iteration: e.Iteration, LogP: e.LogP, State: state})
	}
	return WriteSampleFiles(filepath.Join(c.Out, SamplesList), list)
}
