package ensemble

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ensemble/csp"
)

// ModelParts is everything NewModel computes, as plain data for a file
// format to keep (Model.Parts) and a model to be made again from
// (NewModelFromParts): the dataset but its source positions (which only
// the fit reads), the options, per group its hierarchy, rest shape,
// frames, sewing and PCA, the parents-first order and the source frames'
// step limits.
type ModelParts struct {
	Groups     []Group
	Rest       Vecs
	LevelNames []string
	Frames     []int       // per level
	Wind       [][]float64 // per level, its frames' wind levels (nil: the level's own, see Level)
	FPS        float64

	Options Options
	Models  []GroupParts // per group
	Order   []int        // the groups, parents first
	Levels  []int        // the first state of each level, and the number of states
	Margin  int          // H = τ_max + ⌈longest blend/2⌉
	// StepLimit and DataSteps are per group the largest step of the
	// reconstructed source frames and of the data.
	StepLimit []float64
	DataSteps []float64
	// Sources are the source frames' interpenetrating pairs (see
	// SourceContacts), every state's, computed before the parts are
	// taken: every process that makes the model from them would otherwise
	// compute the same.
	Sources [][]csp.Pair
}

// GroupParts is the model of one group in ModelParts.
type GroupParts struct {
	First, Count, Parent int
	Path                 []int // the groups from the root down to this one
	Triangles            [][3]int
	Rest                 Vecs       // p_k
	Centroid             mgl64.Vec3 // c_k, the rest centroid
	Radius               float64    // ρ_k, the RMS distance of the rest vertices from c_k
	// Own says the group's frame is fitted to its own vertices and held
	// per state in Frames, 21 floats each: R (column by column), T, O, Ȯ
	// and ω; otherwise it is the rigid fit of the parent's vertices Patch
	// from PatchRest.
	Own       bool
	Frames    Floats
	Patch     []int
	PatchRest Vecs
	// SewnTo[v] is the parent-local vertex that vertex v is sewn to, −1
	// for none; TriSewn the same for the triangles' corners; SewVertex and
	// SewParent the attachments' vertices, Sew their falloff.
	SewnTo               []int32
	TriSewn              [][3]int32
	SewVertex, SewParent []int
	Sew                  []SewWeight
	// Rank is the PCA's rank r_k: Sigma holds every singular value, Basis
	// U_k by vertex, Q and QDot r_k coordinates per state.
	Rank                  int
	Sigma, Basis, Q, QDot Floats
}

// frameStateFloats is the number of floats of a frameState in
// GroupParts.Frames: R, T, O, Ȯ, ω.
const frameStateFloats = 9 + 4*3

// Parts returns the model's parts, equal to the model's own bit for bit,
// so that the model NewModelFromParts makes of them computes everything
// the same, but for the source positions: that model's
// Dataset().Levels[l].Frames has the right number of frames, each nil.
// Nothing of a Model reads them after NewModel. Parts computes the source
// frames' interpenetrations (SourceInterpenetrations) if they are not yet,
// on every core, and keeps them. The parts share the model's memory: do
// not modify them.
func (m *Model) Parts(ctx context.Context) (*ModelParts, error) {
	if _, _, err := m.SourceInterpenetrations(ctx); err != nil {
		return nil, err
	}
	d := m.data
	p := &ModelParts{Groups: d.Groups, Rest: d.Rest, FPS: d.FPS,
		Options: m.opts, Order: m.order, Levels: m.levels, Margin: m.margin, StepLimit: m.stepLimit, DataSteps: m.dataSteps}
	for _, lv := range d.Levels {
		p.LevelNames = append(p.LevelNames, lv.Name)
		p.Frames = append(p.Frames, len(lv.Frames))
		p.Wind = append(p.Wind, lv.Wind)
	}
	p.Sources = make([][]csp.Pair, len(m.sources))
	for i := range m.sources {
		p.Sources[i] = m.sources[i].pairs
	}
	p.Models = make([]GroupParts, len(m.groups))
	for k := range m.groups {
		g := &m.groups[k]
		frames := make([]float64, 0, frameStateFloats*len(g.frames))
		for _, fs := range g.frames {
			frames = append(frames, fs.R[:]...)
			frames = append(frames, fs.T[:]...)
			frames = append(frames, fs.O[:]...)
			frames = append(frames, fs.ODot[:]...)
			frames = append(frames, fs.Omega[:]...)
		}
		p.Models[k] = g.GroupParts
		p.Models[k].Frames = frames
	}
	return p, nil
}

// NewModelFromParts makes the model of parts p (Model.Parts), checking
// that they fit together: the level frame counts against the per-frame
// parts held, before any table is sized by them, and every index (the
// groups' triangles, parents and paths against the data, the order
// parents first, patch and sewing vertices inside their groups), so that
// parts from a corrupt or foreign file are an error, not a panic later.
// The model keeps the parts' memory.
func NewModelFromParts(p *ModelParts) (*Model, error) {
	bad := errors.New("parts of different sizes")
	d := &Dataset{Groups: p.Groups, FPS: p.FPS, Rest: p.Rest}
	if len(p.LevelNames) != len(p.Frames) || len(p.Frames) == 0 {
		return nil, bad
	}
	// The frame counts must agree with the per-frame parts actually held
	// (the source contacts, one entry each) before any table is sized by
	// them: a count alone costs the file nothing.
	if len(p.Levels) != len(p.Frames)+1 || len(p.Models) != len(d.Groups) || len(p.Order) != len(p.Models) || len(p.StepLimit) != len(p.Models) || len(p.DataSteps) != len(p.Models) || p.Levels[0] != 0 {
		return nil, bad
	}
	need := MinFrames(p.Options.TauMax, p.Options.maxBlend())
	for l, n := range p.Frames {
		if n < need || n > len(p.Sources) || p.Levels[l+1]-p.Levels[l] != n {
			return nil, fmt.Errorf("level %d has %d frames", l, n)
		}
	}
	if len(p.Sources) != p.Levels[len(p.Levels)-1] {
		return nil, bad
	}
	if p.Wind != nil && len(p.Wind) != len(p.Frames) {
		return nil, bad
	}
	for l, n := range p.Frames {
		lv := Level{Name: p.LevelNames[l], Frames: make([][]mgl64.Vec3, n)}
		if p.Wind != nil && len(p.Wind[l]) > 0 {
			lv.Wind = p.Wind[l]
		}
		d.Levels = append(d.Levels, lv)
	}
	if err := d.validateWind(); err != nil {
		return nil, err
	}
	if err := d.validateShape(); err != nil {
		return nil, err
	}
	if err := checkGroupParts(p.Models, p.Order, d); err != nil {
		return nil, err
	}
	m := &Model{data: d, opts: p.Options, order: p.Order, levels: p.Levels, margin: p.Margin, stepLimit: p.StepLimit, dataSteps: p.DataSteps}
	m.setWinds()
	states := m.states()
	m.groups = make([]groupModel, len(p.Models))
	for k, g := range p.Models {
		if !(g.Rank >= 0 && len(g.Rest) == g.Count && len(g.Basis) == g.Count*3*g.Rank && len(g.Q) == states*g.Rank && len(g.QDot) == states*g.Rank &&
			len(g.Frames)%frameStateFloats == 0 && (!g.Own || len(g.Frames) == states*frameStateFloats)) {
			return nil, fmt.Errorf("group %d: parts of different sizes", k)
		}
		gm := groupModel{GroupParts: g}
		gm.Frames = nil // held as frames
		if len(g.Frames) > 0 {
			gm.frames = make([]frameState, len(g.Frames)/frameStateFloats)
		}
		for i := range gm.frames {
			x := g.Frames[i*frameStateFloats:]
			fs := &gm.frames[i]
			copy(fs.R[:], x[0:9])
			copy(fs.T[:], x[9:12])
			copy(fs.O[:], x[12:15])
			copy(fs.ODot[:], x[15:18])
			copy(fs.Omega[:], x[18:21])
		}
		m.groups[k] = gm
	}
	m.sources = make([]sourceContacts, states)
	G := len(m.groups)
	for i, pairs := range p.Sources {
		for _, pr := range pairs {
			if pr.K < 0 || pr.K >= pr.L || pr.L >= G {
				return nil, fmt.Errorf("source frame %d: pair %v", i, pr)
			}
		}
		sc := &m.sources[i]
		sc.once.Do(func() { sc.pairs = slices.Clip(pairs) })
	}
	return m, nil
}

// checkGroupParts checks that the groups' models index what they should:
// each agrees with its dataset group (vertices, parent, triangles), its
// path runs from a root down to it, order puts parents first, and every
// patch, sewn or sewing vertex lies in the group or parent it names.
func checkGroupParts(gs []GroupParts, order []int, d *Dataset) error {
	G := len(gs)
	inRange := func(v, n int) bool { return v >= 0 && v < n }
	seen := make([]bool, G)
	for _, k := range order {
		if !inRange(k, G) || seen[k] || d.Groups[k].Parent >= 0 && !seen[d.Groups[k].Parent] {
			return fmt.Errorf("group order %v does not put every parent first", order)
		}
		seen[k] = true
	}
	for k, g := range gs {
		dg := &d.Groups[k]
		if g.First != dg.First || g.Count != dg.Count || g.Parent != dg.Parent || !slices.Equal(g.Triangles, dg.Triangles) {
			return fmt.Errorf("group %d: vertices, parent or triangles differ from its data", k)
		}
		if len(g.Path) == 0 || g.Path[len(g.Path)-1] != k || len(g.Path) > G {
			return fmt.Errorf("group %d: path %v", k, g.Path)
		}
		for i, a := range g.Path {
			want := -1
			if i > 0 {
				want = g.Path[i-1]
			}
			if !inRange(a, G) || d.Groups[a].Parent != want {
				return fmt.Errorf("group %d: path %v", k, g.Path)
			}
		}
		parentCount := 0
		if g.Parent >= 0 {
			parentCount = d.Groups[g.Parent].Count
		}
		if len(g.PatchRest) != len(g.Patch) {
			return fmt.Errorf("group %d: %d patch vertices, %d rest positions", k, len(g.Patch), len(g.PatchRest))
		}
		for _, v := range g.Patch {
			if !inRange(v, parentCount) {
				return fmt.Errorf("group %d: patch vertex %d outside its parent", k, v)
			}
		}
		if g.SewnTo != nil && len(g.SewnTo) != g.Count || g.TriSewn != nil && len(g.TriSewn) != len(g.Triangles) || len(g.SewVertex) != len(g.SewParent) {
			return fmt.Errorf("group %d: sewing of different sizes", k)
		}
		for _, v := range g.SewnTo {
			if v != -1 && !inRange(int(v), parentCount) {
				return fmt.Errorf("group %d: sewn to parent vertex %d", k, v)
			}
		}
		for _, t := range g.TriSewn {
			for _, v := range t {
				if v != -1 && !inRange(int(v), parentCount) {
					return fmt.Errorf("group %d: triangle sewn to parent vertex %d", k, v)
				}
			}
		}
		for a := range g.SewVertex {
			if !inRange(g.SewVertex[a], g.Count) || !inRange(g.SewParent[a], parentCount) {
				return fmt.Errorf("group %d: attachment %d joins vertices %d and %d", k, a, g.SewVertex[a], g.SewParent[a])
			}
		}
		for _, w := range g.Sew {
			if !inRange(int(w.V), g.Count) || !inRange(int(w.A), len(g.SewVertex)) {
				return fmt.Errorf("group %d: sewing falloff entry %+v", k, w)
			}
		}
	}
	return nil
}
