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
package ssdr
