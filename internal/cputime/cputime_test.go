package cputime

import (
	"runtime"
	"testing"
	"time"
)

// TestThreadCountsWorkNotSleep: the thread's clock hardly moves while the
// thread sleeps, and moves while it works.
func TestThreadCountsWorkNotSleep(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t0 := Thread()
	time.Sleep(50 * time.Millisecond)
	if slept := Thread() - t0; slept > 10*time.Millisecond {
		t.Errorf("50 ms asleep counted %v", slept)
	}
	t0 = Thread()
	x := 1.0
	for deadline := time.Now().Add(10 * time.Second); Thread()-t0 < 20*time.Millisecond; {
		if time.Now().After(deadline) {
			t.Fatalf("10 s of work counted %v (%g)", Thread()-t0, x)
		}
		for range 1000 {
			x = x*1.0000001 + 1e-9
		}
	}
}
