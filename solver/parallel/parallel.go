// Package parallel runs Gallop's data-parallel loops: file readers, BVH
// builds and solvers split their work with For and Do, so every method uses
// both cores the same way, and the window can keep them from starving the
// UI thread.
//
// Each call starts one goroutine per CPU (Workers) that take indices from a
// shared counter, so uneven items balance themselves. Calls nest freely: a
// loop body may itself call For.
//
// Background priority. An interactive program sets SetNice (Gallop's window
// uses 10): each worker goroutine then locks itself to an OS thread and
// lowers that thread's scheduling priority before it starts, and the thread
// is discarded when the worker returns, so no other goroutine ever runs at
// the lowered priority. Background work still takes every cycle the UI does
// not use, but a UI frame no longer waits behind it. The window also runs
// with GOMAXPROCS one above the worker count, so its main goroutine always
// finds a free P when it returns from a long cgo call (rendering) instead of
// waiting for a low-priority worker to be preempted. Lowering priority needs
// no privilege; on systems without per-thread priorities SetNice does
// nothing.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

var nice atomic.Int32

// SetNice sets the niceness (0 to 19; larger is lower priority) that the
// threads of workers started from now on run at. 0, the default, leaves
// them at the priority of the process: batch commands and tests keep full
// speed with no thread churn.
func SetNice(n int) {
	nice.Store(int32(max(0, min(19, n))))
}

// Workers returns the number of goroutines a loop runs on: the number of
// CPUs.
func Workers() int { return max(1, runtime.NumCPU()) }

// Background puts the calling goroutine on a thread of its own at the
// worker priority set by SetNice (no-op when it is 0). Call it first thing
// in a goroutine that will return: its thread is discarded then.
func Background() {
	if n := nice.Load(); n > 0 {
		runtime.LockOSThread()
		setThreadNice(int(n))
	}
}

// For calls fn(i) for every i in [0, n), on up to Workers goroutines, and
// returns when all calls have returned. Indices are handed out one at a
// time in increasing order; fn must be safe to call concurrently for
// different indices.
func For(n int, fn func(i int)) {
	w := min(Workers(), n)
	if w <= 0 {
		return
	}
	if w == 1 && nice.Load() == 0 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
			Background()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// Chunks calls fn(lo, hi) over consecutive ranges [lo, hi) that cover
// [0, n), each at most grain long (grain ≤ 0 picks about four ranges per
// worker), in parallel as For does. Use it when items are small and a call
// per item would cost more than the item.
func Chunks(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	if grain <= 0 {
		grain = max(1, (n+4*Workers()-1)/(4*Workers()))
	}
	k := (n + grain - 1) / grain
	For(k, func(c int) {
		fn(c*grain, min(n, (c+1)*grain))
	})
}

// Do runs the functions concurrently and returns when all have returned.
func Do(fns ...func()) {
	For(len(fns), func(i int) { fns[i]() })
}
