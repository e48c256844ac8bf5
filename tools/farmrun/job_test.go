package farmrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gallop/internal/farm"
	"gallop/internal/shard"
)

// Plans as the tools have them (the test cannot import them: they
// import farmrun).
var (
	synthPlan    = shard.Plan{Command: "synth", Prepared: true, Rounds: 1}
	samplePlan   = shard.Plan{Command: "sample", Rounds: 1}
	ensemblePlan = shard.Plan{Command: "ensemble build", Prepared: true, Rounds: 2}
)

func TestNewJob(t *testing.T) {
	job, err := NewJob("/bin/gallop", []string{"synth", "in.glb", "--count", "3", "--", "-odd"}, synthPlan, 3, "/w")
	if err != nil {
		t.Fatal(err)
	}
	wantShard := []string{"/bin/gallop", "synth", "in.glb", "--count", "3", "--shard", farm.ShardToken + "/3", "--shard-dir", "/w", "--", "-odd"}
	wantPrepare := []string{"/bin/gallop", "synth", "in.glb", "--count", "3", "--prepare", "--shard-dir", "/w", "--", "-odd"}
	wantMerge := []string{"/bin/gallop", "merge", "/w/shard-1-of-3.gsh", "/w/shard-2-of-3.gsh", "/w/shard-3-of-3.gsh"}
	if !slices.Equal(job.Shard, wantShard) || !slices.Equal(job.Prepare, wantPrepare) || !slices.Equal(job.Merge, wantMerge) || job.N != 3 || job.Rounds != 1 {
		t.Errorf("NewJob =\n%q\n%q\n%q\nwant\n%q\n%q\n%q", job.Shard, job.Prepare, job.Merge, wantShard, wantPrepare, wantMerge)
	}
	if job, err := NewJob("/bin/gallop", []string{"sample"}, samplePlan, 2, "/w"); err != nil || job.Prepare != nil {
		t.Errorf("a command without a prepared stage got %q (%v)", job.Prepare, err)
	}
	job, err = NewJob("/bin/gallop", []string{"ensemble", "build", "a", "b"}, ensemblePlan, 2, "/w")
	if err != nil || job.Rounds != 2 || !slices.Contains(job.Shard, farm.RoundToken) {
		t.Errorf("ensemble build: %q, %v", job.Shard, err)
	}
	for _, bad := range [][]string{nil, {"info", "x.obj"}, {"sample", "--shard", "1/2"}, {"ensemble", "play"}} {
		if _, err := NewJob("/bin/gallop", bad, samplePlan, 2, "/w"); err == nil {
			t.Errorf("NewJob(%q): no error", bad)
		}
	}
}

func TestNewDir(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "farm")
	a, err := NewDir(parent, "synth")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewDir(parent, "synth")
	if err != nil {
		t.Fatal(err)
	}
	if a == b || !filepath.IsAbs(a) || !strings.HasSuffix(a, "-synth") || filepath.Dir(b) != filepath.Dir(a) {
		t.Errorf("NewDir gave %s then %s", a, b)
	}
	if st, err := os.Stat(b); err != nil || !st.IsDir() {
		t.Errorf("%s: %v", b, err)
	}
}

// TestPruneOld (issue 26, item 9): work folders under the cache were
// never removed. Folders that nothing changed in for longer than the
// keep time go; a recent one, one with a recent file deep inside (a run
// still writing its log) and a folder not named as work folders are
// named stay.
func TestPruneOld(t *testing.T) {
	parent := t.TempDir()
	now := time.Now()
	old := now.Add(-20 * 24 * time.Hour)
	mk := func(name string, at time.Time, files ...string) string {
		dir := filepath.Join(parent, name)
		for _, f := range append([]string{"farm.json"}, files...) {
			p := filepath.Join(dir, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(p, []byte("x"), 0o644)
			os.Chtimes(p, at, at)
			os.Chtimes(filepath.Dir(p), at, at)
		}
		os.Chtimes(dir, at, at)
		return dir
	}
	stale := mk("2026-10-01T10-00-00-synth", old, "clips/clip-1.glb")
	recent := mk("2026-11-20T10-00-00-synth", now.Add(-time.Hour))
	writing := mk("2026-10-02T10-00-00", old, "logs/task-1.log")
	fresh := filepath.Join(writing, "logs", "task-1.log")
	os.Chtimes(fresh, now, now)
	mine := mk("my-results", old)
	got := PruneOld(parent, CacheKeep, now)
	if len(got) != 1 || got[0] != stale {
		t.Errorf("removed %v, want only %s", got, stale)
	}
	for _, d := range []string{recent, writing, mine} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}
