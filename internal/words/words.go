// Package words writes numbers into English text for messages and
// labels: "1 frame", "2 frames", never "1 frames".
package words

import (
	"fmt"
	"strconv"
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
