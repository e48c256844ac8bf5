package collide

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/shareddata"
	"gallop/solver/bvh"
)

// brutePairsBoxes is Grid.Pairs by comparing every pair.
func brutePairsBoxes(boxes []bvh.AABB) [][2]int {
	var pairs [][2]int
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if !boxes[i].Empty() && !boxes[j].Empty() && boxes[i].Overlaps(boxes[j]) {
				pairs = append(pairs, [2]int{i, j})
			}
		}
	}
	return pairs
}

// randomBoxes returns n boxes of mixed sizes in a cube of side 10, with
// some points, some empty, huge, infinite or NaN boxes, and boxes that
// exactly touch others or lie on cell boundaries.
func randomBoxes(rng *rand.Rand, n int) []bvh.AABB {
	boxes := make([]bvh.AABB, n)
	for i := range boxes {
		var b bvh.AABB
		for k := range 3 {
			lo := 10 * rng.Float64()
			if rng.IntN(4) == 0 {
				lo = math.Round(lo) // on a lattice: boundaries coincide
			}
			b.Min[k], b.Max[k] = lo, lo+rng.ExpFloat64()*0.5
		}
		switch rng.IntN(40) {
		case 0:
			b.Max = b.Min // a point
		case 1:
			b = bvh.EmptyAABB()
		case 2:
			b.Max[0], b.Min[0] = b.Min[0], b.Max[0]+1 // empty, inverted
		case 3:
			b = b.Expand(8) // huge
		case 4:
			b.Max[1] = math.Inf(1)
		case 5:
			b.Min[2] = math.NaN()
		case 6:
			if i > 0 { // touching the previous box face to face
				p := boxes[i-1]
				b.Min[0], b.Max[0] = p.Max[0], p.Max[0]+1
				b.Min[1], b.Max[1] = p.Min[1], p.Max[1]
				b.Min[2], b.Max[2] = p.Min[2], p.Max[2]
			}
		}
		boxes[i] = b
	}
	return boxes
}

// TestGridPairs compares Grid.Pairs with all-pairs comparison on random
// boxes, reusing one Grid, appending after existing elements of dst.
func TestGridPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 21))
	var g Grid
	for _, n := range []int{0, 1, 2, 10, 100, 1000} {
		for range 5 {
			boxes := randomBoxes(rng, n)
			want := brutePairsBoxes(boxes)
			prefix := [][2]int{{-1, -1}}
			got := g.Pairs(prefix, boxes)
			if !reflect.DeepEqual(got[0], [2]int{-1, -1}) {
				t.Fatalf("n=%d: Pairs overwrote dst", n)
			}
			if got = got[1:]; len(got) != len(want) || len(want) > 0 && !reflect.DeepEqual(got, want) {
				t.Fatalf("n=%d: Pairs found %d pairs, brute force %d", n, len(got), len(want))
			}
		}
	}
}

// TestGridCases checks Grid.Pairs on boxes all alike: all points, all one
// box, one box far from the rest.
func TestGridCases(t *testing.T) {
	var g Grid
	p := bvh.AABB{Min: mgl64.Vec3{1, 2, 3}, Max: mgl64.Vec3{1, 2, 3}}
	q := bvh.AABB{Min: mgl64.Vec3{1, 2, 4}, Max: mgl64.Vec3{1, 2, 4}}
	far := bvh.AABB{Min: mgl64.Vec3{1e300, 0, 0}, Max: mgl64.Vec3{1e300, 1, 1}}
	unit := bvh.AABB{Max: mgl64.Vec3{1, 1, 1}}
	for _, c := range []struct {
		name  string
		boxes []bvh.AABB
	}{
		{"points", []bvh.AABB{p, q, p, q, p}},
		{"one box", []bvh.AABB{unit, unit, unit}},
		{"far apart", []bvh.AABB{unit, far, unit, far, unit.Expand(1e-300)}},
		{"spanning the range", []bvh.AABB{{Min: mgl64.Vec3{-1e308, 0, 0}, Max: mgl64.Vec3{1e308, 1, 1}}, unit, far}},
		{"sides summing past the largest float", []bvh.AABB{{Max: mgl64.Vec3{1.5e308, 1, 1}}, {Max: mgl64.Vec3{1.5e308, 1, 1}}, unit}},
	} {
		if got, want := g.Pairs(nil, c.boxes), brutePairsBoxes(c.boxes); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Pairs = %v, brute force %v", c.name, got, want)
		}
	}
}

// TestGridAllocations checks that a Grid reused on boxes of one frame
// after another does not allocate.
func TestGridAllocations(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 22))
	boxes := randomBoxes(rng, 300)
	var g Grid
	dst := g.Pairs(nil, boxes)
	if allocs := testing.AllocsPerRun(10, func() { dst = g.Pairs(dst[:0], boxes) }); allocs > 0 {
		t.Errorf("Pairs allocates %g times per call", allocs)
	}
}

// TestEnsembleBanner runs the ensemble tool's per-frame test on the flag
// banner (31 groups: a rope and 30 flags, Blender cloth with
// self-collision): a Mesh per group refitted each frame, Grid.Pairs over
// their bounds (checked against all pairs), MeshPairs on the candidates.
// Triangle pairs that share a corner position are the flags' seams to the
// rope (attachments.csv: identical coordinates), which touch by
// construction; every flag must touch the rope there. All other
// intersecting pairs must be exactly those listed in
// interpenetrations.csv (none: Blender kept the cloth apart).
func TestEnsembleBanner(t *testing.T) {
	dir := shareddata.Path(t, "ensemble-banner")
	listed := readInterpenetrations(t, filepath.Join(dir, "interpenetrations.csv"))
	var meshes []*Mesh
	var groups []objGroup
	var g Grid
	var boxes []bvh.AABB
	for _, level := range []string{"wind-1", "wind-2", "wind-3"} {
		for _, frame := range []int{1, 70, 140, 210} {
			pos, gs := loadOBJ(t, filepath.Join(dir, level, fmt.Sprintf("%d.obj", frame)))
			if len(gs) != 31 {
				t.Fatalf("%s/%d.obj: %d groups, want 31", level, frame, len(gs))
			}
			if meshes == nil {
				groups = gs
				for i, gr := range gs {
					meshes = append(meshes, NewMesh(groupPositions(gs, i, pos), localTriangles(gr)))
				}
			}
			boxes = boxes[:0]
			for i, m := range meshes {
				m.Refit(groupPositions(gs, i, pos))
				boxes = append(boxes, m.Bounds())
			}
			cand := g.Pairs(nil, boxes)
			if want := brutePairsBoxes(boxes); !reflect.DeepEqual(cand, want) {
				t.Fatalf("%s/%d: Grid.Pairs %v, brute force %v", level, frame, cand, want)
			}
			var found []string
			touchesRope := map[int]bool{}
			for _, p := range cand {
				a, b := meshes[p[0]], meshes[p[1]]
				penetrating := 0
				var ta, tb tri
				MeshPairs(a, b, func(i, j int) bool {
					a.triangle(i, &ta)
					b.triangle(j, &tb)
					if shareCorner(&ta, &tb) {
						if groups[p[0]].name == "rope" {
							touchesRope[p[1]] = true
						}
					} else {
						penetrating++
					}
					return true
				})
				if penetrating > 0 {
					found = append(found, groups[p[0]].name+","+groups[p[1]].name)
				}
			}
			if want := listed[fmt.Sprintf("%s,%d", level, frame)]; !reflect.DeepEqual(found, want) {
				t.Errorf("%s/%d: intersecting groups %v, interpenetrations.csv lists %v", level, frame, found, want)
			}
			if len(touchesRope) != 30 {
				t.Errorf("%s/%d: %d flags touch the rope, want 30", level, frame, len(touchesRope))
			}
			t.Logf("%s/%d: %d candidate group pairs", level, frame, len(cand))
		}
	}
}

// groupPositions returns the positions of group i of gs.
func groupPositions(gs []objGroup, i int, pos []mgl64.Vec3) []mgl64.Vec3 {
	end := len(pos)
	if i+1 < len(gs) {
		end = gs[i+1].first
	}
	return pos[gs[i].first:end]
}

// localTriangles returns the triangles of g with indices relative to its
// first vertex.
func localTriangles(g objGroup) [][3]int {
	out := make([][3]int, len(g.triangles))
	for f, tr := range g.triangles {
		out[f] = [3]int{tr[0] - g.first, tr[1] - g.first, tr[2] - g.first}
	}
	return out
}

// shareCorner reports whether a and b have a corner at the same position.
func shareCorner(a, b *tri) bool {
	for _, p := range a {
		for _, q := range b {
			if p == q {
				return true
			}
		}
	}
	return false
}

// readInterpenetrations returns the group pairs "a,b" of
// interpenetrations.csv by "level,frame".
func readInterpenetrations(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(rows) == 0 || strings.Join(rows[0], ",") != "level,frame,group_a,group_b,triangle_pairs,kind" {
		t.Fatalf("%s: unexpected header", path)
	}
	out := map[string][]string{}
	for _, r := range rows[1:] {
		k := r[0] + "," + r[1]
		out[k] = append(out[k], r[2]+","+r[3])
	}
	return out
}
