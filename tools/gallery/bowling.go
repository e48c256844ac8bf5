package gallery

import (
	"fmt"
	"math"

	"gallop/solver/plausible"
)

// BowlingSettings is the bowling example of Section 5.2: what each pin must do,
// set by clicking the pins of a diagram in the panel, and log λ.
type BowlingSettings struct {
	// Pins is the target as plausible.ParseBowlingPins reads it: one
	// character per pin, pin 1 first: 'd' down, 's' stand, '?' don't care,
	// '.' not on the deck.
	Pins   string
	LogLam float64 `json:"LogLambda"` // log λ of the Gibbs term
}

// newBowling returns a strike with the paper's λ = e^2.5.
func newBowling() Settings {
	return &BowlingSettings{Pins: plausible.BowlingTargets["strike"], LogLam: math.Log(plausible.BowlingLambda)}
}

// BowlingPresets are the named targets the panel offers, in order.
var BowlingPresets = []string{"strike", "6-7", "6-7-spare", "7-10", "7-10-spare"}

// LogLambda implements Settings.
func (b *BowlingSettings) LogLambda() *float64 { return &b.LogLam }

// Model implements Settings: the setup shown before sampling is a typical
// roll (Bowling.Mode).
func (b *BowlingSettings) Model() (*Model, error) {
	if math.IsNaN(b.LogLam) || b.LogLam > 700 {
		return nil, fmt.Errorf("log λ = %v: want a number above 0 (λ > 1)", b.LogLam)
	}
	name := b.Pins
	for n, p := range plausible.BowlingTargets {
		if p == b.Pins {
			name = n
		}
	}
	sc, err := plausible.NewBowling(name, math.Exp(b.LogLam))
	if err != nil {
		return nil, err
	}
	return modelOf(sc, sc.Mode()), nil
}
