//go:build !purego

package dynskin

import "unsafe"

// spokesAVX is spokesGo for n ≥ 1 spokes (infl: the first) with AVX
// (spokes_amd64.s), four spokes at a time in 4-wide vectors, spoke j of
// a group in lane j: the segments' fields and the weights loaded lane by
// lane, then offset's projection and clamp and spokesGo's |d|, factor
// and products, each spoke's three products added to the three sums in
// spoke order. Every lane does spokesGo's operations on its spoke in its order
// (no fused multiply-adds; the clamp's VMINPD and VMAXPD give Go's min
// and max for NaN and signed zeros, a +0 added turning max(0, −0) into
// +0), and a spoke with |d| ≤ 0 or NaN, or a lane past the last spoke,
// adds +0, which leaves the sums (never −0) as they are: the sums are
// bitwise spokesGo's. The bones are not checked: every influence's bone
// must index segs (Model's do).
//
//go:noescape
func spokesAVX(b, x *[3]float64, infl *influence, n int, segs *preparedSegment)

// spokes sums the spoke force of the influences infl at x into b as
// spokesGo describes: by spokesAVX for 1 spoke or more.
func spokes(b, x *[3]float64, infl []influence, segs []preparedSegment) {
	if !useAVX || len(infl) == 0 {
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
	_ [1]struct{} = [unsafe.Offsetof(preparedSegment{}.d) / 24]struct{}{}
	_ [1]struct{} = [unsafe.Offsetof(preparedSegment{}.dn) / 48]struct{}{}
)
