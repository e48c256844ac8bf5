package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestMarked: on a kernel with transparent huge pages, the memory mapping
// that holds a large buffer from Make carries the huge-page advice ("hg"
// in /proc/self/smaps' VmFlags). (Go's heap carries no advice of its own;
// a small buffer is not checked for its absence, since the heap may place
// it where a freed large one was marked.)
func TestMarked(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage"); err != nil {
		t.Skip("this kernel has no transparent huge pages")
	}
	big := Make[float64](4 * minBytes / 8)
	p := uintptr(unsafe.Pointer(&big[0]))
	off, n := interior(p, uintptr(len(big))*8)
	if n == 0 {
		t.Fatal("a buffer of 4·minBytes holds no whole huge page")
	}
	flags, err := vmFlags(p + off + n/2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the large buffer's mapping has VmFlags %q, without hg", flags)
	}
}

// vmFlags returns the VmFlags of the mapping holding address a.
func vmFlags(a uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping holds %#x", a)
}
