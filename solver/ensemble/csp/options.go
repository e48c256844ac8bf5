package csp

import (
	"fmt"
	"math"
)

// Options are the solver's parameters. The zero value of every field means
// its default (the paper's values, Table I and §4.2–4.3).
type Options struct {
	// Samples is N_samples, the most SATISFY-MEMG-CSP calls one
	// COMPUTE-MEMG-TRANSITION makes (default 5).
	Samples int
	// Eta is the time-out factor η: a SATISFY-MEMG-CSP call gives up once
	// the collision work since its start exceeds η·t_CD, t_CD being the
	// work of its full scan (line 7 of (11)); default 10 for the Walk (the
	// paper's), 40 for Propagate, whose feasible programs on dense contact
	// take 12 to 20 t_CD (reeds in strong wind).
	Eta float64
	// Alpha is α ∈ (0, 1]: after a feasible point of cost φ_min, the
	// next calls are culled above φ_cutoff = α·φ_min (default 0.97).
	Alpha float64
	// C is the base of SELECT-VARIABLE's importance p_m ∝ C^−|A_m|, C ≥ 1
	// (default 1.1; the paper used 2 for its flag banner, where the rope
	// sits in every clique). Only the Walk search uses it.
	C float64
	// Search is how SATISFY-MEMG-CSP repairs the known contacts: Hybrid
	// (the default), Propagate or the paper's Walk.
	Search Search
}

// Search is the repair step of SATISFY-MEMG-CSP.
type Search uint8

const (
	// Hybrid walks first, for HybridWalk·t_CD of work, and propagates
	// from the contacts the walk found if it has not finished: the walk
	// solves loosely coupled programs (a banner's flags) in one or two
	// t_CD where propagation spends ten establishing arc consistency;
	// propagation solves the tightly coupled ones (reeds pressed together)
	// that the walk never does.
	Hybrid Search = iota
	// Propagate solves the constraints of the known contacts C exactly,
	// by depth-first search with maintained arc consistency (see
	// repair), then looks for new contacts in every frame, until none is
	// found.
	Propagate
	// Walk is the paper's LOCAL-SEARCH (12): a random walk that changes
	// one variable at a time.
	Walk
)

// HybridWalk is how long the Hybrid search walks before it propagates,
// in t_CD: on the banner the walk's feasible programs take 1.3 to 3.1.
const HybridWalk = 3

// String returns "hybrid", "propagate" or "walk".
func (s Search) String() string {
	switch s {
	case Walk:
		return "walk"
	case Propagate:
		return "propagate"
	}
	return "hybrid"
}

// The defaults of Options.
const (
	DefaultSamples = 5
	DefaultEta     = 10
	// DefaultEtaPropagate is Eta's default for the Hybrid and Propagate
	// searches.
	DefaultEtaPropagate = 40
	DefaultAlpha        = 0.97
	DefaultC            = 1.1
)

// Validate reports a field outside its range: a negative Samples, an Eta
// that is negative or not finite, an Alpha outside (0, 1], a C below 1 or
// not finite. Zero fields are valid (they mean the default).
func (o Options) Validate() error {
	switch {
	case o.Samples < 0:
		return fmt.Errorf("csp: Samples = %d is negative", o.Samples)
	case !(o.Eta >= 0 && o.Eta <= math.MaxFloat64):
		return fmt.Errorf("csp: Eta = %v: the time-out factor must be a positive number", o.Eta)
	case o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha <= 1):
		return fmt.Errorf("csp: Alpha = %v is outside (0, 1]", o.Alpha)
	case o.C != 0 && !(o.C >= 1 && o.C <= math.MaxFloat64):
		return fmt.Errorf("csp: C = %v: SELECT-VARIABLE's base must be at least 1", o.C)
	case o.Search > Walk:
		return fmt.Errorf("csp: unknown search %d", o.Search)
	}
	return nil
}

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.Eta == 0 {
		o.Eta = DefaultEta
		if o.Search != Walk {
			o.Eta = DefaultEtaPropagate
		}
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.C == 0 {
		o.C = DefaultC
	}
	return o
}
