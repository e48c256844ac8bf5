package words

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 bodies"}, {1, "1 body"}, {2, "2 bodies"}, {21, "21 bodies"}} {
		if got := Count(c.n, "body", "bodies"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestInt(t *testing.T) {
	for n, want := range map[int]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 1466: "1,466", 20000: "20,000", 1234567: "1,234,567", -20000: "-20,000", -999: "-999"} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestFloatRoundTrip: Float writes numbers that Floats reads back exactly.
func TestFloatRoundTrip(t *testing.T) {
	xs := []float64{0.1, 1.0 / 3, -2.5e-300, 6.02214076e23, 0, 7}
	for _, x := range xs {
		got, err := Floats(Float(x), 1)
		if err != nil || got[0] != x {
			t.Errorf("Float(%v) = %q reads back as %v, %v", x, Float(x), got, err)
		}
	}
	if s := Float(0.1); s != "0.1" {
		t.Errorf("Float(0.1) = %q, want the shortest text", s)
	}
}
