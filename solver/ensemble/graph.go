package ensemble

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"gonum.org/v1/gonum/graph/simple"
	"gonum.org/v1/gonum/graph/topo"

	"gallop/internal/option"
	"gallop/internal/parallel"
	"gallop/solver/ensemble/csp"
)

// Transition is one transition of the motion graph: the output leaves
// source From and lands in source To (the centres of the transition's
// frames, see Poser.Transition) with offsets Tau, its cost Phi = Φ(τ) and
// the synchronous transition's Phi0 = Φ(0) for the same pair.
//
// Of its frames s = −H … H only those where some group blends differ from
// the sources: before the first, every group plays From's level, after
// the last every group plays To's. So the output takes the transition
// where that stretch begins and is back on pure source frames where it
// ends (Start, Landing): a player joins it as late, and is on the target
// level as early, as the offsets allow.
type Transition struct {
	From, To State
	Tau      []int
	Blend    []int // per group, its blend length in frames; nil: τ_blend for every group
	Phi      float64
	Phi0     float64
}

// Blends returns the first and last transition frames s at which some
// group blends (weight strictly between 0 and 1): s0 = min_k of the first
// s with w(s; τ_k, b_k) > 0, s1 = max_k of the last with w(s; τ_k, b_k) <
// 1. For blends of 10 frames, s0 = min τ − 4 and s1 = max τ + 4.
// −H < s0 ≤ s1 < H.
func (t *Transition) Blends(m *Model) (s0, s1 int) {
	s0, s1 = math.MaxInt, math.MinInt
	for k, tau := range t.Tau {
		a, z := blendSpan(tau, m.blendOf(t.Blend, k))
		s0, s1 = min(s0, a), max(s1, z)
	}
	return s0, s1
}

// blendSpan returns the first and last transition frames s at which a
// group with offset tau blends over b frames: w > 0 ⇔ 2(s − τ) + b > 0,
// w < 1 ⇔ 2(s − τ) − b < 0 (>> 1 is the floor of a half).
func blendSpan(tau, b int) (s0, s1 int) {
	return (2*tau-b)>>1 + 1, -((-(2*tau + b)) >> 1) - 1
}

// Start returns the source frame of From's level from which the output
// takes the transition: the last pure frame before the blending, From
// moved by s0 − 1 (see Blends). A player at that frame may take it.
func (t *Transition) Start(m *Model) int {
	s0, _ := t.Blends(m)
	return t.From.Frame + s0 - 1
}

// Landing returns the source frame the output plays after the
// transition: the first where every group plays To's level, To moved by
// s1 + 1.
func (t *Transition) Landing(m *Model) State {
	_, s1 := t.Blends(m)
	return State{t.To.Level, t.To.Frame + s1 + 1}
}

// Duration returns the frames from showing Start to showing Landing:
// s1 − s0 + 2.
func (t *Transition) Duration(m *Model) int {
	s0, s1 := t.Blends(m)
	return s1 - s0 + 2
}

// Graph is a Mesh Ensemble Motion Graph (§2.4): transitions within and
// between wind levels, and per wind level the source frames of its
// components (strongly connected, over every clip; one per run of the
// level that has a loop, see components), from which the output can play
// forever.
//
// Its nodes are the source frames, where the output plays pure source:
// frame f leads to f+1 in its clip and, by each transition starting at f
// (Transition.Start), to the transition's landing. In marks, per clip and
// frame, the frames in the component of their level (a frame while the
// wind changes is in none); a transition in the graph starts in its
// level's component and lands where the output plays on into its
// target's (Arrives: in it, or before it in the same run). A steady clip whose level
// has no loop of transitions has Cut set: every frame is in the
// component, and the last leads back to the first by a cut (a jump, not a
// transition), so that the output never stops there.
type Graph struct {
	Transitions []Transition // by From, then To
	In          [][]bool     // per clip, per frame
	Cut         []bool       // per clip: its level has no loop, the clip cuts back to its first frame
}

// BuildOptions configures Build. The zero value means the defaults.
type BuildOptions struct {
	// CSP configures COMPUTE-MEMG-TRANSITION (N_samples, η, α, C, the
	// search). C = 0 means 2 when one group lies in most cliques (a rope
	// carrying the flags: the paper's choice for its banner), else 1.1.
	CSP csp.Options
	// Interval is the length of the intervals each of which must have a
	// transition to elsewhere in its level, in frames; 0 means one second.
	Interval int
	// Between is the length of the intervals each of which must have a
	// transition to each other level, in frames; 0 means half a second,
	// so that a change of wind waits at most about that long for a
	// transition to begin.
	Between int
	// Tries is how many leaving frames an interval tries for a target
	// level at first (default 4).
	Tries int
	// Harder is how many times a task that found no transition searches
	// harder (default 2): each time over twice as many further leaving
	// frames of its interval as the time before, with twice N_samples and
	// η. A negative value means never.
	Harder int
	// MinJump is the least |i − j| of a transition within a run of a
	// level (default one second of frames), halved in each harder attempt.
	MinJump int
	// Reach bounds a transition between levels, until its task searches
	// harder: every group's blend lies within Reach frames of the
	// transition's centre (|τ_k| + ⌈b_k/2⌉ ≤ Reach), so that the wind
	// changes within about 2·Reach frames of the transition's start;
	// default two thirds of a second of frames.
	Reach int
	// StepTolerance scales the step bound: no group moves further from
	// one transition frame to the next than StepTolerance times its
	// largest step in the model's source frames (default 1).
	StepTolerance float64
	// Effort bounds the work of searching harder, counted in the
	// collision tests of the integer programs (csp.Stats.Work), not in
	// seconds, so that a build gives the same graph on a busy machine as
	// on an idle one: a task's harder attempts stop at the leaving frame
	// where the task has spent (1 + Effort) times the work of its first
	// attempt. 0 means the default, 4; a negative value, none (a task
	// does not search harder).
	Effort float64
	// Budget, if positive, also bounds the build's wall time, a cap for
	// a machine that must stop by a deadline (the build then depends on
	// the machine's speed and load): every task makes its first attempt
	// before any searches harder (see builder.run); tasks within levels
	// search harder only in the first half of the budget, those between
	// levels in all of it, a harder attempt stopping at the leaving frame
	// where its share is spent; a task not yet begun when the budget is
	// spent is skipped (it finds nothing). Tasks run interleaved by level
	// (the first interval of each level, then the second, …), so a budget
	// spent early leaves every level a share. The build is the same on
	// every run and machine unless the budget cuts some task short
	// (BuildStats.CutShort, Skipped).
	Budget time.Duration
	// Seed makes the build reproducible: every task draws from its own
	// stream of Seed.
	Seed uint64
}

func (o *BuildOptions) defaults(m *Model) {
	fps := max(1, int(m.data.FPS+0.5))
	if o.Interval <= 0 {
		o.Interval = fps
	}
	if o.Between <= 0 {
		o.Between = max(1, (fps+1)/2)
	}
	if o.Tries <= 0 {
		o.Tries = 4
	}
	o.Harder = option.Resolve(o.Harder, 2)
	o.Effort = option.Resolve(o.Effort, DefaultEffort)
	if o.MinJump <= 0 {
		o.MinJump = fps
	}
	if o.Reach <= 0 {
		o.Reach = max(1, (2*fps+1)/3)
	}
	if o.StepTolerance == 0 {
		o.StepTolerance = 1
	}
	if o.CSP.C == 0 {
		o.CSP.C = csp.DefaultC
		if m.dominantGroup() {
			o.CSP.C = 2
		}
	}
	o.CSP = o.CSP.WithDefaults()
}

// DefaultEffort is BuildOptions.Effort's default: a task may spend four
// times its first attempt's work searching harder.
const DefaultEffort = 4

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
// intervals served, the costs of the transitions found, and per level
// what was found and why the rest failed.
type BuildStats struct {
	CSP       csp.Stats
	Tasks     int           // (interval, target level) tasks run
	Missing   int           // tasks that found no transition, even searching harder
	Harder    int           // tasks that searched harder
	CutShort  int           // tasks that the budget kept from searching harder
	Skipped   int           // tasks that the budget kept from beginning
	Found     int           // transitions in the graph
	MeanPhi   float64       // mean Φ(τ) of the transitions
	MeanPhi0  float64       // mean Φ(0) of the same pairs: the synchronous transitions
	Seconds   float64       // wall time of the build
	CPUTasks  float64       // sum of the tasks' own times (both workers)
	Intervals int           // one-second intervals holding leaving frames of their level's component, over all clips
	Served    int           // of those, the intervals with transitions to their own wind level and to every other
	C         float64       // the SELECT-VARIABLE base used
	Levels    []LevelReport // per clip
	Winds     []WindReport  // per wind level
	Latency   [][]Latency   // [from][to], per wind level: the wind-change latency (see Graph.Latencies)
	Blocked   []Blockage    // why levels cannot be reached from others (see Explain)
}

// LevelReport is what a build found for one level.
type LevelReport struct {
	Name      string
	Frames    int
	Component int         // frames in the level's component
	Loops     bool        // transitions within the level make a loop
	Out       []int       // transitions from the level's component to each level
	Programs  csp.Stats   // the integer programs of the tasks leaving the level
	To        []csp.Stats // of those, the ones toward each level
	Seconds   []float64   // the tasks' own times toward each level (both workers)
	Missing   int         // of those tasks, the ones that found nothing
	Skipped   int         // of those, the ones the budget kept from beginning
	Tasks     int
}

// Task is one unit of a build: leaving level From's interval Interval
// (of length BuildOptions.Interval in phase 1, Between in phase 2, over
// the frames that can leave, H … n−1−H) for level To. Tasks are numbered
// within-level first (phase 1), then between levels (phase 2), by level,
// interval and target.
//
// From and To are clips (Dataset.Levels); Level is the wind level the
// task's transitions land at (an index in Model.WindLevels), −1 in phase
// 1, where each leaving frame's transitions land at its own level; Run
// is the run of frames at one level that they land in (phase 1: a clip
// whose wind changes holds several runs of a level, and a loop of the
// level needs transitions between them), −1 for any in To.
type Task struct {
	From, Interval, To int
	Level              int
	Run                int
	Phase              int // 1 or 2
}

// intervals returns the number of intervals of length interval of level
// l: its frames that can leave, H … n−1−H, cut into runs.
func (m *Model) intervals(l, interval int) int {
	n := len(m.data.Levels[l].Frames) - 2*m.margin
	if n <= 0 {
		return 0
	}
	return (n + interval - 1) / interval
}

// ErrNoGraph is returned by PlanBuild when a level is too short for a
// transition that loops back within it.
var ErrNoGraph = errors.New("no motion graph can be built")

// Build computes the motion graph of §2.4 with nonpenetration constraints
// (§4), over clips whose frames are at wind levels (Dataset.Levels,
// Level.Wind). Phase 1: for every one-second interval of each clip's
// frames that can leave (H … n−1−H), transitions to elsewhere in the
// leaving frame's level: one task per run of frames at that level, in
// any clip (a steady clip is one run; a take whose wind changes has a run
// per stretch of steady wind), so that a level's loop may span clips;
// then each level's components (per run of the level, the strongly
// connected component over every clip that holds most of the run's
// frames; a level without one cuts back in its steady clips, see Graph). Phase
// 2: for every half-second interval holding leaving frames of a
// component, transitions to each other level's component in each clip
// that has it (and, should it have none left, to elsewhere in its own).
// A take's frames while the wind changes are never left or landed in:
// they are played, and they are the routes between levels where no blend
// exists (Graph.Distances).
// Each (interval, target) task draws up to Tries leaving frames i of its
// interval (in phase 2, of the component) and runs csp.Compute for each
// over the candidates j of the target (see candidates); every transition
// found is kept. A task that found none searches harder, up to Harder
// times and Effort (see BuildOptions). Within a run of a level, a leaving
// frame late enough to jump back (land at or before where the transition
// starts) only jumps back: the paper's levels are minutes long, where
// random transitions close loops; a level of a few seconds, with 2H + 1
// frames per transition, has no strongly connected component of any size
// unless its late intervals loop back. Tasks run on both cores, each on
// its own random stream (its number in the build), so the result depends
// only on the options (unless a time Budget cuts tasks short).
//
// Build is PlanBuild, RunTasks over phase 1, JoinLevels, RunTasks over
// phase 2, FinishBuild and Explain in turn; a build split over processes or
// machines runs the same steps, each task anywhere, and gets the same
// graph. The budget's clock starts with Build (in a split build, with
// each process).
//
// progress, if set, is called after each task with the task, the tasks
// done and the total so far known. trace, if set, receives every
// csp.Event, tagged with the worker that made it. Calls of progress and
// trace are serialised together: never two at once, so they may share
// state without a lock. A cancelled ctx stops the build and returns
// ctx.Err().
func Build(ctx context.Context, m *Model, opts BuildOptions, progress func(t Task, done, total int), trace func(worker int, e csp.Event)) (*Graph, BuildStats, error) {
	start := time.Now()
	opts, within, err := PlanBuild(m, opts)
	if err != nil {
		return nil, BuildStats{}, err
	}
	b := newBuilder(m, opts, start, progress, trace, len(within))
	first, err := b.run(ctx, within, 0, nil)
	if err != nil {
		return nil, BuildStats{}, err
	}
	g, between := JoinLevels(m, opts, first)
	b.mu.Lock()
	b.total += len(between)
	b.mu.Unlock()
	second, err := b.run(ctx, between, len(within), g)
	if err != nil {
		return nil, BuildStats{}, err
	}
	st := FinishBuild(m, opts, g, first, second)
	if st.Blocked, err = Explain(ctx, m, g, opts); err != nil {
		return nil, BuildStats{}, err
	}
	st.Seconds = time.Since(start).Seconds()
	return g, st, nil
}

// PlanBuild checks opts for m, fills in their defaults and returns them
// with the tasks of phase 1, numbered from 0: every interval of every
// level to elsewhere in its own. A level too short for a transition that
// loops back within it is an error wrapping ErrNoGraph.
func PlanBuild(m *Model, opts BuildOptions) (BuildOptions, []Task, error) {
	opts.defaults(m)
	if err := opts.CSP.Validate(); err != nil {
		return opts, nil, err
	}
	if !(opts.StepTolerance > 0 && opts.StepTolerance <= 1e6) {
		return opts, nil, fmt.Errorf("ensemble: step tolerance %v: want a positive factor", opts.StepTolerance)
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
			levels := m.intervalLevels(l, k, opts.Interval, nil)
			for x, r := range m.runs {
				if slices.Contains(levels, r.level) && r.hi-r.lo >= minRun(opts) {
					within = append(within, Task{From: l, Interval: k, To: r.clip, Level: -1, Run: x, Phase: 1})
				}
			}
		}
	}
	return opts, within, nil
}

// minRun is the fewest frames of a run at one level that phase 1's tasks
// aim at: a take passing through a level for a frame or two on its way
// between two others has runs too short to land in and stay.
func minRun(o BuildOptions) int { return max(2, o.Interval/2) }

// intervalLevels returns the wind levels (indices in WindLevels,
// increasing) of the frames of clip l's interval k (of length interval)
// that can leave, only those in the component of their level when in is
// not nil.
func (m *Model) intervalLevels(l, k, interval int, in []bool) []int {
	var out []int
	lo := m.margin + k*interval
	for i := lo; i < min(lo+interval, len(m.data.Levels[l].Frames)-m.margin); i++ {
		if w := m.LevelOf(State{l, i}); w >= 0 && (in == nil || in[i]) && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// levelMask returns, per frame of clip l, whether it is at wind level w,
// in run (when run ≥ 0) and in in (when in is not nil).
func (m *Model) levelMask(l, w, run int, in []bool) []bool {
	out := make([]bool, len(m.data.Levels[l].Frames))
	for f := range out {
		x := m.levels[l] + f
		out[f] = m.wind[x] == w && (run < 0 || m.runOf[x] == run) && (in == nil || in[f])
	}
	return out
}

// clipHas reports whether clip l has frames at wind level w (an index in
// WindLevels).
func (m *Model) clipHas(l, w int) bool {
	return slices.Contains(m.wind[m.levels[l]:m.levels[l+1]], w)
}

// TaskResult is what one build task found: its transitions (at most one
// per leaving frame tried), the solver's figures, how many times it
// searched harder, whether the budget kept it from searching harder, and
// the task's own time.
type TaskResult struct {
	Task        Task
	Transitions []Transition
	Stats       csp.Stats
	Harder      int
	CutShort    bool
	Skipped     bool // the budget was spent before the task began
	Seconds     float64
}

// RunTasks runs tasks, numbered from first in their build, on both cores
// and returns their results in task order. g, when set (phase 2: the
// Graph of JoinLevels), restricts leaving frames to the levels'
// components and landing frames to where the output plays on into them
// (Graph.Arrivals). opts must come from PlanBuild; the budget counts
// from began. progress and trace are as Build's.
func RunTasks(ctx context.Context, m *Model, opts BuildOptions, tasks []Task, first int, g *Graph, began time.Time, progress func(t Task, done, total int), trace func(worker int, e csp.Event)) ([]TaskResult, error) {
	b := newBuilder(m, opts, began, progress, trace, len(tasks))
	return b.run(ctx, tasks, first, g)
}

// JoinLevels takes the results of phase 1 (every task of PlanBuild, in
// order) and returns the graph so far, each level's components (see
// components) with the transitions that connect them (Connects; a
// level without one cuts back: Graph.Cut), and the tasks of phase 2,
// numbered from len(phase 1): from every interval of length
// BuildOptions.Between holding leaving frames of its level's component to
// each other level (and to its own where phase 1 left it none).
func JoinLevels(m *Model, opts BuildOptions, phase1 []TaskResult) (*Graph, []Task) {
	g := &Graph{Transitions: transitionsOf(phase1)}
	g.components(m)
	g.Transitions = slices.DeleteFunc(g.Transitions, func(t Transition) bool { return !g.Connects(m, &t) })
	var between []Task
	for l := range m.data.Levels {
		for k := range m.intervals(l, opts.Between) {
			own := m.intervalLevels(l, k, opts.Between, g.In[l])
			if len(own) == 0 {
				continue
			}
			for w := range m.winds {
				if slices.Contains(own, w) && g.serves(m, l, k, opts.Between, w) {
					continue
				}
				for to := range m.data.Levels {
					if m.clipHas(to, w) {
						between = append(between, Task{From: l, Interval: k, To: to, Level: w, Run: -1, Phase: 2})
					}
				}
			}
		}
	}
	return g, between
}

// FinishBuild adds phase 2's transitions that connect the components
// (Connects) to g (from JoinLevels), sorts them, and returns the build's
// figures over both phases (all but Seconds, the caller's wall time).
func FinishBuild(m *Model, opts BuildOptions, g *Graph, phase1, phase2 []TaskResult) BuildStats {
	for _, t := range transitionsOf(phase2) {
		if g.Connects(m, &t) {
			g.Transitions = append(g.Transitions, t)
		}
	}
	g.prune(m)
	g.sort()
	st := BuildStats{Found: len(g.Transitions), C: opts.CSP.C}
	L := len(m.data.Levels)
	st.Levels = make([]LevelReport, L)
	for l, lv := range m.data.Levels {
		r := &st.Levels[l]
		r.Name, r.Frames, r.Out, r.To, r.Seconds = levelName(lv, l), len(lv.Frames), make([]int, L), make([]csp.Stats, L), make([]float64, L)
		for _, in := range g.In[l] {
			if in {
				r.Component++
			}
		}
		r.Loops = !g.Cut[l]
	}
	tasks := slices.Concat(phase1, phase2)
	for _, r := range tasks {
		st.CSP.Merge(r.Stats)
		st.Tasks++
		if len(r.Transitions) == 0 {
			st.Missing++
		}
		if r.Harder > 0 {
			st.Harder++
		}
		if r.CutShort {
			st.CutShort++
		}
		if r.Skipped {
			st.Skipped++
			st.Levels[r.Task.From].Skipped++
		}
		st.CPUTasks += r.Seconds
		lr := &st.Levels[r.Task.From]
		lr.Programs.Merge(r.Stats)
		lr.To[r.Task.To].Merge(r.Stats)
		lr.Seconds[r.Task.To] += r.Seconds
		lr.Tasks++
		if len(r.Transitions) == 0 {
			lr.Missing++
		}
	}
	for _, t := range g.Transitions {
		st.Levels[t.From.Level].Out[t.To.Level]++
	}
	for l := range m.data.Levels {
		for k := range m.intervals(l, opts.Interval) {
			if !g.intervalIn(m, l, k, opts.Interval) {
				continue
			}
			st.Intervals++
			all := true
			for w := range m.winds {
				all = all && g.serves(m, l, k, opts.Interval, w)
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
	st.Latency = g.Latencies(m)
	st.Winds = g.WindReports(m)
	return st
}

// WindReport is what a graph offers at one wind level: the frames of its
// component (over every clip) and whether transitions within the level
// make a loop there (a level without one plays its steady clips by
// cutting back, and is only passed through in clips whose wind changes).
type WindReport struct {
	Level     float64
	Component int
	Loops     bool
}

// WindReports returns the report of each wind level (Model.WindLevels).
func (g *Graph) WindReports(m *Model) []WindReport {
	out := make([]WindReport, len(m.winds))
	for w := range out {
		out[w].Level = m.winds[w]
	}
	for l, in := range g.In {
		for f, ok := range in {
			if w := m.LevelOf(State{l, f}); ok && w >= 0 {
				out[w].Component++
				out[w].Loops = out[w].Loops || !g.Cut[l]
			}
		}
	}
	return out
}

// transitionsOf returns the transitions of rs, in order.
func transitionsOf(rs []TaskResult) []Transition {
	var out []Transition
	for _, r := range rs {
		out = append(out, r.Transitions...)
	}
	return out
}

// intervalIn reports whether interval k (of length interval) of clip l
// holds a leaving frame that is in its level's component.
func (g *Graph) intervalIn(m *Model, l, k, interval int) bool {
	return len(m.intervalLevels(l, k, interval, g.In[l])) > 0
}

// serves reports whether interval k (of length interval) of clip l has a
// transition landing at wind level w.
func (g *Graph) serves(m *Model, l, k, interval, w int) bool {
	H := m.margin
	lo := H + k*interval
	for _, t := range g.Transitions {
		if t.From.Level == l && t.From.Frame >= lo && t.From.Frame < lo+interval && m.LevelOf(t.Landing(m)) == w {
			return true
		}
	}
	return false
}

// builder runs build tasks on both cores.
type builder struct {
	m        *Model
	opts     BuildOptions
	began    time.Time
	trace    func(int, csp.Event)
	progress func(t Task, done, total int)
	total    int

	mu   sync.Mutex
	done int

	// arrive, in phase 2, per wind level the graph's Arrivals: where a
	// transition toward the level may land.
	arrive [][][]bool
}

func newBuilder(m *Model, opts BuildOptions, began time.Time, progress func(Task, int, int), trace func(int, csp.Event), total int) *builder {
	return &builder{m: m, opts: opts, began: began, progress: progress, trace: trace, total: total}
}

// pastBudget reports whether the build has spent the given share of its
// budget.
func (b *builder) pastBudget(share float64) bool {
	return b.opts.Budget > 0 && time.Since(b.began) > time.Duration(share*float64(b.opts.Budget))
}

// harderShare is the share of the budget after which no task of phase 1
// searches harder, so that the tasks between levels keep the rest.
const harderShare = 0.5

// run runs tasks (numbered from first) and returns their results in task
// order. g, when set, restricts leaving frames to the levels' components
// and landing frames to their Arrivals.
//
// It runs in rounds: round 0 makes every task's first attempt, round e
// the e-th harder attempt of the tasks that have found nothing yet, each
// round's tasks interleaved by level on both cores. Each task draws from
// its own stream, so the rounds give what one task after another would;
// but a budget reached during a build finds every task tried once before
// any searches harder. Rounds of harder attempts begin only while the
// budget's share for them (harderShare of it in phase 1, all of it in
// phase 2) is not spent.
func (b *builder) run(ctx context.Context, tasks []Task, first int, g *Graph) ([]TaskResult, error) {
	states := make([]*taskState, len(tasks))
	errs := make([]error, len(tasks))
	share := 1.0
	if g == nil {
		share = harderShare
	} else {
		b.landIn(g)
	}
	order := interleaved(tasks)
	for e := 0; e <= b.opts.Harder && len(order) > 0; e++ {
		if e > 0 && b.pastBudget(share) {
			for _, i := range order {
				states[i].r.CutShort = true
				b.report(tasks[i])
			}
			break
		}
		more := make([]bool, len(tasks))
		workers := min(parallel.Workers(), len(order))
		next := make(chan int)
		go func() {
			defer close(next)
			for _, i := range order {
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
				if e == 0 {
					states[i] = b.start(tasks[i], uint64(first+i), g)
				}
				st := states[i]
				if !st.r.Skipped {
					errs[i] = b.attempt(ctx, w, st, e, g, share)
				}
				st.r.Seconds += st.seconds
				st.seconds = 0
				if errs[i] == nil && !st.r.Skipped && len(st.r.Transitions) == 0 && st.used < len(st.leave) && e < b.opts.Harder && !st.r.CutShort {
					more[i] = true
					continue
				}
				b.report(tasks[i])
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
		order = slices.DeleteFunc(order, func(i int) bool { return !more[i] })
	}
	results := make([]TaskResult, len(tasks))
	for i, st := range states {
		results[i] = st.r
	}
	return results, nil
}

// landIn sets where phase 2's transitions, with g's components, may land
// toward each wind level: its Arrivals.
func (b *builder) landIn(g *Graph) {
	b.arrive = make([][][]bool, len(b.m.winds))
	for w := range b.arrive {
		b.arrive[w] = g.Arrivals(b.m, w)
	}
}

// interleaved returns the indices of tasks (in their build order: by
// level, then interval) in the order they run: round by round, in each
// the next task of every level that leaves, so that under a budget every
// level gets its share of the first tasks.
func interleaved(tasks []Task) []int {
	var byLevel [][]int
	for i, t := range tasks {
		for len(byLevel) <= t.From {
			byLevel = append(byLevel, nil)
		}
		byLevel[t.From] = append(byLevel[t.From], i)
	}
	out := make([]int, 0, len(tasks))
	for round := 0; len(out) < len(tasks); round++ {
		for _, l := range byLevel {
			if round < len(l) {
				out = append(out, l[round])
			}
		}
	}
	return out
}

// report counts a finished task and calls progress, under the lock that
// also serialises trace, so that a caller's progress and trace callbacks
// never run at once.
func (b *builder) report(t Task) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done++
	if b.progress != nil {
		b.progress(t, b.done, b.total)
	}
}

// taskState is one task between the rounds of run: what it found, its
// random stream, its leaving frames in the order it tries them and how
// many it has tried.
type taskState struct {
	task      Task
	r         TaskResult
	rng       *rand.Rand
	leave     []int
	used      int
	seconds   float64 // the current round's time
	firstWork int64   // the work of its first attempt (csp.Stats.Work), at least 1
}

// start begins task t, number id of its build: its leaving frames in an
// order drawn from the task's own stream. A task begun after the budget
// is spent is skipped.
func (b *builder) start(t Task, id uint64, g *Graph) *taskState {
	began := time.Now()
	m, o := b.m, b.opts
	st := &taskState{task: t, r: TaskResult{Task: t}}
	if b.pastBudget(1) {
		st.r.Skipped, st.r.CutShort = true, true
		return st
	}
	st.rng = rand.New(rand.NewPCG(o.Seed, id))
	H := m.margin
	length := o.Interval
	if t.Phase == 2 {
		length = o.Between
	}
	lo := H + t.Interval*length
	hi := min(lo+length, len(m.data.Levels[t.From].Frames)-H) // exclusive
	for i := lo; i < hi; i++ {
		w := m.LevelOf(State{t.From, i})
		// Phase 1 leaves from frames at its run's level, phase 2 from any
		// level's component.
		if w >= 0 && (g == nil || g.In[t.From][i]) && (t.Level >= 0 || m.runs[t.Run].level == w) {
			st.leave = append(st.leave, i)
		}
	}
	st.rng.Shuffle(len(st.leave), func(a, c int) { st.leave[a], st.leave[c] = st.leave[c], st.leave[a] })
	st.seconds += time.Since(began).Seconds()
	return st
}

// attempt makes the e-th attempt of a task (e = 0 the first, e > 0 the
// harder ones): Tries·2^e further leaving frames, each with a
// COMPUTE-MEMG-TRANSITION over the target's candidates with N_samples
// and η times 2^e, keeping every transition found (at most one per
// leaving frame). A harder attempt stops at a leaving frame once the
// budget's share is spent.
func (b *builder) attempt(ctx context.Context, worker int, st *taskState, e int, g *Graph, share float64) error {
	began := time.Now()
	defer func() { st.seconds += time.Since(began).Seconds() }()
	m, o, t := b.m, b.opts, st.task
	var trace func(csp.Event)
	if b.trace != nil {
		trace = func(ev csp.Event) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.trace(worker, ev)
		}
	}
	if e > 0 {
		st.r.Harder = e
	}
	copts := o.CSP
	copts.Samples <<= e
	copts.Eta *= float64(int(1) << e)
	n := o.Tries << e
	for _, i := range st.leave[st.used:min(st.used+n, len(st.leave))] {
		if e > 0 && (b.pastBudget(share) || float64(st.r.Stats.Work) > (1+o.Effort)*float64(st.firstWork)) {
			st.r.CutShort = true
			break
		}
		from := State{t.From, i}
		level := t.Level
		if level < 0 {
			level = m.LevelOf(from)
		}
		cands := b.candidates(from, t.To, level, t.Run, g, e)
		if len(cands) == 0 {
			continue
		}
		res, s, err := csp.Compute(ctx, cands, copts, st.rng, trace)
		st.r.Stats.Merge(s)
		if err != nil {
			return err
		}
		if res.Found {
			tau, blend := m.Offsets(res.Tau)
			st.r.Transitions = append(st.r.Transitions, Transition{From: from, To: State{t.To, res.J}, Tau: tau, Blend: blend, Phi: res.Phi, Phi0: res.Phi0})
		}
	}
	st.used += n
	if e == 0 {
		st.firstWork = max(1, st.r.Stats.Work)
	}
	return nil
}

// candidates returns the frames j of clip to at wind level w that a
// transition from `from` may enter, as COMPUTE-MEMG-TRANSITION's J, for
// the task's e-th attempt: every frame that can be entered (H from either
// end of its clip) whose synchronous transition lands at level w; within
// a level in the same clip at least MinJump from i and, for a leaving
// frame late enough, only back, far enough that the transition lands at
// least Interval/2^e frames before it starts, whatever its offsets (its
// programs' values are bounded to make sure: see Model.program); with g
// (phase 2), only where the transition would land in the target's
// component or before it in the same run, where the output plays on into
// it (Graph.Arrivals). Between levels the first attempt's programs keep within
// Reach. Of those, only the local minima of Φ(0; i, ·) along j are kept,
// as motion graphs do (Kovar et al. 2002): a frame next to a better one
// is the same transition a frame later or earlier, and sampling it too
// would spend N_samples on near-duplicates.
func (b *builder) candidates(from State, to, w, run int, g *Graph, e int) []csp.Candidate {
	m, o := b.m, b.opts
	H := m.margin
	i := from.Frame
	n := len(m.data.Levels[to].Frames)
	within := m.LevelOf(from) == w
	// Within the leaving frame's own run (of frames at its level in its
	// clip), at least MinJump away and, late enough in the run, only
	// back; other runs and clips of the level from anywhere.
	own := m.runOf[m.index(from)]
	// The shortest loop and jump asked for: a second each (Interval,
	// MinJump), unless the run's frames that can leave and land (H from
	// either end of the clip) are fewer than twice both: then a sixth and
	// a third of them, since a take that holds a level for 2.5 s has no
	// room for a second's loop and jump (its loops need jumps of 30 to 40
	// frames and blends within ±7 to ±14 frames: the reeds' ramp; its last
	// stretch can leave in only 35 of its 75 frames). Each harder attempt
	// halves both, where dense contacts let two frames blend only when
	// they are close in time.
	loop, minJump := o.Interval, o.MinJump
	if span := min(m.runs[own].hi, len(m.data.Levels[from.Level].Frames)-H) - max(m.runs[own].lo, H); span < 2*(loop+minJump) {
		loop, minJump = span/6, span/3
	}
	loop, minJump = max(1, loop>>e), max(1, minJump>>e)
	back := within && i-minJump-loop >= max(H, m.runs[own].lo)
	type cand struct {
		j   int
		phi float64
	}
	_, s1 := blendSpan(0, m.opts.TauBlend)
	var arrive []bool
	if g != nil {
		arrive = b.arrive[w][to]
	}
	var cs []cand
	for j := H; j < n-H; j++ {
		if same := within && to == from.Level && m.runOf[m.index(State{to, j})] == own; same &&
			(abs(j-i) < minJump || back && j > i-minJump-loop) {
			continue // backward jumps only, far enough
		}
		if land := (State{to, j + s1 + 1}); m.LevelOf(land) != w || run >= 0 && m.runOf[m.index(land)] != run || arrive != nil && !arrive[land.Frame] {
			continue // not even the synchronous transition lands at the level (its run, on the way into its component)
		}
		cs = append(cs, cand{j, m.Distance(from, State{to, j})})
	}
	// A transition starts at the leaving frame's level and lands at w (in
	// their components, phase 2), whatever its offsets.
	var inA []bool
	if g != nil {
		inA = g.In[from.Level]
	}
	inA, inB := m.levelMask(from.Level, m.LevelOf(from), -1, inA), m.levelMask(to, w, run, arrive)
	var out []csp.Candidate
	for x, c := range cs {
		if !localMinimum(len(cs), x, func(y int) (int, float64) { return cs[y].j, cs[y].phi }) {
			continue
		}
		dest := State{to, c.j}
		reach := m.margin
		switch {
		case back && to == from.Level && m.runOf[m.index(dest)] == own:
			reach = min(reach, (i-c.j-loop)/2)
		case !within && e == 0:
			reach = min(reach, o.Reach)
		}
		out = append(out, csp.Candidate{J: c.j, Phi0: c.phi, Program: func() csp.Program { return m.program(from, dest, o.StepTolerance, reach, inA, inB) }})
	}
	return out
}

// localMinimum reports whether item x of n, frames increasing with their
// costs given by at, is a local minimum of the cost along the frames:
// no neighbour one frame away is cheaper (ties go to the earlier frame).
func localMinimum(n, x int, at func(y int) (frame int, phi float64)) bool {
	f, phi := at(x)
	if x > 0 {
		if g, q := at(x - 1); g == f-1 && q < phi {
			return false
		}
	}
	if x+1 < n {
		if g, q := at(x + 1); g == f+1 && q <= phi {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// components sets In and Cut. Per wind level, over the graph of that
// level's frames in every clip, with the next frame within a run and the
// transitions that start and land at the level, In holds for each run
// of the level the strongly connected component (gonum's Tarjan) of more
// than one frame that holds the most of the run's frames: a steady
// clip's level keeps its largest loop, as the paper's graph does, and a
// take that holds a level several times keeps a loop in each stretch
// that has one, so that the wind can change from any of them (on the
// reeds' ramp the stretches of one level never join each other; see the
// method as built). A level without any such component has none:
// its clips at that level alone (a clip simulated in a steady wind) get
// every frame and Cut, and the level's frames in clips whose wind
// changes are played only on the way to other levels.
func (g *Graph) components(m *Model) {
	L := len(m.data.Levels)
	g.In = make([][]bool, L)
	g.Cut = make([]bool, L)
	for l := range L {
		g.In[l] = make([]bool, len(m.data.Levels[l].Frames))
	}
	for w := range m.winds {
		dg := simple.NewDirectedGraph()
		for i, wi := range m.wind {
			if wi == w {
				dg.AddNode(simple.Node(i))
			}
		}
		for i := 0; i+1 < len(m.wind); i++ {
			if m.wind[i] == w && m.runOf[i+1] == m.runOf[i] { // consecutive in one run, so one clip
				dg.SetEdge(simple.Edge{F: simple.Node(i), T: simple.Node(i + 1)})
			}
		}
		for _, t := range g.Transitions {
			s, land := State{t.From.Level, t.Start(m)}, t.Landing(m)
			if s.Frame < 0 || land.Frame >= len(g.In[land.Level]) || m.LevelOf(s) != w || m.LevelOf(land) != w {
				continue
			}
			if a, b := m.index(s), m.index(land); a != b {
				dg.SetEdge(simple.Edge{F: simple.Node(a), T: simple.Node(b)})
			}
		}
		// Per run, the component with the most of its frames; of equal
		// ones the one with the earliest state (Tarjan's order follows the
		// graph's map iteration).
		type pick struct{ n, first, c int }
		best := map[int]pick{} // run → its component
		sccs := topo.TarjanSCC(dg)
		for c, nodes := range sccs {
			if len(nodes) < 2 {
				continue
			}
			count, first := map[int]int{}, math.MaxInt
			for _, nd := range nodes {
				count[m.runOf[nd.ID()]]++
				first = min(first, int(nd.ID()))
			}
			for r, n := range count {
				if b, ok := best[r]; !ok || n > b.n || n == b.n && first < b.first {
					best[r] = pick{n, first, c}
				}
			}
		}
		for _, b := range best {
			for _, nd := range sccs[b.c] {
				st := m.state(int(nd.ID()))
				g.In[st.Level][st.Frame] = true
			}
		}
		if len(best) > 0 {
			continue
		}
		for l := range L {
			if !slices.ContainsFunc(m.wind[m.levels[l]:m.levels[l+1]], func(x int) bool { return x != w }) {
				g.Cut[l] = true
				for f := range g.In[l] {
					g.In[l][f] = true
				}
			}
		}
	}
}

// prune keeps, of the levels' components, those in the strongly connected
// component of the whole graph (every frame, the routes of Distances:
// the next frame, cut backs and transitions) that holds the most of their
// frames, when it holds components of every wind level that has one; the
// transitions that no longer connect them go. So a
// player never settles in a loop from which some level cannot be reached
// (on the reeds' ramp: a loop in the take's last stretch of calm, which
// no blend leaves), as motion graphs keep their largest strongly
// connected component (Kovar et al. 2002). When the components of some
// level lie outside it (levels that no route joins, as the reeds' steady
// clips), nothing is pruned: the latency table and Explain say which
// levels cannot be reached.
func (g *Graph) prune(m *Model) {
	L := len(g.In)
	first := make([]int, L+1)
	for l := range L {
		first[l+1] = first[l] + len(g.In[l])
	}
	dg := simple.NewDirectedGraph()
	for n := range first[L] {
		dg.AddNode(simple.Node(n))
	}
	edge := func(a, b int) {
		if a != b {
			dg.SetEdge(simple.Edge{F: simple.Node(a), T: simple.Node(b)})
		}
	}
	for l := range L {
		for f := range g.In[l] {
			if nx := g.Onward(m, l, f); nx >= 0 {
				edge(first[l]+f, first[l]+nx)
			}
		}
	}
	for x := range g.Transitions {
		t := &g.Transitions[x]
		if land := t.Landing(m); g.Connects(m, t) {
			edge(first[t.From.Level]+t.Start(m), first[land.Level]+land.Frame)
		}
	}
	levels := func(in func(l, f int) bool) []bool {
		out := make([]bool, len(m.winds))
		for l := range L {
			for f, ok := range g.In[l] {
				if w := m.LevelOf(State{l, f}); ok && w >= 0 && in(l, f) {
					out[w] = true
				}
			}
		}
		return out
	}
	var best []int
	bestIn := -1
	for _, c := range topo.TarjanSCC(dg) {
		ids := make([]int, len(c))
		n := 0
		for x, nd := range c {
			ids[x] = int(nd.ID())
			st := g.frame(first, ids[x])
			if g.In[st.Level][st.Frame] {
				n++
			}
		}
		if n > bestIn || n == bestIn && slices.Min(ids) < slices.Min(best) {
			best, bestIn = ids, n
		}
	}
	keep := make([]bool, first[L])
	for _, n := range best {
		keep[n] = true
	}
	if !slices.Equal(levels(func(l, f int) bool { return true }), levels(func(l, f int) bool { return keep[first[l]+f] })) {
		return
	}
	for l := range L {
		for f := range g.In[l] {
			g.In[l][f] = g.In[l][f] && keep[first[l]+f]
		}
	}
	g.Transitions = slices.DeleteFunc(g.Transitions, func(t Transition) bool { return !g.Connects(m, &t) })
}

// frame returns the clip and frame of node n of a graph over every frame
// whose clips start at nodes first.
func (g *Graph) frame(first []int, n int) State {
	l, _ := slices.BinarySearch(first, n+1)
	return State{l - 1, n - first[l-1]}
}

// Connects reports whether t starts in its level's component and lands
// where the output plays on into its target's (Arrives).
func (g *Graph) Connects(m *Model, t *Transition) bool {
	st := t.Start(m)
	return st >= 0 && st < len(g.In[t.From.Level]) && g.In[t.From.Level][st] && g.Arrives(m, t.Landing(m))
}

// Arrives reports whether s is a frame at a wind level from which playing
// on (Onward) stays at that level until a frame of its component: a frame
// of the component itself, or one before it in the same run (on the
// reeds' ramp, a stretch of strong wind before its loop), where a
// transition may land as the take itself arrives there (Arrivals asks it
// of every frame of a level).
func (g *Graph) Arrives(m *Model, s State) bool {
	w := m.LevelOf(s)
	if w < 0 || s.Frame < 0 || s.Frame >= len(g.In[s.Level]) {
		return false
	}
	for f := s.Frame; m.LevelOf(State{s.Level, f}) == w; {
		if g.In[s.Level][f] {
			return true
		}
		nx := g.Onward(m, s.Level, f)
		if nx <= f {
			return false
		}
		f = nx
	}
	return false
}

// Next returns the frame that follows frame f of clip l in the graph
// without a transition: f+1 when both are in the component of one level,
// or for a clip that cuts back, 0 after its last frame; −1 when the
// component ends at f. (A frame outside the components, played on the
// way to another level, is followed by the next frame of its clip: see
// Onward.)
func (g *Graph) Next(m *Model, l, f int) int {
	in := g.In[l]
	switch {
	case f+1 < len(in) && in[f+1] && in[f] && m.LevelOf(State{l, f}) == m.LevelOf(State{l, f + 1}):
		return f + 1
	case g.Cut[l] && f == len(in)-1:
		return 0
	}
	return -1
}

// Onward returns the frame a route plays after frame f of clip l without
// a transition (see Graph.Distances): Next where that continues, else the
// next frame of the clip (leaving the component: through the frames of a
// changing wind toward another level), −1 at the clip's end.
func (g *Graph) Onward(m *Model, l, f int) int {
	if nx := g.Next(m, l, f); nx >= 0 {
		return nx
	}
	if f+1 < len(g.In[l]) {
		return f + 1
	}
	return -1
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
// component flag per frame of each level, every level with a component
// (a level that cuts back has every frame); every transition with one
// offset per group within ±τ_max, both ends able to transition, leaving
// and landing in the components; and every frame of a component
// continuing in it, by the next frame, the cut or a transition that
// starts there. Errors name the level, frame or transition.
func (g *Graph) Validate(m *Model) error {
	L := len(m.data.Levels)
	if len(g.In) != L || len(g.Cut) != L {
		return fmt.Errorf("ensemble graph: %d levels, the model has %d", len(g.In), L)
	}
	for l := range L {
		if n := len(m.data.Levels[l].Frames); len(g.In[l]) != n {
			return fmt.Errorf("ensemble graph: level %s: %d frames, the model has %d", levelName(m.data.Levels[l], l), len(g.In[l]), n)
		}
		if g.Cut[l] && slices.Contains(g.In[l], false) {
			return fmt.Errorf("ensemble graph: level %s cuts back but not every frame is in its component", levelName(m.data.Levels[l], l))
		}
	}
	if !slices.ContainsFunc(g.In, func(in []bool) bool { return slices.Contains(in, true) }) {
		return fmt.Errorf("ensemble graph: no level has a component to play")
	}
	for l, in := range g.In {
		for f, ok := range in {
			if ok && m.LevelOf(State{l, f}) < 0 {
				return fmt.Errorf("ensemble graph: level %s, frame %d: in a component while the wind changes", levelName(m.data.Levels[l], l), f+1)
			}
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
		if len(t.Tau) != len(m.groups) || t.Blend != nil && len(t.Blend) != len(m.groups) {
			return fmt.Errorf("ensemble graph: transition %d has %d offsets and %d blend lengths for %d groups", x+1, len(t.Tau), len(t.Blend), len(m.groups))
		}
		for k, tau := range t.Tau {
			if tau < -m.opts.TauMax || tau > m.opts.TauMax {
				return fmt.Errorf("ensemble graph: transition %d: group %d's offset %d is outside ±%d", x+1, k+1, tau, m.opts.TauMax)
			}
			if b := m.blendOf(t.Blend, k); !slices.Contains(m.BlendLengths(), b) {
				return fmt.Errorf("ensemble graph: transition %d: group %d blends over %d frames; the model's blends are %v", x+1, k+1, b, m.BlendLengths())
			}
		}
		if !g.Connects(m, t) {
			return fmt.Errorf("ensemble graph: transition %d (%+v → %+v) leaves or lands outside the components", x+1, t.From, t.To)
		}
		leaves[t.From.Level][t.Start(m)] = true
	}
	for l, in := range g.In {
		for f, ok := range in {
			if ok && g.Next(m, l, f) < 0 && !leaves[l][f] {
				return fmt.Errorf("ensemble graph: level %s, frame %d: the component ends there and no transition leaves it", levelName(m.data.Levels[l], l), f+1)
			}
		}
	}
	return nil
}
