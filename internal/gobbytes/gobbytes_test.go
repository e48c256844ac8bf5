package gobbytes

import (
	"bytes"
	"encoding/gob"
	"runtime"
	"testing"
)

type record struct {
	Name   string
	Values []float64
}

// TestRoundTrip: what gob encodes, Decode decodes; a truncated stream is an
// error.
func TestRoundTrip(t *testing.T) {
	var b bytes.Buffer
	want := record{Name: "x", Values: []float64{1, 2, 3}}
	if err := gob.NewEncoder(&b).Encode(want); err != nil {
		t.Fatal(err)
	}
	var got record
	if err := Decode(b.Bytes(), &got); err != nil || got.Name != want.Name || len(got.Values) != 3 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	if err := Decode(b.Bytes()[:b.Len()-1], &got); err == nil {
		t.Error("a truncated stream decoded")
	}
}

// TestDeclaredLengthNotAllocated: five bytes declaring a message of almost
// 1 GB, and four declaring 3 MB (a fuzzer's find), are refused without
// allocating it (encoding/gob alone allocates the declared length).
func TestDeclaredLengthNotAllocated(t *testing.T) {
	for _, data := range [][]byte{{0xfc, 0x3f, 0xff, 0xff, 0xff}, []byte("\xfd000")} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var r record
		err := Decode(data, &r)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("% x decoded", data)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 1<<16 {
			t.Errorf("% x: %d bytes allocated", data, got)
		}
	}
}
