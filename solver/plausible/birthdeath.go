package plausible

import (
	"math"
	"math/rand/v2"
)

// birthDeath proposes switching objects on or off (Section 5.3.1:
// "activate some balls, deactivate some balls", each possibly none): with
// probability ½ every inactive object is activated independently with
// probability rho, otherwise every active object is deactivated with
// probability rho. Choosing the switch probability per object, rather than
// one object out of all, makes adding or removing any given object as
// likely whatever the number of objects (the paper's reason for it).
//
// The two directions are one kernel, each the other's reverse, picked with
// equal probability, so the Metropolis-Hastings ratio is that of the
// switches alone. Activating t of the m inactive objects of A, giving B
// with n_B active, has probability ρ^t(1−ρ)^(m−t); the reverse, switching
// exactly those t off again among B's n_B, has ρ^t(1−ρ)^(n_B−t); so
//
//	log q(A|B) − log q(B|A) = (n_B − m)·log(1 − ρ),
//
// and symmetrically for deactivation (m then counts A's active objects and
// n_B B's inactive ones). An object's other variables (a ball's drop point)
// stay as they are while it is off.
func birthDeath(rng *rand.Rand, active []bool, rho float64) (next []bool, logRatio float64) {
	next = make([]bool, len(active))
	copy(next, active)
	on := rng.Float64() < 0.5 // activate (true) or deactivate
	from, to := 0, 0          // objects in the switched-from state before, in the switched-to state after
	for i, a := range active {
		if a != on {
			from++
			if rng.Float64() < rho {
				next[i] = on
			}
		}
	}
	for _, a := range next {
		if a == on {
			to++
		}
	}
	return next, float64(to-from) * math.Log1p(-rho)
}
