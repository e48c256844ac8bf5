//go:build !purego

package dynskin

import (
	"github.com/go-gl/mathgl/mgl64"
	"golang.org/x/sys/cpu"
)

// useAVX reports whether ringSumsAVX runs on this machine (the CPU has
// AVX and the operating system saves its registers).
var useAVX = cpu.X86.HasAVX

// ringSumsAVX is ringSumsGo for a ring of n ≥ 1 entries (ring: the first)
// around xi in the nodes from x on, with rest positions from rest on, xi's
// own ri and its mean rest edge mean0 (ringsums_amd64.s), with 4-wide
// vectors: per entry j, the node's (x, v[0]) times each component of e
// (three columns of A), minus xᵢ's (Σ (xⱼ − xᵢ)), and its last four
// doubles (x[2], v) added (Σ vⱼ); then each column k of A less
// (xᵢ, vᵢ[0])·(mean0[k]·n). Lanes add and multiply exactly as ringSumsGo
// does, without fused multiply-adds, so the sums are bitwise the same.
// The indices are not checked: every ring entry must index a node and a
// rest position (Model's rings do).
//
//go:noescape
func ringSumsAVX(r *ringSums, x, xi *node, ring *int32, rest, ri, mean0 *mgl64.Vec3, n int)

// ringSumsRaw sums slot i's ring in x into r as ringSumsGo describes.
func ringSumsRaw(r *ringSums, x []node, i int, ring []int32, rest []mgl64.Vec3, mean0 *mgl64.Vec3) {
	if !useAVX || len(ring) == 0 {
		ringSumsGo(r, x, i, ring, rest, mean0)
		return
	}
	_ = rest[len(x)-1]
	ringSumsAVX(r, &x[0], &x[i], &ring[0], &rest[0], &rest[i], mean0, len(ring))
}
