package app

import (
	"sync"

	"github.com/AllenDang/giu"
)

// waker asks the window for a new frame (giu.Update) from any goroutine:
// jobs, native dialogs and the autosave ask when they have news. Once the
// window is closing it asks no more. The window's loop tears GLFW down
// (glfwTerminate) before giu marks the window dead, so an Update from
// another goroutine at that moment posts an event into a GLFW being
// terminated; at quit, with jobs cancelled and each reporting its end, it
// now and then hung the process.
type waker struct {
	mu     sync.Mutex
	closed bool
}

// wake asks for a new frame, unless the window is closing.
func (w *waker) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		giu.Update()
	}
}

// close stops wake for good; an Update under way finishes first.
func (w *waker) close() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
}
