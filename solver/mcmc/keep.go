package mcmc

import (
	"sync"

	"gallop/solver/farthest"
)

// Kept is a satisfying sample kept for the gallery.
type Kept[S, O any] struct {
	Chain, Iteration int
	State            S
	Outcome          O
	LogP             float64
}

// Keeper collects the samples of chains that fully satisfy the constraints
// and picks the most different of them. A state that a chain keeps over
// several iterations (rejected candidates repeat it) is kept once. It is
// safe for concurrent use.
type Keeper[S, O any] struct {
	// Distance between two outcomes, and the distance at or below which
	// two outcomes are the same animation.
	Distance func(a, b O) float64
	Same     float64
	// Max bounds how many samples are kept (0: 100,000); later ones are
	// dropped.
	Max int

	mu   sync.Mutex
	kept []Kept[S, O]
}

// Offer keeps s if it satisfies the constraints and is a new state (an
// accepted candidate, or a chain's first sample). It reports whether s was
// kept.
func (k *Keeper[S, O]) Offer(chain int, s Sample[S, O]) bool {
	if !s.Score.Satisfied || !s.Accepted {
		return false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	limit := k.Max
	if limit <= 0 {
		limit = 100_000
	}
	if len(k.kept) >= limit {
		return false
	}
	k.kept = append(k.kept, Kept[S, O]{Chain: chain, Iteration: s.Iteration, State: s.State, Outcome: s.Outcome, LogP: s.LogP})
	return true
}

// Len returns the number of samples kept.
func (k *Keeper[S, O]) Len() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.kept)
}

// All returns the samples kept so far, in the order they were kept.
func (k *Keeper[S, O]) All() []Kept[S, O] {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.kept[:len(k.kept):len(k.kept)]
}

// Distinct returns up to n kept samples chosen by farthest-point selection
// on Distance, starting from the first kept, each farther than Same from
// those chosen before it: the most different animations, not repeats.
func (k *Keeper[S, O]) Distinct(n int) []Kept[S, O] {
	return Distinct(k.All(), n, k.Distance, k.Same)
}

// Distinct returns up to n of kept chosen by farthest-point selection on
// distance, starting from kept[0], each farther than same from those
// chosen before it. The result depends on kept's order alone.
func Distinct[S, O any](kept []Kept[S, O], n int, distance func(a, b O) float64, same float64) []Kept[S, O] {
	idx := farthest.Distinct(len(kept), n, 0, same, func(i, j int) float64 {
		return distance(kept[i].Outcome, kept[j].Outcome)
	})
	out := make([]Kept[S, O], len(idx))
	for i, j := range idx {
		out[i] = kept[j]
	}
	return out
}
