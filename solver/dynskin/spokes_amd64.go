//go:build !purego

package dynskin

import "unsafe"

// spokesAVX is spokesGo for n ≥ 1 spokes (infl: the first) with AVX
// (spokes_amd64.s): each spoke's d and |d|² in scalar operations, then
// four spokes' square roots, divisions and products in 4-wide vectors,
// added to the sums in spoke order; every operation is spokesGo's, so
// the sums are bitwise the same. The bones are not checked: every
// influence's bone must index segs (Model's do).
//
//go:noescape
func spokesAVX(b, x *[3]float64, infl *influence, n int, segs *preparedSegment)

// spokes sums the spoke force of the influences infl at x into b as
// spokesGo describes: by spokesAVX from 4 spokes on (the subdivided
// horse's vertices have 7 on average), where it is the faster.
func spokes(b, x *[3]float64, infl []influence, segs []preparedSegment) {
	if !useAVX || len(infl) < 4 {
		spokesGo(b, x, infl, segs)
		return
	}
	spokesAVX(b, x, &infl[0], len(infl), &segs[0])
}

// The kernel's layout: an influence is its bone (int32) at 0, w at 8 and
// w·|d⁰| at 16; a preparedSegment a, d, dn, 72 bytes.
var (
	_ [1]struct{} = [unsafe.Sizeof(influence{}) / 24]struct{}{}
	_ [1]struct{} = [unsafe.Offsetof(influence{}.wl0) / 16]struct{}{}
	_ [1]struct{} = [unsafe.Sizeof(preparedSegment{}) / 72]struct{}{}
	_ [1]struct{} = [unsafe.Offsetof(preparedSegment{}.dn) / 48]struct{}{}
)
