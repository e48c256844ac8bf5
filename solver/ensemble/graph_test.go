package ensemble

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"gallop/solver/ensemble/csp"

	"github.com/go-gl/mathgl/mgl64"
)

// TestBuildBanner builds a small graph of the whole banner (one leaving
// frame per task, two samples per COMPUTE-MEMG-TRANSITION) twice with one
// seed: the same graph both times; every level has a component, every
// transition starts and lands in one, some interval is served to every
// level (with so few samples not all are), no accepted transition makes
// a new interpenetration or steps too far (the
// model's own oracle over every frame; the independent check is the
// CLI's), and the asynchronous transitions cost less than the synchronous
// ones of the same pairs.
func TestBuildBanner(t *testing.T) {
	_, m := banner(t, fullBanner)
	opts := BuildOptions{Seed: 3, Tries: 1, CSP: csp.Options{Samples: 2}}
	g, st, err := Build(context.Background(), m, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ok, cull, timeOut, _ := st.CSP.Fractions()
	t.Logf("%d transitions, %d of %d intervals served, %d tasks (%d found none), %.1f s; Φ %.3g against Φ(0) %.3g; OK/Cull/TOut %.2f/%.2f/%.2f",
		st.Found, st.Served, st.Intervals, st.Tasks, st.Missing, st.Seconds, st.MeanPhi, st.MeanPhi0, ok, cull, timeOut)
	for l, in := range g.In {
		if !slices.Contains(in, true) {
			t.Errorf("level %d has no component", l)
		}
	}
	if st.Served == 0 || st.Intervals == 0 {
		t.Errorf("%d of %d intervals served", st.Served, st.Intervals)
	}
	if !(st.MeanPhi < st.MeanPhi0) {
		t.Errorf("mean Φ %.3g, not below the synchronous %.3g", st.MeanPhi, st.MeanPhi0)
	}
	for _, tr := range g.Transitions {
		if !g.Connects(m, &tr) {
			t.Errorf("%+v → %+v leaves or lands outside the components", tr.From, tr.To)
		}
		p := m.Program(tr.From, tr.To)
		values := m.Values(tr.Tau, tr.Blend)
		if pairs, _ := p.Interpenetrations(values); len(pairs) != 0 {
			t.Errorf("%+v → %+v: new interpenetrations %v", tr.From, tr.To, pairs)
		}
		for f := range p.Frames() {
			for k := range m.groups {
				if p.test(csp.Pair{K: k, L: k}, f, values, nil, nil) {
					t.Errorf("%+v → %+v: group %d steps too far at frame %d", tr.From, tr.To, k, f)
				}
			}
		}
	}
	// The second build runs beside two threads that keep both cores busy:
	// the search is bounded by its work, not by seconds, so it finds the
	// same graph.
	stop := make(chan struct{})
	var spin sync.WaitGroup
	for range 2 {
		spin.Add(1)
		go func() {
			defer spin.Done()
			runtime.LockOSThread()
			for x := 0; ; x++ {
				if x%4096 == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		}()
	}
	again, _, err := Build(context.Background(), m, opts, nil, nil)
	close(stop)
	spin.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(g.Transitions, again.Transitions, func(a, b Transition) bool {
		return a.From == b.From && a.To == b.To && a.Phi == b.Phi && slices.Equal(a.Tau, b.Tau) && slices.Equal(a.Blend, b.Blend)
	}) || !slices.EqualFunc(g.In, again.In, slices.Equal) {
		t.Errorf("a second build with the same seed, on busy cores, differs")
	}
}

// TestBuildTooShort: levels of 90 frames leave too few frames for a
// transition to jump back, so no level loops; Build says so.
func TestBuildTooShort(t *testing.T) {
	_, m := banner(t, bannerFrames)
	_, _, err := Build(context.Background(), m, BuildOptions{Tries: 1, CSP: csp.Options{Samples: 1}}, nil, nil)
	if !errors.Is(err, ErrNoGraph) {
		t.Fatalf("got %v, want ErrNoGraph", err)
	}
	t.Log(err)
}

// TestBuildBudgetSpent: with a budget spent before the first task, every
// task is skipped and reported so, and the graph is still whole: every
// level cuts back, and a player plays it.
func TestBuildBudgetSpent(t *testing.T) {
	_, m := banner(t, fullBanner)
	g, st, err := Build(context.Background(), m, BuildOptions{Seed: 3, Tries: 1, Budget: time.Nanosecond, CSP: csp.Options{Samples: 1}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Tasks == 0 || st.Skipped != st.Tasks || st.Found != 0 || st.CSP.Programs != 0 {
		t.Errorf("%d tasks, %d skipped, %d transitions, %d programs: want every task skipped", st.Tasks, st.Skipped, st.Found, st.CSP.Programs)
	}
	for l, r := range st.Levels {
		if r.Loops || !g.Cut[l] || r.Skipped != r.Tasks {
			t.Errorf("level %d: %+v, cut %v", l, r, g.Cut[l])
		}
	}
	p, err := NewPlayer(m, g, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var x []mgl64.Vec3
	for range 2 * len(g.In[0]) {
		x = p.Step(x)
	}
	if p.Cuts() == 0 {
		t.Error("the player never cut back")
	}
}

// TestInterleaved: tasks run round by round over the levels.
func TestInterleaved(t *testing.T) {
	tasks := []Task{{From: 0}, {From: 0, Interval: 1}, {From: 0, Interval: 2}, {From: 1}, {From: 2}, {From: 2, Interval: 1}}
	if got, want := interleaved(tasks), []int{0, 3, 4, 1, 5, 2}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}
