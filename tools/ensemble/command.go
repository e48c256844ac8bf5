package ensemble

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"gallop/internal/shard"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
)

// BuildPlan is how `gallop ensemble build` runs in shards: a prepared
// stage (the levels loaded and the model fitted, once), then two rounds,
// the first's shards running their blocks of the tasks within levels, the
// second's (which read all of the first) their blocks of the tasks between
// levels and checking their share of the transitions.
var BuildPlan = shard.Plan{Command: "ensemble build", Prepared: true, Rounds: 2}

// BuildReport is what `gallop ensemble build` reports (with --json, as one
// JSON object): Table I's figures of the paper, the costs against
// synchronous transitions, the new interpenetrations, a report per level
// and the wind-change latency between levels.
type BuildReport struct {
	Groups     int   `json:"groups"`
	Vertices   int   `json:"vertices"`
	Ranks      int   `json:"ranks"` // total rank r of the PCA bases
	Levels     int   `json:"levels"`
	Frames     int   `json:"frames"` // source frames over all levels
	Components []int `json:"component_frames"`

	Transitions     int       `json:"transitions"`
	Intervals       int       `json:"intervals"`        // one-second intervals of the components
	IntervalsServed int       `json:"intervals_served"` // with transitions to their level and every other
	IntegerPrograms int       `json:"integer_programs"` // nIP
	Wins            int       `json:"wins"`             // nWin
	OKCullTimeout   []float64 `json:"ok_cull_timeout"`
	TCDSeconds      float64   `json:"t_cd_seconds"`
	NLocal          float64   `json:"n_local"`
	Contacts        float64   `json:"contacts"` // |C| of the feasible programs
	C               float64   `json:"c"`

	LoadSeconds          float64 `json:"load_seconds"`
	ModelSeconds         float64 `json:"model_seconds"`
	BuildSeconds         float64 `json:"build_seconds"`
	SecondsPerTransition float64 `json:"seconds_per_transition"`

	MeanPhi     float64 `json:"mean_phi"`      // of the accepted (asynchronous) transitions
	MeanPhiSync float64 `json:"mean_phi_sync"` // Φ(0) of the same pairs

	Checker                        string  `json:"checker"`
	CheckSeconds                   float64 `json:"check_seconds"`
	InterpenetrationsUnconstrained float64 `json:"interpenetrations_unconstrained"` // mean new pairs per transition at the unconstrained minimum
	InterpenetrationsAfter         int     `json:"interpenetrations_after"`         // new pairs over all accepted transitions
	Out                            string  `json:"out,omitempty"`

	Search        string        `json:"search"`
	LongBlends    float64       `json:"long_blends"`       // fraction of the transitions' groups that blend over the longer length
	Harder        int           `json:"tasks_harder"`      // tasks that searched harder
	CutShort      int           `json:"tasks_cut_short"`   // tasks the budget kept from searching harder
	Skipped       int           `json:"tasks_skipped"`     // tasks the budget kept from beginning
	Missing       int           `json:"tasks_missing"`     // tasks that found no transition
	Tasks         int           `json:"tasks"`             // (interval, target) tasks
	LevelReports  []LevelReport `json:"level_reports"`     // per level: what was found, why the rest failed
	LatencyMedian [][]float64   `json:"latency_median_s"`  // [from][to] wind-change latency, seconds (see docs/command-line.md)
	LatencyWorst  [][]float64   `json:"latency_worst_s"`   // [from][to]
	Loops         bool          `json:"every_level_loops"` // every wind level has a loop of transitions
	// Winds are the wind levels the clips' frames are at (the latency
	// tables' rows and columns), with what the graph offers at each.
	Winds []WindReport `json:"wind_levels"`
	// Unreachable says, per ordered pair of wind levels that some frames
	// cannot change between, what stops the transitions that would.
	Unreachable []Unreachable `json:"unreachable,omitempty"`
}

// WindReport is one wind level's report in a BuildReport.
type WindReport struct {
	Level     float64 `json:"level"`
	Component int     `json:"component_frames"` // over every clip
	Loops     bool    `json:"loops"`
}

// LevelReport is one level's report in a BuildReport.
type LevelReport struct {
	Name          string    `json:"name"`
	Frames        int       `json:"frames"`
	Component     int       `json:"component_frames"`
	Loops         bool      `json:"loops"`
	Transitions   []int     `json:"transitions_to"` // from the component to each level
	Programs      int       `json:"programs"`
	OKCullTimeout []float64 `json:"ok_cull_timeout_infeasible"`
	Missing       int       `json:"tasks_missing"`
	Skipped       int       `json:"tasks_skipped"`
	Tasks         int       `json:"tasks"`
	Seconds       []float64 `json:"task_seconds_to"` // the tasks' own times toward each level, both workers
	// ProgramsTo and OKCullTimeoutTo split Programs and OKCullTimeout by
	// the level the programs' transitions go to.
	ProgramsTo      []int       `json:"programs_to"`
	OKCullTimeoutTo [][]float64 `json:"ok_cull_timeout_infeasible_to"`
	Note            string      `json:"note,omitempty"`
}

// BuildCommand is the work of `gallop ensemble build`: the model of the
// levels fitted, its motion graph built, the transitions checked for new
// interpenetrations, the graph written to Out and reported.
type BuildCommand struct {
	Levels   []string // the level folders, calmest first
	Groups   string   // the groups file; "" for groups.csv beside the levels
	TauMax   int      // the model's τ_max
	Settings BuildSettings
	Checker  Checker // what counts the transitions' new interpenetrations
	Out      string  // the graph file to write; "" for none
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style), often and from every core.
	Status func(format string, args ...any)
}

// buildPrepared is the prepared stage of a sharded build: the fitted
// model (with its dataset, as its model file: decoded, it is the same bit
// for bit) and the times it took.
type buildPrepared struct {
	Model                     modelGob
	LoadSeconds, ModelSeconds float64
}

// buildRound1 is a shard of round 1: the results of its block of phase
// 1's tasks, in order, and its wall time.
type buildRound1 struct {
	Results []ensemble.TaskResult
	Seconds float64
}

// buildRound2 is a shard of round 2: the results of round 1's shard of
// the same number (carried on, so that the merge needs round 2's files
// alone) and of its block of phase 2's tasks; the transitions it checked
// (the kept ones of its phase 1 block, all of its phase 2 block) with
// their counts; its wall times.
type buildRound2 struct {
	Phase1, Phase2             []ensemble.TaskResult
	Checked                    []ensemble.Transition
	Check                      Check
	BuildSeconds, CheckSeconds float64
}

// graphBuilt is a built graph with its statistics and check.
type graphBuilt struct {
	g            *ensemble.Graph
	st           ensemble.BuildStats
	chk          *Check
	checkSeconds float64
}

// status reports how far the work has come, if anyone listens.
func (c *BuildCommand) status(format string, args ...any) {
	if c.Status != nil {
		c.Status(format, args...)
	}
}

// Run builds as run asks and returns the report: the whole build; the
// prepared stage, which fits the model for the shards; a shard of round 1,
// which runs its block of the tasks within levels; a shard of round 2,
// which reads all of round 1, joins the levels as ensemble.Build does,
// runs its block of the tasks between levels and checks its share of the
// transitions; the merge, which finishes the build from round 2's files.
// Each task draws from the stream its number in the build gives it, so the
// graph is the whole build's. The prepared stage and the shards write
// their files and return no report.
func (c *BuildCommand) Run(ctx context.Context, run *shard.Run) (*BuildReport, error) {
	var prep buildPrepared
	have, err := run.ReadPrepared(&prep)
	if err != nil {
		return nil, err
	}
	if !have {
		if err := c.prepare(ctx, &prep); err != nil {
			return nil, err
		}
	}
	if run.Prepare {
		return nil, run.WritePrepared(&prep)
	}
	m := prep.Model.Model
	opts, within, err := ensemble.PlanBuild(m, c.Settings.Options(m.Dataset().FPS))
	if err != nil {
		return nil, err
	}
	var b graphBuilt
	switch {
	case run.Sharded() && run.Round == 1:
		return nil, c.round1(ctx, run, m, opts, within)
	case run.Sharded():
		return nil, c.round2(ctx, run, m, opts, within)
	case run.Merged != nil:
		b, err = merge(ctx, run.Merged, m, opts, within)
	default:
		b, err = c.build(ctx, m)
	}
	if err != nil {
		return nil, err
	}
	return c.report(m, opts, &prep, &b)
}

// prepare loads the levels and fits the model into p.
func (c *BuildCommand) prepare(ctx context.Context, p *buildPrepared) error {
	start := time.Now()
	d, _, err := Load(ctx, c.Levels, c.Groups, func(done, total int) { c.status("loading frames %d/%d", done, total) })
	if err != nil {
		return err
	}
	p.LoadSeconds = time.Since(start).Seconds()
	start = time.Now()
	p.Model.Model, err = ensemble.NewModel(ctx, d, ensemble.Options{TauMax: c.TauMax}, func(done, total int) { c.status("fitting groups %d/%d", done, total) })
	if err != nil {
		return err
	}
	p.ModelSeconds = time.Since(start).Seconds()
	return nil
}

// taskProgress reports the tasks done.
func (c *BuildCommand) taskProgress(_ ensemble.Task, done, total int) {
	c.status("transitions: task %d/%d", done, total)
}

// build builds the whole graph and checks its transitions.
func (c *BuildCommand) build(ctx context.Context, m *ensemble.Model) (graphBuilt, error) {
	var b graphBuilt
	var err error
	b.g, b.st, err = ensemble.Build(ctx, m, c.Settings.Options(m.Dataset().FPS), c.taskProgress, nil)
	if err != nil {
		return b, err
	}
	c.status("checking %d transitions (%s)", len(b.g.Transitions), c.Checker)
	start := time.Now()
	if b.chk, err = CheckTransitions(ctx, m, b.g.Transitions, c.Checker); err != nil {
		return b, err
	}
	b.checkSeconds = time.Since(start).Seconds()
	return b, nil
}

// round1 runs the shard's block of phase 1's tasks and writes their
// results.
func (c *BuildCommand) round1(ctx context.Context, run *shard.Run, m *ensemble.Model, opts ensemble.BuildOptions, within []ensemble.Task) error {
	start := time.Now()
	lo, hi := run.Range(len(within))
	rs, err := ensemble.RunTasks(ctx, m, opts, within[lo:hi], lo, nil, time.Now(), c.taskProgress, nil)
	if err != nil {
		return err
	}
	return run.Write(len(within), &buildRound1{Results: rs, Seconds: time.Since(start).Seconds()})
}

// round2 reads round 1, joins the levels, runs the shard's block of phase
// 2's tasks, checks the shard's share of the transitions and writes it
// all.
func (c *BuildCommand) round2(ctx context.Context, run *shard.Run, m *ensemble.Model, opts ensemble.BuildOptions, within []ensemble.Task) error {
	start := time.Now()
	files, err := run.ReadRound(1)
	if err != nil {
		return err
	}
	var phase1 []ensemble.TaskResult
	var mine buildRound1
	for _, f := range files {
		var r buildRound1
		if err := f.Decode(&r); err != nil {
			return err
		}
		phase1 = append(phase1, r.Results...)
		if f.Shard == run.Shard.K {
			mine = r
		}
	}
	g, between := ensemble.JoinLevels(m, opts, phase1)
	lo, hi := run.Range(len(between))
	rs, err := ensemble.RunTasks(ctx, m, opts, between[lo:hi], len(within)+lo, g, time.Now(), c.taskProgress, nil)
	if err != nil {
		return err
	}
	// Check this shard's share: the transitions of its phase 1 block
	// that Build keeps, and those of its phase 2 block.
	var ts []ensemble.Transition
	for _, r := range mine.Results {
		for _, t := range r.Transitions {
			if g.Connects(m, &t) {
				ts = append(ts, t)
			}
		}
	}
	for _, r := range rs {
		ts = append(ts, r.Transitions...)
	}
	buildSeconds := mine.Seconds + time.Since(start).Seconds()
	c.status("checking %d transitions (%s)", len(ts), c.Checker)
	start = time.Now()
	chk, err := CheckTransitions(ctx, m, ts, c.Checker)
	if err != nil {
		return err
	}
	return run.Write(len(between), &buildRound2{
		Phase1: mine.Results, Phase2: rs, Checked: ts, Check: *chk,
		BuildSeconds: buildSeconds, CheckSeconds: time.Since(start).Seconds(),
	})
}

// merge finishes the build from round 2's files, in order: both phases'
// results and every transition's check.
func merge(ctx context.Context, files []*shard.File, m *ensemble.Model, opts ensemble.BuildOptions, within []ensemble.Task) (graphBuilt, error) {
	var b graphBuilt
	var phase1, phase2 []ensemble.TaskResult
	var seconds float64
	checks := map[string][2]int{}
	for _, f := range files {
		var r buildRound2
		if err := f.Decode(&r); err != nil {
			return b, err
		}
		if len(r.Checked) != len(r.Check.After) || len(r.Checked) != len(r.Check.Unconstrained) {
			return b, fmt.Errorf("%s: %d transitions checked, %d and %d results", f.Path, len(r.Checked), len(r.Check.After), len(r.Check.Unconstrained))
		}
		phase1 = append(phase1, r.Phase1...)
		phase2 = append(phase2, r.Phase2...)
		for x, t := range r.Checked {
			checks[transitionKey(t)] = [2]int{r.Check.After[x], r.Check.Unconstrained[x]}
		}
		seconds += r.BuildSeconds
		b.checkSeconds += r.CheckSeconds
	}
	if len(phase1) != len(within) {
		return b, fmt.Errorf("%s: round 2's files hold %d tasks of phase 1, the build has %d", files[0].Path, len(phase1), len(within))
	}
	g, between := ensemble.JoinLevels(m, opts, phase1)
	if len(phase2) != len(between) || files[0].Total != len(between) {
		return b, fmt.Errorf("%s: round 2's files hold %d tasks of phase 2, the build has %d", files[0].Path, len(phase2), len(between))
	}
	b.g, b.st = g, ensemble.FinishBuild(m, opts, g, phase1, phase2)
	var err error
	if b.st.Blocked, err = ensemble.Explain(ctx, m, g, opts); err != nil {
		return b, err
	}
	b.st.Seconds = seconds
	b.chk = &Check{After: make([]int, len(g.Transitions)), Unconstrained: make([]int, len(g.Transitions))}
	for x, t := range g.Transitions {
		c, ok := checks[transitionKey(t)]
		if !ok {
			return b, fmt.Errorf("%s: transition %v → %v was not checked by any shard", files[0].Path, t.From, t.To)
		}
		b.chk.After[x], b.chk.Unconstrained[x] = c[0], c[1]
	}
	return b, nil
}

// transitionKey identifies a transition by its pair of states and its
// offsets; two transitions with one key are the same transition, and a
// check counts the same for both.
func transitionKey(t ensemble.Transition) string {
	return fmt.Sprint(t.From, t.To, t.Tau)
}

// report writes the graph to Out and reports on it.
func (c *BuildCommand) report(m *ensemble.Model, opts ensemble.BuildOptions, prep *buildPrepared, b *graphBuilt) (*BuildReport, error) {
	g, st := b.g, b.st
	res := &BuildReport{LoadSeconds: prep.LoadSeconds, ModelSeconds: prep.ModelSeconds, CheckSeconds: b.checkSeconds, Checker: c.Checker.String()}
	if c.Out != "" {
		f, err := NewGraphFile(c.Levels, c.Groups, m, c.Settings, g)
		if err != nil {
			return nil, err
		}
		if err := SaveGraph(c.Out, f); err != nil {
			return nil, err
		}
		res.Out = c.Out
	}
	d := m.Dataset()
	res.Groups, res.Vertices, res.Ranks, res.Levels = m.Groups(), len(d.Rest), m.TotalRank(), len(d.Levels)
	for l, lv := range d.Levels {
		res.Frames += len(lv.Frames)
		n := 0
		for _, in := range g.In[l] {
			if in {
				n++
			}
		}
		res.Components = append(res.Components, n)
	}
	ok, cull, timeOut, _ := st.CSP.Fractions()
	res.levelReports(m, g, st, opts)
	_, res.TCDSeconds = st.CSP.TCD()
	res.Transitions, res.Intervals, res.IntervalsServed = st.Found, st.Intervals, st.Served
	res.IntegerPrograms, res.Wins = st.CSP.Programs, st.CSP.Wins
	res.OKCullTimeout = []float64{ok, cull, timeOut}
	res.NLocal, res.Contacts, res.C = st.CSP.NLocal(), st.CSP.MeanContacts(), st.C
	res.BuildSeconds, res.MeanPhi, res.MeanPhiSync = st.Seconds, st.MeanPhi, st.MeanPhi0
	if st.Found > 0 {
		res.SecondsPerTransition = st.Seconds / float64(st.Found)
	}
	res.InterpenetrationsAfter, res.InterpenetrationsUnconstrained = b.chk.Totals()
	return res, nil
}

// levelReports sets the per-level report and the latencies of res from a
// finished build.
func (res *BuildReport) levelReports(m *ensemble.Model, g *ensemble.Graph, st ensemble.BuildStats, opts ensemble.BuildOptions) {
	res.Search = opts.CSP.Search.String()
	res.Harder, res.CutShort, res.Skipped, res.Missing, res.Tasks = st.Harder, st.CutShort, st.Skipped, st.Missing, st.Tasks
	res.Loops = len(st.Winds) > 0
	for _, w := range st.Winds {
		res.Winds = append(res.Winds, WindReport{Level: w.Level, Component: w.Component, Loops: w.Loops})
		res.Loops = res.Loops && w.Loops
	}
	for _, b := range st.Blocked {
		res.Unreachable = append(res.Unreachable, unreachable(m, b))
	}
	for from, l := range st.Levels {
		ok, cull, timeOut, inf := l.Programs.Fractions()
		lj := LevelReport{Name: l.Name, Frames: l.Frames, Component: l.Component, Loops: l.Loops, Transitions: l.Out,
			Programs: l.Programs.Programs, OKCullTimeout: []float64{ok, cull, timeOut, inf}, Missing: l.Missing, Skipped: l.Skipped, Tasks: l.Tasks, Seconds: l.Seconds}
		for _, ps := range l.To {
			ok, cull, timeOut, inf := ps.Fractions()
			lj.ProgramsTo = append(lj.ProgramsTo, ps.Programs)
			lj.OKCullTimeoutTo = append(lj.OKCullTimeoutTo, []float64{ok, cull, timeOut, inf})
		}
		if !l.Loops {
			lj.Note = fmt.Sprintf("no loop of transitions within the level was found (%d programs: %.0f%% feasible, %.0f%% culled, %.0f%% timed out, %.0f%% proved infeasible); it plays its frames and cuts back to the first, a visible jump; a larger --budget, --harder or --step-tolerance may find one",
				l.Programs.Programs, 100*ok, 100*cull, 100*timeOut, 100*inf)
		}
		for to, n := range l.Out {
			if n > 0 || to == from || l.Component == 0 {
				continue
			}
			lj.Note = strings.TrimSpace(lj.Note + " " + missingTransitions(st.Levels[to].Name, l.To[to]))
		}
		if l.Skipped > 0 {
			lj.Note = strings.TrimSpace(lj.Note + fmt.Sprintf(" %d of its %d tasks were skipped: the budget (--budget) was spent before they began.", l.Skipped, l.Tasks))
		}
		res.LevelReports = append(res.LevelReports, lj)
	}
	long, all := 0, 0
	for _, t := range g.Transitions {
		for k := range t.Tau {
			all++
			if t.Blend != nil && t.Blend[k] != m.Options().TauBlend {
				long++
			}
		}
	}
	if all > 0 {
		res.LongBlends = float64(long) / float64(all)
	}
	for _, row := range st.Latency {
		var med, worst []float64
		for _, l := range row {
			med, worst = append(med, jsonSeconds(l.Median)), append(worst, jsonSeconds(l.Worst))
		}
		res.LatencyMedian, res.LatencyWorst = append(res.LatencyMedian, med), append(res.LatencyWorst, worst)
	}
}

// missingTransitions says why no transition toward level name was
// found, from the figures of its integer programs.
func missingTransitions(name string, st csp.Stats) string {
	ok, cull, timeOut, inf := st.Fractions()
	msg := fmt.Sprintf("No transition to level %s was found (%d programs: %.0f%% feasible, %.0f%% culled, %.0f%% timed out, %.0f%% proved infeasible).",
		name, st.Programs, 100*ok, 100*cull, 100*timeOut, 100*inf)
	if st.Programs > 0 && inf >= 0.5 {
		msg += " Most were proved infeasible: some groups lie on opposite sides of each other in the two levels' frames, and a blend moves every vertex straight between them, through the other group (go doc gallop/solver/ensemble: transitions between levels)."
	} else {
		msg += " A larger --budget or --harder may find some."
	}
	return msg
}

// jsonSeconds returns s, or −1 for +Inf (unreachable), which JSON cannot
// hold.
func jsonSeconds(s float64) float64 {
	if math.IsInf(s, 1) {
		return -1
	}
	return s
}
