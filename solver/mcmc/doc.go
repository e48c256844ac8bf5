// Package mcmc samples plausible animations by Markov chain Monte Carlo, as
// in Chenney and Forsyth, "Sampling Plausible Solutions to Multi-body
// Constraint Problems" (SIGGRAPH 2000).
//
// A world model (Model) has random variables, a state S; a log prior
// log p_w(S) over them (Section 3.1); a deterministic simulator that turns a
// state into an outcome O; and a constraint log-likelihood log p_c(O)
// (Section 3.2): a Gaussian in a distance, or a Gibbs term k·log λ for k
// constraints met. A chain samples
//
//	p(A) ∝ p_w(A)·p_c(A)
//
// by Metropolis-Hastings (Section 4): from the current state A_i a proposal
// kernel, drawn from a weighted mixture, makes a candidate A_c and reports
// log q(A_i|A_c) − log q(A_c|A_i); the candidate is simulated and accepted
// with probability
//
//	min(1, p(A_c)·q(A_i|A_c) / (p(A_i)·q(A_c|A_i))),
//
// all in log space. The mixture weights do not depend on the state, so
// each kernel's own ratio keeps detailed balance.
//
// Chains are deterministic: the same model, kernels and seed give the same
// chain, sample for sample, whatever else runs at the same time (each chain
// owns its random source; the simulator must be deterministic too).
//
// # The method as built
//
// Chenney and Forsyth (2000) add plausible randomness to a world (bumpy
// surfaces, perturbed pins, varied drop points) and sample, by
// Metropolis-Hastings, animations p(A) ∝ p_w(A)·p_c(A) whose outcome satisfies
// the constraints. `solver/mcmc` is the engine, in log space: a model gives the
// prior log p_w, a deterministic simulator and the constraint score log p_c (a
// Gaussian in a distance, or the Gibbs term k·log λ for k constraints met); a
// weighted mixture of kernels proposes candidates, each kernel returning
// log q(A_i|A_c) − log q(A_c|A_i). Chains are seeded (same seed, same chain,
// sample for sample) and run one per goroutine. Satisfying samples are kept
// once each (not again while rejected candidates repeat them), and the gallery
// shows the most different by farthest-point selection on a distance between
// outcomes (trajectories, final positions), skipping any within the scenario's
// "same" radius of one already shown.
//
// Physics is the Open Dynamics Engine 0.16 through `solver/rigidbody`, a thin cgo
// binding of our own: a step is one cgo call (collision, contact joints with the
// two geoms' combined friction and restitution, the step, the at-rest test), so
// nothing calls back into Go per contact. Determinism is tested bitwise: the
// same world stepped twice, on four goroutines at once and in another process
// gives the same trajectory. ODE's process-wide state would otherwise break
// that: QuickStep's constraint shuffling uses one global random generator (each
// world keeps its own seed, installed under a lock), the default threading
// implementation is shared (each world gets its own), and OPCODE's trimesh
// collider cache is global in this build (trimesh collisions take a lock,
// temporal coherence off).
//
// The four examples of Section 5 (details and every prior in the doc comments
// of `solver/plausible`):
//
//   - **2D ball** (5.1), exactly as written and in closed form: drop from 4.5 D,
//     five collisions whose normals are N(0, 10°), the normal velocity component
//     scaled by 1/√2, target x = D with σ_d = 0.1 D; the proposal changes each
//     normal with probability ½ by U(−5°, 5°). Impossible worlds (a bounce that
//     leaves the ball moving into the table) have probability 0.
//   - **Bowling** (5.2): a regulation lane (oiled 40 ft, dry beyond), gutters,
//     kickbacks, a pit; ten pins, each a compound of a cylinder, two capsules and
//     a sphere of pin mass (1.59 kg, centre of mass 5.85 in up), on their spots
//     perturbed by N(0, 5 mm); the ball's radius and density uniform within the
//     rules (6-16 lb), its position, speed, angle and spin Gaussian within bounds.
//     Simplified: the ball starts 8 m before the head pin, still on the oil, with
//     the velocity it would have there. Constraint λ^(k+m), λ = e^2.5, with m
//     counting only pins that must stand and stayed within 5 cm of their spot
//     (read literally, the paper's m lets nine pins down and one untouched score
//     as a strike). Proposals: everything from the prior (ratio p_w(old)/p_w(new)),
//     one ball variable with a large or small step, some pins.
//   - **Balls that spell** (5.3): square bins whose partition tops are straight
//     between partition vertices perturbed by N(0, 2 cm), drop points uniform over
//     the box, each ball active or not (uniform prior); as many balls as bins to
//     fill; the balls released 0.08 s apart; λ^k with k the filled bins to fill
//     (λ = e^5 for HI, e^7.25 for ACM, as in the paper). A ball fills a bin when
//     its centre is over the bin's floor tile (the green mark, the middle 80%
//     of the bin each way, where a ball resting between the partitions always
//     is) and below the bin's lowest partition top, or on the floor (partitions
//     may be lower than a ball's radius): a ball lying on a partition,
//     straddling a low one (until session 30 such a ball, its centre a
//     millimetre from the partition's line, counted for the bin under it: 9 of
//     25 exported samples of a run showed a green tile with no ball over it),
//     or still in the air when the simulation stops, fills none; a test checks
//     every satisfying sample of two chains against this geometry. Proposals: change all
//     (every vertex and drop point from the prior; its ratio cancels the prior, so
//     it is accepted by λ^Δk alone), some partition vertices, one active ball's
//     drop point (small, large or redrawn), and birth-death: activate or
//     deactivate some balls, each with probability ρ, whose ratio
//     (n_B − m)·log(1 − ρ) is tested against a closed-form posterior (largest
//     error 0.0017 in probability; 0.22 without the ratio). "HI" is letters three
//     bins high on 7 × 5 bins (10 balls); "ACM" five high on 15 × 7 (30 balls).
//   - **Dice on a random table** (5.4): a 0.8 m table, a bicubic B-spline over
//     23 × 23 control points with N(0, 3 mm) heights and log-normal friction and
//     logit-normal restitution at the control points, interpolated by the same
//     spline and sampled every 5 mm into an ODE height field with a surface
//     field; a 16 mm die thrown from a Gaussian region with Gaussian velocity and
//     spin. Constraint: a Gaussian in the distance of the resting die to the
//     target times λ if the chosen face is up (λ = e^3, the best of e..e^5 in
//     trials). Proposals with artist-set weights: one control point's value, one
//     initial-condition variable, everything from the prior. Simplified: ODE's
//     height field and box stand in for the paper's dedicated spline simulator.
package mcmc
