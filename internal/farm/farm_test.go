package farm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"gallop/internal/farm/farmtest"
)

// fake stands in for gallop: "prepare DIR" writes DIR/prepared; "shard K
// DIR MODE" writes DIR/out-K after checking the prepared file, and
// misbehaves by MODE (flaky=K: shard K fails on its first attempt only;
// fail=K: shard K always fails; slow: every shard sleeps, its PID in
// DIR/pid-K; slow=K: shard K sleeps, the PID of its job script in
// DIR/script-K; term=K: shard K is ended by SIGTERM); "merge DIR N" prints the N outputs in order.
const fake = `#!/bin/bash
set -eu
case "$1" in
prepare)
	echo prepared >"$2/prepared" ;;
shard)
	k=$2 dir=$3 mode=$4
	[ -f "$dir/prepared" ] || { echo "shard $k: nothing prepared" >&2; exit 3; }
	case "$mode" in
	"flaky=$k")
		if [ ! -f "$dir/flaked-$k" ]; then
			: >"$dir/flaked-$k"
			echo "shard $k: first attempt breaks" >&2
			exit 1
		fi ;;
	"fail=$k")
		echo "shard $k: always broken, GOMAXPROCS=$GOMAXPROCS" >&2
		exit 7 ;;
	slow)
		echo $$ >"$dir/pid-$k"
		sleep 120 ;;
	"slow=$k")
		echo $PPID >"$dir/script-$k"
		sleep 120 ;;
	"term=$k")
		echo "shard $k: attempt at $(date +%s%N)" >>"$dir/attempts-$k"
		kill -TERM $$ ;;
	esac
	echo "result $k" >"$dir/out-$k" ;;
merge)
	for k in $(seq "$3"); do cat "$2/out-$k"; done ;;
esac
`

// engines are the engines under test, each with a check that it can run.
var engines = []struct {
	name  string
	new   func() Engine
	ready func(*testing.T)
}{
	{"local", func() Engine { return &Local{Cores: 2} }, func(*testing.T) {}},
	{"slurm", func() Engine { return &Slurm{Poll: 200 * time.Millisecond} }, func(t *testing.T) { farmtest.RequireSlurm(t) }},
}

// fakeJob is a 4-shard job of the fake command with a prepare stage, its
// shards misbehaving by mode.
func fakeJob(t *testing.T, mode string) Job {
	t.Helper()
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "fake")
	if err := os.WriteFile(bin, []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "run")
	return Job{
		Dir:     dir,
		Prepare: []string{bin, "prepare", dir},
		Shard:   []string{bin, "shard", ShardToken, dir, mode},
		Merge:   []string{bin, "merge", dir, "4"},
		N:       4,
		Options: Options{Name: "gallop-test", CPUs: 1, Workdir: tmp},
	}
}

func forEngine(t *testing.T, f func(t *testing.T, e Engine)) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			eng.ready(t)
			f(t, eng.new())
		})
	}
}

func submit(t *testing.T, e Engine, job Job) *Run {
	t.Helper()
	run, err := e.Submit(context.Background(), job)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func TestRunSucceeds(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		start := time.Now()
		job := fakeJob(t, "ok")
		run := submit(t, e, job)
		var stages []Stage
		out, err := e.Wait(context.Background(), run, func(p Progress) {
			if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
				stages = append(stages, p.Stage)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := "result 1\nresult 2\nresult 3\nresult 4\n"; string(out) != want {
			t.Errorf("merged output %q, want %q", out, want)
		}
		if stages[len(stages)-1] != StageMerge {
			t.Errorf("progress reported stages %v, want them to end with merge", stages)
		}
		loaded, err := Load(job.Dir)
		if err != nil {
			t.Fatal(err)
		}
		p, err := e.Status(context.Background(), loaded)
		if err != nil || p.State != Succeeded || p.Done != 4 {
			t.Errorf("status of the finished run: %v, %v; want succeeded with 4 shards", p, err)
		}
		log, err := os.ReadFile(logPath(job.Dir, StageShards, 3))
		if err != nil || !strings.Contains(string(log), "farm: shard-3: done") {
			t.Errorf("shard 3's log %q (%v) does not say it is done", log, err)
		}
		for _, stage := range []Stage{StagePrepare, StageShards, StageMerge} {
			if st, err := os.Stat(scriptPath(job.Dir, stage)); err != nil || st.Mode().Perm() != 0o755 {
				t.Errorf("the %s job script: %v, %v; want an executable file", stage, st.Mode(), err)
			}
		}
		t.Logf("%s: 4 shards with a prepare stage in %v", e.Name(), time.Since(start).Round(time.Millisecond))
	})
}

func TestFailedAttemptIsRetried(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		job := fakeJob(t, "flaky=2")
		out, err := e.Wait(context.Background(), submit(t, e, job), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(out), "result 1\nresult 2\n") {
			t.Errorf("merged output %q", out)
		}
		log, _ := os.ReadFile(logPath(job.Dir, StageShards, 2))
		for _, want := range []string{"first attempt breaks", "attempt 1 failed with exit status 1; retrying once", "attempt 2 on", "shard-2: done"} {
			if !strings.Contains(string(log), want) {
				t.Errorf("shard 2's log lacks %q:\n%s", want, log)
			}
		}
	})
}

func TestFailingShardFailsTheRun(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		job := fakeJob(t, "fail=3")
		out, err := e.Wait(context.Background(), submit(t, e, job), nil)
		var te *TaskError
		if !errors.As(err, &te) {
			t.Fatalf("Wait = %q, %v; want a *TaskError", out, err)
		}
		if te.Shard != 3 || !strings.Contains(te.Reason, "status 7, also on its retry") {
			t.Errorf("failure %+v, want shard 3 with exit status 7 twice", te)
		}
		msg := err.Error()
		for _, want := range []string{"shard 3 failed", "shard 3: always broken, GOMAXPROCS=1", "giving up"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error lacks %q:\n%s", want, msg)
			}
		}
		if _, err := os.Stat(MergedPath(job.Dir)); err == nil {
			t.Error("the merge ran after a shard failed")
		}
	})
}

// A task ended by a signal was stopped by the scheduler or the user; a
// retry would start a process after the signals went out (under Slurm's
// linuxproc tracking it escaped scancel once its script had ended).
func TestSignalledTaskIsNotRetried(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		job := fakeJob(t, "term=2")
		_, err := e.Wait(context.Background(), submit(t, e, job), nil)
		var te *TaskError
		if !errors.As(err, &te) || te.Shard != 2 {
			t.Fatalf("Wait = %v, want shard 2's failure", err)
		}
		if !strings.Contains(te.Reason, "ended by signal 15 (status 143), not retried") {
			t.Errorf("reason %q", te.Reason)
		}
		// Under Slurm the reason also says what the scheduler made of the
		// job (a signal may be the scheduler's: scancel, a time limit).
		if e.Name() == "slurm" && !strings.Contains(te.Reason, "; Slurm reports job ") {
			t.Errorf("reason %q, want Slurm's account of the job", te.Reason)
		}
		attempts, _ := os.ReadFile(filepath.Join(job.Dir, "attempts-2"))
		if n := strings.Count(string(attempts), "attempt at"); n != 1 {
			t.Errorf("shard 2 ran %d times, want once:\n%s", n, attempts)
		}
	})
}

func TestCancelStopsEveryTask(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		job := fakeJob(t, "slow")
		run := submit(t, e, job)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		started := filepath.Join(job.Dir, "pid-1")
		go func() {
			for ctx.Err() == nil {
				if _, err := os.Stat(started); err == nil {
					cancel()
				}
				time.Sleep(50 * time.Millisecond)
			}
		}()
		begin := time.Now()
		_, err := e.Wait(ctx, run, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait = %v, want context.Canceled", err)
		}
		t.Logf("%s: cancelled and stopped in %v", e.Name(), time.Since(begin).Round(time.Millisecond))
		if e.Name() == "slurm" {
			out, err := exec.Command("squeue", "-h", "-o", "%F %i %T").Output()
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(string(out), "\n") {
				for _, id := range run.IDs() {
					if strings.HasPrefix(line, id+" ") {
						t.Errorf("squeue still lists job %s: %s", id, line)
					}
				}
			}
		}
		matches, _ := filepath.Glob(filepath.Join(job.Dir, "pid-*"))
		if len(matches) == 0 {
			t.Fatal("no shard started")
		}
		deadline := time.Now().Add(10 * time.Second)
		for _, m := range matches {
			pid := readPID(t, m)
			for processAlive(pid) && !zombie(pid) && time.Now().Before(deadline) {
				time.Sleep(50 * time.Millisecond)
			}
			if processAlive(pid) && !zombie(pid) {
				t.Errorf("shard process %d (%s) still runs", pid, m)
			}
		}
	})
}

func TestTaskEndedByTheSchedulerFailsTheRun(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		job := fakeJob(t, "slow=2")
		run := submit(t, e, job)
		marker := filepath.Join(job.Dir, "script-2")
		go func() {
			for {
				if _, err := os.Stat(marker); err == nil {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			// What a time limit or a lost node does: the job script
			// ends without writing a marker.
			if e.Name() == "slurm" {
				exec.Command("scancel", run.Jobs[1].ID+"_2").Run()
			} else {
				syscall.Kill(readPID(t, marker), syscall.SIGKILL)
			}
		}()
		_, err := e.Wait(context.Background(), run, nil)
		var te *TaskError
		if !errors.As(err, &te) || te.Shard != 2 {
			t.Fatalf("Wait = %v, want shard 2's failure", err)
		}
		want := "signal: killed"
		if e.Name() == "slurm" {
			want = "JobState=CANCELLED"
		}
		if !strings.Contains(te.Reason, want) || !strings.Contains(err.Error(), "farm: shard-2: attempt 1 on") {
			t.Errorf("failure %q, want its reason to hold %q and its log's lines", err, want)
		}
	})
}

func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// zombie reports whether process pid has exited and waits to be reaped.
func zombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return strings.HasPrefix(rest, "Z")
}

// rounds stands in for a command whose shards run in rounds: "shard R K
// DIR" fails unless every shard of round R−1 wrote its file, then writes
// DIR/out-R-K; "merge DIR N" prints the last round's files.
const rounds = `#!/bin/bash
set -eu
case "$1" in
shard)
	r=$2; k=$3; dir=$4
	if [ "$r" -gt 1 ]; then
		for j in 1 2 3; do
			[ -f "$dir/out-$((r-1))-$j" ] || { echo "round $r shard $k: round $((r-1)) shard $j missing" >&2; exit 3; }
		done
	fi
	echo "round $r shard $k" >"$dir/out-$r-$k" ;;
merge)
	for k in 1 2 3; do cat "$2/out-3-$k"; done ;;
esac
`

// TestRounds: a job of three rounds of three shards runs each round after
// the one before, logs each round's shards apart, and merges.
func TestRounds(t *testing.T) {
	forEngine(t, func(t *testing.T, e Engine) {
		tmp := t.TempDir()
		bin := filepath.Join(tmp, "rounds")
		if err := os.WriteFile(bin, []byte(rounds), 0o755); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "run")
		job := Job{
			Dir:     dir,
			Shard:   []string{bin, "shard", RoundToken, ShardToken, dir},
			Merge:   []string{bin, "merge", dir},
			N:       3,
			Rounds:  3,
			Options: Options{Name: "gallop-test", CPUs: 1, Workdir: tmp},
		}
		var stages []Stage
		out, err := e.Wait(context.Background(), submit(t, e, job), func(p Progress) {
			if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
				stages = append(stages, p.Stage)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if want := "round 3 shard 1\nround 3 shard 2\nround 3 shard 3\n"; string(out) != want {
			t.Errorf("merged output %q, want %q", out, want)
		}
		if stages[len(stages)-1] != StageMerge || ShardsStage(2, 3).Round() != 2 {
			t.Errorf("progress reported stages %v", stages)
		}
		log, err := os.ReadFile(logPath(dir, ShardsStage(2, 3), 3))
		if err != nil || !strings.Contains(string(log), "farm: round-2-shard-3: done") {
			t.Errorf("round 2 shard 3's log %q (%v)", log, err)
		}
	})
}

// TestLogTail: the last lines of a log of any size, read from its end
// only; short and empty logs whole.
func TestLogTail(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 200_000 {
		b.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	for _, c := range []struct {
		text string
		want []string
	}{
		{b.String(), func() []string {
			var w []string
			for i := 200_000 - tailLines; i < 200_000; i++ {
				w = append(w, "line "+strconv.Itoa(i))
			}
			return w
		}()},
		{"a\nb\n\n", []string{"a", "b"}},
		{"", nil},
	} {
		path := filepath.Join(dir, "log")
		if err := os.WriteFile(path, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := logTail(path)
		if err != nil || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%d bytes: got %q (%v), want %q", len(c.text), got, err, c.want)
		}
	}
	if _, err := logTail(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing log read")
	}
	// A 16 GiB log (sparse: it takes no disk) is not read whole.
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.WriteAt([]byte("x\nlast\n"), 16<<30)
	if cerr := f.Close(); err != nil || cerr != nil {
		t.Skipf("no sparse file here: %v %v", err, cerr)
	}
	if got, err := logTail(huge); err != nil || len(got) != 1 || got[0] != "last" {
		t.Errorf("16 GiB log: %q, %v", got, err)
	}
}

// TestLocalStatusElsewhere: a detached local run whose tasks run on
// another host, or whose file (an older Gallop's) does not record the
// host, is reported running with a note that this host cannot tell, not
// as failed (its process is not visible here); Cancel says the same and
// leaves it alone. A run of this host whose process is gone has failed.
func TestLocalStatusElsewhere(t *testing.T) {
	host, _ := os.Hostname()
	l := &Local{}
	ctx := context.Background()
	dir := func() string {
		d := t.TempDir()
		if err := os.Mkdir(filepath.Join(d, "state"), 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	for _, c := range []struct {
		host, want string
	}{
		{host + "-elsewhere", "running on " + host + "-elsewhere; status from here cannot tell"},
		{"", "does not say which host runs it"},
	} {
		run := &Run{Engine: "local", Dir: dir(), N: 2, PID: 1 << 22, Host: c.host, PIDStart: 1}
		p, err := l.Status(ctx, run)
		if err != nil || p.State != Running || !strings.Contains(p.Note, c.want) || !strings.Contains(p.String(), c.want) {
			t.Errorf("host %q: %v (%q), %v; want running, noting %q", c.host, p, p.Note, err, c.want)
		}
		if err := l.Cancel(ctx, run); err == nil || !strings.Contains(err.Error(), c.want[:20]) {
			t.Errorf("host %q: cancel: %v", c.host, err)
		}
	}
	run := &Run{Engine: "local", Dir: dir(), N: 2, PID: 1 << 22, Host: host, PIDStart: 1}
	if p, err := l.Status(ctx, run); err != nil || p.State != Failed || p.Note != "" {
		t.Errorf("this host, its process gone: %v (%q), %v; want failed", p, p.Note, err)
	}
}

// TestLocalCancelOnlyItsRunner: a local run names its process by pid,
// host and start time; Cancel signals a live process only where all three
// agree, so a reused pid or another host's process is left alone.
func TestLocalCancelOnlyItsRunner(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	pid := cmd.Process.Pid
	start, err := processStart(pid)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	l := &Local{}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	if err := l.Cancel(ctx, &Run{Engine: "local", PID: pid, Host: host, PIDStart: start + 1}); err != nil {
		t.Errorf("a pid reused by another process: %v", err)
	}
	if err := l.Cancel(ctx, &Run{Engine: "local", PID: pid, Host: host + "-elsewhere", PIDStart: start}); err == nil || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("another host's run: %v", err)
	}
	// Cancel signals only a process runnerAlive takes for the run's own:
	// checked directly, not by waiting some time for the process to die.
	if runnerAlive(&Run{PID: pid, Host: host, PIDStart: start + 1}) || runnerAlive(&Run{PID: pid, Host: host + "-elsewhere", PIDStart: start}) {
		t.Fatal("a reused pid or another host's process is taken for the run's")
	}
	if !runnerAlive(&Run{PID: pid, Host: host, PIDStart: start}) {
		t.Fatal("the run's own process is not recognised")
	}
	select {
	case err := <-exited:
		t.Fatalf("the process was signalled: %v", err)
	default:
	}
	if err := l.Cancel(ctx, &Run{Engine: "local", PID: pid, Host: host, PIDStart: start}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("the run's own process was not stopped")
	}
}
