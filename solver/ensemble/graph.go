package ensemble

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"gallop/internal/parallel"
	"gallop/solver/ensemble/csp"
)

// Transition is one transition of the motion graph: the output leaves
// source From and lands in source To (the centres of the transition's
// frames, see Poser.Transition) with offsets Tau, its cost Phi = Φ(τ) and
// the synchronous transition's Phi0 = Φ(0) for the same pair.
type Transition struct {
	From, To State
	Tau      []int
	Phi      float64
	Phi0     float64
}

// Start returns the source frame at which the transition begins: From
// moved back by H. A player at that frame of From's level may take it.
func (t *Transition) Start(m *Model) int { return t.From.Frame - m.Margin() }

// Landing returns the source frame the output plays after the transition:
// To moved on by H + 1.
func (t *Transition) Landing(m *Model) State {
	return State{t.To.Level, t.To.Frame + m.Margin() + 1}
}

// Graph is a Mesh Ensemble Motion Graph (§2.4): transitions within and
// between levels, and per level the source frames of its largest strongly
// connected component, from which the output can play forever.
//
// Its nodes are the source frames, where the output plays pure source:
// frame f leads to f+1 in its level and, by each transition starting at f
// (Transition.Start), to the transition's landing. In is the component of
// each level, by frame; a transition in the graph starts in its level's
// component and lands in its target's.
type Graph struct {
	Transitions []Transition // by From, then To
	In          [][]bool     // per level, per frame
}

// BuildOptions configures Build. The zero value means the defaults.
type BuildOptions struct {
	// CSP configures COMPUTE-MEMG-TRANSITION (N_samples, η, α, C). C = 0
	// means 2 when one group lies in most cliques (a rope carrying the
	// flags: the paper's choice for its banner), else 1.1.
	CSP csp.Options
	// Interval is the length of the intervals each of which must have a
	// transition to elsewhere in its level and to each other level, in
	// frames; 0 means one second.
	Interval int
	// Tries is how many leaving frames an interval tries for each target
	// level before it is given up (default 4).
	Tries int
	// MinJump is the least |i − j| of a transition within a level (default
	// one second of frames).
	MinJump int
	// Seed makes the build reproducible: every interval and target draws
	// from its own stream of Seed.
	Seed uint64
}

func (o *BuildOptions) defaults(m *Model) {
	if o.Interval <= 0 {
		o.Interval = max(1, int(m.data.FPS+0.5))
	}
	if o.Tries <= 0 {
		o.Tries = 4
	}
	if o.MinJump <= 0 {
		o.MinJump = max(1, int(m.data.FPS+0.5))
	}
	if o.CSP.C == 0 {
		o.CSP.C = csp.DefaultC
		if m.dominantGroup() {
			o.CSP.C = 2
		}
	}
}

// dominantGroup reports whether one group lies in the cliques of most
// pairs of groups (the rope of a banner: every flag pair's clique holds
// it).
func (m *Model) dominantGroup() bool {
	G := len(m.groups)
	if G < 3 {
		return false
	}
	count := make([]int, G)
	pairs := 0
	for k := range G {
		for l := k + 1; l < G; l++ {
			pairs++
			for _, c := range m.Clique(k, l) {
				count[c]++
			}
		}
	}
	return slices.Max(count)*2 > pairs
}

// BuildStats are the figures of a build: Table I's (through CSP), the
// intervals served, and the costs of the transitions found.
type BuildStats struct {
	CSP       csp.Stats
	Tasks     int     // (interval, target level) tasks run
	Missing   int     // tasks that found no transition in Tries leaving frames
	Found     int     // transitions in the graph
	MeanPhi   float64 // mean Φ(τ) of the transitions
	MeanPhi0  float64 // mean Φ(0) of the same pairs: the synchronous transitions
	Seconds   float64 // wall time of the build
	CPUTasks  float64 // sum of the tasks' own times (both workers)
	Intervals int     // intervals holding leaving frames of their level's component, over all levels
	Served    int     // of those, the intervals with transitions to their own level and to every other
	C         float64 // the SELECT-VARIABLE base used
}

// Task is one unit of a build: leaving level From's interval Interval
// (frames H + Interval·I … of the frames that can leave) for level To.
// Tasks are numbered within-level first (phase 1), then between levels
// (phase 2), by level, interval and target.
type Task struct {
	From, Interval, To int
}

// intervals returns the number of intervals of level l: its frames that
// can leave, H … n−1−H, cut into runs of the interval length.
func (m *Model) intervals(l, interval int) int {
	n := len(m.data.Levels[l].Frames) - 2*m.margin
	if n <= 0 {
		return 0
	}
	return (n + interval - 1) / interval
}

// ErrNoGraph is returned by Build when a level has no strongly connected
// component of more than one frame: no transition within it was found.
var ErrNoGraph = errors.New("no transition within a level was found")

// Build computes the motion graph of §2.4 with nonpenetration constraints
// (§4). Phase 1: for every one-second interval of the frames of each level
// that can leave (H … n−1−H), transitions to elsewhere in the level; then
// each level's largest strongly connected component. Phase 2: for every
// interval holding leaving frames of the component, transitions to each
// other level's component (and, should it have none left, to elsewhere in
// its own). Each (interval, target) task draws up to Tries leaving frames i
// of its interval (in phase 2, of the component) and runs csp.Compute for
// each over the candidates j of the target (every frame that can be
// entered, at least MinJump from i within a level, in phase 2 landing in
// the target's component), j drawn ∝ 1/Φ(0; i, j); every transition found
// is kept. Within a level, a leaving frame late enough to jump back (land
// at or before where the transition starts) only jumps back: the paper's
// levels are minutes long, where random transitions close loops; a level
// of a few seconds, with 2H + 1 frames per transition, has no strongly
// connected component of any size unless its late intervals loop back.
// Tasks run on both cores, each on its own random stream (its number in
// the build), so the result depends only on the options.
//
// Build is PlanBuild, RunTasks over phase 1, JoinLevels, RunTasks over
// phase 2 and FinishBuild in turn; a build split over processes or
// machines runs the same steps, each task anywhere, and gets the same
// graph.
//
// progress, if set, is called after each task with the tasks done and the
// total so far known. trace, if set, receives every csp.Event, tagged with
// the worker that made it. Calls of progress and trace are serialised
// together: never two at once, so they may share state without a lock. A
// cancelled ctx stops the build and returns ctx.Err().
func Build(ctx context.Context, m *Model, opts BuildOptions, progress func(done, total int), trace func(worker int, e csp.Event)) (*Graph, BuildStats, error) {
	start := time.Now()
	opts, within, err := PlanBuild(m, opts)
	if err != nil {
		return nil, BuildStats{}, err
	}
	b := &builder{m: m, opts: opts, trace: trace, total: len(within), progress: progress}
	first, err := b.run(ctx, within, 0, nil)
	if err != nil {
		return nil, BuildStats{}, err
	}
	g, between, err := JoinLevels(m, opts, first)
	if err != nil {
		return nil, BuildStats{}, err
	}
	b.mu.Lock()
	b.total += len(between)
	b.mu.Unlock()
	second, err := b.run(ctx, between, len(within), g.In)
	if err != nil {
		return nil, BuildStats{}, err
	}
	st := FinishBuild(m, opts, g, first, second)
	st.Seconds = time.Since(start).Seconds()
	return g, st, nil
}

// PlanBuild checks opts for m, fills in their defaults and returns them
// with the tasks of phase 1, numbered from 0: every interval of every
// level to elsewhere in its own.
func PlanBuild(m *Model, opts BuildOptions) (BuildOptions, []Task, error) {
	opts.defaults(m)
	if err := opts.CSP.Validate(); err != nil {
		return opts, nil, err
	}
	for l, lv := range m.data.Levels {
		if need := 4*m.margin + 2; len(lv.Frames) < need {
			return opts, nil, fmt.Errorf("%w: level %s has %d frames; a transition that loops back within a level needs at least %d (H = %d frames on both sides of where it leaves and of where it lands, H = τ_max + τ_blend/2): a smaller τ_max needs fewer",
				ErrNoGraph, levelName(lv, l), len(lv.Frames), need, m.margin)
		}
	}
	var within []Task
	for l := range m.data.Levels {
		for k := range m.intervals(l, opts.Interval) {
			within = append(within, Task{l, k, l})
		}
	}
	return opts, within, nil
}

// TaskResult is what one build task found: its transitions (at most one
// per leaving frame tried), the solver's figures and the task's own time.
type TaskResult struct {
	Transitions []Transition
	Stats       csp.Stats
	Seconds     float64
}

// RunTasks runs tasks, numbered from first in their build, on both cores
// and returns their results in task order. in, when set (phase 2: the
// Graph of JoinLevels), restricts leaving and landing frames to the
// levels' components. opts must come from PlanBuild. progress and trace
// are as Build's.
func RunTasks(ctx context.Context, m *Model, opts BuildOptions, tasks []Task, first int, in [][]bool, progress func(done, total int), trace func(worker int, e csp.Event)) ([]TaskResult, error) {
	b := &builder{m: m, opts: opts, trace: trace, total: len(tasks), progress: progress}
	return b.run(ctx, tasks, first, in)
}

// JoinLevels takes the results of phase 1 (every task of PlanBuild, in
// order) and returns the graph so far, each level's largest strongly
// connected component with the transitions that start and land in it, and
// the tasks of phase 2, numbered from len(phase 1): from every interval
// holding leaving frames of its level's component to each other level (and
// to its own where phase 1 left it none). A level without a component is
// an error wrapping ErrNoGraph.
func JoinLevels(m *Model, opts BuildOptions, phase1 []TaskResult) (*Graph, []Task, error) {
	g := &Graph{Transitions: transitionsOf(phase1)}
	g.components(m)
	for l := range m.data.Levels {
		if !slices.Contains(g.In[l], true) {
			stats := statsOf(phase1)
			ok, cull, timeOut := stats.Fractions()
			return nil, nil, fmt.Errorf("%w: level %s (%d programs: %.0f%% feasible, %.0f%% culled, %.0f%% timed out; a larger η or N_samples may find some)", ErrNoGraph, levelName(m.data.Levels[l], l), stats.Programs, 100*ok, 100*cull, 100*timeOut)
		}
	}
	g.Transitions = slices.DeleteFunc(g.Transitions, func(t Transition) bool { return !g.Connects(m, &t) })
	var between []Task
	for l := range m.data.Levels {
		for k := range m.intervals(l, opts.Interval) {
			if !g.intervalIn(m, l, k, opts.Interval) {
				continue
			}
			for to := range m.data.Levels {
				if to != l || !g.serves(m, l, k, opts.Interval, l) {
					between = append(between, Task{l, k, to})
				}
			}
		}
	}
	return g, between, nil
}

// FinishBuild adds phase 2's transitions to g (from JoinLevels), sorts
// them, and returns the build's figures over both phases (all but
// Seconds, the caller's wall time).
func FinishBuild(m *Model, opts BuildOptions, g *Graph, phase1, phase2 []TaskResult) BuildStats {
	g.Transitions = append(g.Transitions, transitionsOf(phase2)...)
	g.sort()
	st := BuildStats{Found: len(g.Transitions), C: opts.CSP.C}
	for _, r := range slices.Concat(phase1, phase2) {
		st.CSP.Merge(r.Stats)
		st.Tasks++
		if len(r.Transitions) == 0 {
			st.Missing++
		}
		st.CPUTasks += r.Seconds
	}
	for l := range m.data.Levels {
		for k := range m.intervals(l, opts.Interval) {
			if !g.intervalIn(m, l, k, opts.Interval) {
				continue
			}
			st.Intervals++
			all := true
			for to := range m.data.Levels {
				all = all && g.serves(m, l, k, opts.Interval, to)
			}
			if all {
				st.Served++
			}
		}
	}
	for _, t := range g.Transitions {
		st.MeanPhi += t.Phi
		st.MeanPhi0 += t.Phi0
	}
	if st.Found > 0 {
		st.MeanPhi /= float64(st.Found)
		st.MeanPhi0 /= float64(st.Found)
	}
	return st
}

// transitionsOf returns the transitions of rs, in order.
func transitionsOf(rs []TaskResult) []Transition {
	var out []Transition
	for _, r := range rs {
		out = append(out, r.Transitions...)
	}
	return out
}

// statsOf sums the solver's figures of rs.
func statsOf(rs []TaskResult) csp.Stats {
	var s csp.Stats
	for _, r := range rs {
		s.Merge(r.Stats)
	}
	return s
}

// intervalIn reports whether interval k of level l holds a leaving frame
// whose start is in the level's component.
func (g *Graph) intervalIn(m *Model, l, k, interval int) bool {
	H := m.margin
	lo := H + k*interval
	for i := lo; i < min(lo+interval, len(g.In[l])-H); i++ {
		if g.In[l][i-H] {
			return true
		}
	}
	return false
}

// serves reports whether interval k of level l has a transition to level
// to.
func (g *Graph) serves(m *Model, l, k, interval, to int) bool {
	H := m.margin
	lo := H + k*interval
	for _, t := range g.Transitions {
		if t.From.Level == l && t.To.Level == to && t.From.Frame >= lo && t.From.Frame < lo+interval {
			return true
		}
	}
	return false
}

// builder runs build tasks on both cores.
type builder struct {
	m        *Model
	opts     BuildOptions
	trace    func(int, csp.Event)
	progress func(done, total int)
	total    int

	mu   sync.Mutex
	done int
}

// run runs tasks (numbered from first) and returns their results in task
// order. in, when set, restricts leaving and landing frames to the levels'
// components.
func (b *builder) run(ctx context.Context, tasks []Task, first int, in [][]bool) ([]TaskResult, error) {
	results := make([]TaskResult, len(tasks))
	errs := make([]error, len(tasks))
	workers := min(parallel.Workers(), max(1, len(tasks)))
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range tasks {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	parallel.For(workers, func(w int) {
		for i := range next {
			if ctx.Err() != nil {
				continue
			}
			results[i], errs[i] = b.task(ctx, w, tasks[i], uint64(first+i), in)
			b.report()
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return results, nil
}

// report counts a finished task and calls progress, under the lock that
// also serialises trace, so that a caller's progress and trace callbacks
// never run at once.
func (b *builder) report() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	if b.progress != nil {
		b.progress(b.done, b.total)
	}
}

// task runs one (interval, target) task, number id of its build: up to
// Tries leaving frames, drawn from the task's own stream, each with a
// COMPUTE-MEMG-TRANSITION over the target's candidates. It returns the
// transitions found, at most one per leaving frame.
func (b *builder) task(ctx context.Context, worker int, t Task, id uint64, in [][]bool) (TaskResult, error) {
	m, o := b.m, b.opts
	began := time.Now()
	rng := rand.New(rand.NewPCG(o.Seed, id))
	H := m.margin
	lo := H + t.Interval*o.Interval
	hi := min(lo+o.Interval, len(m.data.Levels[t.From].Frames)-H) // exclusive
	var leave []int
	for i := lo; i < hi; i++ {
		if in == nil || in[t.From][i-H] {
			leave = append(leave, i)
		}
	}
	rng.Shuffle(len(leave), func(a, c int) { leave[a], leave[c] = leave[c], leave[a] })
	var trace func(csp.Event)
	if b.trace != nil {
		trace = func(e csp.Event) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.trace(worker, e)
		}
	}
	var r TaskResult
	for _, i := range leave[:min(len(leave), o.Tries)] {
		from := State{t.From, i}
		var cands []csp.Candidate
		n := len(m.data.Levels[t.To].Frames)
		hiJ := n - H
		if t.To == t.From && i-2*H-1 >= H {
			hiJ = i - 2*H // backward jumps only: land at or before the start
		}
		for j := H; j < hiJ; j++ {
			to := State{t.To, j}
			if t.To == t.From && abs(j-i) < o.MinJump {
				continue
			}
			if land := j + H + 1; in != nil && (land >= n || !in[t.To][land]) {
				continue
			}
			cands = append(cands, csp.Candidate{J: j, Phi0: m.Distance(from, to), Program: func() csp.Program { return m.Program(from, to) }})
		}
		if len(cands) == 0 {
			continue
		}
		res, s, err := csp.Compute(ctx, cands, o.CSP, rng, trace)
		r.Stats.Merge(s)
		if err != nil {
			return TaskResult{}, err
		}
		if res.Found {
			r.Transitions = append(r.Transitions, Transition{From: from, To: State{t.To, res.J}, Tau: res.Tau, Phi: res.Phi, Phi0: res.Phi0})
		}
	}
	r.Seconds = time.Since(began).Seconds()
	return r, nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// components sets In: per level, the frames of the largest strongly
// connected component of the graph of that level's frames and its
// transitions within the level (gonum's Tarjan).
func (g *Graph) components(m *Model) {
	L := len(m.data.Levels)
	g.In = make([][]bool, L)
	for l := range L {
		n := len(m.data.Levels[l].Frames)
		dg := simple.NewDirectedGraph()
		for f := range n {
			dg.AddNode(simple.Node(f))
		}
		for f := 0; f+1 < n; f++ {
			dg.SetEdge(simple.Edge{F: simple.Node(f), T: simple.Node(f + 1)})
		}
		for _, t := range g.Transitions {
			if t.From.Level != l || t.To.Level != l {
				continue
			}
			s, land := t.Start(m), t.Landing(m)
			if land.Frame < n && s != land.Frame {
				dg.SetEdge(simple.Edge{F: simple.Node(s), T: simple.Node(land.Frame)})
			}
		}
		// The largest component; of equal ones the one with the earliest
		// frame (Tarjan's order follows the graph's map iteration).
		var best []int
		for _, c := range topo.TarjanSCC(dg) {
			ids := make([]int, len(c))
			for x, nd := range c {
				ids[x] = int(nd.ID())
			}
			if len(ids) > len(best) || len(ids) == len(best) && len(ids) > 0 && slices.Min(ids) < slices.Min(best) {
				best = ids
			}
		}
		g.In[l] = make([]bool, n)
		if len(best) > 1 {
			for _, f := range best {
				g.In[l][f] = true
			}
		}
	}
}

// Connects reports whether t starts in its level's component and lands
// in its target's.
func (g *Graph) Connects(m *Model, t *Transition) bool {
	land := t.Landing(m)
	return g.In[t.From.Level][t.Start(m)] && land.Frame < len(g.In[land.Level]) && g.In[land.Level][land.Frame]
}

// sort orders the transitions by From, then To.
func (g *Graph) sort() {
	slices.SortStableFunc(g.Transitions, func(a, b Transition) int {
		if c := cmpState(a.From, b.From); c != 0 {
			return c
		}
		return cmpState(a.To, b.To)
	})
}

func cmpState(a, b State) int {
	if a.Level != b.Level {
		return a.Level - b.Level
	}
	return a.Frame - b.Frame
}

// Validate checks that g is a graph of m a Player can play forever: one
// component flag per frame of each level, every level with a component;
// every transition with one offset per group within ±τ_max, both ends
// able to transition, leaving and landing in the components; and every
// frame of a component continuing in it, by the next frame or by a
// transition that starts there. Errors name the level, frame or
// transition.
func (g *Graph) Validate(m *Model) error {
	L := len(m.data.Levels)
	if len(g.In) != L {
		return fmt.Errorf("ensemble graph: %d levels, the model has %d", len(g.In), L)
	}
	for l := range L {
		if n := len(m.data.Levels[l].Frames); len(g.In[l]) != n {
			return fmt.Errorf("ensemble graph: level %s: %d frames, the model has %d", levelName(m.data.Levels[l], l), len(g.In[l]), n)
		}
		if !slices.Contains(g.In[l], true) {
			return fmt.Errorf("ensemble graph: level %s has no component", levelName(m.data.Levels[l], l))
		}
	}
	leaves := make([]map[int]bool, L)
	for l := range leaves {
		leaves[l] = map[int]bool{}
	}
	for x := range g.Transitions {
		t := &g.Transitions[x]
		if !m.CanTransition(t.From) || !m.CanTransition(t.To) {
			return fmt.Errorf("ensemble graph: transition %d (%+v → %+v): an end lacks %d frames on either side in its level", x+1, t.From, t.To, m.margin)
		}
		if len(t.Tau) != len(m.groups) {
			return fmt.Errorf("ensemble graph: transition %d has %d offsets for %d groups", x+1, len(t.Tau), len(m.groups))
		}
		for k, tau := range t.Tau {
			if tau < -m.opts.TauMax || tau > m.opts.TauMax {
				return fmt.Errorf("ensemble graph: transition %d: group %d's offset %d is outside ±%d", x+1, k+1, tau, m.opts.TauMax)
			}
		}
		if !g.Connects(m, t) {
			return fmt.Errorf("ensemble graph: transition %d (%+v → %+v) leaves or lands outside the components", x+1, t.From, t.To)
		}
		leaves[t.From.Level][t.Start(m)] = true
	}
	for l, in := range g.In {
		for f, ok := range in {
			if ok && !(f+1 < len(in) && in[f+1]) && !leaves[l][f] {
				return fmt.Errorf("ensemble graph: level %s, frame %d: the component ends there and no transition leaves it", levelName(m.data.Levels[l], l), f+1)
			}
		}
	}
	return nil
}
