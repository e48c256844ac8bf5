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
package dynskin
