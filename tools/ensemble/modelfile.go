package ensemble

import (
	"bytes"
	"context"
	"encoding/gob"
	"fmt"

	"gallop/internal/gobbytes"
	"gallop/solver/ensemble"
)

// EncodeModel encodes m as a model file for another process (the shards
// of a build read the model their prepared stage fitted): its parts
// (ensemble.ModelParts, whose arrays of numbers gob writes as raw bytes)
// in gob. DecodeModel gives a model equal to m bit for bit (see
// ensemble.Model.Parts), so that every result computed from it is the
// same. Encoding computes the source frames' interpenetrations if they are
// not yet, on every core.
func EncodeModel(m *ensemble.Model) ([]byte, error) {
	p, err := m.Parts(context.Background())
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	return b.Bytes(), nil
}

// DecodeModel decodes a model file EncodeModel encoded (with
// gobbytes.Decode, which checks every message's declared length first),
// checking that its parts fit together (ensemble.NewModelFromParts, the
// one validation of the parts): a corrupt or foreign file is an error,
// not a panic later.
func DecodeModel(data []byte) (*ensemble.Model, error) {
	var p ensemble.ModelParts
	if err := gobbytes.Decode(data, &p); err != nil {
		return nil, fmt.Errorf("ensemble model: %w", err)
	}
	m, err := ensemble.NewModelFromParts(&p)
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
