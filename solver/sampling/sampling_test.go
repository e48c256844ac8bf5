package sampling

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
	got := FarthestPoints(pts, 4, 0)
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
	got := FarthestPoints(pts, 10, 7)
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
	if got := FarthestPoints(pts, 3, 0); len(got) != 1 {
		t.Fatalf("coincident points gave %v", got)
	}
	if got := FarthestPoints(nil, 3, 0); got != nil {
		t.Fatalf("no points gave %v", got)
	}
}
