// Package jobs runs long computations off the UI thread.
//
// A Job runs a function on its own goroutine with a context for
// cancellation and a Reporter for progress. The UI thread never waits on a
// job: once per frame it calls Runner.Poll, which hands finished jobs'
// completion callbacks back to the UI thread, and reads each running job's
// progress for the status bar. Intermediate results are published through a
// Latest value (an atomic pointer to an immutable snapshot) that the UI reads
// when it draws.
//
// A job's goroutine runs at the background priority of package parallel
// (parallel.Background), like the workers its loops start, so in the window
// a job takes the cycles the UI thread leaves and never delays a frame.
//
// The only Gallop package this one imports is solver/parallel, so the app
// and every tool can start jobs through it.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"gallop/internal/parallel"
)

// Reporter is how a job tells the UI how far it has come. It is safe to
// call from any goroutine.
type Reporter struct {
	job *Job
}

// Report sets the job's progress: fraction in [0, 1] (values outside are
// clamped) and a short text for the status bar. A job that was idle is
// busy again.
func (r Reporter) Report(fraction float64, text string) {
	fraction = max(0, min(1, fraction))
	r.job.mu.Lock()
	r.job.fraction, r.job.text, r.job.idle = fraction, text, false
	r.job.mu.Unlock()
	r.job.runner.wake()
}

// Idle marks a long-lived job as waiting for work (a solver session
// between drags): the status bar leaves it out until it reports again.
func (r Reporter) Idle() {
	r.job.mu.Lock()
	r.job.idle = true
	r.job.mu.Unlock()
	r.job.runner.wake()
}

// Job is one running or finished computation.
type Job struct {
	ID      int
	Name    string
	Started time.Time

	runner *Runner
	cancel context.CancelFunc
	done   chan struct{}
	finish func(error) // runs on the UI thread in Poll

	mu       sync.Mutex
	fraction float64
	text     string
	idle     bool
	err      error
	elapsed  time.Duration
}

// Cancel asks the job to stop. Its function sees ctx.Done and should return
// ctx.Err() soon; its completion callback still runs, with that error.
func (j *Job) Cancel() { j.cancel() }

// Progress returns the fraction and text last reported.
func (j *Job) Progress() (float64, string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.fraction, j.text
}

// Idle reports whether the job said it is waiting for work.
func (j *Job) Idle() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.idle
}

// Done is closed when the job's function has returned.
func (j *Job) Done() <-chan struct{} { return j.done }

// Err returns the job's error once Done is closed (nil before).
func (j *Job) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}

// Elapsed returns the wall time the job has run (its total once done).
func (j *Job) Elapsed() time.Duration {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.elapsed > 0 {
		return j.elapsed
	}
	return time.Since(j.Started)
}

// Runner owns the jobs of one application.
type Runner struct {
	// Wake, if set, is called (from any goroutine) whenever a job reports
	// progress or finishes, to ask the UI for a new frame (giu.Update).
	Wake func()

	mu       sync.Mutex
	nextID   int
	running  []*Job
	finished []*Job
}

func (r *Runner) wake() {
	if r.Wake != nil {
		r.Wake()
	}
}

// Start runs fn on a new goroutine. When fn returns, done (if non-nil) is
// called on the UI thread by the next Poll, with fn's error. A panic in fn is
// recovered and becomes the job's error, so a solver bug cannot take the
// window down.
func (r *Runner) Start(name string, fn func(ctx context.Context, rep Reporter) error, done func(error)) *Job {
	return r.StartContext(context.Background(), name, fn, done)
}

// StartContext is Start with a parent context.
func (r *Runner) StartContext(parent context.Context, name string, fn func(ctx context.Context, rep Reporter) error, done func(error)) *Job {
	ctx, cancel := context.WithCancel(parent)
	r.mu.Lock()
	r.nextID++
	j := &Job{ID: r.nextID, Name: name, Started: time.Now(), runner: r, cancel: cancel, done: make(chan struct{}), finish: done}
	r.running = append(r.running, j)
	r.mu.Unlock()
	go func() {
		parallel.Background()
		err := run(ctx, fn, Reporter{j})
		cancel()
		j.mu.Lock()
		j.err = err
		j.elapsed = time.Since(j.Started)
		j.mu.Unlock()
		r.mu.Lock()
		for i, x := range r.running {
			if x == j {
				r.running = append(r.running[:i], r.running[i+1:]...)
				break
			}
		}
		r.finished = append(r.finished, j)
		r.mu.Unlock()
		// Done only once the job is among the finished, so that a Poll
		// after <-Done (as Wait does) runs its completion.
		close(j.done)
		r.wake()
	}()
	return j
}

func run(ctx context.Context, fn func(context.Context, Reporter) error, rep Reporter) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return fn(ctx, rep)
}

// Running returns the jobs still running, oldest first.
func (r *Runner) Running() []*Job {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*Job(nil), r.running...)
}

// Poll runs, on the calling (UI) goroutine, the completion callbacks of the
// jobs that finished since the last call, in the order they finished. It
// never blocks.
func (r *Runner) Poll() {
	r.mu.Lock()
	fin := r.finished
	r.finished = nil
	r.mu.Unlock()
	for _, j := range fin {
		if j.finish != nil {
			j.finish(j.Err())
		}
	}
}

// CancelAll cancels every running job.
func (r *Runner) CancelAll() {
	for _, j := range r.Running() {
		j.Cancel()
	}
}

// Wait blocks until every job started so far has finished, then polls. For
// tests and for batch use, never on the UI thread of a live window.
func (r *Runner) Wait() {
	for _, j := range r.Running() {
		<-j.done
	}
	r.Poll()
}

// WaitTimeout waits, at most d, until every job started so far has
// finished, and reports whether they all did; it does not poll. For the
// end of the application, after CancelAll, so that jobs that clean up
// after themselves (ending processes they started) can.
func (r *Runner) WaitTimeout(d time.Duration) bool {
	deadline := time.After(d)
	for _, j := range r.Running() {
		select {
		case <-j.done:
		case <-deadline:
			return false
		}
	}
	return true
}

// IsCanceled reports whether err means the job was cancelled.
func IsCanceled(err error) bool {
	return errors.Is(err, context.Canceled)
}

// Latest holds the most recent snapshot a job published. Publishing replaces
// the snapshot atomically; readers get an immutable value (publishers must
// not modify a snapshot after Publish). The zero value is ready to use.
type Latest[T any] struct {
	p   atomic.Pointer[T]
	seq atomic.Uint64

	mu      sync.Mutex // orders Offer's writers
	offered uint64     // the version Offer published last
}

// Publish makes v the latest snapshot.
func (l *Latest[T]) Publish(v *T) {
	l.p.Store(v)
	l.seq.Add(1)
}

// Offer makes v, the snapshot its writer numbered version (versions
// growing as the state they copy does), the latest unless a later version
// was offered already: writers on several goroutines that number their
// snapshots under their own lock may offer them after releasing it, in
// whatever order the scheduler runs them, and readers still never see an
// older state after a newer one. Versions start at 1.
func (l *Latest[T]) Offer(v *T, version uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if version <= l.offered {
		return
	}
	l.offered = version
	l.Publish(v)
}

// Load returns the latest snapshot (nil if none) and its sequence number,
// which grows by one per Publish, so a reader can tell whether it has seen
// it.
func (l *Latest[T]) Load() (*T, uint64) {
	s := l.seq.Load()
	return l.p.Load(), s
}

// Task is a job that publishes snapshots of type T for the UI, with what
// the UI keeps of it: the snapshot it shows and how the job ended. It is
// the one way a tool runs a long computation and takes its latest result:
// Start it, call Take once per frame, and read Err and Finished in done.
// Every method but Latest's Publish runs on the UI thread.
type Task[T any] struct {
	// Latest is where the job publishes its snapshots.
	Latest Latest[T]
	// Err is the job's error once it finished: nil when it succeeded or
	// was cancelled.
	Err error
	// Finished is set once the job's function returned.
	Finished bool

	job   *Job
	shown *T
	seen  uint64
}

// Start runs work as a job of runner named name. done, if non-nil, runs on
// the UI thread once the job ended, after Err and Finished are set and the
// last snapshot was taken.
func (t *Task[T]) Start(runner *Runner, name string, work func(ctx context.Context, rep Reporter) error, done func()) {
	t.job = runner.Start(name, work, func(err error) {
		t.Finished = true
		if !IsCanceled(err) {
			t.Err = err
		}
		t.Take()
		if done != nil {
			done()
		}
	})
}

// Running reports whether the task was started and has not finished.
func (t *Task[T]) Running() bool { return t != nil && t.job != nil && !t.Finished }

// Cancel asks a running task's job to stop; it does nothing otherwise.
func (t *Task[T]) Cancel() {
	if t.Running() {
		t.job.Cancel()
	}
}

// Take makes the latest published snapshot the one shown and returns it
// (nil before the first), with changed true when it is newer than the one
// the previous Take returned.
func (t *Task[T]) Take() (shown *T, changed bool) {
	if t == nil {
		return nil, false
	}
	p, seq := t.Latest.Load()
	if p != nil && seq != t.seen {
		t.shown, t.seen = p, seq
		return p, true
	}
	return t.shown, false
}

// Shown returns the snapshot the last Take returned (nil before the
// first).
func (t *Task[T]) Shown() *T {
	if t == nil {
		return nil
	}
	return t.shown
}
