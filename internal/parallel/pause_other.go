//go:build !amd64 || purego

package parallel

// pause is a no-op where there is no spin-wait hint to give.
func pause(n int) {}
