//go:build !amd64 || purego

package dynskin

// spokes sums the spoke force of the influences infl at x into b as
// spokesGo describes.
func spokes(b, x *[3]float64, infl []influence, segs []preparedSegment) {
	spokesGo(b, x, infl, segs)
}
