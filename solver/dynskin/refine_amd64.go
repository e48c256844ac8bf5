//go:build !purego

package dynskin

import (
	"math/bits"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// refineStep4 takes, in each lane k, the step rotation.Refine(q[k],
// &r[k].a, 0, 1) takes (refine_amd64.s): the Newton step, |ω| capped at
// 2, where H is positive definite, else the line search along
// (H + μI)⁻¹m. It stores the turned quaternions in out and returns the
// lanes (bit k for lane k) where that is Refine's answer; the others
// (ω = 0, a non-finite matrix, a critical point where Refine starts again
// from Polar) are left to Refine, their out not its answer. Every lane's
// operations are Refine's in its order, without fused multiply-adds, so
// the answers are bitwise the same. It needs AVX.
//
//go:noescape
func refineStep4(q *[4]mgl64.Quat, r *[4]ringSums, out *[4]mgl64.Quat) int

// refineRings sets q[k] to rotation.Refine(q[k], &r[k].a, 0, 1), one step
// refining ring k's rotation from its last one, for the lanes k set in
// lanes (bit k): with AVX, four at a time (refineStep4), the few it
// leaves one by one.
func refineRings(q *[4]mgl64.Quat, r *[4]ringSums, lanes uint) {
	if useAVX && lanes != 0 {
		var out [4]mgl64.Quat
		done := uint(refineStep4(q, r, &out)) & lanes
		for k := range 4 {
			if done>>k&1 != 0 {
				q[k] = out[k]
			}
		}
		lanes &^= done
	}
	for ; lanes != 0; lanes &= lanes - 1 {
		k := bits.TrailingZeros(lanes)
		q[k], _ = rotation.Refine(q[k], &r[k].a, 0, 1)
	}
}

// The kernel's layout: a quaternion is w, x, y, z; ringSums 128 bytes, a
// at 0.
var (
	_ [1]struct{} = [unsafe.Sizeof(mgl64.Quat{}) / 32]struct{}{}
	_ [1]struct{} = [unsafe.Offsetof(mgl64.Quat{}.V) / 8]struct{}{}
)
