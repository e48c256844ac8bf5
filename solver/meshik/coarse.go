package meshik

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/decimate"
)

// Two-level drags (Gallop's; the paper solves the whole mesh every
// iteration, and names large meshes among its open problems, §7).
//
// The weights of the example blend are few and smooth in what they do:
// the same examples, handles and targets on a coarser mesh of the same
// surface ask for nearly the same blend. A Coarse is a Solver on a
// simplified mesh (package decimate: a subset of the full mesh's
// vertices, so the examples restrict to it without resampling). During a
// drag each update takes one Gauss-Newton iteration there, then gives its
// example weights to the full solver and places the full mesh at the best
// positions for them with the handles exact (Solver.Place: M(w) and one
// three-column solve, no weight system). When the coarse solve settles
// (the drag paused or ended), the full solver's own iterations finish from
// that pose to the paper's solution.
//
// The handles map to the coarse vertices that stand for them (decimate's
// owners); a coarse handle's target is the mean target of the full
// handles it stands for plus its offset from their mean in the pose at
// the last Sync, so that a handle moved by d moves its stand-in by d. A
// coarse triangle is frozen when its three vertices lie on frozen full
// triangles.
//
// Handles that turn with the pose (SetRotating) have stand-ins that turn:
// the stand-ins of a full group's vertices (those standing for that
// group's vertices only) form a coarse rotating group, which the coarse
// blend turns as the full blend turns the full group, and Place turns the
// full groups for the coarse weights. It needs the turn in the step
// (turnJacobian): before, three designs failed on horse-gallop subdivided
// once with a hoof and the muzzle turning (stand-ins held to the unturned
// shape: previews 3-8% of the diagonal off, the full solve that followed
// diverging in a second version; one free stand-in per group: another
// minimum, the turn converging at 0.95 per iteration; coarse groups:
// diverged). Now, held at frame 48 and the muzzle dragged up or forward by
// a tenth of the diagonal, the settled preview is 0.31% / 1.2% (rms) and
// 1.1% / 4.8% (farthest vertex) of the diagonal from the full solve, which
// finishes in 10 / 13 iterations at the minimum the same drag reaches at
// full size. Held at the rest pose, far from every frame, the two routes
// end in different local minima, neither lower throughout (objective
// 85.4 through the coarse level against 114.3 at full size after the
// first of ten steps, 431.1 against 373.5 after the last): far from the
// examples the pose a drag ends in depends on its path, at full size as
// well.
//
// Measured, the settled preview against the full solve that finishes it,
// over the bounding box's diagonal (rms; farthest vertex): horse-gallop
// subdivided twice (134,782 vertices) with frames 1-47 as examples, 10
// farthest-point handles held at frame 48, one pulled by a tenth of the
// diagonal, 4.1·10⁻³ (1.9·10⁻²); pcow subdivided twice, the same,
// 2.3·10⁻³ (9.3·10⁻³); pcow subdivided once, 2,000 coarse vertices
// (TestCoarseDrag), 3.6·10⁻³ (1.2·10⁻²). The drag update on the first:
// 62-86 ms, against 174-229 ms at full size (gallop bench --scale).
type Coarse struct {
	s     *Solver
	kept  []int // full index of each coarse vertex
	owner []int // per full vertex, the coarse vertex standing for it
	tris  [][3]int

	// Set by Sync: the full handles it was made for, the coarse handles
	// (sorted), for each coarse handle the full handles it stands for
	// (indices into handles), and its offset from their mean.
	handles []int
	stand   [][]int
	offset  []mgl64.Vec3
	synced  bool
	// targets are the coarse targets last set: unchanged targets are not
	// set again, which would restart the convergence tests.
	targets []mgl64.Vec3
}

// CoarseAbove is the number of vertices from which the Pose tool drags
// through a Coarse, and CoarseVertices the size of its mesh: horse-gallop's
// own size, whose iteration with 47 examples takes 7-15 ms.
const (
	CoarseAbove    = 30000
	CoarseVertices = 8000
)

// NewCoarse builds a Solver on r, a simplification of the mesh of
// reference (decimate.Simplify, to about CoarseVertices vertices), with
// the examples restricted to its vertices and the same options.
func NewCoarse(ctx context.Context, r *decimate.Result, reference []mgl64.Vec3, triangles [][3]int, examples [][]mgl64.Vec3, opts Options) (*Coarse, error) {
	if len(r.Owner) != len(reference) {
		return nil, fmt.Errorf("meshik: a simplification of %d vertices for a mesh of %d", len(r.Owner), len(reference))
	}
	restrict := func(p []mgl64.Vec3) []mgl64.Vec3 {
		out := make([]mgl64.Vec3, len(r.Kept))
		for i, u := range r.Kept {
			out[i] = p[u]
		}
		return out
	}
	ex := make([][]mgl64.Vec3, len(examples))
	for i, e := range examples {
		if len(e) != len(reference) {
			return nil, fmt.Errorf("example %d has %d vertices, the reference %d", i, len(e), len(reference))
		}
		ex[i] = restrict(e)
	}
	opts.TriangleWeights = standFor(r, triangles)
	s, err := NewContext(ctx, restrict(reference), r.Triangles, ex, opts)
	if err != nil {
		return nil, fmt.Errorf("meshik: the coarse level: %w", err)
	}
	return &Coarse{s: s, kept: r.Kept, owner: r.Owner, tris: r.Triangles}, nil
}

// standFor returns, per coarse triangle, how many of the full mesh's
// triangles (full) it stands for: each full triangle gives a third to the
// owner of each corner, and each coarse vertex shares what it got equally
// among its coarse triangles. The weights sum to the full triangles'
// number.
func standFor(r *decimate.Result, full [][3]int) []float64 {
	got := make([]float64, len(r.Kept))
	for _, t := range full {
		for _, u := range t {
			if o := r.Owner[u]; o >= 0 {
				got[o] += 1.0 / 3
			}
		}
	}
	deg := make([]int, len(r.Kept))
	for _, t := range r.Triangles {
		for _, a := range t {
			deg[a]++
		}
	}
	w := make([]float64, len(r.Triangles))
	for j, t := range r.Triangles {
		for _, a := range t {
			w[j] += got[a] / float64(deg[a])
		}
	}
	return w
}

// Vertices returns the number of the coarse mesh's vertices.
func (c *Coarse) Vertices() int { return len(c.kept) }

// Invalidate asks for a Sync before the next Step: after anything but new
// targets changed the full solver (handles, frozen triangles, prior,
// weights set or fitted, a finished solve whose pose the offsets should
// follow).
func (c *Coarse) Invalidate() { c.synced = false }

// SetPrior sets the coarse solver's prior (Solver.SetPrior).
func (c *Coarse) SetPrior(k float64) error { return c.s.SetPrior(k) }

// Sync sets the coarse solver up from the full one: its pose and example
// weights, the handles' stand-ins and their offsets, the frozen triangles
// (frozen, in the caller's numbering of the full triangles) and the
// rotating groups: the stand-ins of a full group's vertices, those that
// stand for that group's vertices only, turn as a coarse group.
func (c *Coarse) Sync(full *Solver, frozen []int, fullTriangles [][3]int) error {
	c.synced = false
	x := full.x[:full.n]
	pos := make([]mgl64.Vec3, len(c.kept))
	for i, u := range c.kept {
		pos[i] = x[u]
	}
	if err := c.s.SetPositions(pos); err != nil {
		return err
	}
	c.handles = slices.Clone(full.handle)
	byRep := map[int][]int{}
	for i, h := range c.handles {
		byRep[c.owner[h]] = append(byRep[c.owner[h]], i)
	}
	reps := make([]int, 0, len(byRep))
	for r := range byRep {
		reps = append(reps, r)
	}
	slices.Sort(reps)
	c.stand = make([][]int, len(reps))
	c.offset = make([]mgl64.Vec3, len(reps))
	for k, r := range reps {
		c.stand[k] = byRep[r]
		c.offset[k] = pos[r].Sub(c.mean(full.goal, c.stand[k]))
	}
	if err := c.s.SetHandles(reps); err != nil {
		return err
	}
	onFrozen := make([]bool, full.n)
	for _, j := range frozen {
		if j < 0 || j >= len(fullTriangles) {
			return fmt.Errorf("frozen triangle %d does not exist", j)
		}
		for _, u := range fullTriangles[j] {
			onFrozen[u] = true
		}
	}
	var cf []int
	for j, t := range c.tris {
		if onFrozen[c.kept[t[0]]] && onFrozen[c.kept[t[1]]] && onFrozen[c.kept[t[2]]] {
			cf = append(cf, j)
		}
	}
	if err := c.s.SetFrozen(cf); err != nil {
		return err
	}
	if err := c.s.SetExampleWeights(full.ExampleWeights()); err != nil {
		return err
	}
	c.targets = c.standTargets(full)
	if err := c.s.SetTargets(c.targets); err != nil {
		return err
	}
	if err := c.s.SetRotating(c.standGroups(full, reps)); err != nil {
		return err
	}
	c.synced = true
	return nil
}

// standGroups returns the coarse rotating groups for the full solver's:
// per full group, the stand-ins (coarse vertices reps[k]) whose full
// handles all lie in that group, where there are two or more.
func (c *Coarse) standGroups(full *Solver, reps []int) [][]int {
	if len(full.groups) == 0 {
		return nil
	}
	in := make(map[int]int, len(full.handle))
	for gi, g := range full.groups {
		for _, v := range g.verts {
			in[v] = gi
		}
	}
	members := make([][]int, len(full.groups))
	for k, r := range reps {
		gi := -1
		for _, i := range c.stand[k] {
			g, ok := in[c.handles[i]]
			if !ok || (gi >= 0 && g != gi) {
				gi = -1
				break
			}
			gi = g
		}
		if gi >= 0 {
			members[gi] = append(members[gi], r)
		}
	}
	var groups [][]int
	for _, m := range members {
		if len(m) >= 2 {
			groups = append(groups, m)
		}
	}
	return groups
}

// standTargets returns the coarse handles' targets for the full solver's:
// each stand-in at the mean target of the full handles it stands for plus
// its offset.
func (c *Coarse) standTargets(full *Solver) []mgl64.Vec3 {
	targets := make([]mgl64.Vec3, len(c.stand))
	for k, idx := range c.stand {
		targets[k] = c.mean(full.goal, idx).Add(c.offset[k])
	}
	return targets
}

// mean returns the mean of p over the full handles handles[i], i in idx.
func (c *Coarse) mean(p []mgl64.Vec3, idx []int) mgl64.Vec3 {
	var sum mgl64.Vec3
	for _, i := range idx {
		sum = sum.Add(p[c.handles[i]])
	}
	return sum.Mul(1 / float64(len(idx)))
}

// ErrCoarseStale is Step's report that the Coarse needs a Sync first.
var ErrCoarseStale = errors.New("meshik: the coarse level is not set up for these handles (Sync)")

// Step takes one Gauss-Newton iteration of the coarse solver for the full
// solver's targets, gives its example weights to the full solver and
// places the full mesh there (Place). It returns the coarse iteration's
// Stats: Converged means the coarse solve has settled for these targets,
// and the full solver's own iterations should finish.
func (c *Coarse) Step(full *Solver) (Stats, error) {
	if !c.synced || !slices.Equal(c.handles, full.handle) {
		return Stats{}, ErrCoarseStale
	}
	targets := c.standTargets(full)
	if !slices.Equal(targets, c.targets) {
		if err := c.s.SetTargets(targets); err != nil {
			return Stats{}, err
		}
		c.targets = targets
	}
	st, err := c.s.Iterate()
	if err != nil {
		return st, err
	}
	if err := full.SetExampleWeights(c.s.ExampleWeights()); err != nil {
		return st, err
	}
	return st, full.Place()
}
