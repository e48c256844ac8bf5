//go:build unix

package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time the calling OS thread has used (user and
// system).
func Thread() time.Duration {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return wall()
	}
	return time.Duration(ts.Nano())
}
