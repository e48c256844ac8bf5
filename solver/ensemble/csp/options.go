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
	// work of its full scan (line 7 of (11)); default 10.
	Eta float64
	// Alpha is α ∈ (0, 1]: after a feasible point of cost φ_min, the
	// next calls are culled above φ_cutoff = α·φ_min (default 0.97).
	Alpha float64
	// C is the base of SELECT-VARIABLE's importance p_m ∝ C^−|A_m|, C ≥ 1
	// (default 1.1; the paper used 2 for its flag banner, where the rope
	// sits in every clique).
	C float64
}

// The defaults of Options.
const (
	DefaultSamples = 5
	DefaultEta     = 10
	DefaultAlpha   = 0.97
	DefaultC       = 1.1
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
	}
	return nil
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() Options {
	if o.Samples == 0 {
		o.Samples = DefaultSamples
	}
	if o.Eta == 0 {
		o.Eta = DefaultEta
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.C == 0 {
		o.C = DefaultC
	}
	return o
}
