//go:build !purego

package parallel

// pause executes n PAUSE instructions (pause_amd64.s).
//
//go:noescape
func pause(n int)
