package ensemble

import (
	"math"
	"testing"

	"gallop/solver/meshgraph"
)

// TestSewingFalloff on a 7 × 9 flag sewn along its top row: φ_a is 1 at
// its own sewn vertex and 0 at the others, harmonic (the mean of its
// neighbours) at the free vertices, 0 from SewRings rows down, and the φ
// sum to 1 on the sewn row and at most 1 below it.
func TestSewingFalloff(t *testing.T) {
	const rows, cols = 9, 7
	tris := grid(rows, cols)
	var attach []Attachment
	for c := range cols {
		attach = append(attach, Attachment{Vertex: c, ParentVertex: c})
	}
	sew, err := newSewing(rows*cols, tris, attach)
	if err != nil {
		t.Fatal(err)
	}
	phi := make([][]float64, len(attach))
	for a := range phi {
		phi[a] = make([]float64, rows*cols)
	}
	for _, s := range sew {
		phi[s.A][s.V] += s.W
	}
	adj, err := meshgraph.New(rows*cols, tris)
	if err != nil {
		t.Fatal(err)
	}
	for a := range attach {
		for v := range rows * cols {
			r := v / cols
			var want float64
			switch {
			case r == 0 && v == a:
				want = 1
			case r == 0 || r >= SewRings:
				want = 0
			default:
				mean := 0.0
				for _, u := range adj.Neighbours(v) {
					mean += phi[a][u]
				}
				want = mean / float64(len(adj.Neighbours(v)))
			}
			if math.Abs(phi[a][v]-want) > 1e-12 {
				t.Errorf("φ_%d at vertex %d (row %d): %.6g, want %.6g", a, v, r, phi[a][v], want)
			}
		}
	}
	for v := range rows * cols {
		sum := 0.0
		for a := range attach {
			sum += phi[a][v]
		}
		if r := v / cols; r == 0 && math.Abs(sum-1) > 1e-12 || sum < 0 || sum > 1+1e-12 || r >= SewRings && sum != 0 {
			t.Errorf("Σφ at vertex %d (row %d) = %.6g", v, r, sum)
		}
	}
}
