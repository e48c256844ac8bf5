package ensemble

import (
	"slices"
	"testing"
	"time"
)

// rampData returns the synthetic ensemble with a calm clip (wind 1), a
// strong one (wind 2) and a take whose wind changes, "ramp": frames 0–39
// at 1, 40–69 rising, 70–109 at 2.
func rampData() *Dataset {
	d := synthetic(3, motion{})
	for l := range 2 {
		d.Levels[l].Wind = slices.Repeat([]float64{float64(l + 1)}, synthLevel)
	}
	ramp := &d.Levels[2]
	ramp.Name = "ramp"
	ramp.Wind = make([]float64, synthLevel)
	for f := range ramp.Wind {
		switch {
		case f < 40:
			ramp.Wind[f] = 1
		case f < 70:
			ramp.Wind[f] = 1 + float64(f-39)/31
		default:
			ramp.Wind[f] = 2
		}
	}
	return d
}

// rampGraph returns a graph of rampData with four transitions, every
// offset 0 (each starts 5 frames before its From and lands 5 after its
// To): calm 60 → ramp 20 (start 55, land 25) and ramp 40 → calm 20 (start
// 35, land 25) make a loop at wind 1 through both clips; strong 90 →
// ramp 80 (start 85, land 85) and ramp 92 → strong 50 (start 87, land
// 55) one at wind 2.
func rampGraph(t *testing.T) (*Model, *Graph) {
	t.Helper()
	m := model(t, rampData(), Options{TauMax: 10})
	tau := make([]int, m.Groups())
	g := &Graph{Transitions: []Transition{
		{From: State{0, 60}, To: State{2, 20}, Tau: tau},
		{From: State{2, 40}, To: State{0, 20}, Tau: tau},
		{From: State{1, 90}, To: State{2, 80}, Tau: tau},
		{From: State{2, 92}, To: State{1, 50}, Tau: tau},
	}}
	g.components(m)
	g.sort()
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	return m, g
}

// TestWindLevelsOfFrames: the whole levels of the clips' frames, and the
// frames while the wind changes at none.
func TestWindLevelsOfFrames(t *testing.T) {
	m := model(t, rampData(), Options{TauMax: 10})
	if w := m.WindLevels(); !slices.Equal(w, []float64{1, 2}) {
		t.Fatalf("wind levels %v, want [1 2]", w)
	}
	for _, c := range []struct {
		s    State
		want int
	}{{State{0, 5}, 0}, {State{1, 5}, 1}, {State{2, 39}, 0}, {State{2, 40}, -1}, {State{2, 69}, -1}, {State{2, 70}, 1}} {
		if got := m.LevelOf(c.s); got != c.want {
			t.Errorf("level of %+v = %d, want %d", c.s, got, c.want)
		}
	}
	d := rampData()
	d.Levels[2].Wind[3] = 0.5
	if err := d.Validate(); err == nil {
		t.Error("a wind level below 1 validated")
	}
	d.Levels[2].Wind = d.Levels[2].Wind[:10]
	if err := d.Validate(); err == nil {
		t.Error("a wind series shorter than its clip validated")
	}
}

// TestWindComponentsSpanClips: each level's component joins its frames in
// both clips that hold it; the frames while the wind changes are in none.
func TestWindComponentsSpanClips(t *testing.T) {
	m, g := rampGraph(t)
	in := func(l, f int) bool { return g.In[l][f] }
	if !in(0, 25) || in(0, 24) || !in(0, 55) || in(0, 56) || !in(2, 25) || !in(2, 35) || in(2, 36) || in(2, 50) {
		t.Fatal("wind 1's component is not calm 25–55 and ramp 25–35")
	}
	if !in(1, 55) || !in(1, 85) || in(1, 86) || !in(2, 85) || !in(2, 87) || in(2, 84) || in(2, 88) {
		t.Fatal("wind 2's component is not strong 55–85 and ramp 85–87")
	}
	if slices.Contains(g.Cut, true) {
		t.Fatalf("cuts %v: both levels loop", g.Cut)
	}
	for _, r := range g.WindReports(m) {
		if !r.Loops {
			t.Fatalf("%+v does not loop", r)
		}
	}
}

// TestWindRouteThroughRamp: calm reaches strong only through the ramp —
// wait for calm's transition at 55 (10 frames), play the ramp on from 25
// to 70, its first frame at 2 that plays on into the component — and
// the player arrives exactly then; strong cannot reach calm, and a player
// asked for calm there stays at strong.
func TestWindRouteThroughRamp(t *testing.T) {
	m, g := rampGraph(t)
	d := g.Distances(m, 1)
	if want := (55 - 25) + 10 + (70 - 25); d[0][25] != want {
		t.Fatalf("calm 25 → strong: %d frames, want %d", d[0][25], want)
	}
	if d[2][70] != 0 || d[2][69] != 1 || d[2][96] != Unreachable {
		t.Fatalf("ramp 70: %d, 69: %d, 96: %d; want 0, 1, unreachable", d[2][70], d[2][69], d[2][96])
	}
	lat := g.Latencies(m)
	if lat[0][1].Worst != float64((55-25)+10+45)/30 || lat[1][0].Worst < 1e300 {
		t.Fatalf("latencies %+v", lat)
	}
	p, err := NewPlayer(m, g, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Wander = 0
	if p.Clip() != 0 || p.frame != 25 {
		t.Fatalf("starts at clip %d frame %d, want calm 25", p.Clip(), p.frame)
	}
	p.SetWind(1)
	if p.Heading() != 1 {
		t.Fatalf("asked for strong, heading for %d", p.Heading())
	}
	steps, transit := 0, false
	for p.Level() != 1 {
		p.Step(nil)
		steps++
		transit = transit || p.Level() == -1
		if steps > 1000 {
			t.Fatal("never reached strong")
		}
	}
	if steps != d[0][25] || p.Clip() != 2 || p.frame != 70 || !transit {
		t.Fatalf("reached strong at clip %d frame %d after %d frames (through the changing wind: %v), want ramp 70 after %d", p.Clip(), p.frame, steps, transit, d[0][25])
	}
	p.SetWind(0)
	for range 3 * synthLevel {
		p.Step(nil)
		if p.Level() != 1 || p.Heading() != 1 {
			t.Fatalf("left strong for %d (heading for %d), which cannot reach calm", p.Level(), p.Heading())
		}
	}
}

// TestWindTasks: phase 1 joins each level's frames in every clip that has
// the level, and no task leaves from the frames while the wind changes.
func TestWindTasks(t *testing.T) {
	m := model(t, rampData(), Options{TauMax: 10})
	opts, tasks, err := PlanBuild(m, BuildOptions{Interval: 15})
	if err != nil {
		t.Fatal(err)
	}
	to := map[[2]int]bool{}
	for _, tk := range tasks {
		to[[2]int{tk.From, tk.To}] = true
		if tk.Level != -1 || tk.Phase != 1 {
			t.Fatalf("phase 1 task %+v", tk)
		}
	}
	for _, pair := range [][2]int{{0, 0}, {0, 2}, {1, 1}, {1, 2}, {2, 0}, {2, 1}, {2, 2}} {
		if !to[pair] {
			t.Errorf("no task from clip %d to clip %d", pair[0], pair[1])
		}
	}
	if to[[2]int{0, 1}] || to[[2]int{1, 0}] {
		t.Error("a phase 1 task between the steady clips of different levels")
	}
	b := newBuilder(m, opts, time.Now(), nil, nil, len(tasks))
	for i, tk := range tasks {
		st := b.start(tk, uint64(i), nil)
		for _, f := range st.leave {
			if m.LevelOf(State{tk.From, f}) < 0 {
				t.Fatalf("task %+v leaves from frame %d, while the wind changes", tk, f)
			}
		}
	}
}

// TestPruneDeadEnds: rampGraph with a transition from strong back to
// calm (strong 70 → calm 30) joins both levels; a second loop of calm in
// the calm clip (calm 100 → calm 80: frames 85–95), marked as a component
// too, leads nowhere else. prune drops it and its transition, keeping the
// joined components; without the way back from strong, the levels are
// not joined and nothing is pruned.
func TestPruneDeadEnds(t *testing.T) {
	for _, joined := range []bool{true, false} {
		m, g := rampGraph(t)
		tau := make([]int, m.Groups())
		g.Transitions = append(g.Transitions, Transition{From: State{0, 100}, To: State{0, 80}, Tau: tau})
		if joined {
			g.Transitions = append(g.Transitions, Transition{From: State{1, 70}, To: State{0, 30}, Tau: tau})
		}
		for f := 85; f <= 95; f++ {
			g.In[0][f] = true
		}
		n := len(g.Transitions)
		g.prune(m)
		switch {
		case joined && (g.In[0][90] || !g.In[0][30] || !g.In[1][60] || !g.In[2][30] || len(g.Transitions) != n-1):
			t.Errorf("joined: calm 90 %v, calm 30 %v, strong 60 %v, ramp 30 %v, %d of %d transitions kept",
				g.In[0][90], g.In[0][30], g.In[1][60], g.In[2][30], len(g.Transitions), n)
		case !joined && (!g.In[0][90] || len(g.Transitions) != n):
			t.Errorf("not joined: pruned (calm 90 %v, %d of %d transitions)", g.In[0][90], len(g.Transitions), n)
		}
	}
}

// TestWindLandBeforeLoop: a transition may land where the take arrives at
// its target level before the level's loop (ramp 70–84 at strong, its
// component from 85): it connects, the route through it counts from its
// landing, a player asked for strong takes it, and phase 2's candidates
// toward strong include such frames. Landing after the loop (ramp 95,
// whence the take plays to its end) or while the wind changes does not
// connect.
func TestWindLandBeforeLoop(t *testing.T) {
	m, g := rampGraph(t)
	tau := make([]int, m.Groups())
	for _, c := range []struct {
		to   int
		want bool
	}{{70, true}, {79, true}, {90, false}, {55, false}} {
		tr := Transition{From: State{0, 50}, To: State{2, c.to}, Tau: tau}
		if got := g.Connects(m, &tr); got != c.want {
			t.Errorf("calm 50 → ramp %d (landing %d): connects %v, want %v", c.to, tr.Landing(m).Frame, got, c.want)
		}
	}
	g.Transitions = append(g.Transitions, Transition{From: State{0, 50}, To: State{2, 70}, Tau: tau})
	g.sort()
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	d := g.Distances(m, 1)
	if want := 10; d[0][45] != want {
		t.Fatalf("calm 45 → strong: %d frames, want %d (the transition's own)", d[0][45], want)
	}
	p, err := NewPlayer(m, g, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	p.Wander = 0
	p.SetWind(1)
	for steps := 0; p.Level() != 1; steps++ {
		p.Step(nil)
		if steps > 1000 {
			t.Fatal("never reached strong")
		}
	}
	if p.Clip() != 2 || p.frame != 75 {
		t.Fatalf("reached strong at clip %d frame %d, want ramp 75", p.Clip(), p.frame)
	}
	for range 30 {
		p.Step(nil)
		if p.Level() != 1 {
			t.Fatalf("left strong for %d after landing before its loop", p.Level())
		}
	}

	opts, _, err := PlanBuild(m, BuildOptions{Interval: 15})
	if err != nil {
		t.Fatal(err)
	}
	b := newBuilder(m, opts, time.Now(), nil, nil, 0)
	b.landIn(g)
	var before bool
	for _, c := range b.candidates(State{0, 50}, 2, 1, -1, g, 0) {
		land := c.J + 5
		if !g.Arrives(m, State{2, land}) {
			t.Errorf("candidate ramp %d lands at %d, where the take does not play on into strong's loop", c.J, land)
		}
		before = before || !g.In[2][land]
	}
	if !before {
		t.Error("no candidate lands before strong's loop in the take")
	}
}
