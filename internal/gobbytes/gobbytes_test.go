package gobbytes

import (
	"bytes"
	"encoding/gob"
	"runtime"
	"strings"
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

// TestMapsRefused: a type holding a map anywhere (a field of a field, in a
// slice) or an interface is refused before decoding, naming where: gob
// would make the map at its declared size, a count the stream's length
// does not bound. A map-free type decodes as before.
func TestMapsRefused(t *testing.T) {
	type inner struct{ Index map[string]int }
	type outer struct {
		Name  string
		Parts []inner
	}
	type any1 struct{ Value any }
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(outer{Name: "x", Parts: []inner{{Index: map[string]int{"a": 1}}}}); err != nil {
		t.Fatal(err)
	}
	var o outer
	if err := Decode(b.Bytes(), &o); err == nil || !strings.Contains(err.Error(), "a map (Parts.Index)") {
		t.Errorf("a map in a slice's struct: %v", err)
	}
	var a any1
	if err := Decode(b.Bytes(), &a); err == nil || !strings.Contains(err.Error(), "an interface (Value)") {
		t.Errorf("an interface field: %v", err)
	}
	var m map[string]int
	if err := Decode(b.Bytes(), &m); err == nil || !strings.Contains(err.Error(), "holds a map,") {
		t.Errorf("a map itself: %v", err)
	}
}
