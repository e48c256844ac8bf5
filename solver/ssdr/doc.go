// Package ssdr infers a linear-blend-skinning rig from a mesh animation:
// Smooth Skinning Decomposition with Rigid Bones (B. H. Le and Z. Deng,
// SIGGRAPH Asia 2012), built as Electronic Arts' Dem Bones (v1.2) builds it.
//
// Given the rest positions pᵢ of N vertices and T frames of positions vᵢᵗ,
// Decompose finds B bones with a rigid transform (Rⱼᵗ, Tⱼᵗ) per frame
// (Rⱼᵗ a proper rotation) and weights wᵢⱼ minimising
//
//	E = Σₜ Σᵢ ‖vᵢᵗ − Σⱼ wᵢⱼ (Rⱼᵗ pᵢ + Tⱼᵗ)‖²
//
// subject to wᵢⱼ ≥ 0, Σⱼ wᵢⱼ = 1 and at most K non-zero wᵢⱼ per vertex.
// Its RMSE is √(E / (T·N)).
//
// # Method
//
// Initialisation (Dem Bones' LBG-style clustering): every vertex starts in
// one cluster; each round splits every cluster whose error is not
// negligible, seeding the new cluster at the vertex (and its one-ring)
// farthest from the cluster both in rest position and in fit error, then
// alternates ten times a rigid fit of each cluster in each frame (absolute
// orientation, gallop/solver/rotation's polar decomposition) with a
// relabelling that grows every cluster over the mesh from its best-fitting
// vertex, best fit first, and drops clusters of fewer than 3 vertices.
// The per-frame sums of the cluster fits are kept between fits and only
// the vertices whose label changed are moved between them.
// Rounds stop at B clusters; when splitting stalls, the cluster of largest
// error is split at its worst vertex until there are exactly B, so a
// cluster that died is re-seeded, never left empty.
//
// Alternation, for up to Iterations rounds, each:
//
//  1. Transforms: TransformIterations sweeps; in each, every frame (in
//     parallel) updates its bones one after the other (Gauss-Seidel), bone
//     j by the weighted absolute orientation that fits wᵢⱼ(Rpᵢ + T) to the
//     residual rᵢ = vᵢ − Σ_{k≠j} wᵢₖ(Rₖpᵢ + Tₖ), that is R·pᵢ + T to rᵢ/wᵢⱼ
//     with weight wᵢⱼ², plus Dem Bones' translation-affinity term: the
//     rigid fit of vᵢ itself with weight c·wᵢⱼ⁴, c = λ·Σᵢwᵢⱼ / Σᵢwᵢⱼ⁴
//     (λ = TransAffine, 10). Everything is gathered from per-iteration sums
//     Σᵢ αᵢⱼ vᵢ [pᵢ;1]ᵀ and Σᵢ wᵢⱼwᵢₖ [pᵢ;1][pᵢ;1]ᵀ, so a sweep costs
//     O(T·B·(bones sharing a vertex)), not O(T·N).
//  2. Weights: WeightIterations sweeps; in each, the weights are smoothed
//     by one implicit Laplacian step, (I + s·D⁻¹L)·w̃ = w on the rest mesh
//     (edge weight 1/(RMS change of the edge's length + ε), Dem Bones'
//     formulation, solved with gallop/solver/sparse's Cholesky in the
//     equivalent symmetric form ((1+s)D − sW)·w̃ = D·w); each vertex then
//     takes as candidates the K bones of largest smoothed weight and
//     solves, over them, the convex least squares problem
//     min ‖Aw − b‖²/(N̄²T) + μ‖w − w̃ᵢ‖² s.t. w ≥ 0, Σw = 1 (μ = Smooth,
//     N̄ the RMS distance of the rest vertices to their centroid) by an
//     active-set method warm-started at its current weights. The normal
//     matrix AᵀA of vertex i is built from per-iteration sums
//     Mⱼₖ = Σₜ [Rⱼ|Tⱼ]ᵀ[Rₖ|Tₖ] (4×4) as [pᵢ;1]ᵀMⱼₖ[pᵢ;1], in O(K²) per
//     vertex instead of O(K²T).
//  3. The RMSE is measured; the best iterate is kept (the RMSE does not
//     always fall). Iteration stops early, as Dem Bones' command line
//     does, when the RMSE has fallen by less than Tolerance (relative) in
//     Patience consecutive iterations (a round that raises it resets
//     the count).
//
// Deviation from Dem Bones: the alternation then runs PolishIterations
// (5) more rounds with λ = 0. The affinity term pulls each bone's
// translation toward the rigid fit of the vertices it weighs most (their
// centroid's motion), which steadies the early rounds but biases the
// optimum: on exact linear-blend-skinning input (the cylinder-rig set) the
// fit stalls at 1.4e-2 of the bounding-box diagonal for the worst vertex
// instead of recovering the ground truth. Five rounds without it lower the
// RMSE on every set measured (horse-gallop and pcow with 10, 20 and 30
// bones, at most 8 or 4 influences) by 21 to 39%, and recover the
// cylinder's poses to 5e-4 of the diagonal; dropping the term altogether
// lowers the error further but takes 39 to 90 rounds to converge.
// PolishIterations < 0 gives Dem Bones' behaviour.
//
// Deviation for dense meshes: the cost of a round is linear in the
// vertices (about 0.5 s for 134,782 vertices and 48 frames, on 2 cores),
// while the bones are set by far fewer. A mesh of more than
// Options.SampleVertices (16,384) vertices is fitted coarse to fine: a
// geodesic farthest-point sample of that many vertices
// (gallop/solver/meshgraph.FarthestSample, graph distance along the
// edges), two samples neighbours where their Voronoi cells on the mesh
// touch, runs the whole method above (clustering, alternation, polish);
// then every vertex takes its cell's sample's weights, and up to
// RefineRounds rounds with λ = 0 run on the whole mesh, the first solving
// the weights only for the sample's bones, stopping when a round gains
// less than Tolerance. On horse-gallop subdivided twice (20 bones, K = 4)
// this takes 7.1 s where the whole mesh took 28.5 s, at an RMSE of
// 0.00636 where the whole mesh stopped at 0.00978 (the sample's cheap
// rounds ran on to a better point before the polish).
//
// A bone that loses every vertex during the alternation is re-seeded at
// the worst-reconstructed vertex and its one-ring.
//
// Loops over frames, bones and vertices run on gallop/solver/parallel;
// reductions are summed in an order fixed by the input alone, so the same
// input gives bitwise the same result on any number of cores.
//
// References: B. H. Le and Z. Deng, "Smooth Skinning Decomposition with
// Rigid Bones", ACM TOG 31(6), 2012, Sections 3 and 4; Electronic Arts,
// Dem Bones (github.com/electronicarts/dem-bones), DemBones.h and
// ConvexLS.h; C. L. Lawson and R. J. Hanson, "Solving Least Squares
// Problems", 1974, Chapter 23 (the active-set method).
//
// # The method as built
//
// Given rest positions p_i and frames v_i^t, `solver/ssdr` finds B bones with a
// rigid transform (R_j^t, T_j^t) per frame and weights w_ij ≥ 0, Σ_j w_ij = 1, at
// most K per vertex, minimising Σ_t Σ_i ‖v_i^t − Σ_j w_ij (R_j^t p_i + T_j^t)‖²
// (Le and Deng 2012), following Electronic Arts' Dem Bones (v1.2.1) step by
// step:
//
//   - **initialisation** by clustering: from one cluster, split every cluster
//     with error at its worst vertex and one-ring, then rounds of a rigid fit per
//     cluster and frame (weighted absolute orientation by the polar
//     decomposition) and relabelling by growing clusters over the mesh
//     best-fit first, until B clusters; a bone that loses all its vertices is
//     re-seeded at the worst-fitting vertex, never left as NaN;
//   - **bone update**: per frame (frames in parallel), bones one after another,
//     each fitted to the residual of the others with weights w², plus Dem Bones'
//     translation affinity (the bone's own vertices fitted directly);
//   - **weight update**: one implicit Laplacian smoothing step of the weights
//     (Dem Bones' weightsSmooth) by our sparse Cholesky, then per vertex the K
//     bones with the largest smoothed weights as candidates and the convex
//     least-squares problem (w ≥ 0, Σ w = 1, smoothness term) solved by an
//     active-set method; the normal matrix comes from per-bone-pair sums over
//     the frames precomputed once per round, so a vertex costs O(K²) rather than
//     O(K²·T);
//   - Dem Bones' stopping rule (RMSE falling by less than 0.1% three times) and
//     the best iterate kept.
//
// For a dense mesh (more than 16,384 vertices) the method runs coarse to
// fine, a deviation from Dem Bones: all of the above on a geodesic
// farthest-point sample of 16,384 vertices (graph distance along the edges;
// samples are neighbours where their cells on the mesh touch), then each
// vertex takes its cell's sample's weights and up to 4 rounds without the
// affinity run on every vertex, the first solving the weights only. On
// horse-gallop subdivided twice (134,782 vertices, 20 bones, K = 4): 7.1 s
// and RMSE 0.00636, against 28.5 s and 0.00978 on every vertex (a round
// costs 0.5 s there, 0.06 s on the sample). Meshes up to 16,384 vertices,
// every shared set among them, are fitted whole as before.
//
// A second deviation, on by default: after the stopping rule, five more rounds run
// without the translation affinity. The affinity pulls each bone's translation
// toward its vertices' centroid, which biases the fit; the polish lowers the
// RMSE by 31-39% (K = 8) and recovers exact skinning (the cylinder's ground
// truth). `--polish 0` gives Dem Bones' behaviour, whose RMSE we match within
// 1.0003×.
//
// `gallop bench` (K = 8) and `gallop rig --max-influences 4` (K = 4),
// `reference.obj` as rest, median of 3 runs on an idle 2-core machine
// (2026-11-22), the decomposition alone (initialisation included);
// Dem Bones' figures are from the issue (v1.2.1, command-line defaults, 2
// threads, the same machines):
//
//	| set | bones | Gallop K = 8: iterations, seconds, RMSE (/ diagonal) | Dem Bones K = 8: iterations, seconds, RMSE (/ diagonal) | Gallop K = 4: iterations, seconds, RMSE (/ diagonal) |
//	|---|---|---|---|---|
//	| horse-gallop (8,431 v, 48 f) | 10 | 35, 1.86 s, 0.01246 (5.33e-3) | 30, 5.12 s, 0.01839 (7.87e-3) | 21, 0.93 s, 0.01826 (7.81e-3) |
//	| horse-gallop | 20 | 27, 1.89 s, 0.005371 (2.30e-3) | 22, 5.60 s, 0.007854 (3.36e-3) | 30, 1.45 s, 0.007529 (3.22e-3) |
//	| horse-gallop | 30 | 27, 1.88 s, 0.004489 (1.92e-3) | 15, 4.55 s, 0.006804 (2.91e-3) | 15, 1.08 s, 0.005922 (2.53e-3) |
//	| pcow (2,904 v, 204 f) | 10 | 19, 0.84 s, 0.01987 (8.57e-3) | 14, 1.54 s, 0.02884 (1.245e-2) | 19, 0.81 s, 0.02107 (9.09e-3) |
//	| pcow | 20 | 25, 1.37 s, 0.009903 (4.27e-3) | 20, 2.74 s, 0.01528 (6.60e-3) | 25, 1.20 s, 0.01114 (4.81e-3) |
//	| pcow | 30 | 24, 1.80 s, 0.006937 (2.99e-3) | 19, 3.19 s, 0.01135 (4.90e-3) | 20, 1.23 s, 0.008178 (3.53e-3) |
//
// With `--polish 0` (Dem Bones exactly), K = 8, one run each: horse 0.018388 /
// 0.0078543 / 0.0067367 in 1.50 / 1.53 / 1.58 s; pcow 0.028840 / 0.015285 /
// 0.011353 in 0.73 / 1.25 / 1.35 s (Dem Bones: 0.01839 / 0.007854 / 0.006804
// and 0.02884 / 0.01528 / 0.01135). On `cylinder-rig` (4 bones) the skinned poses match the
// given ones within 5.2e-4 of the bounding-box diagonal and the weights differ
// from the ground truth by 0.0004 on average (`go test ./solver/ssdr -run
// TestCylinderRig -v`).
//
// # Skeleton
//
// With Options.Skeleton the bones become a skeleton (Le and Deng,
// "Robust and Accurate Skeletal Rigging from Mesh Sequences", SIGGRAPH
// 2014): one root bone with a free rigid motion, every other bone j
// turning about a joint cⱼ (a rest-pose point) it shares with its parent
// p, which both move alike in every frame, Rⱼcⱼ + Tⱼ = Rₚcⱼ + Tₚ. The
// bones are then parametrised by their rotations Rⱼᵗ (in the model's
// frame), the rest joints cⱼ and the root joint's path Jᵗ, and the
// translations follow: T_root = J − R_root·c_root, Tⱼ = Tₚ + (Rₚ − Rⱼ)cⱼ;
// so the constraint holds exactly and the distance from a bone's joint to
// its children's, Rⱼ(c_k − cⱼ), never changes: bones keep their length.
// We had the paper's abstract only; what follows is derived and built
// here, not its text.
//
//  1. Free bones first: the whole method above (clustering, alternation,
//     polish).
//  2. Hierarchy (topology): for every two bones the point c minimising
//     Σₜ‖(Rⱼ − Rₖ)c + Tⱼ − Tₖ‖² + 10⁻³T‖c − c̄‖² (c̄ the centroid of the
//     vertices both weigh, or midway between their centroids) over the
//     box of the rest vertices either bone weighs, its RMS drift over the
//     frames the cost of a joint there; the minimum spanning tree
//     (Kruskal) of the bones that share vertices, joined where that leaves
//     parts apart by the cheapest other joints; rooted at the bone asked
//     for, else the one whose motion alone best reproduces the whole
//     animation, argminⱼ Σₜ Σᵢ ‖Rⱼpᵢ + Tⱼ − vᵢ‖² (Dem Bones' computeRoot).
//     Which bone is the root does not change the fit (the constraints are
//     the tree's edges); it names the bone that moves as well as turns.
//  3. Rounds, until a round lowers the RMSE by less than
//     SkeletonOptions.Tolerance (10⁻⁴, relative; with Patience) or
//     SkeletonOptions.Rounds (100) have run, the best kept, each exact in
//     its block so the error never rises:
//     rotations, TransformIterations sweeps per frame (frames in
//     parallel), parents first: with everything else held, every
//     residual is affine in Rⱼ, rᵢ = Rⱼuᵢ + bᵢ (uᵢ the lever of vertex i:
//     its weights on j and on j's descendants, each times the offset from
//     cⱼ of the point that moves with it), so Rⱼ is the rotation nearest
//     Σᵢ(−bᵢ)uᵢᵀ (Kabsch), built from per-round sums in O(B) per bone
//     rather than a pass over the vertices;
//     joints and root path, with the rotations and weights held: the
//     residuals are affine in every cₑ and Jᵗ; eliminating Jᵗ leaves a
//     dense system of 3(B−1) unknowns, regularised by 10⁻⁶·N·T‖cₑ − c̄ₑ‖²
//     toward the hierarchy's joints (which fixes the point along a hinge's
//     axis), solved with every joint kept in the box of the rest vertices
//     its bone or its parent weighs (fixed when the skeleton is adopted)
//     by the primal active-set method (boxQP: Cholesky, gonum, on the free
//     coordinates);
//     weights, the weight step above on the skeleton's transforms.
//  4. A mesh fitted on a sample (SampleVertices) runs 1-3 on the sample and
//     its refinement rounds as skeleton rounds on every vertex.
//
// Why the boxes: unconstrained, a joint between two bones whose relative
// motion is nearly a hinge slides along the hinge's axis, where the data
// barely holds it, out of the body: far from the joint its lever lets the
// child translate as a free bone does. On horse-gallop 3 of 19 joints lay
// more than a tenth of the diagonal outside the mesh's box (the farthest
// 0.148), on cat-poses one (0.161), for an RMSE 11% lower than with the
// boxes; an animator sees bones sticking out of the body. A stronger pull
// toward the hierarchy's joints instead cost more error everywhere (10⁻⁴:
// horse-gallop 1.24 times the free bones' RMSE) and left the cat's joint
// outside (its hierarchy joint was outside too). Why the tolerance: the
// rounds are block descent on coupled rotations, joints and weights, and
// creep (with the weights held, rotations and joints converge in a few
// rounds; the weights migrate slowly); at the alternation's 10⁻³ they
// stopped on horse-gallop at round 51 still falling 0.09% a round (1.215
// times the free bones' RMSE against 1.194 at 10⁻⁴).
//
// Deviations: the joint constraint is hard (a parametrisation), not a
// penalty; the paper's pruning of redundant bones is not built (B bones
// come back, a bone that moves nothing stays a joint); the hierarchy is
// inferred once, from the free bones, not revised. Options: Root or
// RootVertex choose the root; Locked bones keep the weights of the
// vertices they move; Given fits a user's skeleton (its hierarchy and
// joints kept; its weights, or each vertex's nearest bone, start the
// weights; two sweeps of the free transform step start the rotations).
//
// Figures (`gallop rig --skeleton --bones 20`, K = 4, the first frame as
// rest, 2026-12-02 on this 2-core machine, idle; every joint within the
// mesh's box, joint_outside_relative 0, on every set):
//
//	| set | skeleton RMSE / diagonal | free bones' | ratio | rounds in all | seconds |
//	|---|---|---|---|---|---|
//	| horse-gallop (8,431 v, 48 f) | 2.69e-3 | 2.25e-3 | 1.194 | 124 | 9.0 |
//	| cat-poses (7,207 v, 9 f) | 6.19e-3 | 5.09e-3 | 1.217 | 118 | 4.8 |
//	| lion-poses (5,000 v, 9 f) | 5.67e-3 | 5.03e-3 | 1.127 | 113 | 3.5 |
//	| horse-poses | 3.94e-3 | 3.46e-3 | 1.137 | 205 | 7.6 |
//	| RiggedFigure (Khronos, 19 bones) | 1.88e-3 | 1.85e-3 | 1.015 | 36 | 0.5 |
//	| pcow (elastic cow, 2,904 v, 204 f) | 8.91e-3 | 4.81e-3 | 1.854 | 125 | 11.4 |
//
// The elastic cow is the bad case: its squash and stretch is what free
// bones' translations carry and a skeleton's fixed lengths cannot. Bone
// lengths and joints hold to 4e-16 of the diagonal in every file written.
// On the cylinder the chain of four bones comes back with its joints within
// 1e-5 of the ground truth's and an RMSE of 2.9e-6 of the diagonal
// (TestSkeletonCylinder). Blender's importer reads the horse's file as one
// armature of 20 bones with one root and plays it to 2.2e-7 of the
// diagonal, three.js likewise; fitted to its own file's skeleton
// (--fit-to) the capture comes back with the same hierarchy, joints and
// names and an RMSE of 0.998 times (TestRigSkeleton in gallop/cli).
package ssdr
