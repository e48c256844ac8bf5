package parallel

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

func TestForVisitsEachIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 17, 1000} {
		counts := make([]atomic.Int32, n)
		For(n, func(i int) { counts[i].Add(1) })
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d visited %d times", n, i, c)
			}
		}
	}
}

func TestChunksCoverRange(t *testing.T) {
	for _, c := range []struct{ n, grain int }{{0, 5}, {1, 0}, {10, 3}, {10, 10}, {10, 100}, {1001, 0}} {
		seen := make([]atomic.Int32, c.n)
		Chunks(c.n, c.grain, func(lo, hi int) {
			if lo >= hi || (c.grain > 0 && hi-lo > c.grain) {
				t.Errorf("n=%d grain=%d: bad range [%d, %d)", c.n, c.grain, lo, hi)
			}
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
		})
		for i := range seen {
			if seen[i].Load() != 1 {
				t.Fatalf("n=%d grain=%d: index %d covered %d times", c.n, c.grain, i, seen[i].Load())
			}
		}
	}
}

func TestNestedCallsDoNotDeadlock(t *testing.T) {
	var total atomic.Int64
	For(4, func(i int) {
		For(4, func(j int) {
			Do(func() { total.Add(1) }, func() { total.Add(1) })
		})
	})
	if total.Load() != 32 {
		t.Fatalf("total = %d, want 32", total.Load())
	}
}

// TestNiceAppliesToWorkersOnly checks that loop bodies running on pool
// workers run at the niceness set and that the calling thread keeps its
// own.
func TestNiceAppliesToWorkersOnly(t *testing.T) {
	if _, err := os.Stat("/proc/thread-self/stat"); err != nil {
		t.Skip("no /proc/thread-self: not Linux")
	}
	defer SetNice(0)
	SetNice(7)
	caller := syscall.Gettid()
	var onWorker, badNice atomic.Int32
	For(16, func(i int) {
		time.Sleep(2 * time.Millisecond) // long enough for the pool to join in
		if syscall.Gettid() != caller {
			onWorker.Add(1)
			if n := threadNice(t); n != 7 {
				badNice.Store(int32(n))
			}
		}
	})
	if onWorker.Load() == 0 {
		t.Fatal("no loop body ran on a pool worker")
	}
	if badNice.Load() != 0 {
		t.Fatalf("a pool worker ran at nice %d, want 7", badNice.Load())
	}
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	// getpriority returns 20 - nice on Linux.
	if nice := 20 - prio; nice == 7 {
		t.Fatal("the calling process's priority was lowered too")
	}
}

// threadNice reads the calling thread's niceness from /proc (field 19 of
// stat).
func threadNice(t *testing.T) int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	n, err := strconv.Atoi(fields[16]) // field 19 overall: nice
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPoolNestedAndBusy(t *testing.T) {
	defer SetNice(0)
	SetNice(5)
	var total atomic.Int64
	For(8, func(i int) {
		For(8, func(j int) {
			Do(func() { total.Add(1) }, func() { total.Add(1) })
		})
	})
	if total.Load() != 128 {
		t.Fatalf("total = %d, want 128", total.Load())
	}
}

func BenchmarkForOverhead(b *testing.B) {
	for _, nice := range []int{0, 10} {
		b.Run("nice="+strconv.Itoa(nice), func(b *testing.B) {
			SetNice(nice)
			defer SetNice(0)
			for b.Loop() {
				For(Workers(), func(int) {})
			}
		})
	}
}
