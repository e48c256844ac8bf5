package dynskin

import (
	"fmt"
	"math"

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
// and, per vertex, the rotation of its 1-ring (Refine's warm start).
type State struct {
	X, V []mgl64.Vec3
	Q    []mgl64.Quat
}

// Clone returns a deep copy.
func (s State) Clone() State {
	return State{X: append([]mgl64.Vec3(nil), s.X...), V: append([]mgl64.Vec3(nil), s.V...), Q: append([]mgl64.Quat(nil), s.Q...)}
}

// BlowUpFactor: a vertex farther than this many rest diagonals from its
// goal stops the simulation.
const BlowUpFactor = 100

// refineTol is the rotation's convergence tolerance (radians).
const refineTol = 1e-12

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

// Sim steps a model. It is not safe for concurrent use; its steps use
// every core (internal/parallel).
type Sim struct {
	m      *Model
	p      []Material // what the simulation runs: Material.Effective of the parameters given
	opts   Options
	fps, h float64

	cur, nxt State
	frame    int // the goal frame cur is at

	// Per step: the goal interpolated between two frames.
	g0, g1 []mgl64.Vec3
	u      float64 // interpolation fraction of this step's start
	segs   []Segment

	pokeOn     bool
	pokeVertex int
	pokeTarget mgl64.Vec3

	bad []int32 // per chunk: first blown-up vertex, or -1

	// fit, when not nil, receives each vertex's least-squares sums on the
	// last step into a frame, against the example frame fitTarget.
	fit       []qpSums
	fitTarget []mgl64.Vec3
}

// NewSim returns a simulation of m with parameters p, for a goal of fps
// frames per second.
func NewSim(m *Model, p []Material, fps float64, opts Options) (*Sim, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("frame rate %v is not a positive number", fps)
	}
	if opts.Substeps < 0 || opts.Substeps > 1000 {
		return nil, fmt.Errorf("%d substeps: want 1 to 1000", opts.Substeps)
	}
	if !finite.Vec3(opts.Gravity) {
		return nil, fmt.Errorf("non-finite gravity %v", opts.Gravity)
	}
	s := &Sim{m: m, p: make([]Material, m.n), opts: opts, fps: fps, h: 1 / (fps * float64(opts.substeps()))}
	if err := s.SetParams(p); err != nil {
		return nil, err
	}
	s.cur = State{X: make([]mgl64.Vec3, m.n), V: make([]mgl64.Vec3, m.n), Q: make([]mgl64.Quat, m.n)}
	s.nxt = s.cur.Clone()
	s.segs = make([]Segment, m.bones)
	s.bad = make([]int32, (m.n+chunk-1)/chunk)
	return s, nil
}

// SetParams replaces the parameters: each must lie in its range
// (CheckParams); the simulation runs their Material.Effective.
func (s *Sim) SetParams(p []Material) error {
	if err := CheckParams(p, s.m.n); err != nil {
		return err
	}
	for i, m := range p {
		s.p[i] = m.Effective()
	}
	return nil
}

// Start puts the mesh on goal frame `frame` (positions g0, the next
// frame's g1 for the goal velocity (g1 − g0)·FPS; g1 = g0 for a goal at
// rest), with each 1-ring's rotation from the polar decomposition.
func (s *Sim) Start(frame int, g0, g1 []mgl64.Vec3) {
	copy(s.cur.X, g0)
	for i := range s.cur.V {
		s.cur.V[i] = g1[i].Sub(g0[i]).Mul(s.fps)
	}
	parallel.For((s.m.n+chunk-1)/chunk, func(c int) {
		for i := c * chunk; i < min(s.m.n, (c+1)*chunk); i++ {
			a, _, _ := s.m.ringSums(i, &s.cur)
			r, _ := rotation.Polar(a)
			s.cur.Q[i] = mgl64.Mat4ToQuat(r.Mat4()).Normalize()
		}
	})
	s.frame = frame
}

// State returns a copy of the state, for restarting from it.
func (s *Sim) State() State { return s.cur.Clone() }

// SetState restores a state State returned at goal frame `frame`.
func (s *Sim) SetState(frame int, st State) {
	copy(s.cur.X, st.X)
	copy(s.cur.V, st.V)
	copy(s.cur.Q, st.Q)
	s.frame = frame
}

// Frame returns the goal frame the state is at.
func (s *Sim) Frame() int { return s.frame }

// Positions returns the current positions (shared; valid until the next
// step).
func (s *Sim) Positions() []mgl64.Vec3 { return s.cur.X }

// SetPoke pulls vertex v towards target with the full goal-force strength
// ((target − x)/h², the paper's Figure 6c drag) until ClearPoke; the rest
// of the mesh follows through the same forces.
func (s *Sim) SetPoke(v int, target mgl64.Vec3) {
	if v >= 0 && v < s.m.n && finite.Vec3(target) {
		s.pokeOn, s.pokeVertex, s.pokeTarget = true, v, target
	}
}

// ClearPoke releases the poked vertex.
func (s *Sim) ClearPoke() { s.pokeOn = false }

// Advance steps from the current goal frame to the next: g0, b0 are that
// frame's goal positions and bone segments, g1, b1 the next one's. It
// returns a *BlowUpError, leaving the state before the step, when a
// vertex leaves the range.
func (s *Sim) Advance(g0, g1 []mgl64.Vec3, b0, b1 []Segment) error {
	n := s.opts.substeps()
	s.g0, s.g1 = g0, g1
	for k := 0; k < n; k++ {
		s.u = float64(k) / float64(n)
		for b := range s.segs {
			s.segs[b] = Segment{A: lerp(b0[b].A, b1[b].A, s.u), B: lerp(b0[b].B, b1[b].B, s.u)}
		}
		last := k == n-1 && s.fit != nil
		parallel.For(len(s.bad), func(c int) {
			s.bad[c] = -1
			for i := c * chunk; i < min(s.m.n, (c+1)*chunk); i++ {
				if !s.stepVertex(i, last) && s.bad[c] < 0 {
					s.bad[c] = int32(i)
				}
			}
		})
		for _, v := range s.bad {
			if v >= 0 {
				return &BlowUpError{Frame: s.frame + 1, Vertex: int(v), Position: s.nxt.X[v]}
			}
		}
		s.cur, s.nxt = s.nxt, s.cur
	}
	s.frame++
	return nil
}

func lerp(a, b mgl64.Vec3, u float64) mgl64.Vec3 {
	return mgl64.Vec3{a[0] + u*(b[0]-a[0]), a[1] + u*(b[1]-a[1]), a[2] + u*(b[2]-a[2])}
}

// ringSums returns, for vertex i in state st, A = Σⱼ (xⱼ − xᵢ)(xⱼ⁰ −
// xᵢ⁰)ᵀ (Eq. 5), computed as Σⱼ xⱼe⁰ⱼᵀ − xᵢ(Σⱼ e⁰ⱼ)ᵀ, and the sums of the
// neighbours' positions and velocities.
func (m *Model) ringSums(i int, st *State) (a mgl64.Mat3, sx, sv mgl64.Vec3) {
	for e := m.start[i]; e < m.start[i+1]; e++ {
		j := m.ring[e]
		xj, e0 := st.X[j], m.edge0[e]
		a[0] += xj[0] * e0[0]
		a[1] += xj[1] * e0[0]
		a[2] += xj[2] * e0[0]
		a[3] += xj[0] * e0[1]
		a[4] += xj[1] * e0[1]
		a[5] += xj[2] * e0[1]
		a[6] += xj[0] * e0[2]
		a[7] += xj[1] * e0[2]
		a[8] += xj[2] * e0[2]
		sx = sx.Add(xj)
		sv = sv.Add(st.V[j])
	}
	if inv := m.inv[i]; inv > 0 {
		xi, s0 := st.X[i], m.mean0[i].Mul(1/inv)
		for c := 0; c < 3; c++ {
			for r := 0; r < 3; r++ {
				a[3*c+r] -= xi[r] * s0[c]
			}
		}
	}
	return a, sx, sv
}

// forces holds one vertex's five normalised accelerations G, L, B, D, K.
type forces [nParams]mgl64.Vec3

// vertexForces evaluates vertex i's forces in state st with goal position
// goal, goal velocity gv and bone segments segs, and returns the 1-ring's
// rotation (warm-started from st.Q[i]).
func (m *Model) vertexForces(f *forces, i int, st *State, goal, gv mgl64.Vec3, segs []Segment, h float64) mgl64.Quat {
	xi, vi := st.X[i], st.V[i]
	ih2, ih := 1/(h*h), 1/h
	a, sx, sv := m.ringSums(i, st)
	q := st.Q[i]
	if inv := m.inv[i]; inv > 0 {
		q, _ = rotation.Refine(q, &a, refineTol)
		// c = mean xⱼ − R·mean e⁰ (Eq. 6 with the sign of a rigid motion).
		re := q.Rotate(m.mean0[i])
		c := sx.Mul(inv).Sub(re)
		f[1] = c.Sub(xi).Mul(ih2)
		f[3] = sv.Mul(inv).Sub(vi).Mul(ih)
	} else {
		f[1], f[3] = mgl64.Vec3{}, mgl64.Vec3{}
	}
	f[0] = goal.Sub(xi).Mul(ih2)
	f[4] = gv.Sub(vi).Mul(ih)
	var b mgl64.Vec3
	for k := m.istart[i]; k < m.istart[i+1]; k++ {
		d := segs[m.bone[k]].project(xi)
		l := d.Len()
		if l > 0 {
			b = b.Add(d.Mul(m.weight[k] * (m.len0[k]/l - 1)))
		}
	}
	f[2] = b.Mul(ih2)
	return q
}

// stepVertex advances vertex i by one step from s.cur into s.nxt and
// reports whether it stayed in range.
func (s *Sim) stepVertex(i int, fit bool) bool {
	m := s.m
	g0, g1 := s.g0[i], s.g1[i]
	goal := lerp(g0, g1, s.u)
	gv := g1.Sub(g0).Mul(s.fps)
	var f forces
	s.nxt.Q[i] = m.vertexForces(&f, i, &s.cur, goal, gv, s.segs, s.h)
	p := &s.p[i]
	ext := s.opts.Gravity
	if s.pokeOn && i == s.pokeVertex {
		ext = ext.Add(s.pokeTarget.Sub(s.cur.X[i]).Mul(1 / (s.h * s.h)))
	}
	var acc mgl64.Vec3
	for k := 0; k < 3; k++ {
		acc[k] = p.Alpha*f[0][k] + p.Beta*f[1][k] + p.Gamma*f[2][k] + p.Lambda*f[3][k] + p.Kappa*f[4][k] + ext[k]
	}
	x, v := s.cur.X[i], s.cur.V[i]
	vn := v.Add(acc.Mul(s.h))
	xn := x.Add(vn.Mul(s.h))
	s.nxt.V[i], s.nxt.X[i] = vn, xn
	if fit {
		s.fit[i].add(&f, x.Add(v.Mul(s.h)).Add(ext.Mul(s.h*s.h)), s.fitTarget[i], s.h)
	}
	lim := BlowUpFactor * m.diag
	d := xn.Sub(lerp(g0, g1, s.u+1/float64(s.opts.substeps())))
	return d.Dot(d) <= lim*lim // false for NaN too
}

// Simulate runs the model with parameters p over the whole goal and
// returns the positions at every goal frame (frame 0 is the goal's).
func Simulate(m *Model, p []Material, g *Goal, opts Options) ([][]mgl64.Vec3, error) {
	if err := g.Check(m); err != nil {
		return nil, err
	}
	s, err := NewSim(m, p, g.FPS, opts)
	if err != nil {
		return nil, err
	}
	out := make([][]mgl64.Vec3, g.NumFrames())
	s.Start(0, g.Positions[0], g.Positions[1])
	out[0] = append([]mgl64.Vec3(nil), s.Positions()...)
	for f := 0; f+1 < g.NumFrames(); f++ {
		if err := s.Advance(g.Positions[f], g.Positions[f+1], g.Bones[f], g.Bones[f+1]); err != nil {
			return nil, err
		}
		out[f+1] = append([]mgl64.Vec3(nil), s.Positions()...)
	}
	return out, nil
}
