package plausible

// How the bowling world scores an outcome: the constraint, the distance
// between animations and the plotted value.

import (
	"math"

	"gallop/solver/mcmc"
)

// Constraint implements mcmc.Model: (k+m)·log λ (see Bowling).
func (b *Bowling) Constraint(o BowlingOutcome) mcmc.Score {
	k, m, of := 0, 0, 0
	for i, g := range b.Goal {
		if g == PinAny || !b.Start[i] {
			continue
		}
		of++
		if (g == PinDown) == o.Down[i] {
			k++
		}
		if g == PinStand && !o.Down[i] && o.Moved[i] <= BowlingMovedLimit {
			m++
		}
	}
	return mcmc.Score{LogLikelihood: float64(k+m) * math.Log(b.Lambda), Met: k, Of: of, Satisfied: k == of}
}

// Distance is how different two animations look, in metres: the RMS
// difference of the ball's path (its x at the stations) and of the final
// positions of the pins in play, plus 0.1 m per pin that falls in one and
// not in the other.
func (b *Bowling) Distance(p, q BowlingOutcome) float64 {
	path := 0.0
	for i := range p.Path {
		d := p.Path[i] - q.Path[i]
		path += d * d
	}
	pins, n, flips := 0.0, 0, 0.0
	for i := range p.Final {
		if !p.InPlay[i] {
			continue
		}
		d := p.Final[i].Sub(q.Final[i])
		pins += d[0]*d[0] + d[2]*d[2]
		n++
		if p.Down[i] != q.Down[i] {
			flips++
		}
	}
	if n > 0 {
		pins /= float64(n)
	}
	return math.Sqrt(path/float64(len(p.Path))+pins) + 0.1*flips
}

// Same implements Scenario: animations within 3 cm are the same.
func (b *Bowling) Same() float64 { return 0.03 }

// PlotValue implements Plotter: the number of pins knocked down.
func (b *Bowling) PlotValue(o BowlingOutcome) float64 { return float64(o.Knocked()) }

// PlotLabel implements Plotter.
func (b *Bowling) PlotLabel() string { return "pins down" }
