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
//
// # The method as built
//
// `solver/ensemble` and `solver/ensemble/csp` follow Sections 2 to 4 of the
// paper. What the paper leaves open, or what these data needed, was decided
// as follows (the package comments have the equations):
//
//   - **Kinematics (§2.1).** A root group's frame is the best rigid fit of its
//     rest shape to each frame; a group sewn to its parent (the banner's flags)
//     takes its frame from the parent, as the paper's do: the rigid fit of the
//     parent's *patch* (the parent vertices it is sewn to and their one-ring,
//     not collinear like the flag's top row) from rest to the parent's pose; a
//     child that is not sewn has a frame of its own relative to its parent's.
//     One PCA basis per group over all frames of all levels, so that q is
//     comparable across levels. "SVD thresholded at 10⁻⁴" is read as relative
//     energy: the fewest singular vectors whose dropped singular values hold at
//     most 10⁻⁴ of ‖A‖²_F (1% relative RMS error). On the banner that keeps a
//     total rank of 1,713 of 6,456 coordinates (the paper's banner: 0.17 of its
//     coordinates); σ ≥ 10⁻⁴·σ₁ kept 5,099, mostly the data's rounding (five
//     significant digits).
//   - **Ranks that keep the data's speed (new).** Truncated at 10⁻⁴ alone, the
//     reconstruction of the banner's source frames moved a group up to 1.8%
//     further in a frame than the data ever does (a tighter threshold does not
//     cure it: 10⁻⁶, rank 4,001, still 0.05%), so a player bounded by the
//     model's source steps stepped 0.18% beyond the data's. Each group's rank
//     is therefore raised, one singular vector at a time, from the threshold's
//     until its reconstructed frames (before sewing) step no further than the
//     data's own largest step of that group; at full rank the reconstruction is
//     the data, so one always qualifies. The banner's total rank becomes 1,920,
//     and its reconstructed sources (with sewing) step at most 0.99996 of the
//     data's.
//   - **Costs (§2.2).** D_k of Eq. 3 with β = 0.1 s; groups with a frame of
//     their own add the same two terms for the frame (the image of the rest
//     centroid, the rotation times the group's RMS radius), because our frames
//     are fitted, not determined by q.
//   - **Blending.** q_k and an own frame blend linearly (rotation by slerp about
//     the rest centroid) over a blend of b_k frames centred on τ_k, where each
//     group's b_k is τ_blend = 10 or 2τ_blend = 20 frames, chosen by the solver
//     with its offset (a value of the CSP stands for an (offset, blend) pair;
//     Φ does not depend on the blend). A longer blend halves the speed a
//     group adds by changing source, which is what the step constraint below
//     bounds; on the reeds' strong wind, letting the solver choose it doubled
//     the loop-closing jumps found (30 instead of 15 of 48 programs). A
//     transition's frames are s = −H … H (H = τ_max + the longest blend / 2 =
//     40 frames), all groups on A at the first and on B at the last; its
//     start, landing and duration are those of the blends, not of the window.
//   - **Sewing (new).** A flag on source B hanging from a rope on source A parts
//     from it by up to 4 mm at its sewn vertices. Every pose therefore moves each
//     sewn vertex onto its partner, in the flag's frame, and the three rings
//     below follow by a harmonic falloff; the correction is linear in fixed
//     fields, which the compact glTF stores as morph targets. Sewn vertices
//     coincide to 4e-15 m in every frame played.
//   - **Constraints (§3, §4).** New interpenetrations only: a pair intersecting
//     in the transition pose and in neither source frame it blends (the
//     reconstructed a+s and b+s); triangle pairs sharing a sewn vertex touch by
//     design and are skipped. Kinematic cliques are the tree path between two
//     groups. Collision: per-group BVHs refitted per frame, a uniform grid over
//     the groups' boxes, the exact triangle test of `solver/collide`.
//   - **Step constraints (new, §3.4's "other boolean constraints").** A flag
//     already on B under a rope still on A moves by the rope's motion in A plus
//     its own in B, which never met in the data: without a constraint, 65 of 103
//     transitions of a banner graph moved some group up to 2.3 times further in
//     a frame than the data ever does. So each group k has a constraint (k, k),
//     its clique the group's path from the root: no vertex of it may move
//     further between two transition frames than between any two consecutive
//     source frames (of the model's reconstruction). The CSP treats it like a
//     contact.
//   - **The solver (§4).** As the pseudo-code, with these choices: the time-out
//     η·t_CD is counted in collision tests, not seconds, so a build is the same
//     on every run and machine (t_CD is still reported in seconds); every
//     answer of the collision oracle is memoised by the blend weights it
//     depends on; COMPUTE-MEMG-TRANSITION, whose listing is missing, takes its
//     candidates j best-first by Φ(0; i, j) over the local minima of Φ(0; i, ·)
//     (drawing ∝ 1/Φ, as first built, spent most programs on j's without a
//     feasible τ), runs at most N_samples programs with φ_cutoff = 0.97·φ_min
//     and keeps the lowest feasible φ; C = 2 when one group sits in the cliques
//     of most pairs (the rope), else 1.1. **The repair step is new:**
//     LOCAL-SEARCH walks for 3·t_CD of work, then a systematic search takes
//     over (`csp/repair.go`): depth-first with maintained arc consistency over
//     the contacts known so far, cluster by cluster, values cheapest first,
//     branch and bound on φ_cutoff. It either finds offsets that satisfy every
//     known contact, or proves there are none (the program is *infeasible*,
//     reported as such), where the walk could only time out. A constraint's
//     answers are remembered per pair of its clique's unset groups and the
//     values of the rest: a constraint of three or more groups (flags on a
//     rope, tassels on the flags) is asked about different pairs as the
//     search goes. Until issue 33 they were kept per constraint, and a
//     constraint asked about a second pair could read the first pair's
//     answers and call a feasible program infeasible (a 9-group tree of the
//     tests, `TestSatisfyTreesAgainstEnumeration`; of 10,800 random tree
//     programs of 6 to 12 groups, 6 answered infeasible that the search now
//     solves). `--walk` keeps the
//     paper's walk alone (η 10), for comparison.
//   - **The graph (§2.4).** Transitions leave every one-second interval of the
//     frames that can leave (H frames from either end), to elsewhere in the
//     level; each level's components (its largest strongly connected
//     component, per run of the level where a take holds it several times)
//     then get, from each half-second interval, transitions to every other
//     level's components. A leaving frame late enough to land at or before its
//     own start only jumps back (short levels have no loop otherwise), and its
//     blends are bounded so that the loop it closes is at least Interval/2^e
//     frames long (less in a short run, above). Each
//     (interval, target) task tries 4 leaving frames; one that found nothing
//     **searches harder** (twice: twice the leaving frames, N_samples and η each
//     time; between levels the first attempt keeps every blend within 2/3 s of
//     the transition's centre, so the wind changes soon, and a harder one lifts
//     that bound), within the **search effort** (`--effort`, 4: a task's
//     harder attempts stop once it has spent that many times its first
//     attempt's collision work; counted in work, so the build is the same on a
//     busy machine) and, if one is set, a **time cap** (`--budget` seconds).
//     The tasks run in rounds: every task's first attempt, then the harder
//     attempts of those that found nothing, so that a time cap never leaves a
//     task untried while another searches harder; under a cap, tasks within
//     levels search harder only in its first half (the rest is kept for the
//     tasks between levels), and tasks not begun when it is spent are skipped
//     and reported. Tasks run on both cores, interleaved by level, each on its
//     own random stream (stream = the task's number in the build, so the build
//     is the same in shards and on every run unless a time cap is reached). A
//     level without a loop is not an error: the graph is written, the level
//     plays its frames and cuts back to its first (Graph.Cut, a visible jump
//     the report names), and the player never gets stuck there.
//   - **Wind-change latency (new).** From each frame of a level's component,
//     the shortest time (in frames of play, at the data's rate) until the
//     player is in another level's component, directly or through the level
//     between: a reverse Dijkstra over the graph whose edges are "play the next
//     frame" and "take this transition" (which costs its duration). Reported
//     per pair of levels as the median and the worst over the frames of the
//     component (`latency_median_s`, `latency_worst_s`; −1 when unreachable).
//   - **The player.** Heads for the wind level it is given along the fastest
//     route of those distances (through the middle level when that is faster);
//     within its level it takes a transition where one starts with probability
//     1/4, and must where the next frame would leave the component (or cuts
//     back, in a level without a loop).
//
// **Why builds failed on data they were not built with** (issue 23; the
// reeds: 80 cloth blades touching their neighbours in every frame, three
// wind levels of 15 s). Profiled on the strong wind:
//
//   - *The walk times out on feasible programs.* Where blades touch in both
//     sources, a pair's feasible (τ_k, τ_l) form a narrow diagonal band
//     (τ_k − τ_l ≈ const: the two must switch together or pass through each
//     other), and touching blades chain such bands across the clump.
//     LOCAL-SEARCH moves one offset at a time to a value drawn ∝ 1/Φ_k and keeps
//     it only if fewer pairs are bad: it almost never lands in every band at
//     once, and stalls with one to three bad pairs until η runs out. Exact
//     search over the full pair tables solved the best-Φ(0) programs the walk
//     had timed out on with no backtracking once arc consistency carried the
//     bands along the chains (forward checking alone explored 2 million nodes
//     on one). That is the repair step above: on the reeds the timed-out
//     share fell from 48% of programs to under 1%.
//   - *Drawing j ∝ 1/Φ(0) mostly drew infeasible j's* among ~350 candidates;
//     best-first over the local minima finds the feasible ones first.
//   - *The step constraint is the binding one for loops.* A loop needs long
//     backward jumps (50–100 frames); with the data's own step bound none of 48
//     such programs was feasible, 19 without it, 16 with a tolerance of 1.5.
//     Per-group blend lengths (above) made the solver's slower blends available:
//     of another 48 loop-closing programs (jumps of 30 to 100 frames) the
//     feasible ones rose from 15 to 30.
//   - *Transitions between the reeds' levels do not exist as blends.* Each
//     level was simulated from rest on its own, and in a stronger wind some
//     blades lie bent across a neighbour on the other side from where they are
//     in the calmer one (blades 19 and 23, 1-based: 12 mm on one side of each
//     other through every frame of a calm window, 11 mm on the other through
//     the moderate one). A blend moves every vertex straight from one source
//     to the other, so such a pair passes through each other whatever the
//     offsets: measured calm → moderate, every one of 5 best-Φ(0) and 7
//     lowest-contact (i, j) pairs has 6 to 11 pairs of blades for which *no*
//     combination of their offsets and blend lengths avoids a new
//     interpenetration (τ_max 30; still 6 to 10 with τ_max 75 and blends of 20
//     and 40 frames); the synchronous blend of every (i, j) on a grid of every
//     10th calm frame and every moderate frame makes at least 11 new
//     interpenetrating pairs; moderate → strong and calm → strong are alike (9
//     and 7 such pairs, and 3 and 8 blades whose step bound no blend meets).
//     The build proves these programs infeasible (99.5% of the reeds'
//     between-level programs, the rest culled: below) and says so in its report; it does not loosen
//     the constraint. What would give such data wind changes is data or
//     physics, not search: a simulated clip of the wind rising from one level
//     to the next (recorded as a level of its own), or a transition that
//     resolves contacts by simulation.
//
// **Clips whose wind changes** (issue 33; `ensemble-reeds-ramp`: the same
// 80 reeds in one 25.5-s take whose wind goes 1 → 2 → 3 → 1 → 3 → 2 → 1,
// each level held 75 frames and changed over 40). The paper's data were
// driven by "a 1D input intensity time series"; here a clip is a folder of
// frames with a wind level per frame (File formats: `wind.csv`), and what
// the paper calls a level is a *wind level*: every frame at that whole
// level, in any clip. Built as follows (`solver/ensemble`: Dataset.WindAt,
// Model.LevelOf, Graph.Onward, Graph.Arrivals):
//
//   - A take's frames while the wind changes belong to no level: no transition
//     leaves or lands there, and they are played only on the way from one
//     level to another. A level's frames in a clip form *runs* (a steady clip
//     is one run; the ramp holds three runs of calm, two of moderate, two of
//     strong, and two single frames where the wind passes level 2).
//   - Phase 1 has a task per (one-second interval, run of the leaving frame's
//     level), so that a level's loop may span clips and runs: within a run,
//     at least MinJump (1 s) away and, late in the run, only back, closing a
//     loop of at least a second — or, where the run's frames that can leave
//     (H from either end of its clip) are fewer than twice both, a third and a
//     sixth of them: a take's 2.5-s hold has no room for a second's jump and a
//     second's loop, and its loops need jumps of 30 to 40 frames with blends
//     within ±7 to ±14 frames (the banner's and the steady reeds' levels are
//     long enough to keep the second); other runs from anywhere. Each harder attempt
//     halves both (below: why). A level's *components*: for each run of the
//     level, the strongly connected component of its frames (over every clip)
//     that holds most of the run's frames — a steady clip keeps its largest
//     loop, as the paper's graph does; a take that holds a level several
//     times keeps a loop in each stretch that has one, since on the reeds the
//     stretches of one level never join each other, and the wind can then
//     change from any of them.
//   - Phase 2 aims, from each half-second interval of a component, at each
//     other level in each clip that has it.
//   - Routes (Graph.Distances, the player): the next frame, transitions, and
//     on through a take's next frames out of a component, so that the wind can
//     change by playing the simulated frames; a change has *arrived* at the
//     first frame of the target level from which playing on stays at that
//     level until its component (Graph.Arrivals), and the latency counts to
//     there. A player asked for a level it cannot reach heads for the nearest
//     level it can (its own, in a component).
//   - The search is bounded by work, not time: a task's harder attempts stop
//     where it has spent `--effort` (4) times its first attempt's collision
//     work. A time cap (`--budget`) is optional; without one the build is the
//     same on a busy machine as on an idle one (tested: the banner's build
//     beside two threads that keep both cores busy gives the same graph).
//
// How to simulate a take in Blender is in the user guide's Ensemble page
// (docs/guide/ensemble.md).
//
// What the reeds showed. On 2026-11-29 the ramp's frames did not join the
// steady levels' by blends any more than the steady levels join each
// other: `gallop ensemble build R/wind-1 R/wind-2 R/wind-3 RR/ramp --budget
// 900` (903 s, 402 tasks, 4,512 programs, 80% proved infeasible) found loops
// in the three steady clips (components 262, 295 and 65 frames) and none
// into or out of the ramp's runs, and `gallop ensemble build RR/ramp` (575 s)
// a loop only at the moderate level. On 2026-12-01, with Program.Blockers
// (below) as the measure, every pair of the ramp's stretches was sampled
// (every third leaving frame of a stretch toward its three closest frames
// by Φ(0) in another; `c` calm, `m` moderate, `s` strong, numbered in the
// take's order 1 … 7: c1 m2 s3 c4 s5 m6 c7):
//
//   - between stretches of one level: every sampled transition c7→c4, c7→c1,
//     c4→c1 and m6→m2 is stopped by 1 to 10 pairs of blades whatever the
//     offsets (at best 2, 3, 1 and 5 pairs), and so are those between the
//     ramp and the steady clips (c7→wind-1, wind-1→c4, wind-3→s3; s5→wind-3
//     at best 1); only s5→s3 has transitions with no blocker (26 of 169);
//   - back between levels, into the end of the stretch before the wind rose:
//     s3→m2 (64 of 75 with no blocker), m6→s5 (65 of 75), c7→m6 (12 of 12),
//     c7→s5 (36 of 36), c7→s3 and m6→s3 (3 and 4 of 36 and 75); into a calm
//     or moderate stretch's middle, none;
//   - within a stretch, a back jump that closes a loop (its blends bounded so
//     that it lands before it starts) is feasible from 16 frames in calm and
//     moderate wind and from 24 to 30 in strong (3 of 3 sampled at 30).
//
// So loops exist in every stretch, but a loop of a second does not fit in a
// 2.5-s hold: the phase 1 tasks now ask a short run for a loop and a jump
// of a sixth and a third of its frames that can leave (12 and 25 frames
// in the middle stretches, 5 and 11 in the first and last, which can leave
// in 35 frames only), each stretch with
// a loop is a component of its level, and the graph keeps only the
// components that join every level (prune). `gallop ensemble build RR/ramp
// --json` (2026-12-01, 661 s, 96 tasks, 4,382 programs, 34 transitions, 0
// new interpenetrations): every level loops (components 75, 60 and 38
// frames over all seven stretches); from every frame of their loops,
// moderate reaches calm (median 5.9 s, worst 6.9) and strong reaches calm
// (2.75, 4.7) and moderate (9.1, 9.7); calm reaches moderate (median 6.2 s)
// and strong (2.9 s) and moderate reaches strong (2.85 s) from most frames,
// but not from the loop of the last calm stretch (9 of 75 frames: no blend
// leaves it) nor from the last moderate one's (23 of 60: it leads only into
// that calm stretch), as the report says, naming the blade pairs.
//
// A transition may land where the take itself arrives at its target level
// (Graph.Arrives: a frame of the level from which playing on stays there
// until its loop, as a strong stretch's frames before its loop), not only
// in the loop: that is where the latency already counted a change as
// arrived, and on the ramp the frames a blend can reach lie there (a loop
// of 9 to 37 frames in a 75-frame hold). `gallop ensemble build RR/ramp
// --check --json` (2026-12-02, 617 s, 588 s of it the build, 4,687
// programs): 67 transitions (34 before), 0 new interpenetrations by the
// exhaustive checker, every level loops; moderate → calm median 4.55 s,
// worst 6.3 (5.9, 6.9 before), moderate → strong median 2.35 s (2.85);
// the others as before, and the same two stretches stuck. Solving their
// programs directly (η = 1,000, a hundred times the build's; the closest
// frames by Φ(0), local minima, of every later-reachable stretch): from the
// last calm stretch's loop, into the last moderate stretch's end is
// feasible (c7 709 → m6 631) and every transition into the strong
// stretches (s5, 6 targets) or the earlier calm ones (c4, c1: 6) is
// stopped by a blocker or proved infeasible (one timed out); from the last
// moderate stretch's loop (m6 620, 630), every transition into s5 (11) is
// proved infeasible but one (timed out) and every one into s3, c4 and c1
// is blocked. So the take ends in two stretches from which no blend
// reaches strong wind: no search, however long, makes every pair of levels
// reachable from every frame on this take, and the acceptance of issue 33
// (within 5 s) is not met on it. What would meet it is data that returns
// to each level from each other more than once, with holds long enough for
// the stretches of one level to join (the report's remedy), or a
// transition that resolves contacts by simulation.
//
// **Say why** (`solver/ensemble/explain.go`: Program.Blockers, Explain;
// issue 33, item 4). After a build, for each ordered pair of wind levels
// (A, B) such that some frames of A's loop cannot reach B, Explain leaves
// from four of those frames (spread evenly over them), toward each one's
// two closest frames by Φ(0) (local minima along each clip) from which B is
// reachable, and asks each transition's integer program for its
// *blockers*: the constraints that are infeasible on their own. Of the
// pairs that newly interpenetrate (and the groups that move too fast)
// under the unconstrained minimum of Φ, a constraint whose clique has one
// or two groups (two reeds: both roots) is tried with every value of
// finite Φ of its groups; if none satisfies it, no offsets make the
// transition possible — a proof, as the search's arc consistency would
// find. Constraints with larger cliques (a flag beside another on a rope)
// are left out: alone they would be tested under the others' minimum, not
// proved. The report names the pairs by how many of the examined
// transitions each stops and gives the remedy: a clip in which the wind
// changes from A to B, or, where the clips already pass from A to B, a take
// that returns to each level more often. The examined transitions are a
// fixed few (at most 8 per pair, both cores), so the explanation takes
// seconds, is the same on every run, and is made also in a split build's
// merge; a graph read from a file has none (its build's figures were not
// kept). On the reeds' three steady levels (`gallop ensemble build R/wind-1
// R/wind-2 R/wind-3 --json`, tested with a search that finds nothing in
// `TestEnsembleUnreachable`), e.g.: "wind 2 → 1: no transition or clip leads
// from wind 2 to wind 1. 8 of the 8 closest transitions that would open a
// way are impossible whatever the time offsets: 11 pairs of groups lie on
// opposite sides of each other in the frames a blend would join (blade_004
// and blade_012, blade_016 and blade_072, blade_019 and blade_023, …), and
// a blend moves every vertex straight through the other; 3 groups would
// have to move faster than in any frame of the data (blade_022, blade_034,
// blade_039). Add a clip in which the wind changes from 2 to 1."
//
// **Tuning a build.** `--effort` first (more work: tasks search harder;
// the build stays reproducible whatever the machine); `--tries` (leaving frames per interval and target: more
// transitions, a denser graph, lower latency); `--samples` and `--eta`
// (programs per leaving frame, work per program: rarely the limit once
// programs are proved infeasible rather than timed out); `--step-tolerance`
// (a factor on the data's own largest step: 1.1–1.5 lets longer jumps close
// loops on violent data, at that much faster motion in the worst frame);
// `--tau-max` (longer asynchronous windows: more freedom, longer transitions
// and 2H + 1 more frames per transition). The report says per level whether
// it loops and, for each target with no transition, how its programs
// failed: mostly infeasible means the data rule it out, mostly timed out
// means more `--eta` or `--effort` may help.
//
// Measured on `ensemble-banner` (31 groups, 2,152 vertices, three levels of
// 210 frames) and `ensemble-reeds` (80 blades, 1,920 vertices, three levels
// of 450 frames); `gallop ensemble build wind-1 wind-2 wind-3 --check --json`
// with the defaults of then (seed 1, a time budget of 120 s: now `--budget
// 120`), 2026-11-26, on an otherwise idle
// 2-core machine:
//
//	| figure | banner | reeds |
//	|---|---|---|
//	| model (frames, PCA, ranks for the data's speed) | 3.2 s, total rank 1,920 | 1.7 s, total rank 1,870 |
//	| build (both cores) | 34.6 s, 197 transitions | 120 s (the budget: the 87 tasks of phase 2, between levels, skipped), 70 transitions |
//	| every level loops; components (frames per level) | yes; 72, 80, 82 | yes; 302, 182, 52 |
//	| one-second intervals served (to their level and both others) | 9 of 10 | 0 of 21 (no transition between levels, below) |
//	| wind-change latency, worst (median), seconds | 1→2 3.23 (1.23), 1→3 3.33 (1.38), 2→1 2.97 (1.47), 2→3 2.67 (1.38), 3→1 2.70 (1.43), 3→2 2.73 (1.37) | unreachable between levels |
//	| Table I: t_CD, nLocal, \|C\|, nWin/nIP, OK/Cull/TOut | 0.054 s, 1,029, 13.6, 225/726, 0.37/0.55/0.02 | 0.091 s, 2,618, 25.9, 116/778, 0.25/0.44/0.003 (the rest proved infeasible) |
//	| mean Φ: accepted asynchronous / synchronous Φ(0) of the same pairs | 35.8 / 39.2 | 1.09 / 2.26 |
//	| new interpenetrating pairs per transition, unconstrained minimum of Φ (exhaustive checker) | 11.6 (the paper's banner: 81) | 17.6 |
//	| new interpenetrating pairs after the solver, all transitions (exhaustive checker) | 0 | 0 |
//	| 10 minutes played, wind 1 → 3 → 2 every 20 s (`play --seconds 600 --wind 1,3,2`) | 280 transitions, every level reached, largest step 1.000 of the model's sources and 0.99996 of the raw data's, sewn gap 4.3e-15 m, 0.35 ms a frame on one core | 258 transitions, levels 2 and 3 not reached, largest step 0.50 of the sources' |
//	| 60 s exported as OBJ frames, every frame checked (`play --seconds 60 --out DIR/ --check`) | 0 frames with a new interpenetrating pair | 0 |
//	| 60 s exported (`play --seconds 60 --out OUT.glb`) | compact 22.8 MB, plain per-frame morph export 60.1 MB; validator 0 errors, 0 warnings | |
//
// The budget is wall-clock time, so the reeds' graph depends on the
// machine: on the slower Intel machine of 2026-11-29 the same command
// (131.6 s) skipped 145 tasks, found 53 transitions and no loop in the
// strong wind (it plays its 450 frames and cuts back); the previous release
// on the same machine gave the same figures (53 transitions, the same
// components, 458 programs, the same mean nLocal to the last digit), so the
// repair step's fix (issue 33) changes nothing here. Builds are now bounded
// by work (`--effort`), not seconds, by default. The banner with today's
// defaults on the slower machine (2026-11-29; previous release beside it):
// 61.3 s (61.0), 219 transitions (197), components 82, 97, 95 frames (72, 80,
// 82), 11 of 12 intervals served (9 of 10), worst latency 1→2 3.33 s
// (3.23), 1→3 3.33 (3.33), 2→1 2.97 (2.97), 2→3 2.67 (2.67), 3→1 2.70
// (2.70), 3→2 2.73 (2.73), 0 new interpenetrations: the larger loop of level
// 1 (runs may now be left backward from a second after their start, where
// the earlier rule waited 2H + 1 frames) puts its farthest frame 3 frames
// further from the transitions toward level 2.
//
// The mean Φ is higher than the first build's (17.1 / 38.4) because of the
// reach bound between levels: within levels the solver's offsets still
// cost 0.38-0.69 of Φ(0), but a transition between levels whose blends must
// all lie within 2/3 s of its centre keeps 0.93 of Φ(0) (0.45 with the whole
// window of ±35 frames); that is the price of a wind change that completes
// within about 1.3 s. The banner's worst latencies before this build (one-second intervals, one
// blend length, the walk alone, the player taking the first transition
// toward its level) were 4.2 to 7.0 s, with 3 of 9 intervals unserved. On
// the reeds, a build with a softer budget (`--budget 400`: 404 s, 108 of
// the 126 tasks begun) found, of the 1,180 programs between levels, 99.5%
// proved infeasible (the rest culled), none timed out and none a
// transition — the side-swapped blades described above. (Re-measured on
// 2026-11-29 after the repair step's memo was fixed, see the method: the
// figure before, 99.7% of 1,520 programs, was measured with the memo that
// could call a feasible program infeasible; the fix changes no conclusion
// on the reeds.) A level where no loop is found (forced with `--eta 1e-9
// --tries 1 --samples 1` on the reeds: levels 2 and 3) is reported in the
// JSON's `level_reports` and the build exits 0; the graph plays, those
// levels cutting back to their first frame.
//
// The Ensemble tool in the window has the groups coloured, the build with
// its progress per level, live plot and Table I, the level reports and the
// latency table, the wind slider with the blending groups highlighted, the
// comparison of τ = 0, the unconstrained minimum and the CSP's answer with
// the new interpenetrating pairs red, and the exports.
package ensemble
