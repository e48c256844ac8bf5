//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where there is no madvise(MADV_HUGEPAGE).
func advise(p unsafe.Pointer, size uintptr) {}
