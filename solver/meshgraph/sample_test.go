package meshgraph

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// sampleGrid is an nx×ny grid of unit squares, two triangles each, offset by x0
// in x, its vertices numbered from first.
func sampleGrid(nx, ny, first int, x0 float64) ([]mgl64.Vec3, [][3]int) {
	var pos []mgl64.Vec3
	var tris [][3]int
	for y := range ny + 1 {
		for x := range nx + 1 {
			pos = append(pos, mgl64.Vec3{x0 + float64(x), float64(y), 0})
		}
	}
	at := func(x, y int) int { return first + y*(nx+1) + x }
	for y := range ny {
		for x := range nx {
			tris = append(tris, [3]int{at(x, y), at(x+1, y), at(x+1, y+1)}, [3]int{at(x, y), at(x+1, y+1), at(x, y+1)})
		}
	}
	return pos, tris
}

func TestFarthestSample(t *testing.T) {
	pos, tris := sampleGrid(10, 10, 0, 0)
	a, err := New(len(pos), tris)
	if err != nil {
		t.Fatal(err)
	}
	samples, owner := FarthestSample(a, pos, 4)
	// Vertex 0, then the opposite corner (graph distance 10√2 along the
	// diagonals), then the two other corners.
	want := []int32{0, 120, 10, 110}
	for k, s := range want {
		if samples[k] != s {
			t.Fatalf("samples %v, want %v", samples, want)
		}
	}
	// Each vertex's owner is its nearest sample by graph distance, as a
	// Bellman-Ford relaxation from each sample alone finds it.
	dist := make([][]float64, len(samples))
	for k, s := range samples {
		d := make([]float64, len(pos))
		for i := range d {
			d[i] = math.Inf(1)
		}
		d[s] = 0
		for changed := true; changed; {
			changed = false
			for i := range pos {
				for _, j := range a.Neighbours(i) {
					if x := d[i] + pos[i].Sub(pos[j]).Len(); x < d[j]-1e-12 {
						d[j], changed = x, true
					}
				}
			}
		}
		dist[k] = d
	}
	for v := range pos {
		for k := range samples {
			if dist[k][v] < dist[owner[v]][v]-1e-9 {
				t.Errorf("vertex %d owned by sample %d at %.3f, sample %d is at %.3f", v, owner[v], dist[owner[v]][v], k, dist[k][v])
			}
		}
	}
	q := a.Quotient(owner, len(samples))
	// Four quadrant cells: each touches the two beside it; the diagonal
	// pair (0 and 120) touch only at the centre, where edges join too.
	if q.Len() != 4 {
		t.Fatalf("quotient of %d cells", q.Len())
	}
	for c := range 4 {
		if len(q.Neighbours(c)) < 2 {
			t.Errorf("cell %d neighbours %v", c, q.Neighbours(c))
		}
	}
}

// TestFarthestSampleComponents: every connected component gets a sample
// before any gets a second, and no cell spans two components.
func TestFarthestSampleComponents(t *testing.T) {
	p1, t1 := sampleGrid(4, 4, 0, 0)
	p2, t2 := sampleGrid(2, 2, len(p1), 100)
	pos := append(p1, p2...)
	a, err := New(len(pos), append(t1, t2...))
	if err != nil {
		t.Fatal(err)
	}
	samples, owner := FarthestSample(a, pos, 3)
	if len(samples) != 3 || samples[0] != 0 || int(samples[1]) < len(p1) {
		t.Fatalf("samples %v: want vertex 0, then one of the second grid", samples)
	}
	for v := range pos {
		if (v < len(p1)) != (int(samples[owner[v]]) < len(p1)) {
			t.Errorf("vertex %d owned by sample %d of the other component", v, samples[owner[v]])
		}
	}
	q := a.Quotient(owner, len(samples))
	for c := range q.Len() {
		for _, d := range q.Neighbours(c) {
			if (int(samples[c]) < len(p1)) != (int(samples[d]) < len(p1)) {
				t.Errorf("cells %d and %d of two components are neighbours", c, d)
			}
		}
	}
}

// TestFarthestSampleDuplicates: sampling stops when every vertex sits on a
// sample (all at one position).
func TestFarthestSampleDuplicates(t *testing.T) {
	pos := []mgl64.Vec3{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}
	a, err := New(3, [][3]int{{0, 1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if samples, _ := FarthestSample(a, pos, 3); len(samples) != 1 {
		t.Errorf("samples %v, want one", samples)
	}
}
