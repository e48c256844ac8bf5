package scratch

import "testing"

// TestFloats: a buffer has the length asked for, and one given back is
// handed out again when it is large enough.
func TestFloats(t *testing.T) {
	var f Floats
	b := f.Get(10)
	if len(*b) != 10 {
		t.Fatalf("len %d, want 10", len(*b))
	}
	(*b)[0] = 42
	f.Put(b)
	c := f.Get(5)
	if len(*c) != 5 {
		t.Fatalf("len %d, want 5", len(*c))
	}
	d := f.Get(1000)
	if len(*d) != 1000 {
		t.Fatalf("len %d, want 1000", len(*d))
	}
}
