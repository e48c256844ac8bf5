package parallel

import (
	"log"
	"sync"
	"syscall"
)

// processNice is the process's niceness when it started, read on the main
// thread before any thread was lowered: background threads run that much
// plus SetNice's increment.
var processNice = func() int {
	p, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return 0
	}
	return 20 - p // the raw system call returns 20 − nice
}()

var logNiceFailure sync.Once

// setThreadNice lowers the priority of the calling thread only, to the
// process's niceness plus n (at most 19): on Linux, setpriority with
// PRIO_PROCESS and a thread ID applies to that thread. A failure (a
// sandbox forbidding it) leaves the priority as it was and is logged once.
func setThreadNice(n int) {
	target := min(19, processNice+n)
	if err := syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), target); err != nil {
		logNiceFailure.Do(func() {
			log.Printf("parallel: cannot lower background threads to nice %d (the process runs at %d): %v; they keep the process's priority", target, processNice, err)
		})
	}
}
