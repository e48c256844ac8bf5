package farm

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// tailLines is how many of a failed task's last log lines its error holds.
const tailLines = 20

// markers are the tasks of a run that ended, by file name in Dir/state
// ("shard-3.ok", "prepare.failed").
type markers map[string]bool

func readMarkers(dir string) (markers, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "state"))
	if err != nil {
		return nil, err
	}
	m := make(markers, len(entries))
	for _, e := range entries {
		m[e.Name()] = true
	}
	return m, nil
}

func (m markers) ok(stage Stage, k int) bool     { return m[task(stage, k)+".ok"] }
func (m markers) failed(stage Stage, k int) bool { return m[task(stage, k)+".failed"] }

// fileProgress is where run stands by the markers its tasks wrote: a task
// that failed twice makes it Failed, the merge's success Succeeded; a
// task the scheduler ended leaves no marker, so the run stays Running
// here and the engine must tell.
func fileProgress(run *Run) (Progress, error) {
	m, err := readMarkers(run.Dir)
	if err != nil {
		return Progress{State: Running, Stage: StagePrepare, N: run.N}, err
	}
	return markerProgress(run, m), nil
}

// markerProgress is fileProgress by the markers m.
func markerProgress(run *Run, m markers) Progress {
	p := Progress{State: Running, Stage: StagePrepare, N: run.N}
	if run.Prepare && !m.ok(StagePrepare, 0) {
		if m.failed(StagePrepare, 0) {
			p.State, p.Failure = Failed, commandFailure(run.Dir, StagePrepare, 0)
		}
		return p
	}
	for _, stage := range shardStages(run.Rounds) {
		p.Stage, p.Done = stage, 0
		for k := 1; k <= run.N; k++ {
			switch {
			case m.ok(stage, k):
				p.Done++
			case m.failed(stage, k) && p.Failure == nil:
				p.State, p.Failure = Failed, commandFailure(run.Dir, stage, k)
			}
		}
		if p.Failure != nil || p.Done < run.N {
			return p
		}
	}
	p.Stage = StageMerge
	switch {
	case m.failed(StageMerge, 0):
		p.State, p.Failure = Failed, commandFailure(run.Dir, StageMerge, 0)
	case m.ok(StageMerge, 0):
		p.State = Succeeded
	}
	return p
}

// ended is where run stands once its engine knows that none of its tasks
// runs any more: by the markers, should a task have written one since the
// engine looked, else Failed at its first unfinished task, for the reason
// why gives.
func ended(run *Run, why func(stage Stage, k int) string) (Progress, error) {
	m, err := readMarkers(run.Dir)
	if err != nil {
		return Progress{State: Running, Stage: StagePrepare, N: run.N}, err
	}
	p := markerProgress(run, m)
	if p.State != Running {
		return p, nil
	}
	stage, k := firstUnfinished(run, m)
	p.State, p.Failure = Failed, taskFailure(run.Dir, stage, k, why(stage, k))
	return p, nil
}

// firstUnfinished is the first task of run, in stage order, that has not
// succeeded by the markers m.
func firstUnfinished(run *Run, m markers) (Stage, int) {
	if run.Prepare && !m.ok(StagePrepare, 0) {
		return StagePrepare, 0
	}
	for _, stage := range shardStages(run.Rounds) {
		for k := 1; k <= run.N; k++ {
			if !m.ok(stage, k) {
				return stage, k
			}
		}
	}
	return StageMerge, 0
}

// commandFailure is the error of a task whose command failed on its
// retry, or once when SIGHUP, SIGINT or SIGTERM ended it, by the status it
// recorded.
func commandFailure(dir string, stage Stage, k int) *TaskError {
	b, _ := os.ReadFile(markerPath(dir, stage, k, false))
	status := strings.TrimSpace(string(b))
	reason := fmt.Sprintf("its command exited with status %s, also on its retry", status)
	signal := 0
	if n, err := strconv.Atoi(status); err == nil && (n == 129 || n == 130 || n == 143) {
		signal = n - 128
		reason = fmt.Sprintf("its command was ended by signal %d (status %d), not retried", signal, n)
	}
	e := taskFailure(dir, stage, k, reason)
	e.signal = signal
	return e
}

// taskFailure is the error of a task that failed for reason, with the end
// of its log.
func taskFailure(dir string, stage Stage, k int, reason string) *TaskError {
	e := &TaskError{Task: taskTitle(stage, k), Reason: reason, Log: logPath(dir, stage, k), stage: stage, k: k}
	if stage.Round() > 0 {
		e.Shard = k
	}
	tail, err := logTail(e.Log)
	if err != nil {
		e.Tail = []string{fmt.Sprintf("(no log: %v)", err)}
		return e
	}
	e.Tail = tail
	return e
}

// tailBytes bounds how much of the end of a log logTail reads.
const tailBytes = 64 << 10

// logTail returns the last tailLines lines of the log at path, reading at
// most its last tailBytes (a task's log may be any size; a first line cut
// by that bound is dropped).
func logTail(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	from := max(0, st.Size()-tailBytes)
	data := make([]byte, st.Size()-from)
	if _, err := f.ReadAt(data, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if from > 0 {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	data = bytes.TrimRight(data, "\n")
	if len(data) == 0 {
		return nil, nil
	}
	lines := strings.Split(string(data), "\n")
	return lines[max(0, len(lines)-tailLines):], nil
}

// merged is the merge's standard output of a run that succeeded.
func merged(dir string) ([]byte, error) {
	out, err := os.ReadFile(MergedPath(dir))
	if err != nil {
		return nil, fmt.Errorf("the merge succeeded but its output is unreadable: %w", err)
	}
	return out, nil
}
