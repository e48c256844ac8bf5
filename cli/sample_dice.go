package cli

import (
	"context"
	"flag"
	"fmt"

	"gallop/internal/words"
	"gallop/solver/plausible"
)

// diceSample is the die on a random table of Section 5.4.
func diceSample(fs *flag.FlagSet) func(context.Context, sampleRun) error {
	def := plausible.NewDice()
	face := fs.Int("face", def.Face, "dice: the face that should be up, 1 to 6")
	target := fs.String("die-target", fmt.Sprintf("%g,%g", def.Target[0], def.Target[1]),
		fmt.Sprintf("dice: where the die should rest, x,z in metres on the %g m table centred at 0,0", plausible.DiceTableSize))
	sigma := fs.Float64("die-sigma", def.Sigma, "dice: σ of the Gaussian in the distance to the target, m")
	tolerance := fs.Float64("die-tolerance", def.Tolerance, "dice: distance from the target within which a throw satisfies, m")
	weights := fs.String("die-weights", fmt.Sprintf("%g,%g,%g", def.OnePointWeight, def.OneInitialWeight, def.ChangeAllWeight),
		"dice: relative weights of the one-point, one-initial-condition and change-everything proposals")
	return func(ctx context.Context, r sampleRun) error {
		d := plausible.NewDice()
		d.Face, d.Sigma, d.Tolerance = *face, *sigma, *tolerance
		if r.lambda != 0 {
			d.Lambda = r.lambda
		}
		xz, err := words.Floats(*target, 2)
		if err != nil {
			return fmt.Errorf("--die-target %q: %v (want x,z in metres, e.g. 0.1,0)", *target, err)
		}
		d.Target = [2]float64{xz[0], xz[1]}
		w, err := words.Floats(*weights, 3)
		if err != nil {
			return fmt.Errorf("--die-weights %q: %v (want three numbers, e.g. 0.6,0.3,0.1)", *weights, err)
		}
		d.OnePointWeight, d.OneInitialWeight, d.ChangeAllWeight = w[0], w[1], w[2]
		if err := d.Validate(); err != nil {
			return err
		}
		return sample(ctx, d, r)
	}
}
