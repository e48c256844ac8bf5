package hugepage

import (
	"syscall"
	"unsafe"
)

// advise marks the whole huge pages inside the size bytes at p with
// MADV_HUGEPAGE. An error (a kernel without transparent huge pages) leaves
// the memory as it was, which is all the advice could change.
func advise(p unsafe.Pointer, size uintptr) {
	off, n := interior(uintptr(p), size)
	if n == 0 {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, off)), n), syscall.MADV_HUGEPAGE)
}
