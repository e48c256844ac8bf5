package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"gallop/internal/farm"
	"gallop/tools/farmrun"
)

const farmUsage = `Usage: gallop farm submit --shards N [--engine slurm|local] [--partition P] [--cpus C]
                         [--time T] [--name NAME] [--dir DIR] [--wait] -- COMMAND ARGS...
       gallop farm status DIR [--json]
       gallop farm cancel DIR

Runs a shardable command (gallop merge --help) as the jobs of a cluster
scheduler: its prepared stage once, its N shards as an array job, then gallop
merge, whose output is the command's. The work folder DIR holds the job
scripts, each task's log and the shard files. gallop farm submit --help says
more.`

func runFarm(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, farmUsage)
		return errUsage
	}
	switch args[0] {
	case "submit":
		return runFarmSubmit(args[1:], stdout)
	case "status":
		return runFarmStatus(args[1:], stdout)
	case "cancel":
		return runFarmCancel(args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, farmUsage)
		return flag.ErrHelp
	}
	fmt.Fprintf(os.Stderr, "gallop farm: unknown subcommand %q (want submit, status or cancel)\n", args[0])
	return errUsage
}

const farmSubmitUsage = `Usage: gallop farm submit --shards N [--engine slurm|local] [--partition P] [--cpus C]
                         [--time T] [--name NAME] [--dir DIR] [--wait] -- COMMAND ARGS...

Runs gallop COMMAND ARGS in N shards as three jobs: the command's prepared
stage (if it has one) with --prepare, an array job of its N shards with
--shard K/N, each once the one before succeeded, then gallop merge of the
shard files, whose output is exactly the command's. A task whose command
fails is run once more; if it fails again the run fails, and the rest of it
is cancelled. Every task runs in this working directory (relative paths in
ARGS mean the same), with GOMAXPROCS = --cpus.

The job ids go to stderr. With --wait the run's progress follows on stderr
and the command's output on stdout; a failed task's log ends on stderr and
the exit status is 1; Ctrl-C cancels every job. Without --wait the work
folder is printed on stdout, for gallop farm status DIR and cancel DIR.
--engine local runs the same job scripts on this machine, at most
(cores / --cpus) shards at once, and always waits.`

func runFarmSubmit(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("farm submit", flag.ContinueOnError)
	engineName := fs.String("engine", "slurm", "slurm (sbatch) or local (this machine, the same job scripts)")
	n := fs.Int("shards", 0, "number of shards N (required)")
	partition := fs.String("partition", "", "Slurm partition (default: the cluster's default)")
	cpus := fs.Int("cpus", 1, "cores per task (its GOMAXPROCS)")
	limit := fs.String("time", "", "time limit per task, as sbatch --time takes it (30, 1:30:00, 2-00:00:00)")
	name := fs.String("name", "gallop", "job name")
	dir := fs.String("dir", "", "work folder on storage every node sees (default: a new folder in ~/.cache/gallop/farm, as the window's)")
	wait := fs.Bool("wait", false, "follow the run to its end and print the command's output (the local engine always does)")
	fs.Usage = usageOf(fs, farmSubmitUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	command := fs.Args()
	if len(command) == 0 || *n < 1 {
		fs.Usage()
		return errUsage
	}
	exe, err := farmrun.Executable()
	if err != nil {
		return err
	}
	sc, err := findShardCommand(command)
	if err != nil {
		return err
	}
	engine, err := farm.New(*engineName)
	if err != nil {
		return err
	}
	workDir, err := farmDir(*dir)
	if err != nil {
		return err
	}
	job, err := farmrun.NewJob(exe, command, sc.plan, *n, workDir)
	if err != nil {
		if *dir == "" {
			os.RemoveAll(workDir)
		}
		return err
	}
	job.Options = farm.Options{Name: *name, Partition: *partition, CPUs: *cpus, Time: *limit}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run, err := engine.Submit(ctx, job)
	if err != nil {
		if *dir == "" {
			os.RemoveAll(workDir) // the new folder holds only the job scripts
		}
		return err
	}
	fmt.Fprintf(os.Stderr, "gallop farm: %s %s in %d shards: %s\n", engine.Name(), sc.plan.Command, *n, describeRun(run))
	if engine.Name() != "local" && !*wait {
		fmt.Fprintf(os.Stderr, "gallop farm: follow it with: gallop farm status %s (cancel: gallop farm cancel %s)\n", run.Dir, run.Dir)
		fmt.Fprintln(stdout, run.Dir)
		return nil
	}
	out, err := engine.Wait(ctx, run, func(p farm.Progress) {
		fmt.Fprintf(os.Stderr, "gallop farm: %s\n", p)
	})
	if err != nil {
		return farmFailure(err, run, true)
	}
	_, err = stdout.Write(out)
	return err
}

// farmDir is the absolute work folder: dir, or a new folder named by the
// time among the window's (farmrun.CacheParent), not in the working
// directory, which may be the user's project or a source tree.
func farmDir(dir string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	return farmrun.NewCacheDir("")
}

// describeRun names a run's jobs and work folder.
func describeRun(run *farm.Run) string {
	var jobs []string
	for _, j := range run.Jobs {
		jobs = append(jobs, fmt.Sprintf("%s job %s", j.Stage, j.ID))
	}
	if run.Engine == "local" {
		jobs = append(jobs, fmt.Sprintf("tasks run by gallop pid %d", run.PID))
	}
	return strings.Join(jobs, ", ") + "; work folder " + run.Dir
}

// farmFailure prints a failed task's log on stderr and returns the error
// for Main's one line; followed says whether it comes from following the
// run (which then cancelled the rest of it).
func farmFailure(err error, run *farm.Run, followed bool) error {
	var te *farm.TaskError
	switch {
	case errors.As(err, &te):
		fmt.Fprintf(os.Stderr, "gallop farm: %s failed: %s; the end of its log %s:\n", te.Task, te.Reason, te.Log)
		for _, l := range te.Tail {
			fmt.Fprintf(os.Stderr, "  | %s\n", l)
		}
		if followed {
			return fmt.Errorf("%s failed (the rest of the run is cancelled; work folder %s)", te.Task, run.Dir)
		}
		return fmt.Errorf("%s failed (work folder %s)", te.Task, run.Dir)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: every job of the run is cancelled (work folder %s)", run.Dir)
	}
	return err
}

// farmStatus is what `gallop farm status --json` prints.
type farmStatus struct {
	Engine string           `json:"engine"`
	Dir    string           `json:"dir"`
	Jobs   []farm.Submitted `json:"jobs,omitempty"`
	PID    int              `json:"pid,omitempty"`
	farm.Progress
	Merged string `json:"merged,omitempty"` // the command's output, once succeeded
}

const farmStatusUsage = `Usage: gallop farm status DIR [--json]

Says where the run gallop farm submit started in the work folder DIR
stands: running (and its stage, shards done), succeeded (the command's
output is DIR/merged.out) or failed (which task, why, the end of its log).
The exit status is 1 when the run failed.`

func runFarmStatus(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("farm status", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object: engine, dir, jobs, state, stage, done, shards, failure, merged")
	fs.Usage = usageOf(fs, farmStatusUsage)
	run, engine, err := loadRun(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	p, err := engine.Status(ctx, run)
	if err != nil {
		return err
	}
	st := farmStatus{Engine: run.Engine, Dir: run.Dir, Jobs: run.Jobs, PID: run.PID, Progress: p}
	if p.State == farm.Succeeded {
		st.Merged = farm.MergedPath(run.Dir)
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(st); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s run: %s\n%s\n", run.Engine, describeRun(run), p)
		if st.Merged != "" {
			fmt.Fprintf(stdout, "the command's output: %s\n", st.Merged)
		}
	}
	if p.State == farm.Failed {
		return farmFailure(p.Failure, run, false)
	}
	return nil
}

const farmCancelUsage = `Usage: gallop farm cancel DIR

Cancels every job of the run gallop farm submit started in the work folder
DIR (scancel; a local run's process is sent SIGTERM) and returns once none
is queued or running.`

func runFarmCancel(args []string) error {
	fs := flag.NewFlagSet("farm cancel", flag.ContinueOnError)
	fs.Usage = usageOf(fs, farmCancelUsage)
	run, engine, err := loadRun(fs, args)
	if err != nil {
		return err
	}
	ctx, stop := context.WithTimeout(context.Background(), 2*time.Minute)
	defer stop()
	if err := engine.Cancel(ctx, run); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "gallop farm: cancelled: %s\n", describeRun(run))
	return nil
}

// loadRun parses the options and the work folder DIR of args and reads
// the run in DIR and its engine.
func loadRun(fs *flag.FlagSet, args []string) (*farm.Run, farm.Engine, error) {
	dir, err := parseInput(fs, args)
	if err != nil {
		return nil, nil, err
	}
	run, err := farm.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	engine, err := farm.New(run.Engine)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	return run, engine, nil
}
