package csp

import "fmt"

// Status is how a SATISFY-MEMG-CSP call ended: Table I's OK, Cull and
// TOut.
type Status uint8

const (
	// OK: a feasible point was found (B = ∅ after a global test found no
	// new contact) with φ ≤ φ_cutoff.
	OK Status = iota
	// Cull: φ > φ_cutoff, at line 3 of (11) (the unconstrained minimum,
	// before any collision test), at line 10, or at the end (a feasible
	// point costlier than the cutoff, which line 10 would have culled one
	// step later). A program whose unconstrained minimum is +Inf (some
	// Φ_k is +Inf for every τ) is culled at line 3 whatever the cutoff.
	Cull
	// TimeOut: the collision work since the call began exceeded η·t_CD
	// (line 10 of (11)), or the search is stuck: a bad contact whose
	// clique has no variable with another finite Φ value can never be
	// repaired (Eq. 9), so the program is infeasible; it ends at once
	// and counts as a time-out.
	TimeOut
	// Infeasible: the search proved that no offsets satisfy the
	// constraints of the contacts found (Propagate only), so none satisfy
	// them all.
	Infeasible
)

// String returns "OK", "Cull" or "TimeOut".
func (s Status) String() string {
	switch s {
	case OK:
		return "OK"
	case Cull:
		return "Cull"
	case TimeOut:
		return "TimeOut"
	case Infeasible:
		return "Infeasible"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Outcome is the result of one SATISFY-MEMG-CSP call.
type Outcome struct {
	Status Status
	// Phi is φ = Φ(τ) = Σ_k Φ_k(τ_k) (Eq. 4) for Tau: the feasible point's
	// cost when OK, else the cost where the search stopped.
	Phi float64
	// Tau is the offset vector: feasible when OK, else where the search
	// stopped (the unconstrained minimum when culled at line 3).
	Tau []int
	// Local is the number of LOCAL-SEARCH calls (Table I's nLocal).
	Local int
	// Contacts is |C| at the end; Bad is |B| at the end (0 when OK).
	Contacts, Bad int
	// Scanned says the full scan of line 7 of (11) ran (false when
	// culled at line 3 or cancelled before its end). CDWork and
	// CDSeconds are its cost, t_CD: collision work (Program.Work units)
	// and wall seconds.
	Scanned   bool
	CDWork    int64
	CDSeconds float64
	// Work and Seconds are the whole call's collision work and wall time.
	Work    int64
	Seconds float64
}

// Stats aggregates outcomes into the columns of the paper's Table I. Sums
// are kept (so Stats of parallel jobs Merge exactly); the methods give the
// means and fractions.
type Stats struct {
	Computes int // COMPUTE-MEMG-TRANSITION calls
	Wins     int // of which found a feasible point (nWin)
	Programs int // SATISFY-MEMG-CSP calls, the integer programs (nIP)

	OK, Cull, TimeOut, Infeasible int // the Programs by Status

	Scans       int     // Programs that ran the full scan (line 7 of (11))
	ScanWork    int64   // t_CD summed over the scans, in Program.Work units
	ScanSeconds float64 // t_CD summed over the scans, in wall seconds
	Contacts    int     // final |C| summed over the scans

	LocalOK    int // LOCAL-SEARCH calls summed over the OK programs
	ContactsOK int // final |C| summed over the OK programs

	Work    int64   // collision work of all Programs
	Seconds float64 // wall seconds of all Programs
}

// Add counts one SATISFY-MEMG-CSP outcome.
func (s *Stats) Add(o Outcome) {
	s.Programs++
	switch o.Status {
	case OK:
		s.OK++
		s.LocalOK += o.Local
		s.ContactsOK += o.Contacts
	case Cull:
		s.Cull++
	case Infeasible:
		s.Infeasible++
	default:
		s.TimeOut++
	}
	if o.Scanned {
		s.Scans++
		s.ScanWork += o.CDWork
		s.ScanSeconds += o.CDSeconds
		s.Contacts += o.Contacts
	}
	s.Work += o.Work
	s.Seconds += o.Seconds
}

// Merge adds the counts of t to s.
func (s *Stats) Merge(t Stats) {
	s.Computes += t.Computes
	s.Wins += t.Wins
	s.Programs += t.Programs
	s.OK += t.OK
	s.Cull += t.Cull
	s.TimeOut += t.TimeOut
	s.Infeasible += t.Infeasible
	s.Scans += t.Scans
	s.ScanWork += t.ScanWork
	s.ScanSeconds += t.ScanSeconds
	s.Contacts += t.Contacts
	s.LocalOK += t.LocalOK
	s.ContactsOK += t.ContactsOK
	s.Work += t.Work
	s.Seconds += t.Seconds
}

// TCD returns the mean t_CD over the scans, in work units and wall
// seconds (zeros without scans).
func (s Stats) TCD() (work, seconds float64) {
	if s.Scans == 0 {
		return 0, 0
	}
	return float64(s.ScanWork) / float64(s.Scans), s.ScanSeconds / float64(s.Scans)
}

// NLocal returns Table I's nLocal: the mean number of LOCAL-SEARCH calls
// of the OK programs (0 without any).
func (s Stats) NLocal() float64 {
	if s.OK == 0 {
		return 0
	}
	return float64(s.LocalOK) / float64(s.OK)
}

// MeanContacts returns Table I's |C|: the mean final contact set size of
// the OK programs (0 without any).
func (s Stats) MeanContacts() float64 {
	if s.OK == 0 {
		return 0
	}
	return float64(s.ContactsOK) / float64(s.OK)
}

// Fractions returns Table I's OK/Cull/TOut and the infeasible: the
// fractions of the programs that found a feasible point, were culled,
// timed out and were proved infeasible (zeros without programs).
func (s Stats) Fractions() (ok, cull, timeOut, infeasible float64) {
	if s.Programs == 0 {
		return 0, 0, 0, 0
	}
	n := float64(s.Programs)
	return float64(s.OK) / n, float64(s.Cull) / n, float64(s.TimeOut) / n, float64(s.Infeasible) / n
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// ComputeStart: a COMPUTE-MEMG-TRANSITION call begins.
	ComputeStart EventKind = iota
	// SatisfyStart: a SATISFY-MEMG-CSP call begins (Candidate says which).
	SatisfyStart
	// Scanned: the full scan (line 7 of (11)) ended; Bad = Contacts =
	// the contacts it found.
	Scanned
	// Step: a LOCAL-SEARCH call returned.
	Step
	// SatisfyEnd: a SATISFY-MEMG-CSP call ended with Status.
	SatisfyEnd
	// ComputeEnd: a COMPUTE-MEMG-TRANSITION call ended; PhiMin is its
	// result (+Inf if none).
	ComputeEnd
)

// Event is one point of the paper's Fig. 10: the solver's progress for a
// live plot of φ and φ_min (top) and |B| and |C| (bottom) against time.
type Event struct {
	Kind EventKind
	// Seconds is the wall time since the outermost call (Compute, or
	// Satisfy called alone) began; Work the collision work since then.
	Seconds float64
	Work    int64
	// Phi is the current φ (NaN at ComputeStart and ComputeEnd); PhiMin
	// the best feasible φ of the Compute call so far (+Inf when none, and
	// always for Satisfy called alone).
	Phi, PhiMin float64
	// Bad and Contacts are |B| and |C|.
	Bad, Contacts int
	// Candidate is the index of the candidate being solved, −1 outside
	// Compute or at ComputeStart/ComputeEnd.
	Candidate int
	// Status is set at SatisfyEnd.
	Status Status
}
