package ensemble

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Floats is a []float64 of ModelParts that encoding/gob writes as raw
// little-endian bytes: gob's own float encoding costs ten times more to
// decode, which every shard of a farm build pays for its model.
type Floats []float64

// Vecs is a []mgl64.Vec3 of ModelParts, written as Floats are.
type Vecs []mgl64.Vec3

// GobEncode implements gob.GobEncoder.
func (f Floats) GobEncode() ([]byte, error) { return appendFloats(nil, f), nil }

// GobDecode implements gob.GobDecoder: b must hold whole float64s.
func (f *Floats) GobDecode(b []byte) error {
	if len(b)%8 != 0 {
		return errors.New("ensemble parts: a list of numbers of a partial length")
	}
	*f = readFloats(b, len(b)/8)
	return nil
}

// GobEncode implements gob.GobEncoder.
func (v Vecs) GobEncode() ([]byte, error) {
	b := make([]byte, 0, 24*len(v))
	for _, p := range v {
		b = appendFloats(b, p[:])
	}
	return b, nil
}

// GobDecode implements gob.GobDecoder: b must hold whole vectors.
func (v *Vecs) GobDecode(b []byte) error {
	if len(b)%24 != 0 {
		return errors.New("ensemble parts: a list of vectors of a partial length")
	}
	out := make(Vecs, len(b)/24)
	for i := range out {
		for c := range 3 {
			out[i][c] = math.Float64frombits(binary.LittleEndian.Uint64(b[24*i+8*c:]))
		}
	}
	*v = out
	return nil
}

// appendFloats appends xs to b as little-endian float64 bits.
func appendFloats(b []byte, xs []float64) []byte {
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

// readFloats reads n little-endian float64s from b.
func readFloats(b []byte, n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return xs
}
