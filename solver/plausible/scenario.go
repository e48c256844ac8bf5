package plausible

import (
	"gallop/solver/mcmc"
)

// Scenario is a world model with what a gallery of its solutions needs:
// its proposal kernels and a distance between outcomes.
type Scenario[S, O any] interface {
	mcmc.Model[S, O]
	// Kernels returns the proposal mixture, with the weights set.
	Kernels() []mcmc.Kernel[S]
	// Distance measures how different two outcomes look.
	Distance(a, b O) float64
	// Same is the distance at or below which two outcomes are the same
	// animation for the gallery.
	Same() float64
	// Record replays a state at fps frames per second (the simulation run
	// again, recording every body).
	Record(s S, fps float64) (*Recording, error)
}

var _ Scenario[Ball2DState, Ball2DOutcome] = (*Ball2D)(nil)
