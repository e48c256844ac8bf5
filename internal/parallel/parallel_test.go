package parallel

import (
	"os"
	"os/exec"
	"runtime"
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

// onWorkerAndCaller runs loops of 16 calls until a call ran on a pool
// worker, and calls seen with whether each call ran on one. A loop that
// finds the pool busy runs on its caller alone; the next one gets the
// worker. There is no time limit: the pool is idle in these tests. The
// calling goroutine keeps its thread meanwhile, so a thread other than
// its own is a worker's.
func onWorkerAndCaller(seen func(worker bool)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	caller := syscall.Gettid()
	var joined atomic.Bool
	for !joined.Load() {
		For(16, func(int) {
			worker := syscall.Gettid() != caller
			if worker {
				joined.Store(true)
			}
			seen(worker)
			// Some work, so that a worker handed the loop joins in.
			for start := time.Now(); time.Since(start) < 50*time.Microsecond; {
			}
		})
	}
}

// TestNiceAppliesToWorkersOnly checks that loop bodies running on pool
// workers run at the process's niceness plus the increment set, and that
// the calling thread keeps its own.
func TestNiceAppliesToWorkersOnly(t *testing.T) {
	if _, err := os.Stat("/proc/thread-self/stat"); err != nil {
		t.Skip("no /proc/thread-self: not Linux")
	}
	defer SetNice(0)
	SetNice(7)
	want := min(19, processNice+7)
	var onWorker, badNice atomic.Int32
	badNice.Store(-100)
	onWorkerAndCaller(func(worker bool) {
		if worker {
			onWorker.Add(1)
			if n := threadNice(t); n != want {
				badNice.Store(int32(n))
			}
		}
	})
	if onWorker.Load() == 0 {
		t.Fatal("no loop body ran on a pool worker")
	}
	if n := badNice.Load(); n != -100 {
		t.Fatalf("a pool worker ran at nice %d, want %d", n, want)
	}
	if n := threadNice(t); n == want && processNice != want {
		t.Fatal("the calling thread's priority was lowered too")
	}
}

// TestNiceIsRelativeToTheProcess runs this test binary under nice -n 5:
// there the workers must run at 5 plus the increment, below the UI's 5
// (an absolute niceness of 3 would give them a higher priority than the
// UI, or fail silently without privilege and give them the same).
func TestNiceIsRelativeToTheProcess(t *testing.T) {
	if _, err := os.Stat("/proc/thread-self/stat"); err != nil {
		t.Skip("no /proc/thread-self: not Linux")
	}
	if os.Getenv("GALLOP_NICE_CHILD") == "1" {
		if processNice < 5 {
			t.Fatalf("the child runs at nice %d, want at least 5", processNice)
		}
		defer SetNice(0)
		SetNice(3)
		want := min(19, processNice+3)
		var got atomic.Int32
		got.Store(-100)
		onWorkerAndCaller(func(worker bool) {
			if worker {
				got.Store(int32(threadNice(t)))
			}
		})
		if int(got.Load()) != want {
			t.Fatalf("under nice %d, SetNice(3) ran a worker at %d, want %d", processNice, got.Load(), want)
		}
		return
	}
	nice, err := exec.LookPath("nice")
	if err != nil {
		t.Skip("no nice command")
	}
	cmd := exec.Command(nice, "-n", "5", os.Args[0], "-test.run=^TestNiceIsRelativeToTheProcess$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "GALLOP_NICE_CHILD=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("under nice -n 5: %v\n%s", err, out)
	}
}

// TestWorkerPanicReachesCaller: a loop body that panics on a pool worker
// does not end the process: For panics on the caller with a *Panic
// holding the value, and the pool still runs loops afterwards.
func TestWorkerPanicReachesCaller(t *testing.T) {
	got := func() (p any) {
		defer func() { p = recover() }()
		onWorkerAndCaller(func(worker bool) {
			if worker {
				panic("boom on a worker")
			}
		})
		return nil // not reached: the loop a worker joined panics
	}()
	pp, ok := got.(*Panic)
	if !ok || pp.Value != "boom on a worker" || len(pp.Stack) == 0 || !strings.Contains(pp.Error(), "boom on a worker") {
		t.Fatalf("For panicked with %v (%T), want a *Panic with the worker's value", got, got)
	}
	var n atomic.Int32
	For(100, func(int) { n.Add(1) })
	if n.Load() != 100 {
		t.Fatalf("after the panic a loop ran %d of 100 bodies", n.Load())
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
