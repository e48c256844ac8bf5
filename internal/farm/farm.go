// Package farm runs a sharded job as the tasks of a cluster scheduler: an
// optional prepare command run once, N shard commands (an array job) once
// it succeeded — in one or more rounds, each round's array job after the
// one before — then a merge command once every shard succeeded, whose
// standard output is the job's result. It knows nothing of what the
// commands do.
//
// Every engine runs the same bash job scripts, written into the job's work
// folder Dir (which every node must see at the same path: shared storage):
//
//	Dir/farm.json              the Run: engine, job ids, shard count
//	Dir/jobs/{prepare,shards,merge}.sh   the job scripts, with #SBATCH lines
//	                                      (shards-R.sh per round R of a job in rounds)
//	Dir/logs/{prepare,shard-K,merge}.log  each task's stdout and stderr
//	                                      (round-R-shard-K.log in rounds)
//	Dir/state/TASK.ok, TASK.failed       written by a task when it ends
//	Dir/merged.out             the merge command's stdout, once it succeeded
//
// A task script runs its command and, when the command exits non-zero,
// logs the failure and runs it once more; when the retry fails too it
// writes TASK.failed (the exit status) and fails, its log kept. A task
// that succeeds writes TASK.ok. The markers let a job be followed without
// the scheduler's accounting, and after the scheduler has forgotten it.
//
// Engines: Slurm submits the scripts with sbatch (the shards as an array
// job, each stage depending on the one before with afterok); Local runs
// them as processes on this machine with the environment Slurm would give
// them. Another scheduler that takes a command per task and an index range
// (HTCondor, Deadline, OpenCue, Flamenco) fits the Engine interface.
package farm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"gallop/internal/atomicfile"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ShardToken is the token in Job.Shard replaced by the shard's number
// K (1 ≤ K ≤ N) in each task.
const ShardToken = "{K}"

// RoundToken is the token in Job.Shard replaced by the round's number R
// (1 ≤ R ≤ Rounds) in each task.
const RoundToken = "{R}"

// Job is a sharded job to run.
type Job struct {
	// Dir is the work folder, an absolute path on storage every node
	// shares. It is created if missing and must not hold another run.
	// Slurm's #SBATCH lines cannot quote, so it holds no white space,
	// quotes or '%'.
	Dir string
	// Prepare is the command run once before the shards; nil for none.
	Prepare []string
	// Shard is the command of each shard, ShardToken in its words
	// replaced by the shard's number.
	Shard []string
	// Merge is the command run once every shard succeeded; its standard
	// output is the job's result.
	Merge []string
	// N is the number of shards, at least 1.
	N int
	// Rounds is the number of rounds of shards (0 means 1): the N shards
	// of round R run once every shard of round R−1 succeeded.
	Rounds int
	// Options are the scheduler's settings.
	Options Options
}

// Options are the scheduler settings of a job's tasks. The zero value
// means the defaults.
type Options struct {
	// Name is the job's name in the scheduler, "gallop" when empty; the
	// stages are named Name-prepare, Name-shards and Name-merge.
	Name string
	// Partition is Slurm's partition; empty for the cluster's default.
	Partition string
	// CPUs is the number of cores of each task (its GOMAXPROCS), 1 when 0.
	CPUs int
	// Time is each task's time limit in a form sbatch --time takes
	// ("30", "1:30:00", "2-00:00:00"); empty for the partition's.
	Time string
	// Workdir is the folder each task runs in, the current working
	// directory when empty.
	Workdir string
}

// Stage is a stage of a job.
type Stage string

// The stages, in the order they run. A job in rounds has a shards stage
// per round instead of StageShards: ShardsStage(r, rounds).
const (
	StagePrepare Stage = "prepare"
	StageShards  Stage = "shards"
	StageMerge   Stage = "merge"
)

// ShardsStage is the stage of round r of a job's rounds of shards:
// StageShards for a job of one round, "shards-R" otherwise.
func ShardsStage(r, rounds int) Stage {
	if rounds <= 1 {
		return StageShards
	}
	return Stage("shards-" + strconv.Itoa(r))
}

// Round is the round of a shards stage (1 for StageShards), 0 for
// another stage.
func (s Stage) Round() int {
	if s == StageShards {
		return 1
	}
	if r, ok := strings.CutPrefix(string(s), "shards-"); ok {
		if n, err := strconv.Atoi(r); err == nil && n >= 1 {
			return n
		}
	}
	return 0
}

// shardStages are the shards stages of a job of rounds rounds, in order.
func shardStages(rounds int) []Stage {
	out := make([]Stage, max(1, rounds))
	for r := range out {
		out[r] = ShardsStage(r+1, rounds)
	}
	return out
}

// State is where a run stands.
type State string

// The states of a run.
const (
	Running   State = "running" // submitted, queued or running
	Succeeded State = "succeeded"
	Failed    State = "failed"
)

// Progress is what a run has done.
type Progress struct {
	State State `json:"state"`
	// Stage is the stage running, or the last one reached.
	Stage Stage `json:"stage"`
	// Done is how many of the N shards of the stage (the last round
	// reached) succeeded.
	Done int `json:"done"`
	N    int `json:"shards"`
	// Failure is the task that failed when State is Failed.
	Failure *TaskError `json:"failure,omitempty"`
	// Note says what the status cannot tell from here: a local run's
	// tasks run on another host, whose processes this one cannot see.
	Note string `json:"note,omitempty"`
}

func (p Progress) String() string {
	s := fmt.Sprintf("%s, %d/%d shards done", p.State, p.Done, p.N)
	if p.State == Running {
		s += ", stage " + string(p.Stage)
	}
	if p.Note != "" {
		s += "; " + p.Note
	}
	return s
}

// TaskError is a task that failed: its command failed twice (it is retried
// once), or the scheduler ended it (time limit, cancelled, node lost).
type TaskError struct {
	Task   string   `json:"task"`   // "prepare", "shard 3", "merge"
	Shard  int      `json:"shard"`  // K for a shard, 0 otherwise
	Reason string   `json:"reason"` // what ended it
	Log    string   `json:"log"`    // the task's log file
	Tail   []string `json:"tail"`   // the log's last lines

	stage  Stage // the task's stage and shard (0 outside the shard stages)
	k      int
	signal int // the signal that ended its command, by the status it recorded (0: none)
}

func (e *TaskError) Error() string {
	s := fmt.Sprintf("%s failed: %s; its log %s", e.Task, e.Reason, e.Log)
	if len(e.Tail) == 0 {
		return s + " is empty"
	}
	return s + " ends:\n" + strings.Join(e.Tail, "\n")
}

// Submitted is a job an engine submitted for one stage.
type Submitted struct {
	Stage Stage  `json:"stage"`
	ID    string `json:"id"`
}

// Run is a submitted job, kept in Dir/farm.json so that any process can
// follow or cancel it (Load).
type Run struct {
	Engine  string      `json:"engine"`
	Dir     string      `json:"dir"`
	N       int         `json:"shards"`
	Rounds  int         `json:"rounds,omitempty"` // 0 or 1: one round
	Prepare bool        `json:"prepare"`
	Jobs    []Submitted `json:"jobs,omitempty"` // the scheduler's jobs, in stage order
	// PID is the process that runs a Local run's tasks, on Host, started
	// at PIDStart (its start time since boot, in clock ticks, from
	// /proc/PID/stat): a process with that pid is taken for it only where
	// all three agree, so that a reused pid, or one on another machine
	// sharing the folder, is never signalled.
	PID      int    `json:"pid,omitempty"`
	Host     string `json:"host,omitempty"`
	PIDStart uint64 `json:"pid_start,omitempty"`

	local *localRun // a Local run of this process
}

// IDs are the ids of the run's jobs.
func (r *Run) IDs() []string {
	ids := make([]string, len(r.Jobs))
	for i, j := range r.Jobs {
		ids[i] = j.ID
	}
	return ids
}

// Engine runs jobs on a scheduler.
type Engine interface {
	// Name is the engine's name in Run.Engine ("slurm", "local").
	Name() string
	// Submit writes the job's scripts and state into job.Dir and starts
	// it; the job runs on after Submit returns.
	Submit(ctx context.Context, job Job) (*Run, error)
	// Status says where run stands now.
	Status(ctx context.Context, run *Run) (Progress, error)
	// Wait follows run until it ends, calling progress (when not nil)
	// each time its Progress changes. It returns the merge's standard
	// output when the run succeeded, and a *TaskError when a task
	// failed, after cancelling the rest of the run. When ctx is
	// cancelled it cancels the run and returns ctx.Err() once none of
	// its tasks runs.
	Wait(ctx context.Context, run *Run, progress func(Progress)) ([]byte, error)
	// Cancel stops every task of run and returns once none runs.
	Cancel(ctx context.Context, run *Run) error
}

// New returns the engine named name: "slurm" or "local".
func New(name string) (Engine, error) {
	switch name {
	case "slurm":
		return &Slurm{}, nil
	case "local":
		return &Local{}, nil
	}
	return nil, fmt.Errorf("unknown engine %q: slurm or local", name)
}

// stateFile is the Run's file in a work folder.
func stateFile(dir string) string { return filepath.Join(dir, "farm.json") }

// Load reads the Run that was submitted with work folder dir.
func Load(dir string) (*Run, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(stateFile(abs))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: not a farm work folder (no farm.json)", dir)
	}
	if err != nil {
		return nil, err
	}
	var r Run
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", stateFile(abs), err)
	}
	if r.N < 1 || r.Engine == "" {
		return nil, fmt.Errorf("%s: no engine or shard count", stateFile(abs))
	}
	r.Dir = abs
	return &r, nil
}

// save writes r into its work folder, atomically.
func (r *Run) save() error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(stateFile(r.Dir), append(data, '\n'))
}
