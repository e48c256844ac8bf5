package cli

import (
	"context"
	"flag"

	"gallop/solver/plausible"
)

// bowlingSample is the bowling world of Section 5.2.
func bowlingSample(fs *flag.FlagSet) func(context.Context, sampleRun) error {
	pins := fs.String("pins", "strike", `bowling: the target: strike, 6-7 (leave the 6-7 split), 6-7-spare (only 6 and 7 stand; knock both down), 7-10, 7-10-spare, or 10 characters for pins 1-10: d (down), s (stand), ? (don't care), . (not on the deck), e.g. "dddddssddd"`)
	return func(ctx context.Context, r sampleRun) error {
		b, err := plausible.NewBowling(*pins, r.lambda)
		if err != nil {
			return err
		}
		return sample(ctx, b, r)
	}
}
