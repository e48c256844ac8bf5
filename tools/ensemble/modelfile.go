package ensemble

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/gobbytes"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
)

// modelFile is a model file: the parts of an ensemble.Model
// (ensemble.ModelParts) with exported fields for encoding/gob. Arrays of
// floats go as raw little-endian bytes (gob's []byte is a copy; its own
// float encoding costs ten times more to decode, which every shard of a
// build pays).
type modelFile struct {
	Groups     []ensemble.Group
	Rest       []byte
	LevelNames []string
	Frames     []int       // per level
	Wind       [][]float64 // per level, empty for a level at one wind
	FPS        float64

	Opts      ensemble.Options
	Models    []groupFile
	Order     []int
	Levels    []int
	Margin    int
	StepLimit []float64
	DataSteps []float64
	Sources   [][]csp.Pair
}

// groupFile is an ensemble.GroupParts in a model file.
type groupFile struct {
	First, Count, Parent int
	Path                 []int
	Triangles            [][3]int
	Rest                 []byte
	Centroid             mgl64.Vec3
	Radius               float64
	Own                  bool
	Frames               []byte
	Patch                []int
	PatchRest            []byte
	SewnTo               []int32
	TriSewn              [][3]int32
	SewVertex, SewParent []int
	Sew                  []ensemble.SewWeight
	Rank                 int
	Sigma, Basis         []byte
	Q, QDot              []byte
}

// EncodeModel encodes m as a model file for another process (the shards
// of a build read the model their prepared stage fitted): DecodeModel
// gives a model equal to m bit for bit (see ensemble.Model.Parts), so that
// every result computed from it is the same. Encoding computes the source
// frames' interpenetrations if they are not yet, on every core.
func EncodeModel(m *ensemble.Model) ([]byte, error) {
	p, err := m.Parts(context.Background())
	if err != nil {
		return nil, err
	}
	f := modelFile{Groups: p.Groups, Rest: vecBytes(p.Rest), LevelNames: p.LevelNames, Frames: p.Frames, Wind: p.Wind, FPS: p.FPS,
		Opts: p.Options, Order: p.Order, Levels: p.Levels, Margin: p.Margin, StepLimit: p.StepLimit, DataSteps: p.DataSteps, Sources: p.Sources}
	f.Models = make([]groupFile, len(p.Models))
	for k, g := range p.Models {
		f.Models[k] = groupFile{
			First: g.First, Count: g.Count, Parent: g.Parent, Path: g.Path, Triangles: g.Triangles,
			Rest: vecBytes(g.Rest), Centroid: g.Centroid, Radius: g.Radius, Own: g.Own, Frames: floatBytes(g.Frames),
			Patch: g.Patch, PatchRest: vecBytes(g.PatchRest), SewnTo: g.SewnTo, TriSewn: g.TriSewn,
			SewVertex: g.SewVertex, SewParent: g.SewParent, Sew: g.Sew,
			Rank: g.Rank, Sigma: floatBytes(g.Sigma), Basis: floatBytes(g.Basis), Q: floatBytes(g.Q), QDot: floatBytes(g.QDot),
		}
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&f); err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	return b.Bytes(), nil
}

// DecodeModel decodes a model file EncodeModel encoded (with
// gobbytes.Decode, which checks every message's declared length first),
// checking that its parts fit together (ensemble.NewModelFromParts): a
// corrupt or foreign file is an error, not a panic later.
func DecodeModel(data []byte) (*ensemble.Model, error) {
	var f modelFile
	if err := gobbytes.Decode(data, &f); err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	p := &ensemble.ModelParts{Groups: f.Groups, LevelNames: f.LevelNames, Frames: f.Frames, Wind: f.Wind, FPS: f.FPS,
		Options: f.Opts, Order: f.Order, Levels: f.Levels, Margin: f.Margin, StepLimit: f.StepLimit, DataSteps: f.DataSteps, Sources: f.Sources}
	var ok bool
	if p.Rest, ok = bytesVecs(f.Rest); !ok {
		return nil, errors.New("ensemble model: parts of different sizes")
	}
	p.Models = make([]ensemble.GroupParts, len(f.Models))
	for k, g := range f.Models {
		gp := ensemble.GroupParts{
			First: g.First, Count: g.Count, Parent: g.Parent, Path: g.Path, Triangles: g.Triangles,
			Centroid: g.Centroid, Radius: g.Radius, Own: g.Own, Patch: g.Patch, SewnTo: g.SewnTo, TriSewn: g.TriSewn,
			SewVertex: g.SewVertex, SewParent: g.SewParent, Sew: g.Sew, Rank: g.Rank,
		}
		var ok [7]bool
		gp.Rest, ok[0] = bytesVecs(g.Rest)
		gp.PatchRest, ok[1] = bytesVecs(g.PatchRest)
		gp.Frames, ok[2] = bytesFloats(g.Frames)
		gp.Sigma, ok[3] = bytesFloats(g.Sigma)
		gp.Basis, ok[4] = bytesFloats(g.Basis)
		gp.Q, ok[5] = bytesFloats(g.Q)
		gp.QDot, ok[6] = bytesFloats(g.QDot)
		if ok != [7]bool{true, true, true, true, true, true, true} {
			return nil, fmt.Errorf("ensemble model: group %d: parts of different sizes", k)
		}
		p.Models[k] = gp
	}
	m, err := ensemble.NewModelFromParts(p)
	if err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	return m, nil
}

// modelGob is a model in a shard file's payload, encoded as its model
// file.
type modelGob struct{ *ensemble.Model }

// GobEncode implements gob.GobEncoder (EncodeModel).
func (m modelGob) GobEncode() ([]byte, error) { return EncodeModel(m.Model) }

// GobDecode implements gob.GobDecoder (DecodeModel).
func (m *modelGob) GobDecode(data []byte) error {
	var err error
	m.Model, err = DecodeModel(data)
	return err
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

// vecBytes is v as little-endian bytes; nil for nil.
func vecBytes(v []mgl64.Vec3) []byte {
	if v == nil {
		return nil
	}
	b := make([]byte, 0, 24*len(v))
	for _, p := range v {
		for _, x := range p {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
		}
	}
	return b
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
