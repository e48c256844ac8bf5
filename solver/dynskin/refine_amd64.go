//go:build !purego

package dynskin

import (
	"math/bits"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// refineLanes holds four rings' rotation problems for refineNewton4,
// lane k in element k of every row: the matrices a (a[j][k] is ring k's
// a[j]), the warm starts q (rows w, x, y, z) and the answers out (the
// same rows).
type refineLanes struct {
	a      [9][4]float64
	q, out [4][4]float64
}

// refineNewton4 takes, in each lane of l, the step rotation.Refine(q,
// &a, 0, 1) takes when it is a Newton step short of the cap (refine_amd64.s):
// H positive definite, 0 < |ω| ≤ 2. It stores the turned q in l.out and
// returns the lanes (bit k for lane k) where that is Refine's step; the
// others' out is not Refine's answer. Every lane's operations are
// Refine's in its order, without fused multiply-adds, so the answers are
// bitwise the same. It needs AVX.
//
//go:noescape
func refineNewton4(l *refineLanes) int

// refineRings sets q[k] to rotation.Refine(q[k], &r[k].a, 0, 1), one step
// refining ring k's rotation from its last one, for the lanes k set in
// lanes (bit k): with AVX, the Newton steps four at a time
// (refineNewton4), the others one by one.
func refineRings(q *[4]mgl64.Quat, r *[4]ringSums, lanes uint) {
	if useAVX && lanes != 0 {
		var l refineLanes
		for k := range 4 {
			a := &r[k].a
			for j := range 9 {
				l.a[j][k] = a[j]
			}
			l.q[0][k], l.q[1][k], l.q[2][k], l.q[3][k] = q[k].W, q[k].V[0], q[k].V[1], q[k].V[2]
		}
		done := uint(refineNewton4(&l)) & lanes
		for k := range 4 {
			if done>>k&1 != 0 {
				q[k] = mgl64.Quat{W: l.out[0][k], V: mgl64.Vec3{l.out[1][k], l.out[2][k], l.out[3][k]}}
			}
		}
		lanes &^= done
	}
	for ; lanes != 0; lanes &= lanes - 1 {
		k := bits.TrailingZeros(lanes)
		q[k], _ = rotation.Refine(q[k], &r[k].a, 0, 1)
	}
}

// The kernel's layout: a at 0, q at 288, out at 416.
var (
	_ [1]struct{} = [unsafe.Offsetof(refineLanes{}.q) / 288]struct{}{}
	_ [1]struct{} = [unsafe.Offsetof(refineLanes{}.out) / 416]struct{}{}
)
