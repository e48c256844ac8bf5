package pose

import (
	"errors"
	"fmt"

	"gallop/solver/meshik"
)

// Fix is what the panel offers to do about a failed solve.
type Fix int

const (
	// FixNone offers nothing.
	FixNone Fix = iota
	// FixResolve solves again from the examples' best blend for the
	// handles (Resolve).
	FixResolve
	// FixStayNear pulls the pose harder toward the examples' mean: the
	// prior ten times stronger (StayNearer), and solves again.
	FixStayNear
	// FixCompress lets the solver choose the components (Components 0),
	// when the artist asked for more than the examples carry.
	FixCompress
)

// Failure is a solve that failed, in the artist's words: what happened,
// what to do, and the fix the panel offers as a button. The pose shown is
// always the last good one. Err is the solver's own error, for the
// details and errors.Is.
type Failure struct {
	What string
	Do   string
	Fix  Fix
	Err  error
}

func (f *Failure) Error() string {
	if f.Do == "" {
		return f.What
	}
	return f.What + " " + f.Do
}

func (f *Failure) Unwrap() error { return f.Err }

// FixLabel is the label of the fix's button ("" for none).
func (f *Failure) FixLabel() string {
	switch f.Fix {
	case FixResolve:
		return "Solve again"
	case FixStayNear:
		return "Stay nearer the examples"
	case FixCompress:
		return "Let Gallop choose the components"
	}
	return ""
}

// explain turns a solver's error into a Failure (nil stays nil; a Failure
// stays as it is).
func explain(err error) error {
	if err == nil {
		return nil
	}
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	var bug *bugError
	switch {
	case errors.Is(err, meshik.ErrIllPosed):
		return &Failure{Err: err, Fix: FixStayNear,
			What: "These handles leave the blend of the examples undecided: several blends fit them equally well, so the solver cannot choose one. The pose shown is the last good one.",
			Do:   "Stay nearer the examples (a stronger prior), add a handle where the examples differ, or remove examples that repeat each other."}
	case errors.Is(err, meshik.ErrDiverged):
		return &Failure{Err: err, Fix: FixStayNear,
			What: "The solve ran away: its numbers grew out of range, usually from a drag far beyond anything the examples show. The pose shown is the last good one.",
			Do:   "Stay nearer the examples (a stronger prior), or drag less far."}
	case errors.As(err, &bug):
		return &Failure{Err: err, Fix: FixResolve,
			What: fmt.Sprintf("The solver hit a bug and stopped (%v). The pose shown is the last good one; nothing was lost.", bug.value),
			Do:   "Solve again; if it happens again, please report it."}
	}
	return err
}
