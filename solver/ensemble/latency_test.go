package ensemble

import (
	"math"
	"testing"
)

// cutGraph returns a graph of the synthetic two-level ensemble in which
// both levels cut back (every frame in the component, the last leading to
// the first) and one transition leaves level 0 at frame 60 for level 1 at
// frame 50 with every offset 0: it starts at 55 and lands at 55, 10 frames
// later (τ_blend = 10: blends over s = −4 … 4).
func cutGraph(t *testing.T) (*Model, *Graph) {
	t.Helper()
	m := model(t, synthetic(2, motion{}), Options{})
	g := &Graph{Cut: []bool{true, true}}
	for range 2 {
		in := make([]bool, synthLevel)
		for f := range in {
			in[f] = true
		}
		g.In = append(g.In, in)
	}
	g.Transitions = []Transition{{From: State{0, 60}, To: State{1, 50}, Tau: make([]int, m.Groups())}}
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	return m, g
}

// TestDistancesKnown: the frames to the other level from each frame,
// counted by hand: wait for the transition's Start (55), 10 frames in it;
// after 55, on to the last frame, the cut (one frame), 55 more and the
// transition. Level 1 cannot reach level 0.
func TestDistancesKnown(t *testing.T) {
	m, g := cutGraph(t)
	tr := &g.Transitions[0]
	if tr.Start(m) != 55 || tr.Landing(m) != (State{1, 55}) || tr.Duration(m) != 10 {
		t.Fatalf("start %d landing %v duration %d", tr.Start(m), tr.Landing(m), tr.Duration(m))
	}
	d := g.Distances(m, 1)
	n := synthLevel
	for f := range n {
		want := 55 - f + 10
		if f > 55 {
			want = (n - 1 - f) + 1 + 55 + 10
		}
		if d[0][f] != want {
			t.Fatalf("frame %d of level 0: %d frames to level 1, want %d", f, d[0][f], want)
		}
		if d[1][f] != 0 {
			t.Fatalf("frame %d of level 1: %d, want 0", f, d[1][f])
		}
	}
	if d0 := g.Distances(m, 0); d0[1][10] != Unreachable || d0[0][10] != 0 {
		t.Fatalf("level 1 reaches level 0: %d", d0[1][10])
	}
	lat := g.Latencies(m)
	worst := float64((n-1-56)+1+55+10) / 30
	if math.Abs(lat[0][1].Worst-worst) > 1e-12 || !math.IsInf(lat[1][0].Worst, 1) {
		t.Fatalf("latencies %+v, want worst %.4g from level 1 and none back", lat, worst)
	}
}

// TestPlayerFastestRoute: heading for level 1, the player takes the
// transition at its Start, shows its 9 blending frames and lands on level
// 1's frame 55 exactly Distances frames after it was asked; a level that
// cuts back plays on past its last frame from its first.
func TestPlayerFastestRoute(t *testing.T) {
	m, g := cutGraph(t)
	p, err := NewPlayer(m, g, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Wander = 0
	for range 20 { // frames 0 … 19 of level 0
		p.Step(nil)
	}
	p.SetWind(1)
	want := g.Distances(m, 1)[0][20]
	steps := 0
	for p.Level() != 1 || p.tr != nil {
		p.Step(nil)
		steps++
		if steps > 1000 {
			t.Fatal("never reached level 1")
		}
	}
	if steps != want || p.frame != 55 {
		t.Fatalf("reached level 1 at frame %d after %d frames, want frame 55 after %d", p.frame, steps, want)
	}
	// Level 1 has no way out: it cuts back and plays on.
	for range 2 * synthLevel {
		p.Step(nil)
	}
	if p.Level() != 1 || p.Cuts() < 1 {
		t.Fatalf("level %d, %d cuts", p.Level(), p.Cuts())
	}
}

// TestJoinWithoutLoops: a phase 1 that found nothing leaves every level
// cutting back, a graph that Validate accepts and a player plays.
func TestJoinWithoutLoops(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	opts, tasks, err := PlanBuild(m, BuildOptions{})
	if err == nil {
		t.Fatalf("%d tasks on levels of %d frames: want too short", len(tasks), synthLevel)
	}
	_ = opts
	empty := make([]TaskResult, 0)
	g, between := JoinLevels(m, BuildOptions{Interval: 30, Between: 15}, empty)
	for l := range g.In {
		if !g.Cut[l] {
			t.Fatalf("level %d does not cut back", l)
		}
	}
	if len(between) == 0 {
		t.Fatal("no tasks of phase 2 from levels that cut back")
	}
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	p, err := NewPlayer(m, g, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 * synthLevel {
		p.Step(nil)
	}
	if p.Cuts() != 3 {
		t.Fatalf("%d cuts in 3 passes", p.Cuts())
	}
}
