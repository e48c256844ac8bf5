// Package farthest picks well-spread subsets by farthest-point selection:
// of points in space, or of any items with a distance between them.
package farthest

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Select returns up to k of the items 0..n-1 chosen by farthest-point
// selection: first is first, each next one is the item farthest from all
// chosen so far (its distance to the set being the smallest distance to a
// chosen item), ties broken by the lower index. dist(i, j) must be
// symmetric and non-negative (a metric, or any increasing function of one,
// such as a squared distance); it is called O(k·n) times. Selection stops
// early when every remaining item is at distance 0 from the chosen set
// (duplicates), so the result holds only distinct items. The result is
// deterministic.
func Select(n, k, first int, dist func(i, j int) float64) []int {
	return Distinct(n, k, first, 0, dist)
}

// Distinct is Select that also stops when every remaining item is within
// eps of the chosen set: the result holds up to k items, each at least
// (more than) eps from those chosen before it.
func Distinct(n, k, first int, eps float64, dist func(i, j int) float64) []int {
	if n == 0 || k <= 0 {
		return nil
	}
	if first < 0 || first >= n {
		panic("farthest: first item index out of range")
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = math.Inf(1)
	}
	chosen := []int{first}
	for len(chosen) < k {
		last := chosen[len(chosen)-1]
		best, bestD := -1, eps
		for i := range d {
			if v := dist(last, i); v < d[i] {
				d[i] = v
			}
			if d[i] > bestD {
				best, bestD = i, d[i]
			}
		}
		if best < 0 {
			break // every item is within eps of a chosen one
		}
		chosen = append(chosen, best)
	}
	return chosen
}

// Points returns k indices of points chosen by farthest-point
// selection in Euclidean distance (Select): the first is first, each next
// one is the point farthest from all chosen so far, ties broken by the
// lower index. It returns fewer than k indices only when there are fewer
// than k distinct points. O(k·len(points)) time.
func Points(points []mgl64.Vec3, k, first int) []int {
	return Select(len(points), k, first, func(i, j int) float64 {
		return points[i].Sub(points[j]).LenSqr()
	})
}
