// Package cputime reads the CPU time of the calling thread, to time a
// piece of work by what it costs rather than by the wall clock, which
// also counts the time other threads and processes held the core (under
// a software rasteriser, its threads doing a GPU's work).
//
// It is meaningful on a goroutine locked to its OS thread (the window's
// UI thread is: the loop runs on the main thread).
package cputime

import "time"

// start is when the process started, for wall.
var start = time.Now()

// wall is the wall time since start, where the thread's clock fails.
func wall() time.Duration { return time.Since(start) }
