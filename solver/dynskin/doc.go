// Package dynskin adds secondary motion to skinned animation: the
// surface-based deformable model of Shi, Zhou, Tong, Desbrun, Bao and Guo,
// "Example-based dynamic skinning in real time" (SIGGRAPH 2008), Section 2,
// and its fitting algorithm, Section 3 (Figure 5), with the fifth
// parameter the paper proposes in its Limitations paragraph.
//
// # The model
//
// Every vertex i has a position xᵢ, a velocity vᵢ, a goal x̂ᵢ(t) (its
// position under the rig's linear blend skinning), its rest position xᵢ⁰
// and its 1-ring nbr(i). Forces are accelerations (mass lumped, unit
// mass), each normalised so that 1 is the largest that does not overshoot
// in one step h (Eq. 4):
//
//	G = (x̂(t) − x) / h²                                     goal (Eq. 4)
//	L = (c − x) / h²,  c = 1/|nbr| Σⱼ (xⱼ − R(xⱼ⁰ − xᵢ⁰))     surface (Eq. 5-7)
//	B = Σ_b w_b (|d⁰_b| / |d_b| − 1) d_b / h²                spokes (Eq. 8)
//	D = (1/|nbr| Σⱼ vⱼ − v) / h                              damping (Eq. 9)
//	K = (v̂(t) − v) / h                                      goal damping
//
// R is the rotation of the polar decomposition of
// A = Σⱼ (xⱼ − xᵢ)(xⱼ⁰ − xᵢ⁰)ᵀ (Eq. 5), tracked by one step of
// rotation.Refine per simulation step from the vertex's rotation at the
// previous step (see below). d_b is the vertex minus its
// projection on bone b's segment and d⁰_b the same in the rest pose; w_b
// are the vertex's skin weights. The total is
//
//	F = α·G + β·L + γ·B + λ·D + κ·K + f_ext                   (Eq. 3)
//
// with per-vertex α, β, γ, κ ∈ [0, 1] and λ ∈ [0, 0.5], and symplectic
// Euler (Eq. 10-11) v ← v + h·F, x ← x + h·v.
//
// # Decisions where the paper is silent or ambiguous
//
//   - The goal force uses the goal at the start of the step, x̂(t). With
//     x̂(t + h) a mesh on a goal moving at constant velocity u would gain
//     u every step; with x̂(t) and the goal velocity v̂(t) = (x̂(t + h) −
//     x̂(t))/h, a mesh started on such a goal with its velocity stays on it
//     exactly for any parameters (every force vanishes), and α = κ = 1
//     reproduces any goal exactly.
//   - The printed Eq. 6 adds R(xⱼ⁰ − xᵢ⁰); it must subtract it, so that a
//     rigid motion x = Qx⁰ + t gives R = Q and c = x exactly.
//   - Eq. 9 is read as (mean of the neighbours' velocities − vᵢ)/h; with
//     λ = 1 a vertex would take the mean velocity of its ring, and λ ≤ 0.5
//     keeps the explicit smoothing stable.
//   - A spoke projects on the bone's segment, not the infinite line: the
//     projection is clamped to the segment's ends, so vertices beyond an
//     end (the caps of a limb) hang from the end point. A spoke of length 0
//     (a vertex on its bone) has no direction and exerts no force. A bone
//     is a segment from its joint to its child joint; a leaf joint, or a
//     bone without joints (SSDR), is the principal axis of the rest
//     vertices it influences weighted by their weights (ssdr.Segments).
//     The caller gives the segments; a segment moves with its bone's
//     rigid transform.
//   - R is not iterated to convergence: each simulation step takes one
//     step of rotation.Refine (Newton's method on SO(3), safeguarded)
//     from the ring's rotation at the step before, which Start sets to
//     the polar rotation. For a ring whose polar rotation turns by δ per
//     step the error is of order δ² and does not accumulate (about δ³/2
//     on the tube, TestRingRotationTracksPolar); a ring turning faster
//     than Newton's region allows (a thin ring in fast motion) lags by
//     more for a few steps, each of which still turns it towards R. On
//     the horse gallop, whose rings turn by up to half a radian per
//     frame, the positions stay within 0.5% of the secondary motion (RMS;
//     3e-4 of the diagonal) of those with R converged to 1e-12 radian,
//     which takes about three steps per ring and step.
//   - The goal between frames (substeps) is interpolated linearly, which
//     is linear blend skinning with linearly interpolated matrices; the
//     goal velocity is then constant over a frame. The simulation starts
//     on the goal's first frame with the goal's velocity there.
//   - κ (the Limitations paragraph's "damping term to absolute velocity",
//     taken relative to the goal's velocity so that it damps only the
//     secondary motion). Without it the mode in which the whole surface
//     swings about its goal is not damped at all: with α = 1 and the rest
//     0 the error e = x − x̂ obeys e(t+2h) − e(t+h) + e(t) = h²·(goal
//     acceleration), whose roots lie on the unit circle (period six
//     steps). Setting κ = 0 everywhere gives the paper's four-parameter
//     model; FitOptions.Kappa chooses which one a fit uses.
//
// # Fitting
//
// Fit minimises E(Π) = Σ_t Σᵢ ‖xᵢ(t) − pᵢ(t)‖² over the parameters Π
// (Eq. 12-13) against an example animation p by the iteration of Figure 5:
// simulate with Πᵏ; with every position, velocity and force of that
// simulation held fixed (Eq. 15), the position after the last step into
// each frame is linear in the vertex's own parameters, so each vertex
// solves a box-constrained least-squares problem in 4 or 5 unknowns (Eq.
// 16), exactly, by enumerating the faces of the box (boxQP); then Πᵏ⁺¹ =
// (1 − μ)Πᵏ + μΠ*. It starts from α = 1 and the rest 0, stops when
// |Eᵏ − Eᵏ⁻¹| / E⁰ < ε or at an iteration cap, and returns the best
// iterate (the iteration is not monotone).
//
// # Speed
//
// A step reads every vertex's 1-ring, its goal, its spokes' bones and its
// parameters. The Model keeps its vertices in slots of its own, the
// mesh's Cuthill–McKee order (meshgraph), in which a ring lies near its
// vertex; a Sim puts each goal frame in the slots' order once, on the
// frame's first use, so that a step reads every array in order (read in
// the mesh's order from the slots', the goal alone cost a third of a
// step on the subdivided horse). Each ring keeps the mesh's order of its
// neighbours and every sum its order, so every result is bitwise that of
// the mesh's own order. A ring's sums form its rest edges from the rest
// positions as they go (a stored edge per ring entry was as many bytes
// as the state). The spokes are stored by groups of four slots, row s
// holding each slot's s-th spoke (zero-weight spokes pad a slot with
// fewer), so that four slots' spokes are computed in the lanes of one
// vector (spokes_amd64.s). On amd64 with AVX, four slots at a time go
// through kernels for their ring sums, their rotations' steps, their
// spokes and the rest of their step; each kernel does its Go code's
// operations in its order, without fused multiply-adds, and the tests
// compare them bit for bit (build tag purego: Go alone).
//
// # The method as built
//
// `solver/dynskin` implements the surface model of Section 2 and the fitting
// algorithm of Section 3 (Figure 5) of Shi, Zhou, Tong, Desbrun, Bao and Guo,
// "Example-based dynamic skinning in real time". It runs in the window (the
// Dynamics tool above) and headless (`gallop dynamics`, `gallop bench`).
//
//   - **Forces** (per vertex, as accelerations): the goal G = (x̂(t) − x)/h², the
//     surface L = (c − x)/h² with c = mean over the 1-ring of xⱼ − R(xⱼ⁰ − xᵢ⁰)
//     (the paper's Eq. 6 prints "+", which a rigid motion refutes) and R the
//     rotation of the polar decomposition of Σⱼ(xⱼ − xᵢ)(xⱼ⁰ − xᵢ⁰)ᵀ, tracked by
//     one step per simulation step of `rotation.Refine`, Newton's method on SO(3)
//     from the ring's rotation at the step before (safeguarded: where the Hessian
//     is not positive definite, a Gershgorin shift and an exact line search);
//     its error is of order the square of the rotation's turn per step and does
//     not accumulate, and on the horse gallop, whose rings turn by up to half a
//     radian per frame, the positions stay within 0.5% of the secondary motion
//     of those with the rotation converged; the spokes B, each
//     influencing bone's (|d⁰|/|d| − 1)·d/h² averaged by the skin weights, d the
//     vertex minus its closest point on the bone's segment (clamped to the ends;
//     a spoke of length 0 exerts nothing); the damping D = (mean ring velocity −
//     v)/h; and κ·K with K = (v̂ − v)/h, v̂ the goal's velocity.
//   - **Bones as segments**: joint to child joint (of several children, the one
//     nearest the joint's weighted vertices); a leaf joint or an SSDR bone, the
//     principal axis of its weighted rest vertices (`ssdr.Segments`, as the Rig
//     tool draws them). A segment moves with its bone's skinning matrix. With
//     `--goal DIR` (OBJ frames of the skinning alone) the bones' motions are
//     fitted per frame by weighted absolute orientation.
//   - **Time**: symplectic Euler, h = 1/(fps × substeps); the goal interpolated
//     linearly between frames; the goal force uses the goal at the start of the
//     step, so that a mesh started on a goal moving at constant velocity, with its
//     velocity, stays on it for any parameters (tested to 1e-9 of the diagonal).
//   - **κ**, the Limitations paragraph's extra damping, taken relative to the
//     goal's velocity. Without it the mesh's swing about its goal is never damped
//     (e(t+2h) − e(t+h) + e(t) = 0: period six steps); `--paper` fits the four
//     parameters alone.
//   - **A stability bound the paper does not state**: each parameter in its box is
//     stable alone, but not together. Symplectic Euler is stable per mode when
//     a + 2b < 4 (stiffness a = kh², damping b = ch); the surface force and the
//     damping act through the graph Laplacian, whose eigenvalues reach almost 2, so
//     α = β = γ = 1, λ = ½ blows up within 15 steps. Gallop bounds
//     s = α + 2β + γ + 4λ + 2κ ≤ 3.5: the fit's per-vertex QP has it as a
//     constraint, and parameters beyond it (painted ones) are scaled back onto it in
//     proportion. 10,000 steps with random parameters and a randomly jittering goal
//     stay within half a diagonal (`TestStabilityRandom`).
//   - **Fitting** (Figure 5): start at α = 1 and the rest 0; simulate; with
//     everything of that simulation held fixed, each vertex's position after the
//     last step into each frame is linear in its parameters, so each vertex solves
//     a least-squares problem over the box and the stability bound exactly (all
//     3ⁿ faces of the box, then the same with the bound active, each face's KKT
//     system by pivoted elimination; n = 5 or 4; until session 30 a corner of
//     the box beyond the bound was left out of the first pass, so a box minimum
//     there went unseen and a worse point could be returned:
//     `TestSolveQPOptimal` now checks 400 random problems against 240,000
//     feasible points); move μ = 0.1 of the way; stop
//     when |Eᵏ − Eᵏ⁻¹|/E⁰ < 1e-6 (E⁰ holds the puppet's swing, many times the
//     fitted error, so ε must be small) or at 200 iterations; keep the best
//     iterate. Simulation and QPs use both cores.
//
// Figures on `dynskin-tube` (`gallop bench`, `gallop dynamics fit --json`, this
// machine, 2026-11-26, after the QP fix above; RMSE over all frames and
// vertices, plain skinning's is 0.0622 on train and 0.0989 on test, 1.47% and
// 2.33% of the diagonal):
//
//	| model | iterations (best) | fit | train: RMSE / skinning's | test (not seen by the fit) |
//	|---|---|---|---|---|
//	| five parameters (κ) | 69 (69), converged | 5.8 s, 0.083 s per iteration | **0.682** (target ≤ 0.70) | **0.899** (target ≤ 0.93) |
//	| the paper's four | 134 (133), converged | 5.8 s, 0.043 s per iteration | 2.87 | 1.34 |
//
// E per iteration with κ: 5889 (the puppet), 1346, 904, 766, 691, 640, 604, 578,
// 557, 538 (iterations 0-9), then down to 296 at 69. Without κ: 5889, 5853,
// 5804, 5754 … down to 5237 at 133 (before the QP fix it stalled at 5486 and
// ran to the cap, 200): the four forces cannot damp the swing, as the issue's
// prototype found (2.8 and 1.4).
//
// **Speed**: the bar is 65 ns per vertex per step (the paper's GeForce 8800 GTX
// figure, 1.64 ms for its 25,001-vertex Armadillo, which is 2.19 ms for the
// 33,705 vertices of the horse subdivided once with 20 SSDR bones). A step of
// the subdivided horse takes **1.47-1.67 ms, 43.6-49.6 ns per vertex**
// (`gallop bench --dynamics`, median of 5 passes, three runs on the 2-core AMD
// EPYC, 2026-11-25, session 22; 41.8-55.8 ns in three earlier runs of the
// same step): the bar is met. The tube takes 33-40 ns per vertex, the horse
// 38-63. `go test ./cli -bench
// DynamicsStep -benchtime 400x`, the test binaries of the code before this
// session's changes and after alternating, 6 runs each, medians: the
// subdivided horse 67.3 → 44.7 ns per vertex, the horse (8,431 vertices)
// 65.0 → 43.4, the tube (2,282) 65.4 → 44.7; with `GOMAXPROCS=1` 141 → 84
// ns. Every frame is bitwise what it was (SHA-256 of every frame of the tube
// with 2 substeps and of the subdivided horse, and the fit's energies and
// parameters). What it took, over several sessions (the first build took 351
// ns on the subdivided horse):
//
//   - **Rotations**: one step of `rotation.Refine` per simulation step from the
//     ring's last rotation instead of iterating to 1e-12 (see the model above),
//     with one division and no square root on its critical path.
//   - **Layout**: the state as nodes, a vertex's position and velocity side by
//     side; the vertices in the Cuthill–McKee order of the mesh
//     (`meshgraph.CuthillMcKee`), so that a ring lies near its vertex in
//     memory, which a subdivided mesh's own order (its edge midpoints after all
//     its corners) does not give. The model keeps its own slots and translates
//     at its edges; each goal frame is put in the slots' order once, on its
//     first use, because reading the goal scattered in the mesh's order cost a
//     third of a step. A ring's rest edges are formed from the rest positions
//     as the sums go, instead of a stored edge per ring entry (as many bytes as
//     the state). The first pass over a clip, which also reorders its frames,
//     takes 54-84 ns per vertex on the subdivided horse
//
// (`dynamics_step_*_first_pass_ns_per_vertex`).
//   - **Vector kernels** (amd64 with AVX; build tag `purego`: Go alone), four
//     slots at a time, each doing its Go code's operations in its order without
//     fused multiply-adds, and each tested bit for bit against it (also run
//     with `purego` in `make test`); the kernels read their structs at the
//     offsets the toolchain writes to `go_asm.h`, and the one with a 768-byte
//     frame lets the runtime grow the stack (no NOSPLIT):
//     `ringsums_amd64.s` (a ring's sums, A's columns in 4-wide vectors, the
//     mean-edge correction included), `refine_amd64.s` (`Refine`'s Newton step
//     and line search in four lanes; `Refine` itself is left ω = 0, non-finite
//     matrices and its restarts from `Polar`: 121 of 1.58 million ring steps
//     over the subdivided horse's animation), `spokes_amd64.s` (four slots'
//     spokes, one slot per lane: the spokes are stored by groups of four slots,
//     row s holding each slot's s-th spoke, a slot with fewer padded with
//     zero-weight spokes, which add nothing; the segments' fields loaded with
//     128-bit inserts and unpacks, faster here than `VGATHERDPD`) and
//     `step_amd64.s` (the rest of the step: goal, surface, damping and
//     goal-damping columns, the update and the range check, the inputs
//     transposed into lanes and the new nodes back). The fit's steps, which
//     also keep each vertex's columns, and a group holding the poked vertex go
//     through the Go code.
//
// The profile of a step now (one core): the spokes 34%, the rotation steps
// 24%, the ring sums 21%, the rest of the step 16%. Two things cost earlier
// versions of the kernels their gain: lanes holding the stack's old contents,
// integers that are denormal as float64 (every vector operation on a
// denormal takes a microcode assist), and 32-byte loads of slots that 8-byte
// stores had just filled, which the store buffer cannot forward. Start,
// putting the mesh on the first frame with every ring's polar decomposition,
// takes 12 ms on the subdivided horse, once per playback, and is not part of
// the step. These machines are shared: single runs vary by up to a factor of
// 1.5, so every comparison above alternates the two binaries.
package dynskin
