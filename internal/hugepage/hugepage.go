// Package hugepage asks the operating system to back Gallop's largest
// numeric buffers with huge pages.
//
// A production mesh makes buffers of hundreds of megabytes (a Pose
// solve's example basis, its rows, a sparse factor and the workspace of
// its solves), and the first write to each 4 KiB page of a new buffer is
// a page fault in which the kernel maps and zeroes the page. On the
// virtual machines Gallop is measured on a fault costs 12-16 µs: touching
// 1 GiB for the first time took 3.1 s, and 0.44-0.91 s when the range was
// marked for 2 MiB pages. Linux backs a range with transparent huge pages
// when it is marked with madvise(MADV_HUGEPAGE) (under the "madvise"
// setting of /sys/kernel/mm/transparent_hugepage/enabled, the default of
// many distributions); Go's runtime does not mark its heap. Make marks
// the 2 MiB-aligned interior of each large buffer it returns, before
// anything writes to it. On `gallop pose` with a whole capture at 135k
// vertices the factorization and the solve each took 13% less time (five
// alternating runs, each faster; the examples' preparation and the whole
// run's time moved within their noise).
//
// The mark is advice: where huge pages are off, unavailable or not
// supported (other systems), buffers are ordinary memory and nothing
// else changes.
package hugepage

import "unsafe"

// minBytes is the smallest buffer Make marks: its interior holds at least
// one whole huge page, and marking fewer, larger ranges keeps the number
// of the process's memory mappings small (each mark may split one).
const minBytes = 8 << 20

// pageSize is the size of a transparent huge page on amd64 and arm64
// Linux with 4 KiB base pages.
const pageSize = 2 << 20

// Make returns a zeroed slice of n elements (as make([]T, n)) whose
// memory, when it is at least minBytes, is marked for huge pages.
func Make[T any](n int) []T {
	s := make([]T, n)
	var zero T
	if size := uintptr(n) * unsafe.Sizeof(zero); n > 0 && size >= minBytes {
		advise(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}

// interior returns the whole huge pages inside [p, p+size): the offset
// of the first from p and their length (0 when there is none).
func interior(p, size uintptr) (off, n uintptr) {
	lo := (p + pageSize - 1) &^ (pageSize - 1)
	hi := (p + size) &^ (pageSize - 1)
	if hi <= lo {
		return 0, 0
	}
	return lo - p, hi - lo
}
