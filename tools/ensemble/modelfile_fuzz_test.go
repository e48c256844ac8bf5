package ensemble

import (
	"bytes"
	"encoding/gob"
	"testing"

	"gallop/internal/fuzzbound"
	"gallop/internal/gobbytes"
	"gallop/solver/ensemble"
)

// FuzzModelGobDecode checks that decoding a model file as Gallop does
// (gobbytes.Decode, as a shard file's payload) never panics and allocates
// in proportion to the file, whatever sizes it claims, and that a model it
// accepts poses its states.
func FuzzModelGobDecode(f *testing.F) {
	m := smallModel(f)
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(modelGob{m}); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()/2])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var back modelGob
		var err error
		fuzzbound.Check(t, len(data), 1024, func() { err = gobbytes.Decode(data, &back) })
		if err != nil {
			return
		}
		for l, lv := range back.Dataset().Levels {
			for i := range lv.Frames {
				back.Pose(ensemble.State{Level: l, Frame: i})
			}
		}
	})
}
