package cli

import (
	"context"
	"flag"

	"gallop/solver/plausible"
)

// spellSample is the balls that spell of Section 5.3.
func spellSample(fs *flag.FlagSet) func(context.Context, sampleRun) error {
	word := fs.String("word", "HI", `spell: "HI" (7 × 5 bins), "ACM" (15 × 7 bins), or a pattern of bins with rows separated by '/', 'x' to fill and '.' to leave empty, e.g. "x.x/.x./x.x"`)
	balls := fs.Int("balls", 0, "spell: number of balls (0: one per bin to fill)")
	return func(ctx context.Context, r sampleRun) error {
		name, rows := plausible.ParseSpellPattern(*word)
		s, err := plausible.NewSpell(name, rows, r.lambda)
		if err != nil {
			return err
		}
		s.Balls = *balls
		if err := s.Validate(); err != nil {
			return err
		}
		return sample(ctx, s, r)
	}
}
