package jobs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gallop/internal/parallel"
)

func TestJobCompletesOnPoll(t *testing.T) {
	var r Runner
	var got error = errors.New("callback not run")
	j := r.Start("ok", func(ctx context.Context, rep Reporter) error {
		rep.Report(0.5, "half")
		return nil
	}, func(err error) { got = err })
	<-j.Done()
	if got == nil {
		t.Fatal("callback ran before Poll")
	}
	r.Poll()
	if got != nil {
		t.Fatalf("callback error = %v, want nil", got)
	}
	if f, txt := j.Progress(); f != 0.5 || txt != "half" {
		t.Fatalf("progress = %v %q", f, txt)
	}
	if len(r.Running()) != 0 {
		t.Fatal("finished job still listed as running")
	}
}

func TestCancelStopsJob(t *testing.T) {
	var r Runner
	started := make(chan struct{})
	var cbErr error
	j := r.Start("spin", func(ctx context.Context, rep Reporter) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}, func(err error) { cbErr = err })
	<-started
	if n := len(r.Running()); n != 1 {
		t.Fatalf("running = %d, want 1", n)
	}
	j.Cancel()
	<-j.Done() // a job that ignored Cancel would hang here until go test's -timeout
	r.Poll()
	if !IsCanceled(cbErr) {
		t.Fatalf("error = %v, want context.Canceled", cbErr)
	}
}

func TestPanicBecomesError(t *testing.T) {
	var r Runner
	var cbErr error
	r.Start("bad", func(ctx context.Context, rep Reporter) error {
		var s []int
		_ = s[3]
		return nil
	}, func(err error) { cbErr = err })
	r.Wait()
	if cbErr == nil {
		t.Fatal("panic in job was not reported as an error")
	}
}

// TestParallelPanicBecomesError: a loop body that panics on a pool
// worker inside a job's parallel.For fails the job with the panic's value;
// the process lives and the pool still works. The body panics only on a
// worker thread (never on the job's own), so only the worker's recovery
// can save the process.
func TestParallelPanicBecomesError(t *testing.T) {
	if parallel.Workers() < 2 {
		t.Skip("one CPU: parallel.For runs on the caller alone")
	}
	var r Runner
	var got error
	r.Start("loop", func(context.Context, Reporter) error {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		caller := syscall.Gettid()
		for { // until a worker joins a loop (and panics)
			parallel.For(16, func(i int) {
				if syscall.Gettid() != caller {
					panic(fmt.Sprintf("boom on a worker at %d", i))
				}
				// Some work, so that a worker handed the loop joins in.
				for start := time.Now(); time.Since(start) < 50*time.Microsecond; {
				}
			})
		}
	}, func(err error) { got = err })
	r.Wait()
	if got == nil || !strings.Contains(got.Error(), "internal error") || !strings.Contains(got.Error(), "boom on a worker") {
		t.Fatalf("job error %v, want the worker's panic", got)
	}
	n := 0
	parallel.For(10, func(int) {})
	parallel.Do(func() { n++ })
	if n != 1 {
		t.Fatal("the pool is broken after a panic")
	}
}

func TestWakeCalled(t *testing.T) {
	var wakes atomic.Int32
	r := Runner{Wake: func() { wakes.Add(1) }}
	r.Start("w", func(ctx context.Context, rep Reporter) error {
		rep.Report(1, "done")
		return nil
	}, nil)
	r.Wait()
	if wakes.Load() < 2 {
		t.Fatalf("Wake called %d times, want progress + finish", wakes.Load())
	}
}

func TestLatest(t *testing.T) {
	var l Latest[[]float64]
	if v, s := l.Load(); v != nil || s != 0 {
		t.Fatal("zero Latest not empty")
	}
	a := []float64{1}
	l.Publish(&a)
	b := []float64{2}
	l.Publish(&b)
	v, s := l.Load()
	if s != 2 || (*v)[0] != 2 {
		t.Fatalf("Load = %v, %d", *v, s)
	}
}

func TestProgressClamped(t *testing.T) {
	var r Runner
	j := r.Start("c", func(ctx context.Context, rep Reporter) error {
		rep.Report(3, "")
		return nil
	}, nil)
	r.Wait()
	if f, _ := j.Progress(); f != 1 {
		t.Fatalf("fraction = %v, want 1", f)
	}
}

// TestWaitRunsEveryCompletion: after Wait, the completion of every job
// started before it has run (Wait returned as soon as a job's Done closed,
// which was before the job joined the finished list, and the gallery's
// tests then missed a completion now and then).
func TestWaitRunsEveryCompletion(t *testing.T) {
	for range 2000 {
		var r Runner
		ran := false
		r.Start("quick", func(context.Context, Reporter) error { return nil }, func(error) { ran = true })
		r.Wait()
		if !ran {
			t.Fatal("Wait returned before the job's completion ran")
		}
	}
}

// TestOfferKeepsTheNewest: a snapshot offered with an older version than
// one already published is dropped, and readers see the newest.
func TestOfferKeepsTheNewest(t *testing.T) {
	var l Latest[int]
	one, two := 1, 2
	l.Offer(&two, 2)
	l.Offer(&one, 1)
	if v, seq := l.Load(); *v != 2 || seq != 1 {
		t.Errorf("latest %d (sequence %d), want 2 published once", *v, seq)
	}
}
