package farm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Local runs jobs on this machine, as Slurm would on one node: the same
// job scripts, run by bash in the job's Workdir with SLURM_ARRAY_TASK_ID,
// SLURM_CPUS_PER_TASK and the rest of Slurm's environment set, their
// output in the same logs; the stages one after the other, and at most
// Cores / CPUs shards at once. The tasks run in the process that called
// Submit (Run.PID): it must stay alive until Wait returns. Each task runs
// in its own process group, which cancelling kills.
type Local struct {
	// Cores is how many cores the tasks share, runtime.NumCPU() when 0.
	Cores int
}

// Name is "local".
func (*Local) Name() string { return "local" }

// localRun is a Local run going on in this process.
type localRun struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when no task runs any more
	err    error         // why the run stopped early; set before done closes
}

// killWait is how long a cancelled task has between SIGTERM and SIGKILL.
const killWait = 5 * time.Second

// Submit writes the job scripts and starts running them in the background.
func (l *Local) Submit(ctx context.Context, job Job) (*Run, error) {
	job, run, err := newRun(job, l.Name())
	if err != nil {
		return nil, err
	}
	run.PID = os.Getpid()
	run.Host, _ = os.Hostname()
	run.PIDStart, _ = processStart(run.PID)
	if err := run.save(); err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	lr := &localRun{cancel: cancel, done: make(chan struct{})}
	run.local = lr
	go func() {
		defer close(lr.done)
		defer cancel()
		lr.err = l.execute(rctx, job)
	}()
	return run, nil
}

// execute runs job's stages in order; it returns the first task's
// *TaskError, or ctx.Err() when cancelled.
func (l *Local) execute(ctx context.Context, job Job) error {
	if job.Prepare != nil {
		if err := l.task(ctx, job, StagePrepare, 0); err != nil {
			return err
		}
	}
	for _, stage := range shardStages(job.Rounds) {
		if err := l.shards(ctx, job, stage); err != nil {
			return err
		}
	}
	return l.task(ctx, job, StageMerge, 0)
}

// shards runs the shards of stage, at most Cores / CPUs at once. The
// first to fail ends the others.
func (l *Local) shards(ctx context.Context, job Job, stage Stage) error {
	cores := l.Cores
	if cores <= 0 {
		cores = runtime.NumCPU()
	}
	slots := make(chan struct{}, max(1, cores/job.Options.CPUs))
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var (
		wg    sync.WaitGroup
		once  sync.Once
		first error
	)
	for k := 1; k <= job.N; k++ {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := l.task(ctx, job, stage, k); err != nil {
				once.Do(func() { first = err; stop() })
			}
		}()
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// environ is this process's environment without Slurm's variables, with
// those Slurm gives the task of stage (shard k).
func environ(job Job, stage Stage, k int) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_") {
			env = append(env, kv)
		}
	}
	id := strconv.Itoa(os.Getpid())
	env = append(env,
		"SLURM_JOB_ID="+id,
		"SLURM_JOB_NAME="+job.Options.Name+"-"+string(stage),
		"SLURM_CPUS_PER_TASK="+strconv.Itoa(job.Options.CPUs),
		"SLURM_CPUS_ON_NODE="+strconv.Itoa(job.Options.CPUs),
		"SLURM_NTASKS=1",
		"SLURM_SUBMIT_DIR="+job.Options.Workdir,
		"SLURM_JOB_PARTITION="+job.Options.Partition,
	)
	if stage.Round() > 0 {
		n := strconv.Itoa(job.N)
		env = append(env,
			"SLURM_ARRAY_JOB_ID="+id,
			"SLURM_ARRAY_TASK_ID="+strconv.Itoa(k),
			"SLURM_ARRAY_TASK_MIN=1",
			"SLURM_ARRAY_TASK_MAX="+n,
			"SLURM_ARRAY_TASK_COUNT="+n,
		)
	}
	return env
}

// task runs the script of stage (shard k) as Slurm would, its output in
// its log. It returns a *TaskError when the task failed, ctx.Err() when
// cancelled: then its process group has had SIGTERM, and SIGKILL after
// killWait. Whatever of the group outlives the script is killed.
func (l *Local) task(ctx context.Context, job Job, stage Stage, k int) error {
	log, err := os.Create(logPath(job.Dir, stage, k))
	if err != nil {
		return taskFailure(job.Dir, stage, k, fmt.Sprintf("its log: %v", err))
	}
	defer log.Close()
	cmd := exec.Command("bash", scriptPath(job.Dir, stage))
	cmd.Dir = job.Options.Workdir
	cmd.Env = environ(job, stage, k)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return taskFailure(job.Dir, stage, k, fmt.Sprintf("bash did not start: %v", err))
	}
	pgid := cmd.Process.Pid
	// As Slurm does at a job's end, end what the script left running.
	defer syscall.Kill(-pgid, syscall.SIGKILL)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err = <-exited:
	case <-ctx.Done():
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(killWait):
		}
		return ctx.Err()
	}
	if err == nil {
		return nil
	}
	if _, statErr := os.Stat(markerPath(job.Dir, stage, k, false)); statErr == nil {
		return commandFailure(job.Dir, stage, k)
	}
	return taskFailure(job.Dir, stage, k, fmt.Sprintf("its job script failed: %v", err))
}

// Status reads the markers of run. A run of this process that stopped
// early failed with its task's error; one of another process failed when
// that process is gone.
func (l *Local) Status(ctx context.Context, run *Run) (Progress, error) {
	p, err := fileProgress(run)
	if err != nil || p.State != Running {
		return p, err
	}
	var reason string
	if lr := run.local; lr != nil {
		select {
		case <-lr.done:
		default:
			return p, nil
		}
		var te *TaskError
		if errors.As(lr.err, &te) {
			p.State, p.Failure = Failed, te
			return p, nil
		}
		reason = fmt.Sprintf("the run stopped: %v", lr.err)
	} else {
		if where := elsewhere(run); where != "" {
			p.Note = where + "; status from here cannot tell whether it still runs"
			return p, nil
		}
		if runnerAlive(run) {
			return p, nil
		}
		reason = fmt.Sprintf("the process that ran it (pid %d) ended before it finished", run.PID)
	}
	// A task may have written its marker just before the run ended.
	return ended(run, func(Stage, int) string { return reason })
}

// elsewhere says where a detached local run's tasks run when that is not
// this host ("running on HOST", or for a run file written before the host
// was recorded, that it does not say), "" when they run here: only here
// can its process be seen and signalled.
func elsewhere(run *Run) string {
	host, _ := os.Hostname()
	switch {
	case run.Host == "":
		return "the run file does not say which host runs it (an older Gallop wrote it)"
	case run.Host != host:
		return "running on " + run.Host
	}
	return ""
}

// runnerAlive reports whether the process that runs run's tasks still
// does: its pid exists on this host with the start time recorded (see
// Run.PID).
func runnerAlive(run *Run) bool {
	if host, _ := os.Hostname(); run.Host != host || !processAlive(run.PID) {
		return false
	}
	start, err := processStart(run.PID)
	return err == nil && start == run.PIDStart
}

// processStart returns process pid's start time since boot in clock ticks
// (field 22 of /proc/PID/stat).
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:])) // fields 3, 4, …
	if len(f) < 20 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Wait follows run; see Engine.
func (l *Local) Wait(ctx context.Context, run *Run, progress func(Progress)) ([]byte, error) {
	return wait(ctx, l, run, 100*time.Millisecond, progress)
}

// Cancel ends run's tasks. For a run of this process it kills their
// process groups; for one of another process it sends that process
// SIGTERM (gallop farm cancels its run on it) and waits for it to exit.
func (l *Local) Cancel(ctx context.Context, run *Run) error {
	if lr := run.local; lr != nil {
		lr.cancel()
		select {
		case <-lr.done:
			return nil
		case <-ctx.Done():
			return fmt.Errorf("tasks still running: %w", ctx.Err())
		}
	}
	if run.PID == os.Getpid() {
		return errors.New("the run is this process's own; cancel the context given to Wait")
	}
	if where := elsewhere(run); where != "" {
		return fmt.Errorf("%s; cancel it there", where)
	}
	if !runnerAlive(run) {
		return nil // ended, and its pid is free or another process's
	}
	if err := syscall.Kill(run.PID, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("signalling pid %d: %w", run.PID, err)
	}
	for runnerAlive(run) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("pid %d still running after SIGTERM: %w", run.PID, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
