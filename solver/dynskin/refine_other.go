//go:build !amd64 || purego

package dynskin

import (
	"math/bits"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// refineRings sets q[k] to rotation.Refine(q[k], &r[k].a, 0, 1), one step
// refining ring k's rotation from its last one, for the lanes k set in
// lanes (bit k).
func refineRings(q *[4]mgl64.Quat, r *[4]ringSums, lanes uint) {
	for ; lanes != 0; lanes &= lanes - 1 {
		k := bits.TrailingZeros(lanes)
		q[k], _ = rotation.Refine(q[k], &r[k].a, 0, 1)
	}
}
