package farm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Slurm runs jobs on a Slurm cluster: Submit runs sbatch --parsable for
// the prepare job, the shards' array job (--array=1-N; one per round)
// after it and the merge job after that, each later one with --dependency=afterok on the
// one before and --kill-on-invalid-dep=yes, so a failed stage ends the
// stages after it. Status and Wait read the tasks' markers and ask squeue
// whether the jobs are still queued; they need no accounting (sacct). A
// task the scheduler ended without a marker (time limit, cancelled, node
// lost) is found once the run's jobs have left the queue, and described
// by scontrol show job while Slurm still remembers it (MinJobAge).
type Slurm struct {
	// Poll is the time between two looks at a running job, a second
	// when zero.
	Poll time.Duration
}

// Name is "slurm".
func (*Slurm) Name() string { return "slurm" }

// slurm runs a Slurm command and returns its standard output; its error
// holds what the command printed on stderr.
func slurm(ctx context.Context, name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), fmt.Errorf("%s %s: %s", name, strings.Join(args, " "), msg)
	}
	return stdout.String(), nil
}

// Submit writes the job scripts and submits them. When a submission fails
// it cancels the jobs submitted before it.
func (s *Slurm) Submit(ctx context.Context, job Job) (*Run, error) {
	job, run, err := newRun(job, s.Name())
	if err != nil {
		return nil, err
	}
	stages := append(shardStages(job.Rounds), StageMerge)
	if run.Prepare {
		stages = append([]Stage{StagePrepare}, stages...)
	}
	for i, stage := range stages {
		args := []string{"--parsable"}
		if i > 0 {
			args = append(args, "--dependency=afterok:"+run.Jobs[i-1].ID, "--kill-on-invalid-dep=yes")
		}
		out, err := slurm(ctx, "sbatch", append(args, scriptPath(job.Dir, stage))...)
		if err == nil {
			id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
			if _, perr := strconv.Atoi(id); perr != nil {
				err = fmt.Errorf("sbatch: unexpected answer %q, want a job id", out)
			} else {
				run.Jobs = append(run.Jobs, Submitted{Stage: stage, ID: id})
			}
		}
		if err != nil {
			return nil, s.abandon(run, fmt.Errorf("submitting the %s stage: %w", stage, err))
		}
	}
	if err := run.save(); err != nil {
		return nil, s.abandon(run, err)
	}
	return run, nil
}

// abandon cancels what run submitted and returns err, with the
// cancellation's error if it failed.
func (s *Slurm) abandon(run *Run, err error) error {
	if len(run.Jobs) == 0 {
		return err
	}
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	if cerr := s.Cancel(ctx, run); cerr != nil {
		return errors.Join(err, fmt.Errorf("cancelling the jobs submitted: %w", cerr))
	}
	return err
}

// queued returns, for each of run's jobs that squeue still lists, the
// reasons squeue gives for its tasks pending.
func (s *Slurm) queued(ctx context.Context, run *Run) (map[string][]string, error) {
	out, err := slurm(ctx, "squeue", "-h", "-j", strings.Join(run.IDs(), ","), "-o", "%F|%r")
	if err != nil {
		// squeue fails when every job it is asked of has been purged.
		if strings.Contains(err.Error(), "Invalid job id") {
			return nil, nil
		}
		return nil, err
	}
	q := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		id, reason, ok := strings.Cut(line, "|")
		if ok {
			q[id] = append(q[id], reason)
		}
	}
	return q, nil
}

// Status reads the markers of run and asks squeue about its jobs. While
// one of them is queued and can still run, the run is Running; once none
// is (or one waits on a dependency that can never be met), a task that
// ended without a marker failed, and the first such task is the failure.
func (s *Slurm) Status(ctx context.Context, run *Run) (Progress, error) {
	p, err := fileProgress(run)
	if err != nil {
		return p, err
	}
	if p.State != Running {
		return s.account(ctx, run, p), nil
	}
	q, err := s.queued(ctx, run)
	if err != nil {
		return p, err
	}
	stuck := false
	for _, reasons := range q {
		for _, r := range reasons {
			stuck = stuck || r == "DependencyNeverSatisfied"
		}
	}
	if len(q) > 0 && !stuck {
		return p, nil
	}
	// A task may have written its marker and left the queue since.
	p, err = ended(run, func(stage Stage, k int) string { return s.ended(ctx, run, stage, k) })
	if err != nil {
		return p, err
	}
	return s.account(ctx, run, p), nil
}

// ended says why the task of stage (shard k) ended without a marker, by
// what scontrol still knows of it.
func (s *Slurm) ended(ctx context.Context, run *Run, stage Stage, k int) string {
	id, fields, err := s.jobState(ctx, run, stage, k)
	if err != nil {
		return fmt.Sprintf("Slurm job %s left the queue without finishing, and Slurm no longer knows it (%v)", id, err)
	}
	return fmt.Sprintf("Slurm job %s ended without finishing: %s", id, fields)
}

// account adds to a failure whose command a signal ended (a failure
// marker with status 128 + n) what Slurm says of the task's job: scancel,
// a time limit or a lost node send that signal to the job's processes one
// by one, and the task's script may note its command's end before it is
// ended itself, or not (then ended speaks). Either way the failure says
// what the scheduler did.
func (s *Slurm) account(ctx context.Context, run *Run, p Progress) Progress {
	te := p.Failure
	if p.State != Failed || te == nil || te.signal == 0 {
		return p
	}
	if id, fields, err := s.jobState(ctx, run, te.stage, te.k); err == nil {
		te.Reason += fmt.Sprintf("; Slurm reports job %s as %s", id, fields)
	}
	return p
}

// jobState returns the job id of the task of stage (shard k) and its
// JobState, Reason and ExitCode by scontrol.
func (s *Slurm) jobState(ctx context.Context, run *Run, stage Stage, k int) (id, fields string, err error) {
	for _, j := range run.Jobs {
		if j.Stage == stage {
			id = j.ID
		}
	}
	if stage.Round() > 0 {
		id += "_" + strconv.Itoa(k)
	}
	out, err := slurm(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		return id, "", err
	}
	var fs []string
	for _, f := range strings.Fields(out) {
		for _, key := range []string{"JobState=", "Reason=", "ExitCode="} {
			if strings.HasPrefix(f, key) {
				fs = append(fs, f)
			}
		}
	}
	return id, strings.Join(fs, " "), nil
}

func (s *Slurm) poll() time.Duration {
	if s.Poll > 0 {
		return s.Poll
	}
	return time.Second
}

// maxPollErrors is how many looks at a job in a row may fail (a busy
// controller times out) before following it is given up.
const maxPollErrors = 10

// Wait follows run with Status every Poll; see Engine.
func (s *Slurm) Wait(ctx context.Context, run *Run, progress func(Progress)) ([]byte, error) {
	return wait(ctx, s, run, s.poll(), progress)
}

// wait follows run on engine e, looking every poll, and cancels it when
// ctx is; see Engine.Wait.
func wait(ctx context.Context, e Engine, run *Run, poll time.Duration, progress func(Progress)) ([]byte, error) {
	out, err := Follow(ctx, e, run, poll, progress)
	if ctx.Err() != nil {
		stop, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if cerr := e.Cancel(stop, run); cerr != nil {
			return nil, errors.Join(ctx.Err(), fmt.Errorf("cancelling the run: %w", cerr))
		}
		return nil, ctx.Err()
	}
	return out, err
}

// Follow looks at run on engine e every poll until it ends, calling
// progress (when not nil) each time its Progress changes and once at its
// end. It returns the merge's standard output when the run succeeded; a
// *TaskError when a task failed, after cancelling the rest of the run;
// ctx.Err() when ctx is cancelled, leaving the run as it is (Engine.Wait
// cancels it); and an error when maxPollErrors looks in a row failed.
func Follow(ctx context.Context, e Engine, run *Run, poll time.Duration, progress func(Progress)) ([]byte, error) {
	report := func(Progress) {}
	if progress != nil {
		report = progress
	}
	var last Progress
	errs := 0
	for {
		p, err := e.Status(ctx, run)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			if errs++; errs >= maxPollErrors {
				return nil, fmt.Errorf("following the run in %s (it may still run): %w", run.Dir, err)
			}
		case p.State == Succeeded:
			report(p)
			return merged(run.Dir)
		case p.State == Failed:
			report(p)
			stop, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if cerr := e.Cancel(stop, run); cerr != nil {
				return nil, errors.Join(p.Failure, fmt.Errorf("cancelling the rest of the run: %w", cerr))
			}
			return nil, p.Failure
		default:
			errs = 0
			if p.State != last.State || p.Stage != last.Stage || p.Done != last.Done {
				report(p)
			}
			last = p
		}
		select {
		case <-ctx.Done():
		case <-time.After(poll):
		}
	}
}

// Cancel runs scancel on run's jobs and waits until squeue lists none of
// them.
func (s *Slurm) Cancel(ctx context.Context, run *Run) error {
	if len(run.Jobs) == 0 {
		return nil
	}
	_, serr := slurm(ctx, "scancel", run.IDs()...)
	for {
		q, err := s.queued(ctx, run)
		if err == nil && len(q) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("jobs %s still queued after scancel: %w", strings.Join(run.IDs(), ","), errors.Join(ctx.Err(), serr, err))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
