package parallel

import "syscall"

// setThreadNice lowers the priority of the calling thread only: on Linux,
// setpriority with PRIO_PROCESS and a thread ID applies to that thread.
// Failure (a sandbox forbidding it) just leaves the priority as it was.
func setThreadNice(n int) {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), n)
}
