// Package scratch holds pools of scratch slices for the solvers' parallel
// loops: one buffer per worker and chunk, reused across calls instead of
// allocated in every pass of every iteration.
package scratch

import "sync"

// Floats is a pool of []float64 buffers. The zero value is ready to use;
// it is safe for concurrent use.
type Floats struct{ p sync.Pool }

// Get returns a buffer of length n, its contents unspecified (callers
// overwrite or clear what they use). Give it back with Put.
func (f *Floats) Get(n int) *[]float64 {
	b, _ := f.p.Get().(*[]float64)
	if b == nil || cap(*b) < n {
		s := make([]float64, n)
		return &s
	}
	*b = (*b)[:n]
	return b
}

// Put returns a buffer from Get to the pool.
func (f *Floats) Put(b *[]float64) { f.p.Put(b) }
