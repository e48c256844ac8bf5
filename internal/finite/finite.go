// Package finite tells whether floating-point values are finite: neither
// NaN nor ±Inf. It is the one such check every package uses to reject bad
// input before it reaches a solver or the screen.
package finite

import "math"

// Float reports whether x is finite.
func Float(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Floats reports whether every x is finite (true for none).
func Floats(xs ...float64) bool {
	for _, x := range xs {
		if !Float(x) {
			return false
		}
	}
	return true
}

// Vec3 reports whether every component of v is finite. Any [3]float64
// vector type (mgl64.Vec3, assets.Vec3) converts to its parameter.
func Vec3(v [3]float64) bool { return Float(v[0]) && Float(v[1]) && Float(v[2]) }
