// Package synth turns one short mesh animation into many different,
// arbitrarily long ones: Changxi Zheng, "One-to-Many: Example-Based Mesh
// Animation Synthesis", SCA 2013. The paper's text stops after Section
// 3.4 and its Appendix A is missing; what is derived here is marked so.
//
// # Model (Section 3.1)
//
// The input is a linear-blend-skinning model inferred by
// gallop/solver/ssdr (rigid bones, weights summing to one):
// vᵢ(x) = Σᵦ wᵢᵦ (Rᵦ(x) pᵢ + tᵦ(x)) at input frame x.
//
// # Transitions (Section 3.2)
//
// The reference bone bᵣ has the largest weight sum. Every other bone's
// position in bᵣ's frame (Eq. 2), Rᵦ|ᵣ = Rᵣᵀ Rᵦ and tᵦ|ᵣ = Rᵣᵀ (tᵦ − tᵣ),
// becomes a 6-vector: the translation divided by the rest mesh's
// bounding-box diagonal (a choice: it makes translations as dimensionless
// as the rotation's radians) and the rotation's axis-angle vector,
// unwrapped along time (Eq. 3). The matrix A_r of these columns is
// factored by a thin SVD and truncated at singular values below 0.005 of
// the largest (the paper's 0.005, taken relative to σ₁); qₓ = S Vᵀ's
// column x (Eq. 4). The cost of a transition from frame i to frame j is
//
//	D(i, j) = ‖qᵢ − qⱼ‖² + α‖q̇ᵢ − q̇ⱼ‖² + β‖rᵢ − rⱼ‖²   (Eq. 5)
//
// with q̇ₓ = qₓ − qₓ₋₁ and rₓ the reference bone's position at frame x−1 in
// its frame at x (Eq. 6; translation over the diagonal again);
// α = max‖q‖²/max‖q̇‖² and β = max‖q‖²/max‖r‖² as the paper sets them.
// Frame 0 has no velocity and is no transition's end. Candidates are pairs
// at least MinJump (5) frames apart where D is least within ±2 frames in i
// and j (Kovar et al. 2002's pruning: neighbouring pairs are near copies
// of one transition).
//
// The threshold (changed from the paper's, measured): the paper keeps
// D(i, j) < T_c = 40·maxᵢ D(i, i+1). That admitted every candidate on
// both horse-gallop and pcow; on pcow the transitions then joined frames
// whose poses lie a median 6.6 steps apart (a step: the median distance
// between adjacent frames), about as far as random pairs, and no
// threshold on D fixes it: D's smallest 2% of candidates still lie a
// median 3.6 steps apart, since D weighs bone coordinates (radians and
// diagonals) and not how far the surface moves. So D ranks (the local
// minima above), and the threshold is on what a viewer sees: the
// rigid-aligned RMS distance between the poses of frames i and j, over the
// part's vertices among the figures' sample (figureTriangles) posed by the
// model, divided by the step. A transition may join frames at most 2 steps apart
// (DefaultThreshold), a jump no larger than two frames' motion; if that
// leaves no loop, a part's default is the least distance that makes one.
//
// # Motion graph and walks (Section 3.4)
//
// A transition (i, j) lets the output go on after frame i as if it were at
// j: output frame s shows i, s+1 shows j+1. The graph's nodes are the
// input's segments between transition frames, its edges the input's own
// order and the transitions; Graph reports its largest strongly connected
// component (gonum's Tarjan). Walks are drawn step by step, uniformly among
// the successors from which the rest of the request can still be met: a
// table computed backwards over the output frames (plan) covers dead
// ends, the least spacing between splices (Hold, default 2W so that
// blending windows do not overlap) and targeted frames (input frame f at
// output frame g, exactly: no splice may blend a targeted frame), so a walk
// of any length never fails, and impossible targets are refused at once.
// Obstacles (a ground plane, spheres, meshes) reject frames during a
// depth-first walk, tested at the unblended pose with a margin; the
// finished clip is tested exactly at every frame and redrawn on the next
// random stream if it fails.
//
// # Smooth transitions (Section 3.3)
//
// The reference bone is never blended: each segment after a splice is
// placed by the rigid map that puts its frame j's reference bone where
// frame i's was (Eq. 7); the r term of the cost makes its velocity match.
// The other bones are blended in bᵣ's frame over the window of W (6)
// frames on each side of the splice, by one of five methods:
//
//   - BlendGradient, the paper's. Key vertices: per bone the vertex of
//     largest weight, per pair of bones the vertex maximising wᵢwⱼ where
//     both are non-zero. Weight gradients at a key vertex by the
//     constrained least squares fit of Appendix A (derived here, see
//     gradientsAt): Σ w = 1 and Σ ∇w = 0 hold exactly, so an affine motion
//     of the whole mesh gives its own matrix as every deformation
//     gradient. The deformation gradient at each key (Eq. 8), in
//     rotation-strain coordinates (the polar rotation's axis-angle
//     vector, unwrapped, and the six entries of the stretch), is blended,
//     and the bones solved from the blended gradients by least squares,
//     Gp = d (Eq. 9), as general affine maps; then carried back to the
//     world (Eq. 10). BlendGradientPoisson blends the coordinates by the
//     paper's 1D Poisson equation, BlendGradient crossfades them.
//   - BlendCrossfade: each bone's 12 matrix entries crossfaded (every
//     vertex crossfaded, skinning being linear in them).
//   - BlendCoordinates: each bone's axis-angle vector and translation in
//     bᵣ's frame crossfaded (the paper's "linear blend" of Eq. 3's bone
//     coordinates).
//   - BlendPoisson: each bone's 12 matrix entries blended by the 1D
//     Poisson equation, the input's own velocity as guidance and the
//     frames outside the window fixed (a tridiagonal solve per run).
//
// Every blended bone is then projected to its nearest rigid motion, the
// translation re-fitted to the vertices it moves (Part.rigid), unless
// Request.Affine keeps them as blended (for comparisons).
//
// Two changes to BlendGradient, both measured (see the README):
//
//   - The keys' positions join their gradients in Eq. 9 (3 more rows a
//     key, weighted so that 5% of the diagonal counts as a gradient error
//     of 1). Gradients fix a bone's translation only through the small
//     weight gradients, and without the positions the solve amplified the
//     blend's inconsistencies into jitter: on pcow the mean splice
//     acceleration ratio was 1.23 against 0.79 with them.
//   - The coordinates are crossfaded over the window rather than blended
//     by the 1D Poisson equation. The Poisson blend spreads the jump
//     v(j) − v(i) as one even ramp whatever the two segments do meanwhile,
//     and overshoots where they diverge: on horse-gallop it stretched an
//     edge to 1.59 times the input's largest change, the crossfade 0.97.
//     The Poisson solve remains, as the paper's naive option, in
//     BlendPoisson.
//
// # Components (Section 4, derived from the abstract and Figure 2)
//
// The bone graph joins two bones where some vertex has weight at least
// Coupling (0.2) on both; its cut nodes (articulation points) are found by
// removing each bone and counting connected components. With Components
// set, the mesh is split at the cut node whose removal leaves the most
// even pieces (the largest weight sum of the second-largest piece): each
// piece is a part, synthesised in the cut node's frame with its own
// costs, graph and walk on its own random stream, so parts transition at
// different frames; the part of most bones (the driver) places the cut
// node in the world, and every part's bones hang from it. Each piece is
// split again, recursively, at a bone of its own that cuts it (the pieces
// not joined to its parent hang from that bone, which stays in the
// piece), where the piece kept and every new piece keep at least 3 bones,
// at the most even such cut (splitPart); a part's bones then hang from
// its own reference bone, placed by its parent part. A key vertex
// whose neighbourhood another part weighs on by Coupling or more is left
// out of a part's gradients.
//
// # Determinism and cost
//
// A clip depends on its seed alone (PCG streams per seed, part and
// attempt); Clips spreads clips over the cores. The cost per output frame
// depends on the bones and key vertices, not on the mesh's resolution:
// the full mesh is posed only for obstacles and the quality figures.
package synth
