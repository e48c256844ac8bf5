package ensemble

import (
	"bytes"
	"encoding/gob"
	"slices"
	"strings"
	"testing"
)

// TestFloatsGob: Floats and Vecs go through gob as raw bytes and come back
// bit for bit (nil stays nil); bytes of a partial length are an error.
func TestFloatsGob(t *testing.T) {
	type parts struct {
		F, Empty Floats
		V        Vecs
	}
	in := parts{F: Floats{1, -0.5, 1e-300, 3}, V: Vecs{{1, 2, 3}, {-4, 5.5, 6e10}}}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(in); err != nil {
		t.Fatal(err)
	}
	var out parts
	if err := gob.NewDecoder(&b).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.F, in.F) || !slices.Equal(out.V, in.V) || out.Empty != nil {
		t.Errorf("came back %+v", out)
	}
	var f Floats
	if err := f.GobDecode(make([]byte, 7)); err == nil || !strings.Contains(err.Error(), "partial length") {
		t.Errorf("7 bytes as floats: %v", err)
	}
	var v Vecs
	if err := v.GobDecode(make([]byte, 16)); err == nil || !strings.Contains(err.Error(), "partial length") {
		t.Errorf("16 bytes as vectors: %v", err)
	}
}
