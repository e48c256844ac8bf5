package gallery

import (
	"fmt"
	"math"
	"strings"

	"gallop/solver/plausible"
)

// SpellSettings is the balls that spell of Section 5.3: the bins to fill, painted
// on a grid in the panel, the number of balls and log λ.
type SpellSettings struct {
	Cols, Rows int
	Fill       []string // one string per row, 'x' to fill and '.' to leave empty
	Balls      int      // 0: one per bin to fill
	LogLam     float64  `json:"LogLambda"` // log λ
}

// newSpell returns "HI" on 7 × 5 bins with the paper's λ = e^5.
func newSpell() Settings {
	s := &SpellSettings{}
	s.Preset("HI")
	return s
}

// Preset loads one of plausible.SpellLetters with the paper's λ for it.
func (s *SpellSettings) Preset(word string) {
	rows := plausible.SpellLetters[word]
	s.Rows, s.Cols = len(rows), len(rows[0])
	s.Fill = append([]string(nil), rows...)
	s.Balls = 0
	s.LogLam = 5
	if strings.Count(strings.Join(rows, ""), "x") > 10 {
		s.LogLam = 7.25
	}
}

// Resize changes the grid's size (at most SpellMaxCols × SpellMaxRows), keeping the painted bins that remain.
func (s *SpellSettings) Resize(cols, rows int) {
	cols, rows = min(max(cols, 1), SpellMaxCols), min(max(rows, 1), SpellMaxRows)
	fill := make([]string, rows)
	for r := range fill {
		b := []byte(strings.Repeat(".", cols))
		if r < len(s.Fill) {
			copy(b, s.Fill[r][:min(cols, len(s.Fill[r]))])
		}
		fill[r] = string(b)
	}
	s.Cols, s.Rows, s.Fill = cols, rows, fill
}

// The grid's limits.
const (
	SpellMaxCols = 20
	SpellMaxRows = 12
)

// LogLambda implements Settings.
func (s *SpellSettings) LogLambda() *float64 { return &s.LogLam }

// Model implements Settings: the setup shown before sampling is the ideal
// drop, each ball above a bin to fill (Spell.Ideal).
func (s *SpellSettings) Model() (*Model, error) {
	s.Resize(s.Cols, s.Rows)
	if math.IsNaN(s.LogLam) || s.LogLam > 700 {
		return nil, fmt.Errorf("log λ = %v: want a number above 0 (λ > 1)", s.LogLam)
	}
	word := strings.Join(s.Fill, "/")
	for name, rows := range plausible.SpellLetters {
		if strings.Join(rows, "/") == word {
			word = name
		}
	}
	sc, err := plausible.NewSpell(word, s.Fill, math.Exp(s.LogLam))
	if err != nil {
		return nil, err
	}
	sc.Balls = s.Balls
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(sc, sc.Ideal()), nil
}
