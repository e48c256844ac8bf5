//go:build !amd64 || purego

package dynskin

// spokes sums the spoke forces of the rows at the nodes x into b as
// spokesGo describes.
func spokes(b *[3][4]float64, x *[4]node, rows []spokeRow, segs []preparedSegment) {
	spokesGo(b, x, rows, segs)
}
