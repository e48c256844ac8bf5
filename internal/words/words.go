// Package words writes numbers into English text for messages and
// labels: "1 frame", "2 frames", never "1 frames"; and writes and reads
// the numbers options take ("0.1,0,2"), exactly.
package words

import (
	"fmt"
	"strconv"
	"strings"
)

// Int writes n with its digits grouped by threes: Int(1466) is "1,466",
// Int(-20000) is "-20,000".
func Int(n int) string {
	s := strconv.Itoa(n)
	sign := ""
	if n < 0 {
		sign, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return sign + s
}

// Count returns n followed by the singular noun for one and the plural
// for any other count, grouped as Int writes it: Count(1, "vertex",
// "vertices") is "1 vertex", Count(8431, "vertex", "vertices") is "8,431
// vertices".
func Count(n int, singular, plural string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%s %s", Int(n), plural)
}

// Float writes x as the shortest text that strconv.ParseFloat (and
// Floats) reads back as exactly x: the numbers of a command line that
// must run exactly as the window would.
func Float(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// Floats reads n comma-separated numbers (spaces around them allowed).
func Floats(s string, n int) ([]float64, error) {
	parts := strings.Split(s, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("%d comma-separated numbers, want %d", len(parts), n)
	}
	out := make([]float64, n)
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		out[i] = v
	}
	return out, nil
}
