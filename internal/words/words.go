// Package words writes numbers into English text for messages and
// labels: "1 frame", "2 frames", never "1 frames".
package words

import "fmt"

// Count returns n followed by the singular noun for one and the plural
// for any other count: Count(1, "vertex", "vertices") is "1 vertex",
// Count(0, "vertex", "vertices") is "0 vertices".
func Count(n int, singular, plural string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, singular)
	}
	return fmt.Sprintf("%d %s", n, plural)
}
