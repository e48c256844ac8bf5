package ensemble

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// Poser poses a Model: source frames and the frames of asynchronous
// transitions. It keeps its scratch memory from call to call, so posing
// allocates nothing once dst has the ensemble's size. A Poser is not safe
// for concurrent use; make one per goroutine.
type Poser struct {
	m      *Model
	world  []Rigid        // each group's world frame at the last pose
	sewing [][]mgl64.Vec3 // each group's sewing corrections at the last pose
	coords [][]float64    // each group's coordinates q_k at the last pose
	q      []float64      // scratch: blended coordinates
}

// NewPoser returns a Poser of m.
func (m *Model) NewPoser() *Poser {
	maxRank := 0
	for k := range m.groups {
		maxRank = max(maxRank, m.groups[k].Rank)
	}
	p := &Poser{m: m, world: make([]Rigid, len(m.groups)), sewing: make([][]mgl64.Vec3, len(m.groups)), q: make([]float64, maxRank)}
	p.coords = make([][]float64, len(m.groups))
	for k := range m.groups {
		p.sewing[k] = make([]mgl64.Vec3, len(m.groups[k].SewVertex))
		p.coords[k] = make([]float64, m.groups[k].Rank)
	}
	return p
}

// Coordinates returns group k's coordinates q_k at the last pose (blended
// in a transition): the weights of Model.Basis. The slice is the Poser's
// and changes with the next pose.
func (p *Poser) Coordinates(k int) []float64 { return p.coords[k] }

// World returns group k's world frame T_Wk at the last pose.
func (p *Poser) World(k int) Rigid { return p.world[k] }

// Sewing returns group k's sewing corrections at the last pose, one per
// attachment in the group's frame: the weights of Model.SewingBasis (the
// x, y, z of attachment a weigh fields 3a, 3a+1, 3a+2). The slice is the
// Poser's and changes with the next pose.
func (p *Poser) Sewing(k int) []mgl64.Vec3 { return p.sewing[k] }

// Pose writes the reconstruction of source frame s into dst, every
// vertex in ensemble order: group by group, parents first, positions
// T_Wk(p_k + U_k q_k(s)) (Eq. 2). dst is grown if too short; the result is
// returned.
func (p *Poser) Pose(dst []mgl64.Vec3, s State) []mgl64.Vec3 {
	i := p.m.index(s)
	dst = p.grow(dst)
	for _, k := range p.m.order {
		g := &p.m.groups[k]
		pw, px := p.parent(k, dst)
		p.world[k] = p.poseGroup(k, i, i, 0, pw, px, dst[g.First:g.First+g.Count])
	}
	return dst
}

// parent returns the world frame and positions of group k's parent (nil
// for a root) at the current pose, whose positions are all.
func (p *Poser) parent(k int, all []mgl64.Vec3) (*Rigid, []mgl64.Vec3) {
	g := &p.m.groups[k]
	if g.Parent < 0 {
		return nil, nil
	}
	pg := &p.m.groups[g.Parent]
	return &p.world[g.Parent], all[pg.First : pg.First+pg.Count]
}

// Transition writes frame s of the transition from source a to source b
// with offsets tau and blend lengths blend (one per group; nil: τ_blend
// for every group) into dst: group k shows source A at a+s blended toward
// source B at b+s with weight w_k = Weight(s, τ_k, b_k),
// its coordinates q_k(s) = (1−w_k)q_k(a+s) + w_k q_k(b+s) and its frame
// from the hierarchy, parents first (see the package documentation). The
// frames of a and b that a weight needs must exist (for |s| ≤ Margin()
// and sources for which CanTransition holds they do); Transition panics
// otherwise. dst is grown if too short; the result is returned.
func (p *Poser) Transition(dst []mgl64.Vec3, a, b State, tau, blend []int, s int) []mgl64.Vec3 {
	m := p.m
	if len(tau) != len(m.groups) || blend != nil && len(blend) != len(m.groups) {
		panic(fmt.Sprintf("ensemble: %d offsets and %d blends for %d groups", len(tau), len(blend), len(m.groups)))
	}
	dst = p.grow(dst)
	for _, k := range m.order {
		g := &m.groups[k]
		w := m.Weight(s, tau[k], m.blendOf(blend, k))
		ia, ib := m.shifted(a, s, w < 1), m.shifted(b, s, w > 0)
		pw, px := p.parent(k, dst)
		p.world[k] = p.poseGroup(k, ia, ib, w, pw, px, dst[g.First:g.First+g.Count])
	}
	return dst
}

// shifted returns the state index of s.Frame + ds in s's level, when
// needed; −1 when not needed. It panics when a needed frame is missing.
func (m *Model) shifted(s State, ds int, needed bool) int {
	if !needed {
		return -1
	}
	return m.index(State{s.Level, s.Frame + ds})
}

func (p *Poser) grow(dst []mgl64.Vec3) []mgl64.Vec3 {
	n := len(p.m.data.Rest)
	if cap(dst) < n {
		dst = make([]mgl64.Vec3, n)
	}
	return dst[:n]
}

// poseGroup writes group k blended from state index a toward state index
// b with weight w (only a is read at w = 0, only b at w = 1) into x, its
// Count positions, and returns its world frame. pw and px are the posed
// parent's world frame and positions (unused for a root).
func (p *Poser) poseGroup(k, a, b int, w float64, pw *Rigid, px, x []mgl64.Vec3) Rigid {
	m := p.m
	g := &m.groups[k]
	q := p.blendQ(g, a, b, w)
	copy(p.coords[k], q)

	var world Rigid
	switch {
	case g.Own:
		var fa, fb *Rigid
		if w < 1 {
			fa = &g.frames[a].Rigid
		}
		if w > 0 {
			fb = &g.frames[b].Rigid
		}
		if fa == nil {
			fa = fb
		} else if fb == nil {
			fb = fa
		}
		world = blendRigid(fa, fb, g.Centroid, w)
		if g.Parent >= 0 {
			world = pw.Compose(world)
		}
	default:
		var sums rotation.RigidSums
		for n, v := range g.Patch {
			sums.Add(1, px[v], g.PatchRest[n])
		}
		world.R, world.T, _ = sums.Fit()
	}
	for v := range g.Rest {
		x[v] = g.local(v, q)
	}
	if len(g.Sew) > 0 {
		g.sewTo(x, &world, px, p.sewing[k])
	}
	for v := range x {
		x[v] = world.Apply(x[v])
	}
	return world
}

// blendQ returns (1−w)q(a) + w q(b) for group g (q(a) itself at w = 0,
// q(b) at w = 1).
func (p *Poser) blendQ(g *groupModel, a, b int, w float64) []float64 {
	r := g.Rank
	switch w {
	case 0:
		return g.Q[a*r : (a+1)*r]
	case 1:
		return g.Q[b*r : (b+1)*r]
	}
	qa, qb := g.Q[a*r:(a+1)*r], g.Q[b*r:(b+1)*r]
	q := p.q[:r]
	for c := range q {
		q[c] = (1-w)*qa[c] + w*qb[c]
	}
	return q
}

// local returns p_k + U_k q at group-local vertex v: its position in the
// group's frame.
func (g *groupModel) local(v int, q []float64) mgl64.Vec3 {
	r := len(q)
	row := g.Basis[3*v*r : 3*(v+1)*r]
	p := g.Rest[v]
	ux, uy, uz := p[0], p[1], p[2]
	for c, qc := range q {
		u := row[3*c : 3*c+3 : 3*c+3]
		ux += u[0] * qc
		uy += u[1] * qc
		uz += u[2] * qc
	}
	return mgl64.Vec3{ux, uy, uz}
}

// SewnGap returns the largest distance between a sewn vertex and the
// parent vertex it is sewn to in the ensemble positions x: 0 in the source
// data, and rounding in every pose (the Poser sews them; see the package
// documentation).
func (m *Model) SewnGap(x []mgl64.Vec3) float64 {
	gap := 0.0
	for k, g := range m.data.Groups {
		if len(g.Attach) == 0 {
			continue
		}
		pg := m.data.Groups[m.groups[k].Parent]
		for _, at := range g.Attach {
			gap = max(gap, x[g.First+at.Vertex].Sub(x[pg.First+at.ParentVertex]).Len())
		}
	}
	return gap
}
