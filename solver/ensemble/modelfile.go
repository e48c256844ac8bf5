package ensemble

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/gobbytes"
	"gallop/solver/ensemble/csp"
)

// modelFile is everything NewModel computes, with exported fields for
// encoding/gob: the dataset but its source positions (which only the fit
// reads), the options, per group its hierarchy, rest
// shape, frames, sewing and PCA, the parents-first order and the source
// frames' step limits. Arrays of floats go as raw little-endian bytes
// (gob's []byte is a copy; its own float encoding costs ten times more to
// decode, which every shard of a build pays).
type modelFile struct {
	Groups     []Group
	Rest       []byte
	LevelNames []string
	Frames     []int // per level
	FPS        float64

	Opts      Options
	Models    []groupFile
	Order     []int
	Levels    []int
	Margin    int
	StepLimit []float64
	DataSteps []float64
	// Sources are the source frames' interpenetrating pairs (see
	// SourceContacts), every state's, computed before encoding: every
	// process that decodes the model would otherwise compute the same.
	Sources [][]csp.Pair
}

// groupFile is a groupModel with exported fields.
type groupFile struct {
	First, Count, Parent int
	Path                 []int
	Triangles            [][3]int
	Rest                 []byte
	Centroid             mgl64.Vec3
	Radius               float64
	Own                  bool
	Frames               []byte // frameStateFloats per frame
	Patch                []int
	PatchRest            []byte
	SewnTo               []int32
	TriSewn              [][3]int32
	SewVertex, SewParent []int
	Sew                  []sewWeight
	Rank                 int
	Sigma, Basis         []byte
	Q, QDot              []byte
}

// frameStateFloats is the number of floats of a frameState: R, T, O, Ȯ, ω.
const frameStateFloats = 9 + 4*3

// GobEncode encodes the model for another process (the shards of a build
// read the model their prepared stage computed): decoding gives a model
// equal to m bit for bit, so that every result computed from it is the
// same, but for the source positions: the decoded model's
// Dataset().Levels[l].Frames has the right number of frames, each nil.
// Nothing of a Model reads them after NewModel. Encoding computes the
// source frames' interpenetrations (SourceInterpenetrations) if they are
// not yet, on every core, and keeps them.
func (m *Model) GobEncode() ([]byte, error) {
	if _, _, err := m.SourceInterpenetrations(context.Background()); err != nil {
		return nil, err
	}
	d := m.data
	f := modelFile{Groups: d.Groups, Rest: vecBytes(d.Rest), FPS: d.FPS,
		Opts: m.opts, Order: m.order, Levels: m.levels, Margin: m.margin, StepLimit: m.stepLimit, DataSteps: m.dataSteps}
	for _, lv := range d.Levels {
		f.LevelNames = append(f.LevelNames, lv.Name)
		f.Frames = append(f.Frames, len(lv.Frames))
	}
	f.Sources = make([][]csp.Pair, len(m.sources))
	for i := range m.sources {
		f.Sources[i] = m.sources[i].pairs
	}
	f.Models = make([]groupFile, len(m.groups))
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
		f.Models[k] = groupFile{
			First: g.first, Count: g.count, Parent: g.parent, Path: g.path, Triangles: g.triangles,
			Rest: vecBytes(g.rest), Centroid: g.centroid, Radius: g.radius, Own: g.own, Frames: floatBytes(frames),
			Patch: g.patch, PatchRest: vecBytes(g.patchRest), SewnTo: g.sewnTo, TriSewn: g.triSewn,
			SewVertex: g.sewVertex, SewParent: g.sewParent, Sew: g.sew,
			Rank: g.rank, Sigma: floatBytes(g.sigma), Basis: floatBytes(g.basis), Q: floatBytes(g.q), QDot: floatBytes(g.qdot),
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&f); err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	return b.Bytes(), nil
}

// GobDecode decodes a model GobEncode encoded, checking that its parts fit
// together (a corrupt or foreign file is an error, not a panic later).
func (m *Model) GobDecode(data []byte) error {
	var f modelFile
	if err := gobbytes.Decode(data, &f); err != nil {
		return fmt.Errorf("ensemble model: %w", err)
	}
	bad := errors.New("ensemble model: parts of different sizes")
	d := &Dataset{Groups: f.Groups, FPS: f.FPS}
	var ok bool
	if d.Rest, ok = bytesVecs(f.Rest); !ok || len(f.LevelNames) != len(f.Frames) || len(f.Frames) == 0 {
		return bad
	}
	// The frame counts must agree with the per-frame parts actually held
	// (the source contacts, one entry each) before any table is sized by
	// them: a count alone costs the file nothing.
	if len(f.Levels) != len(f.Frames)+1 || len(f.Models) != len(d.Groups) || len(f.Order) != len(f.Models) || len(f.StepLimit) != len(f.Models) || len(f.DataSteps) != len(f.Models) || f.Levels[0] != 0 {
		return bad
	}
	need := MinFrames(f.Opts.TauMax, f.Opts.maxBlend())
	for l, n := range f.Frames {
		if n < need || n > len(f.Sources) || f.Levels[l+1]-f.Levels[l] != n {
			return fmt.Errorf("ensemble model: level %d has %d frames", l, n)
		}
	}
	if len(f.Sources) != f.Levels[len(f.Levels)-1] {
		return bad
	}
	for l, n := range f.Frames {
		d.Levels = append(d.Levels, Level{Name: f.LevelNames[l], Frames: make([][]mgl64.Vec3, n)})
	}
	if err := d.validateShape(); err != nil {
		return fmt.Errorf("ensemble model: %w", err)
	}
	if err := checkGroupFiles(f.Models, f.Order, d); err != nil {
		return fmt.Errorf("ensemble model: %w", err)
	}
	*m = Model{data: d, opts: f.Opts, order: f.Order, levels: f.Levels, margin: f.Margin, stepLimit: f.StepLimit, dataSteps: f.DataSteps}
	states := m.states()
	m.groups = make([]groupModel, len(f.Models))
	for k, g := range f.Models {
		gm := groupModel{
			first: g.First, count: g.Count, parent: g.Parent, path: g.Path, triangles: g.Triangles,
			centroid: g.Centroid, radius: g.Radius, own: g.Own,
			patch: g.Patch, sewnTo: g.SewnTo, triSewn: g.TriSewn,
			sewVertex: g.SewVertex, sewParent: g.SewParent, sew: g.Sew, rank: g.Rank,
		}
		var ok [8]bool
		var frames []float64
		gm.rest, ok[0] = bytesVecs(g.Rest)
		gm.patchRest, ok[1] = bytesVecs(g.PatchRest)
		frames, ok[2] = bytesFloats(g.Frames)
		gm.sigma, ok[3] = bytesFloats(g.Sigma)
		gm.basis, ok[4] = bytesFloats(g.Basis)
		gm.q, ok[5] = bytesFloats(g.Q)
		gm.qdot, ok[6] = bytesFloats(g.QDot)
		ok[7] = g.Rank >= 0 && len(gm.rest) == g.Count && len(gm.basis) == g.Count*3*g.Rank && len(gm.q) == states*g.Rank && len(gm.qdot) == states*g.Rank && len(frames)%frameStateFloats == 0 && (!g.Own || len(frames) == states*frameStateFloats)
		if ok != [8]bool{true, true, true, true, true, true, true, true} {
			return fmt.Errorf("ensemble model: group %d: parts of different sizes", k)
		}
		if len(frames) > 0 {
			gm.frames = make([]frameState, len(frames)/frameStateFloats)
		}
		for i := range gm.frames {
			x := frames[i*frameStateFloats:]
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
	for i, pairs := range f.Sources {
		for _, p := range pairs {
			if p.K < 0 || p.K >= p.L || p.L >= G {
				return fmt.Errorf("ensemble model: source frame %d: pair %v", i, p)
			}
		}
		sc := &m.sources[i]
		sc.once.Do(func() { sc.pairs = slices.Clip(pairs) })
	}
	return nil
}

// checkGroupFiles checks that the groups' models index what they should:
// each agrees with its dataset group (vertices, parent, triangles), its
// path runs from a root down to it, order puts parents first, and every
// patch, sewn or sewing vertex lies in the group or parent it names.
func checkGroupFiles(gs []groupFile, order []int, d *Dataset) error {
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

// floatBytes is xs as little-endian bytes; nil for nil.
func floatBytes(xs []float64) []byte {
	if xs == nil {
		return nil
	}
	b := make([]byte, 0, 8*len(xs))
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// bytesFloats undoes floatBytes, reporting whether b was whole floats.
func bytesFloats(b []byte) ([]float64, bool) {
	if b == nil {
		return nil, true
	}
	if len(b)%8 != 0 {
		return nil, false
	}
	xs := make([]float64, len(b)/8)
	for i := range xs {
		xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return xs, true
}

// appendVecs appends v's coordinates to b as little-endian bytes.
func appendVecs(b []byte, v []mgl64.Vec3) []byte {
	for _, p := range v {
		for _, x := range p {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
}

// vecBytes is v as little-endian bytes; nil for nil.
func vecBytes(v []mgl64.Vec3) []byte {
	if v == nil {
		return nil
	}
	return appendVecs(make([]byte, 0, 24*len(v)), v)
}

// bytesVecs undoes vecBytes, reporting whether b was whole vectors.
func bytesVecs(b []byte) ([]mgl64.Vec3, bool) {
	if b == nil {
		return nil, true
	}
	if len(b)%24 != 0 {
		return nil, false
	}
	v := make([]mgl64.Vec3, len(b)/24)
	for i := range v {
		for c := range 3 {
			v[i][c] = math.Float64frombits(binary.LittleEndian.Uint64(b[24*i+8*c:]))
		}
	}
	return v, true
}
