// Package sampling picks well-spread subsets of points.
package sampling

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// FarthestPoints returns k indices of points chosen by farthest-point
// sampling: the first is first, each next one is the point farthest (in
// Euclidean distance) from all chosen so far, ties broken by the lower
// index. The result is deterministic. It returns fewer than k indices only
// when there are fewer than k distinct points. O(k·len(points)) time.
func FarthestPoints(points []mgl64.Vec3, k, first int) []int {
	if len(points) == 0 || k <= 0 {
		return nil
	}
	if first < 0 || first >= len(points) {
		panic("sampling: first point index out of range")
	}
	dist := make([]float64, len(points))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	chosen := []int{first}
	for len(chosen) < k {
		last := points[chosen[len(chosen)-1]]
		best, bestD := -1, 0.0
		for i, p := range points {
			d := p.Sub(last).LenSqr()
			if d < dist[i] {
				dist[i] = d
			}
			if dist[i] > bestD {
				best, bestD = i, dist[i]
			}
		}
		if best < 0 {
			break // every point coincides with a chosen one
		}
		chosen = append(chosen, best)
	}
	return chosen
}
