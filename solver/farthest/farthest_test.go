package farthest

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestFarthestPointsCorners(t *testing.T) {
	// A 5x5 grid: after the corner (0,0) the farthest is the opposite
	// corner, then the two others.
	var pts []mgl64.Vec3
	for y := 0; y < 5; y++ {
		for x := 0; x < 5; x++ {
			pts = append(pts, mgl64.Vec3{float64(x), float64(y), 0})
		}
	}
	got := Points(pts, 4, 0)
	want := []int{0, 24, 4, 20}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestFarthestPointsSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pts := make([]mgl64.Vec3, 2000)
	for i := range pts {
		pts[i] = mgl64.Vec3{rng.Float64(), rng.Float64(), rng.Float64()}
	}
	got := Points(pts, 10, 7)
	if len(got) != 10 || got[0] != 7 {
		t.Fatalf("got %v", got)
	}
	// The minimum pairwise distance of the sample is large compared with
	// that of the first 10 points.
	minDist := func(idx []int) float64 {
		m := 1e9
		for a := range idx {
			for b := a + 1; b < len(idx); b++ {
				m = min(m, pts[idx[a]].Sub(pts[idx[b]]).Len())
			}
		}
		return m
	}
	if minDist(got) < 2*minDist([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}) {
		t.Fatalf("farthest points are not spread: %v vs %v", minDist(got), minDist([]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}))
	}
	seen := map[int]bool{}
	for _, i := range got {
		if seen[i] {
			t.Fatalf("index %d chosen twice", i)
		}
		seen[i] = true
	}
}

func TestFarthestPointsDuplicates(t *testing.T) {
	pts := []mgl64.Vec3{{1, 1, 1}, {1, 1, 1}, {1, 1, 1}}
	if got := Points(pts, 3, 0); len(got) != 1 {
		t.Fatalf("coincident points gave %v", got)
	}
	if got := Points(nil, 3, 0); got != nil {
		t.Fatalf("no points gave %v", got)
	}
}

// TestDistinct: on a line of items, a threshold keeps only those farther
// apart than it; with a non-Euclidean distance (on a circle of 12 hours).
func TestDistinct(t *testing.T) {
	hours := []int{0, 1, 2, 6, 7, 11}
	circ := func(i, j int) float64 {
		d := (hours[i] - hours[j] + 12) % 12
		return float64(min(d, 12-d))
	}
	// 0h; then 6h (6 away); then 2h (2 from 0h, 4 from 6h: the largest
	// smallest distance).
	if got := Select(len(hours), 3, 0, circ); !slices.Equal(got, []int{0, 3, 2}) {
		t.Errorf("farthest on the circle: %v, want [0 3 2]", got)
	}
	// With eps = 1, after 0h, 6h and 2h every other hour is 1 from one of
	// them: selection stops at three.
	got := Distinct(len(hours), 10, 0, 1, circ)
	for a := range got {
		for b := a + 1; b < len(got); b++ {
			if circ(got[a], got[b]) <= 1 {
				t.Errorf("items %d and %d are within eps: %v", hours[got[a]], hours[got[b]], got)
			}
		}
	}
	if !slices.Equal(got, []int{0, 3, 2}) {
		t.Errorf("Distinct kept %v, want [0 3 2]", got)
	}
}
