package ensemble

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/option"
	"gallop/internal/parallel"
)

// Options are the parameters of a Model. The zero value of every field
// means its default.
type Options struct {
	// TauMax bounds the temporal offsets: |τ_k| ≤ TauMax frames (default 30).
	TauMax int
	// TauBlend is the number of frames over which a group blends from
	// source A to source B, centred on its τ_k (default 10).
	TauBlend int
	// Blends is how many blend lengths a transition's groups choose
	// from: 1, every group blends over τ_blend frames (the paper's); 2 (the
	// default), each group over τ_blend or 2τ_blend, the solver choosing
	// the longer one only where the shorter cannot satisfy the constraints
	// (a blend of two poses that differ by Δx moves a vertex Δx/τ_blend
	// further a frame than either source; the step constraint rules that
	// out where Δx is large).
	Blends int
	// Beta weighs velocities against positions in the transition cost
	// (Eq. 3), in seconds (default 0.1 s: a harmonic oscillator of period
	// 2πβ, 0.63 s, has position and velocity terms of equal size). A
	// negative value means 0 (positions only).
	Beta float64
	// Threshold truncates each group's PCA (the paper's §2.1, "SVD
	// thresholded at 10⁻⁴"): the smallest rank whose dropped singular
	// values hold at most Threshold of the displacements' squared norm
	// (default 1e-4, a relative RMS error of 1%). A negative value means
	// 0: every singular vector is kept and the model reproduces the data
	// to rounding.
	Threshold float64
}

func (o *Options) defaults() {
	if o.TauMax == 0 {
		o.TauMax = 30
	}
	if o.TauBlend == 0 {
		o.TauBlend = 10
	}
	if o.Blends == 0 {
		o.Blends = 2
	}
	o.Beta = option.Resolve(o.Beta, 0.1)
	o.Threshold = option.Resolve(o.Threshold, 1e-4)
}

// State is a source frame: frame Frame (0-based) of clip Level (an index
// in Dataset.Levels; a steady clip is one wind level, a take whose wind
// changes holds several, see Model.LevelOf).
type State struct{ Level, Frame int }

// Model is the reduced kinematic model of a Dataset (James et al. 2007,
// §2.1): per group a rigid frame per source frame, a PCA basis U_k of its
// local displacements and their coordinates q_k and velocities q̇_k; with
// the transition costs (§2.2) and the poses of source frames and of
// asynchronous transitions built on them, and the collision oracle of a
// transition (Program). A Model is immutable after NewModel and safe for
// concurrent use; the source frames' interpenetrations it computes on
// demand are cached.
type Model struct {
	data   *Dataset
	opts   Options
	groups []groupModel
	order  []int // groups, parents before children
	levels []int // first state index of each level; len(levels) = #levels + 1
	// winds are the whole wind levels of the data (Dataset.WindLevels),
	// wind per state the index of its frame's level in winds, −1 for a
	// frame while the wind changes.
	winds []float64
	wind  []int
	// runs are the runs of frames at one level in a clip (a steady clip
	// is one run; a take whose wind changes has one per stretch of steady
	// wind), runOf per state the index of its run, −1 for a frame while
	// the wind changes.
	runs   []run
	runOf  []int
	margin int // H = τ_max + ⌈longest blend/2⌉: transition frames s = −H … H

	sources   []sourceContacts // per state, on demand
	scenes    sync.Pool        // *scene scratch for source contact detection
	stepLimit []float64        // per group, the largest step of the reconstructed sources
	dataSteps []float64        // per group, the largest step of the data
}

// NewModel builds the model of d: d is validated for the options (see
// Dataset.Validate; levels need MinFrames(TauMax, longest blend) frames), then
// the groups are fitted in hierarchy order, parents before children, the
// groups of one depth in parallel on every core. progress, if not nil, is
// called after each group with the groups done and G, from the worker
// goroutines but one call at a time. NewModel returns ctx.Err() when ctx
// is cancelled. The model keeps d and reads it later: do not modify it.
func NewModel(ctx context.Context, d *Dataset, opts Options, progress func(done, total int)) (*Model, error) {
	opts.defaults()
	if opts.TauMax < 0 || opts.TauBlend < 0 {
		return nil, fmt.Errorf("ensemble: τ_max %d and τ_blend %d must not be negative", opts.TauMax, opts.TauBlend)
	}
	if opts.Blends < 1 || opts.Blends > 2 || opts.maxBlend() > maxBlendFrames {
		return nil, fmt.Errorf("ensemble: %d blend lengths of τ_blend = %d: want 1 or 2, the longest at most %d frames", opts.Blends, opts.TauBlend, maxBlendFrames)
	}
	if err := d.validate(opts); err != nil {
		return nil, err
	}
	m := &Model{data: d, opts: opts, margin: opts.TauMax + (opts.maxBlend()+1)/2}
	m.levels = make([]int, len(d.Levels)+1)
	for l, lv := range d.Levels {
		m.levels[l+1] = m.levels[l] + len(lv.Frames)
	}
	m.setWinds()
	m.sources = make([]sourceContacts, m.states())
	if err := m.buildHierarchy(); err != nil {
		return nil, err
	}

	// Fit the groups depth by depth. world[k] holds the reconstructed
	// world frames of a group with children until its children are fitted.
	hasChildren := make([]bool, len(d.Groups))
	for _, g := range d.Groups {
		if g.Parent >= 0 {
			hasChildren[g.Parent] = true
		}
	}
	world := make([][]Rigid, len(d.Groups))
	var mu sync.Mutex
	done := 0
	layers := m.layers()
	for depth, layer := range layers {
		errs := make([]error, len(layer))
		parallel.For(len(layer), func(i int) {
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			k := layer[i]
			var pw []Rigid
			if p := m.groups[k].Parent; p >= 0 {
				pw = world[p]
			}
			world[k], errs[i] = m.fitGroup(k, pw, hasChildren[k])
			if progress != nil {
				mu.Lock()
				done++
				progress(done, len(d.Groups))
				mu.Unlock()
			}
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		if depth > 0 {
			for _, k := range layers[depth-1] {
				world[k] = nil
			}
		}
	}
	m.stepLimit = m.sourceSteps()
	m.dataSteps = m.dataStepsOf()
	return m, nil
}

// sourceSteps returns, per group, the largest step of the model's own
// source frames: the largest distance a vertex of the group moves between
// consecutive reconstructed frames of a level.
func (m *Model) sourceSteps() []float64 {
	out := make([]float64, len(m.groups))
	p := m.NewPoser()
	var prev, x []mgl64.Vec3
	for l, lv := range m.data.Levels {
		for f := range lv.Frames {
			x = p.Pose(x, State{l, f})
			if f > 0 {
				for k := range m.groups {
					out[k] = max(out[k], groupStep(&m.groups[k], prev, x))
				}
			}
			prev, x = x, prev
		}
	}
	return out
}

// groupStep returns maxᵥ‖yᵥ − xᵥ‖ over g's vertices of the ensemble
// positions x and y: how far the group moves from x to y.
func groupStep(g *groupModel, x, y []mgl64.Vec3) float64 {
	return vertexStep(x[g.First:g.First+g.Count], y[g.First:g.First+g.Count])
}

// GroupStep returns how far group k moves from ensemble positions x to y:
// the largest distance a vertex of it moves (the measure of StepLimits).
func (m *Model) GroupStep(k int, x, y []mgl64.Vec3) float64 { return groupStep(&m.groups[k], x, y) }

// vertexStep returns maxᵥ‖yᵥ − xᵥ‖.
func vertexStep(x, y []mgl64.Vec3) float64 {
	ss := 0.0
	for v := range x {
		ss = max(ss, y[v].Sub(x[v]).LenSqr())
	}
	return math.Sqrt(ss)
}

// StepLimits returns, per group, the largest step of the model's
// reconstructed source frames (see Program): no transition moves a group
// further from one frame to the next. Do not modify it.
func (m *Model) StepLimits() []float64 { return m.stepLimit }

// Dataset returns the dataset the model was built from.
func (m *Model) Dataset() *Dataset { return m.data }

// Options returns the model's options, defaults filled in.
func (m *Model) Options() Options { return m.opts }

// Groups returns G, the number of groups.
func (m *Model) Groups() int { return len(m.groups) }

// Rank returns r_k, the number of PCA coordinates of group k.
func (m *Model) Rank(k int) int { return m.groups[k].Rank }

// Ranks returns the rank of every group.
func (m *Model) Ranks() []int {
	r := make([]int, len(m.groups))
	for k := range m.groups {
		r[k] = m.groups[k].Rank
	}
	return r
}

// TotalRank returns r = r_1 + … + r_G, the dimension of q.
func (m *Model) TotalRank() int {
	r := 0
	for k := range m.groups {
		r += m.groups[k].Rank
	}
	return r
}

// SingularValues returns every singular value of group k's displacement
// matrix, largest first (those kept and those dropped). Do not modify it.
func (m *Model) SingularValues(k int) []float64 { return m.groups[k].Sigma }

// Basis returns U_k, group k's PCA basis, as Rank(k) displacement fields:
// element [c][v] is column c of U_k at group-local vertex v (rows 3v, 3v+1,
// 3v+2), the displacement in the group's frame per unit of q_c — a glTF
// morph target. It is a new copy.
func (m *Model) Basis(k int) [][]mgl64.Vec3 {
	g := &m.groups[k]
	out := make([][]mgl64.Vec3, g.Rank)
	for c := range out {
		out[c] = make([]mgl64.Vec3, g.Count)
		for v := range g.Count {
			copy(out[c][v][:], g.Basis[(v*g.Rank+c)*3:])
		}
	}
	return out
}

// Q returns q_k at source frame s (Rank(k) values). Do not modify it.
func (m *Model) Q(k int, s State) []float64 {
	g := &m.groups[k]
	i := m.index(s)
	return g.Q[i*g.Rank : (i+1)*g.Rank]
}

// QDot returns q̇_k at source frame s, per second. Do not modify it.
func (m *Model) QDot(k int, s State) []float64 {
	g := &m.groups[k]
	i := m.index(s)
	return g.QDot[i*g.Rank : (i+1)*g.Rank]
}

// OwnFrame reports whether group k has a frame of its own (a root, or a
// child without attachments), fitted to its vertices, rather than one
// that follows its parent's attachment patch.
func (m *Model) OwnFrame(k int) bool { return m.groups[k].Own }

// LocalFrame returns group k's fitted frame at source frame s, relative to
// its parent's world frame (to the world for a root). It panics for a
// group without a frame of its own (see OwnFrame).
func (m *Model) LocalFrame(k int, s State) Rigid {
	g := &m.groups[k]
	if !g.Own {
		panic(fmt.Sprintf("ensemble: group %q has no frame of its own", m.data.Groups[k].Name))
	}
	return g.frames[m.index(s)].Rigid
}

// Margin returns H = τ_max + ⌈τ_blend/2⌉: a transition's frames are
// s = −H … H, and its source frames need H frames on either side in their
// level (see CanTransition).
func (m *Model) Margin() int { return m.margin }

// Frames returns |T| = 2H + 1, the number of frames of a transition.
func (m *Model) Frames() int { return 2*m.margin + 1 }

// CanTransition reports whether a transition may leave or enter at s:
// frames s.Frame − H … s.Frame + H exist in its level.
func (m *Model) CanTransition(s State) bool {
	return s.Level >= 0 && s.Level < len(m.data.Levels) &&
		s.Frame >= m.margin && s.Frame+m.margin < len(m.data.Levels[s.Level].Frames)
}

// maxBlendFrames bounds the longest blend, so that weight steps fit a
// byte.
const maxBlendFrames = 127

// maxBlend returns the longest blend length, Blends·τ_blend.
func (o Options) maxBlend() int { return o.Blends * o.TauBlend }

// BlendLengths returns the blend lengths a group may use, shortest first:
// τ_blend, and 2τ_blend when Blends is 2.
func (m *Model) BlendLengths() []int {
	out := make([]int, m.opts.Blends)
	for i := range out {
		out[i] = (i + 1) * m.opts.TauBlend
	}
	return out
}

// Weight returns w(s; τ, b) = clamp((s − τ)/b + ½, 0, 1), the weight of
// source B in a group with offset τ blending over b frames at transition
// frame s: 0 until s = τ − b/2, rising linearly to 1 at s = τ + b/2.
func (m *Model) Weight(s, tau, blend int) float64 {
	w := float64(s-tau)/float64(blend) + 0.5
	return min(max(w, 0), 1)
}

// weightStep returns Weight(s, τ, b) in steps of 1/(2B), B the longest
// blend, an integer in [0, 2B]: (2(s − τ) + b)·B/b, clamped (exact: b
// divides B). Equal steps are equal weights.
func (m *Model) weightStep(s, tau, blend int) uint8 {
	B := m.opts.maxBlend()
	return uint8(min(max((2*(s-tau)+blend)*B/blend, 0), 2*B))
}

// blendOf returns group k's blend length in a transition whose blends
// are blend (nil: every group blends over τ_blend).
func (m *Model) blendOf(blend []int, k int) int {
	if blend == nil {
		return m.opts.TauBlend
	}
	return blend[k]
}

// Blending writes into dst (grown if short, returned) whether each group
// blends at transition frame s under tau and blend (nil: τ_blend for
// every group): its weight strictly between 0 and 1 (the paper's yellow
// glow).
func (m *Model) Blending(dst []bool, s int, tau, blend []int) []bool {
	if cap(dst) < len(tau) {
		dst = make([]bool, len(tau))
	}
	dst = dst[:len(tau)]
	for k, t := range tau {
		w := m.Weight(s, t, m.blendOf(blend, k))
		dst[k] = w > 0 && w < 1
	}
	return dst
}

// states returns the number of source frames over all levels.
func (m *Model) states() int { return m.levels[len(m.levels)-1] }

// setWinds sets winds, wind, runs and runOf from the data and levels.
func (m *Model) setWinds() {
	m.winds = m.data.WindLevels()
	m.wind = make([]int, m.states())
	m.runOf = make([]int, m.states())
	m.runs = nil
	for l, lv := range m.data.Levels {
		for f := range lv.Frames {
			w := m.data.WindAt(l, f)
			i, ok := slices.BinarySearch(m.winds, w)
			if !ok {
				i = -1
			}
			x := m.levels[l] + f
			m.wind[x] = i
			switch {
			case i < 0:
				m.runOf[x] = -1
			case f > 0 && m.wind[x-1] == i:
				m.runOf[x] = m.runOf[x-1]
				m.runs[m.runOf[x]].hi++
			default:
				m.runOf[x] = len(m.runs)
				m.runs = append(m.runs, run{clip: l, lo: f, hi: f + 1, level: i})
			}
		}
	}
}

// run is a run of frames at one wind level in a clip: frames lo … hi−1
// of clip clip, at level (an index in winds).
type run struct{ clip, lo, hi, level int }

// WindLevels returns the whole wind levels of the data, increasing (see
// Dataset.WindLevels): the levels a Player is asked for, by their index
// here.
func (m *Model) WindLevels() []float64 { return m.winds }

// LevelOf returns the index in WindLevels of the wind level source frame
// s is at, or −1 if the wind is changing there.
func (m *Model) LevelOf(s State) int { return m.wind[m.index(s)] }

// index returns the state index of s, panicking when s is outside the
// data.
func (m *Model) index(s State) int {
	if s.Level < 0 || s.Level >= len(m.data.Levels) || s.Frame < 0 || s.Frame >= m.levels[s.Level+1]-m.levels[s.Level] {
		panic(fmt.Sprintf("ensemble: state %+v outside the data", s))
	}
	return m.levels[s.Level] + s.Frame
}

// state returns the State of state index i.
func (m *Model) state(i int) State {
	for l := range len(m.levels) - 1 {
		if i < m.levels[l+1] {
			return State{l, i - m.levels[l]}
		}
	}
	panic(fmt.Sprintf("ensemble: state index %d outside the data", i))
}

// Pose returns the model's reconstruction of source frame s, every vertex
// in ensemble order (a new slice; use a Poser in loops).
func (m *Model) Pose(s State) []mgl64.Vec3 {
	return m.NewPoser().Pose(nil, s)
}

// Clique returns the kinematic clique ℵ_kl of groups k ≠ l (Eq. 9),
// increasing: the groups on the tree path from k up to the lowest common
// ancestor and down to l, that ancestor included (for two flags on a
// rope: both flags and the rope); for groups in different trees, the
// paths from each up to its root. Offsets of groups above the common
// ancestor move the pair's whole subtree rigidly (frames and attachment
// fits are equivariant) and so cannot change whether k and l intersect.
func (m *Model) Clique(k, l int) []int {
	pk, pl := m.groups[k].Path, m.groups[l].Path
	c := 0
	for c < len(pk) && c < len(pl) && pk[c] == pl[c] {
		c++
	}
	from := max(c-1, 0) // the common ancestor, or both roots
	var out []int
	out = append(out, pk[from:]...)
	out = append(out, pl[from:]...)
	return sortUnique(out)
}

// sortUnique sorts s and drops repeats, in place.
func sortUnique(s []int) []int {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
