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
// uses 10): loops then run on a pool of worker goroutines, started once,
// each locked to an OS thread whose scheduling priority it lowered, so no
// other goroutine ever runs at the lowered priority and no loop pays for
// creating threads. The calling goroutine works on its own loop too, which
// also keeps nested loops from waiting on each other: a loop whose workers
// are all busy is finished by its caller alone. Background work still takes every cycle the UI does
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

// SetNice sets the niceness (0 to 19; larger is lower priority) that
// background threads run at: the pool's (they get the value in force when
// the pool starts, at the first loop after a non-zero SetNice) and those
// of goroutines calling Background. 0, the default, leaves
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
	if w == 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	if nice.Load() > 0 {
		forPool(n, w, fn)
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range w {
		wg.Go(func() {
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

// task is one loop handed to the pool.
type task struct {
	n        int
	fn       func(int)
	next     atomic.Int64
	finished atomic.Int64
	done     chan struct{}
}

// work runs indices of t until none are left.
func (t *task) work() {
	for {
		i := int(t.next.Add(1) - 1)
		if i >= t.n {
			return
		}
		t.fn(i)
		if t.finished.Add(1) == int64(t.n) {
			close(t.done)
		}
	}
}

var (
	poolOnce sync.Once
	pool     chan *task
)

// forPool runs a loop on the calling goroutine and the background pool.
func forPool(n, w int, fn func(int)) {
	poolOnce.Do(func() {
		pool = make(chan *task, Workers())
		for range Workers() {
			go func() {
				Background()
				for t := range pool {
					t.work()
				}
			}()
		}
	})
	t := &task{n: n, fn: fn, done: make(chan struct{})}
	for range w - 1 {
		select {
		case pool <- t:
		default: // the pool is busy: the caller does more itself
		}
	}
	t.work()
	<-t.done
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
