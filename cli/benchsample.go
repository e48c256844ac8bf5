package cli

import (
	"context"
	"io"
	"slices"
	"time"

	"gallop/internal/figure"
	"gallop/solver/mcmc"
	"gallop/solver/plausible"
)

// benchSample prints the Gallery's figures (issue 4): the 2D ball's
// acceptance run and time per 1,000 iterations; the "HI" spelling's speed
// and iterations to the first full spelling over five seeds; the time of
// one simulation of each ODE scenario; and the iterations and seconds to
// the first strike and the first satisfying die.
func benchSample(stdout io.Writer, runs int) error {
	ctx := context.Background()
	ball := plausible.NewBall2D()
	seeds := make([]uint64, 20)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	stats, err := mcmc.Chains(ctx, ball, ball.Kernels(), seeds, 1000, nil)
	if err != nil {
		return err
	}
	reached := 0
	var firsts []int
	for _, st := range stats {
		if st.FirstSatisfied >= 0 {
			reached++
			firsts = append(firsts, st.FirstSatisfied)
		}
	}
	figure.Write(stdout, "sample_ball2d_chains_reaching", float64(reached), "of 20")
	if len(firsts) > 0 {
		slices.Sort(firsts)
		figure.Write(stdout, "sample_ball2d_median_first", float64(firsts[len(firsts)/2]), "iterations")
	}
	t, err := median(runs, func() error {
		_, err := mcmc.Run(ctx, ball, ball.Kernels(), 1, 1000, nil)
		return err
	})
	if err != nil {
		return err
	}
	figure.Write(stdout, "sample_ball2d_1000_iterations", t.Seconds()*1e3, "ms")

	hi, err := plausible.NewSpell("HI", plausible.SpellLetters["HI"], 0)
	if err != nil {
		return err
	}
	// Speed: one chain on one core.
	start := time.Now()
	const speedIterations = 300
	if _, err := mcmc.Run(ctx, hi, hi.Kernels(), 1, speedIterations, nil); err != nil {
		return err
	}
	figure.Write(stdout, "sample_spell_hi_iterations_per_core", speedIterations/time.Since(start).Seconds(), "it/s")
	// The first full spelling, five seeds.
	if err := firstBench(stdout, "sample_spell_hi", hi, []uint64{1, 2, 3, 4, 5}, 20000); err != nil {
		return err
	}
	if err := simulateBench(stdout, "sample_spell_hi_simulate", hi); err != nil {
		return err
	}

	bowl, err := plausible.NewBowling("strike", 0)
	if err != nil {
		return err
	}
	if err := simulateBench(stdout, "sample_bowling_simulate", bowl); err != nil {
		return err
	}
	if err := firstBench(stdout, "sample_bowling_strike", bowl, []uint64{1, 2, 3}, 2000); err != nil {
		return err
	}
	dice := plausible.NewDice()
	if err := simulateBench(stdout, "sample_dice_simulate", dice); err != nil {
		return err
	}
	return firstBench(stdout, "sample_dice", dice, []uint64{1, 2, 3}, 5000)
}

// simulateBench prints the median time of one simulation of m over 20
// states drawn from its prior (seed 1).
func simulateBench[S, O any](stdout io.Writer, name string, m mcmc.Model[S, O]) error {
	rng := mcmc.NewRand(1)
	times := make([]time.Duration, 20)
	for i := range times {
		s := m.Init(rng)
		start := time.Now()
		if _, err := m.Simulate(s); err != nil {
			return err
		}
		times[i] = time.Since(start)
	}
	slices.Sort(times)
	figure.Write(stdout, name, times[len(times)/2].Seconds()*1e3, "ms")
	return nil
}

// firstBench runs chains of sc with the given seeds, two at a time, each
// until its first satisfying sample (at most limit iterations), and prints
// the median first satisfying iteration (limit+1 for a chain that found
// none) and the median wall time to it.
func firstBench[S, O any](stdout io.Writer, name string, sc plausible.Scenario[S, O], seeds []uint64, limit int) error {
	var first []int
	var wall []float64
	for k := 0; k < len(seeds); k += 2 {
		stats, err := mcmc.Chains(context.Background(), sc, sc.Kernels(), seeds[k:min(k+2, len(seeds))], limit, func(c int, smp mcmc.Sample[S, O]) bool {
			return !smp.Score.Satisfied
		})
		if err != nil {
			return err
		}
		for _, st := range stats {
			f := st.FirstSatisfied
			if f < 0 {
				f = limit + 1
			}
			first = append(first, f)
			wall = append(wall, st.Wall.Seconds())
		}
	}
	slices.Sort(first)
	slices.Sort(wall)
	figure.Write(stdout, name+"_median_first", float64(first[len(first)/2]), "iterations")
	figure.Write(stdout, name+"_median_first_seconds", wall[len(wall)/2], "s")
	return nil
}
