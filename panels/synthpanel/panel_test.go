package synthpanel

import (
	"strconv"
	"testing"
)

// TestItem5CostAxisCountsFromTheTop (issue 25, item 5): the cost map's
// rows are drawn from the top (frame 1's at the top, as the transitions'
// marks), but its y axis counted up from the bottom, so a "from" frame
// read off it was wrong. Each tick now sits at the row of the frame it
// names, counted from 1: x = k − ½ across, y = n − k + ½ down.
func TestItem5CostAxisCountsFromTheTop(t *testing.T) {
	for _, n := range []int{3, 48, 204, 1000} {
		x, y := costTicks(n)
		if len(y) == 0 || len(y) > 8 || len(x) != len(y) || y[0].Label != "1" {
			t.Fatalf("n = %d: %d ticks, the first %q", n, len(y), y[0].Label)
		}
		for i := range y {
			k, err := strconv.Atoi(y[i].Label)
			if err != nil || k < 1 || k > n {
				t.Fatalf("n = %d: tick %q", n, y[i].Label)
			}
			// The transition marks put frame From (from 0) at n − From − ½.
			if want := float64(n) - float64(k-1) - 0.5; y[i].Position != want || x[i].Position != float64(k)-0.5 {
				t.Errorf("n = %d: frame %d ticked at (%g, %g), its cell's centre is (%g, %g)", n, k, x[i].Position, y[i].Position, float64(k)-0.5, want)
			}
			if i > 0 && y[i].Position >= y[i-1].Position {
				t.Errorf("n = %d: frame %s is not below frame %s", n, y[i].Label, y[i-1].Label)
			}
		}
	}
}
