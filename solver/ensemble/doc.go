// Package ensemble is the model of Mesh Ensemble Motion Graphs: Doug L.
// James, Christopher D. Twigg, Andrew Cove and Robert Y. Wang, "Mesh
// Ensemble Motion Graphs: Data-driven Mesh Animation with Constraints",
// ACM Transactions on Graphics 26(4), 2007. An ensemble (a banner of flags
// on a rope, a field of grass) is G mesh groups in a tree, simulated at a
// few levels (wind strengths); groups may transition between clips at
// different times, and the constraint solver of package csp picks those
// times so that no two groups pass through each other.
//
// # Kinematics (§2.1)
//
// Group k has v_k vertices, rest shape p_k (Dataset.Rest restricted to
// the group) and, at every source frame t, a world frame T_Wk(t) (a rigid
// motion) and local displacements u_k(t), its positions being
// T_Wk(t)(p_k + u_k(t)) (Eq. 2). The frames:
//
//   - a root's T_Wk(t) is the best rigid fit (Kabsch, rotation.RigidSums)
//     of p_k onto its positions at t;
//   - a child with attachments (a flag sewn to the rope) has the frame its
//     parent's deformation gives it, "dynamic coordinate frames are
//     determined by deformations of parent groups": the rigid fit of the
//     parent's patch — the parent vertices it is sewn to and their one-ring
//     in the parent's mesh, so at least three non-collinear points, since a
//     flag's sewn vertices lie on a line — from rest to their posed
//     positions. It is fitted to the parent's reconstruction, not to the
//     data, so that the model, a reconstructed source frame and a
//     transition compute it alike;
//   - a child without attachments has a local frame of its own,
//     L_k(t) = T_Wparent(t)⁻¹ ∘ (rigid fit of p_k onto its positions), and
//     T_Wk = T_Wparent ∘ L_k.
//
// u_k(t) = T_Wk(t)⁻¹ x_k(t) − p_k. Each group has one PCA basis over all
// frames of all levels, so that q is comparable across levels: the thin
// SVD A = UΣVᵀ of the uncentred 3v_k × F matrix of displacements (u = Uq,
// Eq. 2), keeping the fewest singular vectors whose dropped singular
// values hold at most Threshold of ‖A‖²_F (the paper's "thresholded at
// 10⁻⁴" does not say relative to what; read as this relative energy, a
// relative RMS error of 1%, it keeps 1,713 coordinates of the banner's
// 6,456 (0.27, the paper's own banner has DOF/2 ÷ 3V = 0.17), where
// σ ≥ 10⁻⁴·σ₁ keeps 5,099: the data's five significant digits put a noise
// floor near 10⁻³·σ₁ that such a threshold keeps); values at the level of
// float64 rounding are dropped too, so that a group that does not deform
// has rank 0 rather than a basis of noise. Then
// q_k(t) = U_kᵀu_k(t), and every source frame is reproduced within
// σ_{r_k+1} (the largest dropped singular value) per group, in the
// Euclidean norm over the group's 3v_k coordinates. q̇(t) = (q(t) −
// q(t−1))·FPS, the forward difference at a level's first frame, in
// units per second. Groups of one depth are fitted in parallel.
//
// # Transition cost (§2.2, §2.3)
//
// States i, j are source frames (State). D_k(i, j) is Eq. 3 with β in
// seconds (default 0.1), plus position and velocity terms of the frame for
// groups with a frame of their own (see Model.D); Φ_k(τ) = D_k(i+τ, j+τ)
// (Eq. 4), +Inf where a frame falls outside its level; Φ(τ) = Σ_k Φ_k(τ_k)
// is separable, so its unconstrained minimum is each Φ_k's (Eq. 5).
//
// # Transitions
//
// A transition from source A (state a) to source B (state b) with offsets
// τ shows at relative time s, for group k, A at a+s blended toward B at b+s
// with weight w_k(s) = clamp((s − τ_k)/τ_blend + ½, 0, 1): coordinates
// q_k(s) = (1−w_k)q_k(a+s) + w_k q_k(b+s) blend linearly over τ_blend
// frames centred on τ_k. Frames are interpolated down the hierarchy,
// parents first: an own frame blends its two local frames (rotation by
// slerp about the group's rest centroid, the centroid's image linearly)
// and composes with the parent's blended world frame; an attached group's
// frame is the fit of its parent's blended patch, so a flag follows its
// rope whenever the rope blends. Before the transition every group plays
// A, after it B; its frames are s = −H … H, H = τ_max + ⌈τ_blend/2⌉, the
// first and last pure A and pure B.
//
// Sewing. A child and its parent blending at different times would part
// at their sewn vertices (by 4 mm on the banner: the flag's coordinates
// and the rope's come from different sources), and even a source frame
// parts them by the truncation error. So every pose sews: in the child's
// frame each sewn vertex a moves by c_a = T_Wk⁻¹(x_parent) − x_a onto its
// parent vertex, and the band within SewRings edges follows by the
// harmonic falloff φ_a (1 at a, 0 at the other sewn vertices and beyond
// the band). The correction is linear in fixed fields (Model.SewingBasis)
// with weights c_a (Poser.Sewing), so the compact glTF export stores it
// as three more morph targets per sewn vertex. An attached group's frame
// is fitted, when the model is built, to its parent's reconstruction
// without the parent's own sewing; for a parent that is itself sewn
// (three levels deep) that differs from the posed frame by the parent's
// truncation error, which the sewing then absorbs.
//
// # Nonpenetration (§3, §4)
//
// Program is the integer program of one transition for package csp: Φ_k,
// the kinematic cliques ℵ_kl (the tree path k → lowest common ancestor → l;
// Model.Clique) and the collision oracle, which reports the pairs of groups
// that newly interpenetrate at a transition frame: intersecting triangles
// (collide's exact test; a child's triangle holding a sewn vertex against
// a parent triangle holding its partner touches by design and does not
// count) that intersect neither in the reconstructed source frame a+s nor
// in b+s. Those pre-existing contacts are counted separately
// (SourceContacts, SourceInterpenetrations). Broad phase: group boxes in
// a collide.Grid; narrow phase: per-group collide.Mesh BVHs refitted to
// the posed frame.
//
// Steps. Beside contacts, each group k has a constraint (k, k) with the
// group's path from the root as its clique: no vertex of it may move
// further from one transition frame to the next than any vertex of it does
// between two consecutive reconstructed source frames (Model.StepLimits).
// The paper's §3.4 proposes such boolean constraints for other physics;
// this one is needed because a child's frame comes from its parent's pose:
// a flag already on source B hanging from a rope still on A moves by the
// rope's motion in A plus its own in B, which never met in the data, and
// without the constraint 65 of 103 transitions of a banner graph moved
// some group up to 2.3 times faster than the data ever does.
//
// # Motion graph and playback (§2.4)
//
// Build runs COMPUTE-MEMG-TRANSITION for every one-second interval of
// every clip: within the leaving frame's wind level first, toward each run
// of that level in any clip (late intervals jump back, or a level of a
// few seconds never loops), then, from each level's components (per run
// of the level, the strongly connected component over every clip holding
// most of the run's frames), to every other level's. A clip
// whose wind changes (Level.Wind) also joins levels by its own frames,
// which are played, never left or landed in, while the wind changes. A
// Player plays the graph forever, heading for the wind level it is given
// by the fastest route (through the levels between, and on through a
// take's changing wind, when no transition to it starts at hand).
package ensemble
