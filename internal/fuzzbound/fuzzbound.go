// Package fuzzbound measures what a call allocates, for the fuzz targets'
// check that a reader's memory stays bounded by its input.
package fuzzbound

import (
	"runtime"
	"testing"
)

// Check runs read and fails t if it allocated more than perByte bytes
// for every byte of an input of n bytes, plus 16 MiB: a reader's fixed
// costs, and encoding/gob's, which sets aside up to 10 MiB for a slice
// (its internal saferio chunk) before it finds that the data holding the
// slice is short, whatever the input's length.
func Check(t testing.TB, n, perByte int, read func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	read()
	runtime.ReadMemStats(&after)
	if got, limit := after.TotalAlloc-before.TotalAlloc, uint64(16<<20+perByte*n); got > limit {
		t.Fatalf("reading %d bytes allocated %d bytes, more than %d", n, got, limit)
	}
}
