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
