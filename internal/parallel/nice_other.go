//go:build !linux

package parallel

// setThreadNice does nothing where threads have no priority of their own
// that an unprivileged process can set.
func setThreadNice(int) {}
