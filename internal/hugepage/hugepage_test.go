package hugepage

import (
	"testing"
)

// TestInterior: the marked range is the whole huge pages inside a buffer,
// none when it holds none.
func TestInterior(t *testing.T) {
	for _, c := range []struct {
		p, size, off, n uintptr
	}{
		{0, 4 * pageSize, 0, 4 * pageSize},
		{1, 4 * pageSize, pageSize - 1, 3 * pageSize},
		{pageSize - 8, pageSize + 16, 8, pageSize},
		{8, pageSize, 0, 0},
		{pageSize + 8, pageSize - 16, 0, 0},
	} {
		if off, n := interior(c.p, c.size); off != c.off || n != c.n {
			t.Errorf("interior(%#x, %#x) = %#x, %#x; want %#x, %#x", c.p, c.size, off, n, c.off, c.n)
		}
	}
}

// TestMake: the slice is make's (length, zeroes, writable) whatever its
// size.
func TestMake(t *testing.T) {
	for _, n := range []int{0, 1, 1000, minBytes/8 + 3} {
		s := Make[float64](n)
		if len(s) != n {
			t.Fatalf("len %d, want %d", len(s), n)
		}
		for i := 0; i < n; i += 4096 {
			if s[i] != 0 {
				t.Fatalf("element %d of %d is %v", i, n, s[i])
			}
			s[i] = 1
		}
	}
}
