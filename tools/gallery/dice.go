package gallery

import (
	"math"

	"gallop/solver/plausible"
)

// DiceSettings is the die on a random table of Section 5.4: the target where the
// die should rest (dragged on the table in the viewport), the face that
// should be up, σ, the tolerance and log λ.
type DiceSettings struct {
	plausible.Dice
	LogLam float64 `json:"LogLambda"` // log λ of the face term
}

// newDice returns the scenario's defaults (plausible.NewDice).
func newDice() Settings {
	d := &DiceSettings{Dice: *plausible.NewDice()}
	d.LogLam = math.Log(d.Lambda)
	return d
}

// LogLambda implements Settings.
func (d *DiceSettings) LogLambda() *float64 { return &d.LogLam }

// Model implements Settings: the setup shown before sampling is the
// prior's mode (Dice.Mode).
func (d *DiceSettings) Model() (*Model, error) {
	sc := d.Dice // the chains get a copy that later edits do not change
	sc.Lambda = math.Exp(d.LogLam)
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(&sc, sc.Mode()), nil
}
