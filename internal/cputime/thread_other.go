//go:build !unix

package cputime

import "time"

// Thread returns the wall time since the process started, where a
// thread's CPU time cannot be read.
func Thread() time.Duration { return wall() }
