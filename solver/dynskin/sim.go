package dynskin

import (
	"fmt"
	"math"
	"math/bits"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/parallel"
	"gallop/solver/rotation"
)

// Goal is the skeletal animation that drives a model: per frame the goal
// positions x̂ (linear blend skinning) and every bone's segment, at FPS
// frames per second.
type Goal struct {
	FPS       float64
	Positions [][]mgl64.Vec3 // #frames × #vertices
	Bones     [][]Segment    // #frames × #bones
}

// NumFrames returns the number of frames.
func (g *Goal) NumFrames() int { return len(g.Positions) }

// Check reports what makes g unfit to drive m: a frame rate that is not
// positive, fewer than 2 frames, frames of the wrong size or non-finite
// positions, naming the frame and vertex.
func (g *Goal) Check(m *Model) error {
	if !(g.FPS > 0) || math.IsInf(g.FPS, 0) {
		return fmt.Errorf("goal frame rate %v is not a positive number", g.FPS)
	}
	if len(g.Positions) < 2 {
		return fmt.Errorf("the goal has %d frames, at least 2 are needed", len(g.Positions))
	}
	if len(g.Bones) != len(g.Positions) {
		return fmt.Errorf("the goal has %d frames of positions and %d of bones", len(g.Positions), len(g.Bones))
	}
	for f, x := range g.Positions {
		if len(x) != m.n {
			return fmt.Errorf("goal frame %d has %d vertices, the model %d", f, len(x), m.n)
		}
		if len(g.Bones[f]) != m.bones {
			return fmt.Errorf("goal frame %d has %d bones, the model %d", f, len(g.Bones[f]), m.bones)
		}
		for i, p := range x {
			if !finite.Vec3(p) {
				return fmt.Errorf("goal frame %d, vertex %d: non-finite position %v", f, i, p)
			}
		}
	}
	return nil
}

// Options are the simulation's settings.
type Options struct {
	// Substeps is the number of steps per frame of the goal (0 means 1,
	// the paper's choice): h = 1/(FPS·Substeps).
	Substeps int
	// Gravity is an external acceleration applied to every vertex, in
	// model units per second²; zero (off) by default.
	Gravity mgl64.Vec3
}

func (o Options) substeps() int { return max(1, o.Substeps) }

// State is the simulation's state between steps: positions, velocities
// and, per vertex, the rotation of its 1-ring as a unit quaternion (the
// next step's warm start for rotation.Refine).
type State struct {
	X, V []mgl64.Vec3
	Q    []mgl64.Quat
}

// Clone returns a deep copy.
func (s State) Clone() State {
	return State{X: append([]mgl64.Vec3(nil), s.X...), V: append([]mgl64.Vec3(nil), s.V...), Q: append([]mgl64.Quat(nil), s.Q...)}
}

// node is one vertex's position x and velocity v side by side, the
// layout the step keeps its state in: a ring's sums read both of every
// neighbour, which then share a cache line (or two adjacent ones) instead
// of coming from two arrays.
type node struct{ x, v [3]float64 }

// simState is the state in the step's layout: nodes and ring rotations,
// in the model's slots.
type simState struct {
	n []node
	q []mgl64.Quat
}

// BlowUpFactor: a vertex farther than this many rest diagonals from its
// goal stops the simulation.
const BlowUpFactor = 100

// chunk is the number of vertices per parallel work item.
const chunk = 256

// BlowUpError reports a simulation that left the model's range: a
// non-finite position or a vertex more than BlowUpFactor diagonals from
// its goal.
type BlowUpError struct {
	Frame, Vertex int
	Position      mgl64.Vec3
}

func (e *BlowUpError) Error() string {
	return fmt.Sprintf("the simulation blew up at frame %d, vertex %d (position %v, more than %d rest diagonals from its goal or not finite): lower the parameters there or add substeps", e.Frame, e.Vertex, e.Position, BlowUpFactor)
}

// Sim steps a model driven by a goal. It is not safe for concurrent use;
// its steps use every core (internal/parallel).
type Sim struct {
	m      *Model
	p      []Material // per slot, what the simulation runs: Material.Effective of the parameters given
	opts   Options
	fps, h float64

	// goal drives the model; slots[f] is its frame f in the model's
	// slots, made on the frame's first use (a step reading the goal in
	// the mesh's order, scattered over memory in the slots' order, took
	// a third of its time).
	goal  *Goal
	slots [][]mgl64.Vec3

	cur, nxt simState
	frame    int          // the goal frame cur is at
	pos      []mgl64.Vec3 // cur's positions for Positions, when posOK
	posOK    bool

	// Per step: the goal interpolated between two frames, in slots.
	g0, g1 []mgl64.Vec3
	u, un  float64 // interpolation fractions of this step's start and end
	segs   []preparedSegment

	pokeOn     bool
	pokeSlot   int
	pokeTarget mgl64.Vec3

	bad []int32 // per chunk: the first blown-up slot, or -1

	// fit, when not nil, receives each slot's least-squares sums on the
	// last step into a frame, against the example frame fitTarget (in
	// slots).
	fit       []qpSums
	fitTarget []mgl64.Vec3
}

// NewSim returns a simulation of m with parameters p, driven by goal g
// (Goal.Check), which must not change while the simulation uses it.
func NewSim(m *Model, p []Material, g *Goal, opts Options) (*Sim, error) {
	if err := g.Check(m); err != nil {
		return nil, err
	}
	fps := g.FPS
	if opts.Substeps < 0 || opts.Substeps > 1000 {
		return nil, fmt.Errorf("%d substeps: want 1 to 1000", opts.Substeps)
	}
	if !finite.Vec3(opts.Gravity) {
		return nil, fmt.Errorf("non-finite gravity %v", opts.Gravity)
	}
	s := &Sim{m: m, p: make([]Material, m.n), opts: opts, fps: fps, h: 1 / (fps * float64(opts.substeps())), goal: g, slots: make([][]mgl64.Vec3, g.NumFrames())}
	if err := s.SetParams(p); err != nil {
		return nil, err
	}
	for _, st := range []*simState{&s.cur, &s.nxt} {
		*st = simState{n: make([]node, m.n), q: make([]mgl64.Quat, m.n)}
	}
	s.pos = make([]mgl64.Vec3, m.n)
	s.segs = make([]preparedSegment, m.bones)
	s.bad = make([]int32, (m.n+chunk-1)/chunk)
	return s, nil
}

// SetParams replaces the parameters: each must lie in its range
// (CheckParams); the simulation runs their Material.Effective.
func (s *Sim) SetParams(p []Material) error {
	if err := CheckParams(p, s.m.n); err != nil {
		return err
	}
	for k, i := range s.m.perm {
		s.p[k] = p[i].Effective()
	}
	return nil
}

// slotted returns goal frame f in the model's slots.
func (s *Sim) slotted(f int) []mgl64.Vec3 {
	if s.slots[f] == nil {
		s.slots[f] = s.m.toSlots(s.goal.Positions[f])
	}
	return s.slots[f]
}

// Start puts the mesh on goal frame f with the goal's velocity towards
// frame f+1, (x̂(f+1) − x̂(f))·FPS (at rest on the last frame), and each
// 1-ring's rotation from the polar decomposition.
func (s *Sim) Start(f int) {
	g0, g1 := s.slotted(f), s.slotted(min(f+1, s.goal.NumFrames()-1))
	for k := range s.cur.n {
		s.cur.n[k] = node{x: g0[k], v: g1[k].Sub(g0[k]).Mul(s.fps)}
	}
	parallel.For((s.m.n+chunk-1)/chunk, func(c int) {
		var r ringSums
		for i := c * chunk; i < min(s.m.n, (c+1)*chunk); i++ {
			s.m.ringSums(&r, i, s.cur.n)
			rot, _ := rotation.Polar(r.a)
			s.cur.q[i] = mgl64.Mat4ToQuat(rot.Mat4()).Normalize()
		}
	})
	s.frame, s.posOK = f, false
}

// State returns a copy of the state, for restarting from it.
func (s *Sim) State() State {
	st := State{X: make([]mgl64.Vec3, s.m.n), V: make([]mgl64.Vec3, s.m.n), Q: make([]mgl64.Quat, s.m.n)}
	for k, i := range s.m.perm {
		st.X[i], st.V[i], st.Q[i] = s.cur.n[k].x, s.cur.n[k].v, s.cur.q[k]
	}
	return st
}

// SetState restores a state State returned at goal frame `frame`.
func (s *Sim) SetState(frame int, st State) {
	for k, i := range s.m.perm {
		s.cur.n[k], s.cur.q[k] = node{x: st.X[i], v: st.V[i]}, st.Q[i]
	}
	s.frame, s.posOK = frame, false
}

// Frame returns the goal frame the state is at.
func (s *Sim) Frame() int { return s.frame }

// Positions returns the current positions (shared; valid until the next
// step).
func (s *Sim) Positions() []mgl64.Vec3 {
	if !s.posOK {
		for k, i := range s.m.perm {
			s.pos[i] = s.cur.n[k].x
		}
		s.posOK = true
	}
	return s.pos
}

// SetPoke pulls vertex v towards target with the full goal-force strength
// ((target − x)/h², the paper's Figure 6c drag) until ClearPoke; the rest
// of the mesh follows through the same forces.
func (s *Sim) SetPoke(v int, target mgl64.Vec3) {
	if v >= 0 && v < s.m.n && finite.Vec3(target) {
		s.pokeOn, s.pokeSlot, s.pokeTarget = true, int(s.m.at[v]), target
	}
}

// ClearPoke releases the poked vertex.
func (s *Sim) ClearPoke() { s.pokeOn = false }

// Advance steps from the goal frame the state is at, f = Frame(), to
// goal frame next: f+1 plays the goal, 0 from the last frame closes a
// loop, f itself holds the goal still (a poke on a paused timeline). It
// returns a *BlowUpError, leaving the state before the step, when a
// vertex leaves the range.
func (s *Sim) Advance(next int) error {
	n, f := s.opts.substeps(), s.frame
	s.g0, s.g1 = s.slotted(f), s.slotted(next)
	b0, b1 := s.goal.Bones[f], s.goal.Bones[next]
	for k := 0; k < n; k++ {
		s.u, s.un = float64(k)/float64(n), float64(k+1)/float64(n)
		for b := range s.segs {
			s.segs[b] = Segment{A: lerp(b0[b].A, b1[b].A, s.u), B: lerp(b0[b].B, b1[b].B, s.u)}.prepare()
		}
		last := k == n-1 && s.fit != nil
		parallel.For(len(s.bad), func(c int) { s.stepChunk(c, last) })
		for _, v := range s.bad {
			if v >= 0 {
				return &BlowUpError{Frame: next, Vertex: int(s.m.perm[v]), Position: s.nxt.n[v].x}
			}
		}
		s.cur, s.nxt = s.nxt, s.cur
		s.posOK = false
	}
	s.frame = next
	return nil
}

func lerp(a, b mgl64.Vec3, u float64) mgl64.Vec3 {
	return mgl64.Vec3{a[0] + u*(b[0]-a[0]), a[1] + u*(b[1]-a[1]), a[2] + u*(b[2]-a[2])}
}

// ringSums holds the sums over a vertex's 1-ring in one state: A =
// Σⱼ (xⱼ − xᵢ)(xⱼ⁰ − xᵢ⁰)ᵀ (Eq. 5), Σⱼ (xⱼ − xᵢ) and Σⱼ vⱼ. Its layout
// is ringSumsAVX's: 16 float64, the 13th the vector kernel's spare lane.
type ringSums struct {
	a  mgl64.Mat3
	dx [3]float64
	_  float64
	sv [3]float64
}

// ringSums stores slot i's ring sums in state x in r (ringSumsGo).
func (m *Model) ringSums(r *ringSums, i int, x []node) {
	ringSumsRaw(r, x, i, m.ring[m.start[i]:m.start[i+1]], m.rest, &m.mean0[i])
}

// ringSumsGo is the ring sums in Go. The first of two passes over the ring
// (each pass's running sums fit in the registers) sums Σⱼ xⱼeⱼᵀ (column k
// is Σⱼ eⱼ[k]·xⱼ) with the rest edge eⱼ = restⱼ − restᵢ computed as it
// goes (a stored edge would be read from memory, as many bytes as a node
// per neighbour); then r.a gets A = Σⱼ xⱼeⱼᵀ − xᵢ(Σⱼ eⱼ)ᵀ with Σⱼ eⱼ =
// |nbr|·mean0, the mean rest edge, which loses about log₂(|xᵢ|/|e|) bits
// to cancellation (about 7 on the horse, whose edges are about a
// hundredth of their distance from the origin). The second pass sums
// r.dx = Σⱼ (xⱼ − xᵢ) and r.sv = Σⱼ vⱼ. Every sum runs from 0 in ring
// order.
func ringSumsGo(r *ringSums, x []node, i int, ring []int32, rest []mgl64.Vec3, mean0 *mgl64.Vec3) {
	ri := &rest[i]
	r0, r1, r2 := ri[0], ri[1], ri[2]
	var a0, a1, a2, a3, a4, a5, a6, a7, a8 float64
	for _, j := range ring {
		xj, rj := &x[j].x, &rest[j]
		e0, e1, e2 := rj[0]-r0, rj[1]-r1, rj[2]-r2
		a0 += xj[0] * e0
		a1 += xj[1] * e0
		a2 += xj[2] * e0
		a3 += xj[0] * e1
		a4 += xj[1] * e1
		a5 += xj[2] * e1
		a6 += xj[0] * e2
		a7 += xj[1] * e2
		a8 += xj[2] * e2
	}
	xi := &x[i].x
	x0, x1, x2 := xi[0], xi[1], xi[2]
	n := float64(len(ring))
	s0, s1, s2 := mean0[0]*n, mean0[1]*n, mean0[2]*n
	r.a = mgl64.Mat3{
		a0 - x0*s0, a1 - x1*s0, a2 - x2*s0,
		a3 - x0*s1, a4 - x1*s1, a5 - x2*s1,
		a6 - x0*s2, a7 - x1*s2, a8 - x2*s2,
	}
	var d0, d1, d2, v0, v1, v2 float64
	for _, j := range ring {
		xj, vj := &x[j].x, &x[j].v
		d0 += xj[0] - x0
		d1 += xj[1] - x1
		d2 += xj[2] - x2
		v0 += vj[0]
		v1 += vj[1]
		v2 += vj[2]
	}
	r.dx = [3]float64{d0, d1, d2}
	r.sv = [3]float64{v0, v1, v2}
}

// spokesGo sets column j of b to Σ (w·|d⁰|/|d| − w)·d, h² times the
// spoke force at the position of x[j] (Eq. 8 with the rest lengths |d⁰|
// of lane j of the spoke rows), d the offset of the position from the
// bone segment segs[bone] of each spoke with |d| > 0, summed from 0 in
// the rows' order.
func spokesGo(b *[3][4]float64, x *[4]node, rows []spokeRow, segs []preparedSegment) {
	for j := range 4 {
		x0, x1, x2 := x[j].x[0], x[j].x[1], x[j].x[2]
		var b0, b1, b2 float64
		for r := range rows {
			row := &rows[r]
			d0, d1, d2 := segs[row.bone[j]].offset(x0, x1, x2)
			if l := math.Sqrt(d0*d0 + d1*d1 + d2*d2); l > 0 {
				f := row.wl0[j]/l - row.w[j]
				b0 += f * d0
				b1 += f * d1
				b2 += f * d2
			}
		}
		b[0][j], b[1][j], b[2][j] = b0, b1, b2
	}
}

// columns holds one vertex's five forces G, L, B, D, K (in that order) as
// the displacements they cause in one step at full strength, h² times the
// acceleration: Eq. 15's columns, in whose span the step moves the
// vertex.
type columns [nParams][3]float64

// stepChunk advances chunk c's slots by one step from s.cur into s.nxt
// (stepVertex), a group of four at a time: their rings' sums, their
// rotations' steps together (refineRings), their spokes together
// (spokes), then the rest of each one's step. s.bad[c] becomes the first
// slot that left the range, or -1.
func (s *Sim) stepChunk(c int, fit bool) {
	m, st := s.m, &s.cur
	s.bad[c] = -1
	var r [4]ringSums
	var q [4]mgl64.Quat
	var sp [3][4]float64
	var a stepArgs
	s.stepConstants(&a)
	for lo, hi := c*chunk, min(m.n, (c+1)*chunk); lo < hi; lo += 4 {
		nb := min(4, hi-lo)
		s.groupSpokes(&sp, lo/4)
		lanes := uint(0)
		for k := range nb {
			i := lo + k
			q[k] = st.q[i]
			if m.inv[i] > 0 {
				m.ringSums(&r[k], i, st.n)
				lanes |= 1 << k
			}
		}
		refineRings(&q, &r, lanes)
		copy(s.nxt.q[lo:lo+nb], q[:nb])
		if ok, done := s.stepGroup(&a, lo, &r, &q, &sp, fit); done {
			if ok != 0b1111 && s.bad[c] < 0 {
				s.bad[c] = int32(lo + bits.TrailingZeros(^ok))
			}
			continue
		}
		for k := range nb {
			i := lo + k
			if !s.stepVertex(i, &r[k], q[k], [3]float64{sp[0][k], sp[1][k], sp[2][k]}, fit) && s.bad[c] < 0 {
				s.bad[c] = int32(i)
			}
		}
	}
}

// groupSpokes sets column j of b to h² times the spoke force on slot
// 4g+j in s.cur (spokesGo), for the slots of group g; a column past the
// last slot is left meaningless.
func (s *Sim) groupSpokes(b *[3][4]float64, g int) {
	m := s.m
	rows := m.rows[m.rstart[g]:m.rstart[g+1]]
	if 4*g+4 <= m.n {
		spokes(b, (*[4]node)(s.cur.n[4*g:]), rows, s.segs)
		return
	}
	var x [4]node
	copy(x[:], s.cur.n[4*g:])
	spokes(b, &x, rows, s.segs)
}

// stepVertex advances the vertex in slot i by one step from s.cur into
// s.nxt and reports whether it stayed in range, given its ring's sums r
// in s.cur and its ring's rotation q (one step of rotation.Refine from
// s.cur.q[i]; see the package comment), both unused for a vertex without
// a ring, and its spoke force b (groupSpokes). With the columns cₖ of
// its forces and the external acceleration a, h·v' = h·v + h²·a +
// Σₖ πₖcₖ and x' = x + h·v'; with fit, the columns go to s.fit[i].
func (s *Sim) stepVertex(i int, r *ringSums, q mgl64.Quat, b [3]float64, fit bool) bool {
	m, h, st := s.m, s.h, &s.cur
	inv := m.inv[i]
	var c columns
	xi, vi := &st.n[i].x, &st.n[i].v
	x0, x1, x2 := xi[0], xi[1], xi[2]
	v0, v1, v2 := vi[0], vi[1], vi[2]
	// h²·B = Σ w (|d⁰|/|d| − 1)·d over the spokes.
	c[2] = b
	// h²·G = x̂ − x and h²·K = h·(v̂ − v), the goal interpolated at s.u.
	g0, g1 := &s.g0[i], &s.g1[i]
	u, fps := s.u, s.fps
	c[0] = [3]float64{g0[0] + u*(g1[0]-g0[0]) - x0, g0[1] + u*(g1[1]-g0[1]) - x1, g0[2] + u*(g1[2]-g0[2]) - x2}
	c[4] = [3]float64{h * ((g1[0]-g0[0])*fps - v0), h * ((g1[1]-g0[1])*fps - v1), h * ((g1[2]-g0[2])*fps - v2)}
	if inv > 0 {
		// h²·D = h·(mean vⱼ − vᵢ).
		c[3] = [3]float64{h * (r.sv[0]*inv - v0), h * (r.sv[1]*inv - v1), h * (r.sv[2]*inv - v2)}
		// h²·L = c − xᵢ = mean (xⱼ − xᵢ) − R·mean e⁰ (Eq. 6 with the
		// sign of a rigid motion), R·e by the quaternion (w, u):
		// e + w·t + u × t with t = 2u × e.
		e := &m.mean0[i]
		w, u0, u1, u2 := q.W, q.V[0], q.V[1], q.V[2]
		t0 := 2 * (u1*e[2] - u2*e[1])
		t1 := 2 * (u2*e[0] - u0*e[2])
		t2 := 2 * (u0*e[1] - u1*e[0])
		c[1] = [3]float64{
			r.dx[0]*inv - (e[0] + w*t0 + u1*t2 - u2*t1),
			r.dx[1]*inv - (e[1] + w*t1 + u2*t0 - u0*t2),
			r.dx[2]*inv - (e[2] + w*t2 + u0*t1 - u1*t0),
		}
	}
	p := &s.p[i]
	ext := s.opts.Gravity
	if s.pokeOn && i == s.pokeSlot {
		ext = ext.Add(s.pokeTarget.Sub(*xi).Mul(1 / (h * h)))
	}
	xn, vn := &s.nxt.n[i].x, &s.nxt.n[i].v
	h2, ih := h*h, s.fps*float64(s.opts.substeps()) // 1/h
	dd := 0.0
	for k := range 3 {
		dx := p.Alpha*c[0][k] + p.Beta*c[1][k] + p.Gamma*c[2][k] + p.Lambda*c[3][k] + p.Kappa*c[4][k] + h2*ext[k]
		vn[k] = vi[k] + dx*ih
		xn[k] = xi[k] + h*vn[k]
		d := xn[k] - (g0[k] + s.un*(g1[k]-g0[k]))
		dd += d * d
	}
	if fit {
		base := mgl64.Vec3{x0 + h*v0 + h2*ext[0], x1 + h*v1 + h2*ext[1], x2 + h*v2 + h2*ext[2]}
		s.fit[i].add(&c, base, s.fitTarget[i])
	}
	lim := BlowUpFactor * m.diag
	return dd <= lim*lim // false for NaN too
}

// Simulate runs the model with parameters p over the whole goal and
// returns the positions at every goal frame (frame 0 is the goal's).
func Simulate(m *Model, p []Material, g *Goal, opts Options) ([][]mgl64.Vec3, error) {
	s, err := NewSim(m, p, g, opts)
	if err != nil {
		return nil, err
	}
	out := make([][]mgl64.Vec3, g.NumFrames())
	s.Start(0)
	out[0] = append([]mgl64.Vec3(nil), s.Positions()...)
	for f := 0; f+1 < g.NumFrames(); f++ {
		if err := s.Advance(f + 1); err != nil {
			return nil, err
		}
		out[f+1] = append([]mgl64.Vec3(nil), s.Positions()...)
	}
	return out, nil
}
