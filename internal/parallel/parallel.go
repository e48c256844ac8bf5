// Package parallel runs Gallop's data-parallel loops: file readers, BVH
// builds and solvers split their work with For and Do, so every method uses
// both cores the same way, and the window can keep them from starving the
// UI thread.
//
// A loop runs on the calling goroutine and on a pool of Workers()−1 worker
// goroutines, started once, that take indices from a shared counter, so
// uneven items balance themselves. Calls nest freely: a loop body may
// itself call For; a loop that finds the pool busy is finished by its
// caller alone.
//
// Waking a sleeping thread costs about 0.1 ms on the virtual machines
// Gallop is measured on (mean 100-150 µs, worst 4 ms, for a goroutine to
// start on the idle core), as long as many loops take; a Gauss-Newton
// iteration of the Pose tool runs a dozen loops. So an idle worker polls
// for the next loop for spinFor before it sleeps, and a caller waiting for
// the worker's last items polls too before it sleeps: back-to-back loops
// never wait for a wake-up.
//
// Background priority. An interactive program sets SetNice (Gallop's window
// uses 5): each worker is then locked to an OS thread whose scheduling
// priority it lowered, so no other goroutine ever runs at the lowered
// priority. Background work still takes every cycle the UI does not use,
// but a UI frame no longer waits behind it. The window also runs with
// GOMAXPROCS one above the worker count, so its main goroutine always finds
// a free P when it returns from a long cgo call (rendering) instead of
// waiting for a low-priority worker to be preempted. Lowering priority
// needs no privilege; on systems without per-thread priorities SetNice
// does nothing.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

var nice atomic.Int32

// SetNice sets how much lower than the process's own priority background
// threads run (a niceness increment, 0 to 19; the result is capped at
// 19): the pool workers' (from their next loop on; raising priority again
// may need privilege) and those of goroutines calling Background. Under
// `nice -n 10 gallop`, SetNice(5) runs the workers at 15 and the UI at 10.
// 0, the default, leaves them at the priority of the process. A failure to
// lower a thread's priority is logged once.
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

// For calls fn(i) for every i in [0, n), on the calling goroutine and up
// to Workers()−1 pool workers, and returns when all calls have returned.
// Indices are handed out one at a time in increasing order; fn must be
// safe to call concurrently for different indices. If a call panics, on
// whichever goroutine, the indices not yet started are skipped and For
// panics on the calling goroutine with a *Panic holding the value, once
// every call that started has returned; the pool stays usable.
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
	poolOnce.Do(startPool)
	t := &task{n: n, fn: fn, done: make(chan struct{})}
	for range w - 1 {
		select {
		case pool <- t:
		default: // the pool is busy: the caller does more itself
		}
	}
	t.work()
	if !spinUntil(func() bool { return t.finished.Load() == int64(t.n) }) {
		<-t.done
	}
	if p := t.failed.Load(); p != nil {
		panic(p)
	}
}

// spinFor is how long a worker polls for the next loop, and a caller for
// the end of its loop, before sleeping (see the package comment).
const spinFor = 200 * time.Microsecond

// spinPauses is the number of PAUSE instructions between polls: about a
// microsecond on current x86 cores.
const spinPauses = 20

// spinUntil polls cond for up to spinFor and reports whether it held.
func spinUntil(cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.Now().Add(spinFor)
	for time.Now().Before(deadline) {
		// Polling gently: a few hundred cycles of spin-wait hints per
		// poll leave a sibling hardware thread (virtual CPUs often are
		// one) nearly the whole core.
		pause(spinPauses)
		if cond() {
			return true
		}
	}
	return false
}

// task is one loop handed to the pool.
type task struct {
	n        int
	fn       func(int)
	next     atomic.Int64
	finished atomic.Int64
	done     chan struct{}         // closed when all n calls have returned
	failed   atomic.Pointer[Panic] // the first panic of a call, if any
}

// Panic is what For panics with on the calling goroutine when a call of
// its body panicked on any goroutine: the value the body panicked with
// and the stack where it did. A job's recover (package jobs) turns it
// into the job's error, so a bug in a loop body fails that job instead of
// taking the process down.
type Panic struct {
	Value any
	Stack []byte
}

// Error reports the body's panic value.
func (p *Panic) Error() string { return fmt.Sprintf("panic in a parallel loop: %v", p.Value) }

// work runs indices of t until none are left. Once a call panicked, the
// indices left are counted but not run.
func (t *task) work() {
	for {
		i := int(t.next.Add(1) - 1)
		if i >= t.n {
			return
		}
		if t.failed.Load() == nil {
			t.call(i)
		}
		if t.finished.Add(1) == int64(t.n) {
			close(t.done)
		}
	}
}

// call runs fn(i), recording a panic instead of letting it end the
// goroutine (and, on a pool worker, the process).
func (t *task) call(i int) {
	defer func() {
		if p := recover(); p != nil {
			if pp, ok := p.(*Panic); ok { // a nested loop's: keep its stack
				t.failed.CompareAndSwap(nil, pp)
				return
			}
			t.failed.CompareAndSwap(nil, &Panic{Value: p, Stack: debug.Stack()})
		}
	}()
	t.fn(i)
}

var (
	poolOnce sync.Once
	pool     chan *task
)

// startPool starts the Workers()−1 pool workers.
func startPool() {
	pool = make(chan *task, Workers())
	for range Workers() - 1 {
		go func() {
			// A worker keeps its thread, whose niceness follows SetNice
			// from the next loop on.
			runtime.LockOSThread()
			applied := int32(0)
			for {
				var t *task
				spinUntil(func() bool {
					select {
					case t = <-pool:
						return true
					default:
						return false
					}
				})
				if t == nil {
					t = <-pool
				}
				if n := nice.Load(); n != applied {
					setThreadNice(int(n))
					applied = n
				}
				t.work()
			}
		}()
	}
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
