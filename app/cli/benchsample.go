package cli

import (
	"context"
	"io"
	"slices"
	"time"

	"gallop/solver/mcmc"
	"gallop/solver/plausible"
)

// benchSample prints the Gallery's figures (issue 4): the 2D ball's
// acceptance run and time per 1,000 iterations, and the "HI" spelling's
// speed and iterations to the first full spelling over five seeds.
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
	emit(stdout, "sample_ball2d_chains_reaching", float64(reached), "of 20")
	if len(firsts) > 0 {
		slices.Sort(firsts)
		emit(stdout, "sample_ball2d_median_first", float64(firsts[len(firsts)/2]), "iterations")
	}
	t, err := median(runs, func() error {
		_, err := mcmc.Run(ctx, ball, ball.Kernels(), 1, 1000, nil)
		return err
	})
	if err != nil {
		return err
	}
	emit(stdout, "sample_ball2d_1000_iterations", t.Seconds()*1e3, "ms")

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
	emit(stdout, "sample_spell_hi_iterations_per_core", speedIterations/time.Since(start).Seconds(), "it/s")
	// The first full spelling, five seeds on two chains at a time.
	const limit = 20000
	var first []int
	for s := uint64(1); s <= 5; s += 2 {
		seeds := []uint64{s, s + 1}
		if s == 5 {
			seeds = seeds[:1]
		}
		stats, err := mcmc.Chains(ctx, hi, hi.Kernels(), seeds, limit, func(c int, smp mcmc.Sample[plausible.SpellState, plausible.SpellOutcome]) bool {
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
		}
	}
	slices.Sort(first)
	emit(stdout, "sample_spell_hi_median_first", float64(first[2]), "iterations")
	return nil
}
