package app

import (
	"context"
	"sync/atomic"
	"syscall"
	"time"

	"gallop/assets"
	"gallop/internal/jobs"
)

// BenchResult receives the viewport benchmark's figures (gallop bench).
type BenchResult struct {
	IdleFPS          float64 // UI frames per second while only the viewport runs
	BusyFPS          float64 // while a job keeps both cores busy
	LongestIdleFrame time.Duration
	LongestBusyFrame time.Duration
	Frames           int // frames measured in all
	// BusyCPU is the CPU time the process used per second of the busy
	// phase, in cores (2 means both cores were kept busy).
	BusyCPU float64
	// BusyLoads is how many times the job reloaded the scene per second
	// during the busy phase.
	BusyLoads float64
	Err       error
}

// benchState drives the viewport benchmark: wait for the scene, then
// measure UI frame times for a while with nothing else running (the clip
// playing and the camera turning, so every frame is drawn anew), then again
// while a job reloads the scene's files over and over on both cores, then
// quit.
type benchState struct {
	out      *BenchResult
	phase    int // 0 waiting, 1 idle, 2 busy, 3 done
	started  time.Time
	frames   int
	longest  time.Duration
	busyJob  *jobs.Job
	settleAt time.Time
	cpu0     time.Duration // process CPU time when the busy phase began
	loads    atomic.Int64
}

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Bench phase lengths.
const (
	benchSettle = 1500 * time.Millisecond
	benchPhase  = 4 * time.Second
)

func newBench(out *BenchResult) *benchState { return &benchState{out: out} }

// frame records one UI frame that took dt.
func (b *benchState) frame(a *App, dt time.Duration) {
	switch b.phase {
	case 0:
		if a.loading > 0 || len(a.doc.Scene.Objects) == 0 || a.renderer == nil {
			b.settleAt = time.Time{}
			return
		}
		if b.settleAt.IsZero() {
			b.settleAt = time.Now().Add(benchSettle)
			a.play.loop = true
			if !a.play.playing {
				a.togglePlay()
			}
			return
		}
		if time.Now().After(b.settleAt) {
			b.begin(1)
		}
	case 1, 2:
		b.frames++
		b.longest = max(b.longest, dt)
		if time.Since(b.started) < benchPhase {
			return
		}
		fps := float64(b.frames) / time.Since(b.started).Seconds()
		b.out.Frames += b.frames
		if b.phase == 1 {
			b.out.IdleFPS, b.out.LongestIdleFrame = fps, b.longest
			b.begin(2)
			b.cpu0 = cpuTime()
			b.busyJob = a.jobs.Start("Benchmark load", func(ctx context.Context, rep jobs.Reporter) error {
				src := a.doc.Object().Source
				for n := 0; ctx.Err() == nil; n++ {
					if src == nil {
						return nil
					}
					if _, err := assets.LoadSource(ctx, src, nil); err != nil {
						if ctx.Err() == nil {
							return err
						}
						return nil
					}
					b.loads.Add(1)
					rep.Report(0.5, "reloading the scene")
				}
				return nil
			}, func(err error) {
				if err != nil && !jobs.IsCanceled(err) {
					b.out.Err = err
				}
			})
			return
		}
		b.out.BusyFPS, b.out.LongestBusyFrame = fps, b.longest
		wall := time.Since(b.started)
		b.out.BusyCPU = float64(cpuTime()-b.cpu0) / float64(wall)
		b.out.BusyLoads = float64(b.loads.Load()) / wall.Seconds()
		b.phase = 3
		b.busyJob.Cancel()
		<-b.busyJob.Done()
		a.quitNow()
	}
}

func (b *benchState) begin(phase int) {
	b.phase, b.started, b.frames, b.longest = phase, time.Now(), 0, 0
}

// viewport is called after the viewport drew; it keeps frames coming.
func (b *benchState) viewport(a *App) {
	if b.phase < 3 {
		a.view.Camera.Orbit(0.002, 0)
	}
}
