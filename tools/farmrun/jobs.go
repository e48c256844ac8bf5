package farmrun

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync/atomic"
	"time"

	"gallop/internal/farm"
	"gallop/internal/jobs"
	"gallop/internal/shard"
	"gallop/tools"
)

// Settings are the choices of a tool's "Run on farm…".
type Settings struct {
	Engine    string // "slurm" or "local"
	Shards    int32  // N, at least 1
	Partition string // Slurm's partition; empty for the cluster's default
	CPUs      int32  // cores of each task; 0 for 1
}

// DefaultShards is the number of shards a tool proposes.
const DefaultShards = 4

// Check names the first setting out of range.
func (s Settings) Check() error {
	if _, err := farm.New(s.Engine); err != nil {
		return fmt.Errorf("farm: %w", err)
	}
	switch {
	case s.Shards < 1 || s.Shards > 10_000:
		return fmt.Errorf("farm: %d shards, want 1 to 10000", s.Shards)
	case s.CPUs < 0 || s.CPUs > 1024:
		return fmt.Errorf("farm: %d CPUs per task, want 1 to 1024 (0 for 1)", s.CPUs)
	}
	if err := farm.CheckSetting("partition", s.Partition); err != nil {
		return fmt.Errorf("farm: %w", err)
	}
	return nil
}

// sinfoWait is how long DetectEngine waits for sinfo, which retries for
// about 9 s when no controller answers.
const sinfoWait = 2 * time.Second

// DetectEngine is "slurm" when sinfo answers within two seconds, "local"
// otherwise. It waits for sinfo: call it off the UI thread.
func DetectEngine(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, sinfoWait)
	defer cancel()
	if err := exec.CommandContext(ctx, "sinfo", "-h", "-o", "%a").Run(); err != nil {
		return "local"
	}
	return "slurm"
}

// Request is what a tool runs on the farm: the headless command equivalent
// to its Start, and how its result becomes the tool's.
type Request struct {
	// Tool names the tool in the job's name and work folder ("synth").
	Tool string
	// Plan is how the command runs in shards.
	Plan shard.Plan
	// Command writes the files the command reads into dir, the job's work
	// folder (when the tool's input is not a file already), and returns
	// the command as after `gallop`, without the shard options, writing
	// its result into dir (--out). It runs on the job's goroutine.
	Command func(ctx context.Context, dir string) ([]string, error)
	// Load reads the result of the command that succeeded in dir, out
	// being its standard output, on the job's goroutine, and returns what
	// makes it the tool's, which runs on the UI thread.
	Load func(ctx context.Context, dir string, out []byte) (apply func() error, err error)
}

// Phase is where a followed job stands.
type Phase int

// The phases of a followed job, in order; it ends in one of the last four.
const (
	Submitting Phase = iota // writing its input, submitting
	Running                 // submitted: queued or running
	Loading                 // succeeded; its result is being read
	Loaded                  // its result is the tool's
	Failed                  // a task failed, or submitting, following or loading did
	Cancelled               // cancelled by the artist (or, on the local engine, by closing)
	Detached                // no longer followed (the window closed); on Slurm it runs on
)

var phaseNames = [...]string{"submitting", "running", "loading the result", "loaded", "failed", "cancelled", "no longer followed"}

func (p Phase) String() string { return phaseNames[p] }

// Status is what a followed job publishes: immutable once published.
type Status struct {
	Phase    Phase
	Dir      string    // the work folder, once made
	Run      *farm.Run // the submitted run, nil before
	Progress farm.Progress
	Err      error // with Failed: why (a *farm.TaskError when a task failed)
}

// Job is one submitted job that a tool follows. Its methods run on the UI
// thread.
type Job struct {
	Tool     string
	Settings Settings

	status    jobs.Latest[Status]
	final     *Status // set when the job has ended, on the UI thread
	job       *jobs.Job
	cancelRun atomic.Bool // Cancel was asked: end the run, not only its following
}

// Status returns where the job stands now.
func (j *Job) Status() Status {
	if j.final != nil {
		return *j.final
	}
	if s, _ := j.status.Load(); s != nil {
		return *s
	}
	return Status{}
}

// Active reports whether the job is still followed.
func (j *Job) Active() bool { return j.final == nil }

// Cancel ends the run (every task of it; farm Engine.Cancel) and its
// following; the status says Cancelled once none of its tasks runs.
func (j *Job) Cancel() {
	if j.final == nil && j.job != nil {
		j.cancelRun.Store(true)
		j.job.Cancel()
	}
}

// Line says in one line where the job stands: its engine, job ids, stage,
// shards done and state ("synth on slurm, jobs 41,42,43: running, stage
// shards, 3/4 shards done").
func (j *Job) Line() string {
	s := j.Status()
	head := j.Tool + " on " + j.Settings.Engine
	if r := s.Run; r != nil {
		switch {
		case len(r.Jobs) > 0:
			head += ", jobs " + strings.Join(r.IDs(), ",")
		case r.PID > 0:
			head += fmt.Sprintf(", tasks of pid %d", r.PID)
		}
	}
	switch s.Phase {
	case Running:
		if s.Progress.N == 0 {
			return head + ": submitted"
		}
		return fmt.Sprintf("%s: running, stage %s, %d/%d shards done", head, s.Progress.Stage, s.Progress.Done, s.Progress.N)
	case Failed:
		msg := s.Err.Error()
		var te *farm.TaskError
		if errors.As(s.Err, &te) {
			msg = fmt.Sprintf("%s failed: %s", te.Task, te.Reason)
			if n := len(te.Tail); n > 0 {
				msg += "; its log ends: " + te.Tail[n-1]
			}
		}
		return head + ": failed: " + msg
	case Detached:
		return fmt.Sprintf("%s: no longer followed (gallop farm status %s)", head, s.Dir)
	}
	return head + ": " + s.Phase.String()
}

// Jobs are a tool's jobs on the farm and the settings of the next. Its
// zero value is ready to use. Its methods run on the UI thread.
type Jobs struct {
	// Settings are the next job's; the panel edits them in place.
	Settings Settings
	// Parent is the folder of the work folders, CacheParent when empty.
	Parent string
	// Exe is the gallop binary the tasks run, this process's when empty.
	Exe string

	list     []*Job
	detected bool // the engine's default was asked for
}

// Defaults fills in the settings not set yet: 4 shards, and the engine
// (slurm when sinfo answers within two seconds, else local), found on a
// job the first time.
func (js *Jobs) Defaults(h tools.Host) {
	if js.Settings.Shards == 0 {
		js.Settings.Shards = DefaultShards
	}
	if js.detected {
		return
	}
	js.detected = true
	var engine string
	h.Jobs().Start("Farm: looking for Slurm", func(ctx context.Context, rep jobs.Reporter) error {
		rep.Idle()
		engine = DetectEngine(ctx)
		return nil
	}, func(error) {
		if js.Settings.Engine == "" {
			js.Settings.Engine = engine
		}
	})
}

// List returns the jobs submitted, oldest first.
func (js *Jobs) List() []*Job { return js.list }

// Remove forgets job j when it has ended.
func (js *Jobs) Remove(j *Job) {
	if j.Active() {
		return
	}
	for i, x := range js.list {
		if x == j {
			js.list = append(js.list[:i:i], js.list[i+1:]...)
			return
		}
	}
}

// Close stops following every job (the document is being replaced or the
// window closes): a Slurm run runs on, one can follow it with gallop farm
// status; a local run's tasks, which run in this process, are cancelled.
func (js *Jobs) Close() {
	for _, j := range js.list {
		if j.Active() && j.job != nil {
			j.job.Cancel()
		}
	}
}

// poll is the time between two looks at a running job.
const poll = 1500 * time.Millisecond

// Submit checks the settings and runs req on the farm as a job of h's
// runner: the work folder made, the command's input written, the job
// submitted and followed every 1.5 s; once it succeeded its result is read
// and made the tool's (on the UI thread). What fails is reported with
// h.Error and in the job's status.
func (js *Jobs) Submit(h tools.Host, req Request) {
	if err := js.Settings.Check(); err != nil {
		h.Error(err)
		return
	}
	j := &Job{Tool: req.Tool, Settings: js.Settings}
	j.status.Publish(&Status{Phase: Submitting})
	js.list = append(js.list, j)
	parent, exe := js.Parent, js.Exe
	var apply func() error
	j.job = h.Jobs().Start("Farm: "+req.Tool, func(ctx context.Context, rep jobs.Reporter) error {
		var err error
		apply, err = j.follow(ctx, rep, req, parent, exe)
		return err
	}, func(err error) {
		st := j.Status()
		if err == nil {
			err = apply()
		}
		switch {
		case err == nil:
			st.Phase = Loaded
			h.Info("Farm: %s loaded from %s", req.Tool, st.Dir)
		case st.Phase == Detached:
		case jobs.IsCanceled(err):
			st.Phase = Cancelled
		default:
			st.Phase, st.Err = Failed, err
			h.Error(fmt.Errorf("farm: %s: %w", req.Tool, err))
		}
		j.final = &st
	})
}

// follow is the job: make the work folder, write the input, submit, follow
// the run to its end and read its result. When ctx is cancelled it ends
// the run if Cancel asked or the tasks run in this process, and otherwise
// leaves it running.
func (j *Job) follow(ctx context.Context, rep jobs.Reporter, req Request, parent, exe string) (func() error, error) {
	rep.Report(0, "submitting")
	// st is published as a copy each time: a published Status is the UI
	// thread's to read.
	st := Status{Phase: Submitting}
	publish := func() { cp := st; j.status.Publish(&cp) }
	var err error
	if exe == "" {
		if exe, err = Executable(); err != nil {
			return nil, err
		}
	}
	engine, err := farm.New(j.Settings.Engine)
	if err != nil {
		return nil, err
	}
	if parent == "" {
		st.Dir, err = NewCacheDir(req.Tool)
	} else {
		st.Dir, err = NewDir(parent, req.Tool)
	}
	if err != nil {
		return nil, err
	}
	publish()
	command, err := req.Command(ctx, st.Dir)
	if err != nil {
		return nil, fmt.Errorf("the command's input: %w", err)
	}
	job, err := NewJob(exe, command, req.Plan, int(j.Settings.Shards), st.Dir)
	if err != nil {
		return nil, err
	}
	job.Options = farm.Options{Name: "gallop-" + req.Tool, Partition: j.Settings.Partition, CPUs: int(max(1, j.Settings.CPUs))}
	run, err := engine.Submit(ctx, job)
	if err != nil {
		return nil, fmt.Errorf("submitting to %s: %w", engine.Name(), err)
	}
	st.Phase, st.Run = Running, run
	publish()
	rep.Idle() // the status line in the tool's panel says how far it is
	out, err := farm.Follow(ctx, engine, run, poll, func(p farm.Progress) {
		st.Progress = p
		publish()
	})
	switch {
	case ctx.Err() != nil:
		return nil, j.stop(engine, run, st)
	case err != nil:
		return nil, err
	}
	st.Phase = Loading
	publish()
	rep.Report(0.5, "loading the result")
	apply, err := req.Load(ctx, run.Dir, out)
	if err != nil {
		return nil, fmt.Errorf("loading the result in %s: %w", run.Dir, err)
	}
	return apply, nil
}

// stop ends following run after ctx was cancelled: it cancels the run when
// the artist asked or its tasks run in this process (the local engine),
// and returns the error the job ends with.
func (j *Job) stop(engine farm.Engine, run *farm.Run, st Status) error {
	if !j.cancelRun.Load() && engine.Name() != "local" {
		st.Phase = Detached
		j.status.Publish(&st)
		return context.Canceled
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := engine.Cancel(ctx, run); err != nil {
		return fmt.Errorf("cancelling the run in %s: %w", run.Dir, err)
	}
	st.Phase = Cancelled
	j.status.Publish(&st)
	return context.Canceled
}
