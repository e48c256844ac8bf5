// Package csp is the randomized nonpenetration constraint solver of James,
// Twigg, Cove and Wang, "Mesh Ensemble Motion Graphs: Data-driven Mesh
// Animation with Constraints" (2007), Section 4: it finds temporal offset
// vectors τ for asynchronous transitions that keep every pair of mesh
// groups apart. It knows nothing of meshes: a Program supplies the costs,
// the kinematic cliques and the collision tests.
package csp

// Pair is a constraint: a contact between two groups K < L, or, with
// K == L, a constraint on group K alone (such as a bound on how fast it
// moves), whose clique holds K and the groups its motion depends on.
type Pair struct{ K, L int }

// Program is one (i, j) transition integer program (the paper's Eq. 6) as
// the solver sees it: G integer variables τ_k ∈ [−TauMax, TauMax], a
// separable objective Φ(τ) = Σ_k Φ_k(τ_k) (Eq. 4), and boolean
// nonpenetration constraints between pairs of groups at each of the
// transition's frames (Eq. 7), evaluated by collision detection.
type Program interface {
	// Groups returns G, the number of variables.
	Groups() int
	// TauMax returns the bound on every |τ_k|.
	TauMax() int
	// Phi returns Φ_k(τ) = D_k(i+τ, j+τ), +Inf where τ is infeasible.
	Phi(k, tau int) float64
	// Clique returns the kinematic clique ℵ_kl of p: the groups whose
	// offsets can change whether p's groups interpenetrate (Eq. 9),
	// p.K and p.L included.
	Clique(p Pair) []int
	// Frames returns |T|, the number of transition frames, indexed
	// 0 … Frames()−1.
	Frames() int
	// Bad appends to dst the pairs of set that newly interpenetrate at
	// frame f under tau, and returns the extended slice.
	Bad(dst []Pair, tau []int, f int, set []Pair) []Pair
	// Violated reports whether p is bad at some frame under tau (as Bad
	// at every frame would), and the first such frame found, testing
	// frame hint first when it is a frame (−1: no hint).
	Violated(p Pair, tau []int, hint int) (bad bool, frame int)
	// New appends to dst the pairs for which known is false that newly
	// interpenetrate at frame f under tau (a global test over all groups),
	// and returns the extended slice.
	New(dst []Pair, tau []int, f int, known func(Pair) bool) []Pair
	// Work returns the collision work done so far, in deterministic units
	// (narrow-phase group-pair tests), for the solver's time-out.
	Work() int64
}
