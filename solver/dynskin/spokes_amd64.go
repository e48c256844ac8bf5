//go:build !purego

package dynskin

import "unsafe"

// spokesAVX is spokesGo for n ≥ 1 rows (rows: the first) with AVX
// (spokes_amd64.s), the four slots in the lanes of 4-wide vectors and one
// row after the other: the segments' fields loaded lane by lane, the
// row's weights as they lie, then offset's projection and clamp and
// spokesGo's |d|, factor and products, added to each lane's three sums.
// Every lane does spokesGo's operations on its spokes in their order (no
// fused multiply-adds; the clamp's VMINPD and VMAXPD give Go's min and
// max for NaN and signed zeros, a +0 added turning max(0, −0) into +0),
// and a spoke with |d| ≤ 0 or NaN adds +0, which leaves a sum (never −0)
// as it is: the sums are bitwise spokesGo's. The bones are not checked:
// every row's bones must index segs (Model's do).
//
//go:noescape
func spokesAVX(b *[3][4]float64, x *[4]node, rows *spokeRow, n int, segs *preparedSegment)

// spokes sums the spoke forces of the rows at the nodes x into b as
// spokesGo describes: by spokesAVX for 1 row or more.
func spokes(b *[3][4]float64, x *[4]node, rows []spokeRow, segs []preparedSegment) {
	if !useAVX || len(rows) == 0 {
		spokesGo(b, x, rows, segs)
		return
	}
	spokesAVX(b, x, &rows[0], len(rows), &segs[0])
}

// The kernel takes its offsets from go_asm.h but for the size of a
// preparedSegment, which it multiplies an index by as 9·8 (two LEAQs).
var (
	_ [unsafe.Sizeof(preparedSegment{}) - 72]struct{}
	_ [72 - unsafe.Sizeof(preparedSegment{})]struct{}
)
