package farm

import (
	"errors"
	"fmt"
	"gallop/internal/atomicfile"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// unsafeChars are what a path or setting in an #SBATCH line must not
// hold: Slurm splits those lines at white space without quoting, and
// expands '%' in file names.
const unsafeChars = " \t\n\r'\"\\%"

// checkJob checks job and returns it with the defaults filled in.
func checkJob(job Job) (Job, error) {
	if job.N < 1 {
		return job, fmt.Errorf("%d shards; want at least 1", job.N)
	}
	if len(job.Shard) == 0 || len(job.Merge) == 0 {
		return job, errors.New("a job needs a shard command and a merge command")
	}
	if job.Rounds < 0 || job.Rounds > 100 {
		return job, fmt.Errorf("%d rounds of shards; want 1 to 100", job.Rounds)
	}
	job.Rounds = max(1, job.Rounds)
	if !filepath.IsAbs(job.Dir) {
		return job, fmt.Errorf("work folder %q is not an absolute path", job.Dir)
	}
	job.Dir = filepath.Clean(job.Dir)
	o := &job.Options
	if o.Name == "" {
		o.Name = "gallop"
	}
	if o.CPUs == 0 {
		o.CPUs = 1
	}
	if o.CPUs < 0 {
		return job, fmt.Errorf("%d CPUs per task", o.CPUs)
	}
	if o.Workdir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return job, fmt.Errorf("working directory: %w", err)
		}
		o.Workdir = wd
	}
	for _, s := range []struct{ what, v string }{
		{"work folder", job.Dir}, {"working directory", o.Workdir}, {"job name", o.Name},
		{"partition", o.Partition}, {"time limit", o.Time},
	} {
		if err := CheckSetting(s.what, s.v); err != nil {
			return job, err
		}
	}
	return job, nil
}

// CheckSetting refuses a path or setting (named what) that a job script's
// #SBATCH lines cannot hold: white space, a quote, a backslash or '%'.
func CheckSetting(what, v string) error {
	if strings.ContainsAny(v, unsafeChars) {
		return fmt.Errorf("%s %q holds white space, a quote, a backslash or %%, which a job script's #SBATCH lines cannot", what, v)
	}
	return nil
}

// task names the task of stage (shard k of a shards stage) in the files
// of a work folder: "prepare", "shard-3", "round-2-shard-3", "merge".
func task(stage Stage, k int) string {
	switch {
	case stage == StageShards:
		return "shard-" + strconv.Itoa(k)
	case stage.Round() > 0:
		return fmt.Sprintf("round-%d-shard-%d", stage.Round(), k)
	}
	return string(stage)
}

// taskTitle names it in messages: "prepare", "shard 3", "round 2 shard 3",
// "merge".
func taskTitle(stage Stage, k int) string { return strings.ReplaceAll(task(stage, k), "-", " ") }

func scriptPath(dir string, stage Stage) string {
	return filepath.Join(dir, "jobs", string(stage)+".sh")
}

func logPath(dir string, stage Stage, k int) string {
	return filepath.Join(dir, "logs", task(stage, k)+".log")
}

func markerPath(dir string, stage Stage, k int, ok bool) string {
	ext := ".failed"
	if ok {
		ext = ".ok"
	}
	return filepath.Join(dir, "state", task(stage, k)+ext)
}

// MergedPath is the file of the merge's standard output in the work
// folder dir.
func MergedPath(dir string) string { return filepath.Join(dir, "merged.out") }

// quote quotes s for bash.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// commandLine is argv as a bash command line, ShardToken in it replaced by
// the shard number $K when shard.
func commandLine(argv []string, shard bool) string {
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = quote(a)
		if shard {
			words[i] = strings.ReplaceAll(words[i], ShardToken, `'"$K"'`)
		}
	}
	return strings.Join(words, " ")
}

// newRun checks job (checkJob) for the engine named engine, writes its
// scripts (writeScripts) and returns the job with its defaults and its
// Run, not yet saved.
func newRun(job Job, engine string) (Job, *Run, error) {
	job, err := checkJob(job)
	if err != nil {
		return job, nil, err
	}
	if err := writeScripts(job); err != nil {
		return job, nil, err
	}
	return job, &Run{Engine: engine, Dir: job.Dir, N: job.N, Rounds: job.Rounds, Prepare: job.Prepare != nil}, nil
}

// writeScripts creates job's work folder and writes its job scripts. It
// refuses a folder that holds a run already.
func writeScripts(job Job) error {
	if _, err := os.Stat(stateFile(job.Dir)); err == nil {
		return fmt.Errorf("%s holds a run already (farm.json); give a new work folder", job.Dir)
	}
	for _, d := range []string{"jobs", "logs", "state"} {
		if err := os.MkdirAll(filepath.Join(job.Dir, d), 0o755); err != nil {
			return err
		}
	}
	if job.Prepare != nil {
		if err := writeScript(scriptPath(job.Dir, StagePrepare), script(job, StagePrepare)); err != nil {
			return err
		}
	}
	for _, s := range append(shardStages(job.Rounds), StageMerge) {
		if err := writeScript(scriptPath(job.Dir, s), script(job, s)); err != nil {
			return err
		}
	}
	return nil
}

// writeScript writes an executable job script atomically: the scheduler
// never runs half of one.
func writeScript(path, text string) error {
	return atomicfile.WriteMode(path, 0o755, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
}

// script is the job script of stage: its #SBATCH lines, then the command
// run with one retry and the markers written.
func script(job Job, stage Stage) string {
	o := job.Options
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("#!/bin/bash")
	line("# The %s stage of a sharded job, written by gallop farm; Slurm runs it", stage)
	line("# with sbatch, the local engine with the same environment.")
	line("#SBATCH --job-name=%s-%s", o.Name, stage)
	logName := filepath.Join(job.Dir, "logs", string(stage)+".log")
	if stage.Round() > 0 {
		logName = filepath.Join(job.Dir, "logs", strings.Replace(task(stage, 0), "shard-0", "shard-%a", 1)+".log")
		line("#SBATCH --array=1-%d", job.N)
	}
	line("#SBATCH --output=%s", logName)
	line("#SBATCH --error=%s", logName)
	line("#SBATCH --cpus-per-task=%d", o.CPUs)
	if o.Partition != "" {
		line("#SBATCH --partition=%s", o.Partition)
	}
	if o.Time != "" {
		line("#SBATCH --time=%s", o.Time)
	}
	line("#SBATCH --chdir=%s", o.Workdir)
	line("#SBATCH --requeue")
	line("set -u")
	line("export GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-1}\"")
	line("state=%s", quote(filepath.Join(job.Dir, "state")))
	var cmd string
	switch stage {
	case StagePrepare:
		line("task=prepare")
		cmd = commandLine(job.Prepare, false)
	case StageMerge:
		line("task=merge")
		cmd = commandLine(job.Merge, false) + " >" + quote(MergedPath(job.Dir)+".part")
	default: // a shards stage
		line("K=\"${SLURM_ARRAY_TASK_ID:?not a task of the shards array job}\"")
		line("task=%s", strings.Replace(task(stage, 0), "shard-0", "shard-$K", 1))
		argv := make([]string, len(job.Shard))
		for i, a := range job.Shard {
			argv[i] = strings.ReplaceAll(a, RoundToken, strconv.Itoa(stage.Round()))
		}
		cmd = commandLine(argv, true)
	}
	line("rm -f \"$state/$task.ok\" \"$state/$task.failed\"")
	line("run() {")
	line("\t%s", cmd)
	line("}")
	line("attempt() {")
	line("\techo \"farm: $task: attempt $1 on $(hostname -s), $(date '+%%F %%T')\" >&2")
	line("\trun")
	line("}")
	line("status=0")
	// An attempt ended by SIGHUP, SIGINT or SIGTERM (status 128+n) was
	// stopped by the scheduler or the user (scancel, a time limit, a
	// cancel): a retry would start a process after the signals went out,
	// which the scheduler's process tracking can miss once this script is
	// gone. Any other failure, SIGKILL (the out-of-memory killer) included,
	// is retried once.
	line("attempt 1 || {")
	line("\tstatus=$?")
	line("\tif [ \"$status\" -eq 129 ] || [ \"$status\" -eq 130 ] || [ \"$status\" -eq 143 ]; then")
	line("\t\techo \"farm: $task: attempt 1 ended by signal $((status - 128)); not retried\" >&2")
	line("\telse")
	line("\t\techo \"farm: $task: attempt 1 failed with exit status $status; retrying once\" >&2")
	line("\t\tstatus=0")
	line("\t\tattempt 2 || status=$?")
	line("\tfi")
	line("}")
	line("if [ \"$status\" -ne 0 ]; then")
	line("\techo \"farm: $task: failed with exit status $status; giving up\" >&2")
	line("\techo \"$status\" >\"$state/$task.failed\"")
	line("\texit \"$status\"")
	line("fi")
	if stage == StageMerge {
		line("mv -f %s %s", quote(MergedPath(job.Dir)+".part"), quote(MergedPath(job.Dir)))
	}
	line(": >\"$state/$task.ok\"")
	line("echo \"farm: $task: done\" >&2")
	return b.String()
}
