package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/atomicfile"
	"gallop/internal/option"
	"gallop/internal/shard"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
	tens "gallop/tools/ensemble"
)

func runEnsemble(args []string, stdout io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, `Usage: gallop ensemble build DIR... [--groups groups.csv] [--tau-max 30] [--samples N]
                             [--eta E] [--tries T] [--harder H] [--budget SECONDS]
                             [--step-tolerance F] [--walk] [--seed S] [--out GRAPH] [--check] [--json]
       gallop ensemble play GRAPH --seconds S [--wind 1,3,2] [--change-every T]
                            [--seed K] [--out OUT.glb|DIR/] [--check] [--json]

Mesh Ensemble Motion Graphs (James et al. 2007): build the motion graph of an
ensemble simulated at several wind levels (one folder of OBJ frames per level,
calmest first; groups.csv, attachments.csv and reference.obj beside them), with
asynchronous, interpenetration-free transitions; then play it for as long as
wanted, changing the wind. gallop ensemble build --help and play --help say more.`)
	}
	if len(args) == 0 {
		usage(os.Stderr)
		return errUsage
	}
	switch args[0] {
	case "build":
		return runEnsembleBuild(args[1:], stdout)
	case "play":
		return runEnsemblePlay(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return flag.ErrHelp
	}
	fmt.Fprintf(os.Stderr, "gallop ensemble: unknown subcommand %q (want build or play)\n", args[0])
	return errUsage
}

// ensembleBuildResult is what `gallop ensemble build --json` prints.
type ensembleBuildResult struct {
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

	Search        string              `json:"search"`
	LongBlends    float64             `json:"long_blends"`       // fraction of the transitions' groups that blend over the longer length
	Harder        int                 `json:"tasks_harder"`      // tasks that searched harder
	CutShort      int                 `json:"tasks_cut_short"`   // tasks the budget kept from searching harder
	Skipped       int                 `json:"tasks_skipped"`     // tasks the budget kept from beginning
	Missing       int                 `json:"tasks_missing"`     // tasks that found no transition
	Tasks         int                 `json:"tasks"`             // (interval, target) tasks
	LevelReports  []ensembleLevelJSON `json:"level_reports"`     // per level: what was found, why the rest failed
	LatencyMedian [][]float64         `json:"latency_median_s"`  // [from][to] wind-change latency, seconds (see the README)
	LatencyWorst  [][]float64         `json:"latency_worst_s"`   // [from][to]
	Loops         bool                `json:"every_level_loops"` // every level has a loop of transitions
}

// ensembleLevelJSON is one level's report in `ensemble build --json`.
type ensembleLevelJSON struct {
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

func runEnsembleBuild(args []string, stdout io.Writer) error {
	return ensembleBuild(args, stdout, nil)
}

// ensembleBuild runs `gallop ensemble build args`; with merged set (by
// gallop merge: the last round's shard files, in order) it takes every
// task's result from them instead of running the tasks.
//
// In shards the build runs as the steps of ensemble.Build in other
// processes: --prepare loads the levels and fits the model once
// (ensemblePrepared); round 1's shard K runs its block of phase 1's tasks
// (ensembleRound1); round 2's shard K reads all of round 1, joins the
// levels as Build does, runs its block of phase 2's tasks and checks its
// share of the transitions (ensembleRound2); the merge finishes the build
// from round 2's files. Each task draws from the stream its number in the
// build gives it, so the graph is the unsharded one.
func ensembleBuild(args []string, stdout io.Writer, merged []*shard.File) error {
	fs := flag.NewFlagSet("ensemble build", flag.ContinueOnError)
	groups := fs.String("groups", "", "the groups file (default: groups.csv beside the level folders; none: each OBJ group a root group)")
	tauMax := fs.Int("tau-max", 30, "largest transition offset τ_max, frames")
	samples := fs.Int("samples", csp.DefaultSamples, "N_samples: constraint programs per transition")
	eta := fs.Float64("eta", 0, "time-out factor η: a program stops after η times the work of its first collision pass (0: the search's default, 40; the walk's 10)")
	tries := fs.Int("tries", 4, "leaving frames tried per interval and target level at first")
	harder := fs.Int("harder", 2, "times a task that found no transition searches harder (more leaving frames, N_samples and η); 0: never")
	stepTol := fs.Float64("step-tolerance", 1, "no group moves further in a frame than this times its largest step in the data")
	budget := fs.Float64("budget", tens.DefaultBudget, "seconds after which tasks stop searching harder (0: no limit); the build is deterministic unless it is reached")
	walk := fs.Bool("walk", false, "search with the paper's LOCAL-SEARCH random walk instead of propagation (for comparison)")
	seed := fs.Uint64("seed", 1, "random seed of the build")
	out := fs.String("out", "", "write the graph to this file (JSON)")
	check := fs.Bool("check", false, "count interpenetrations with the independent exhaustive checker (every triangle pair) instead of the solver's oracle")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	so := addShardOptions(fs, tens.BuildPlan, args)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop ensemble build DIR... [--groups groups.csv] [--tau-max 30] [--samples N]
                             [--eta E] [--tries T] [--harder H] [--budget SECONDS]
                             [--step-tolerance F] [--walk] [--seed S] [--out GRAPH] [--check] [--json]
                             [--prepare | --shard K/N --shard-round R] [--shard-dir D]

Builds the Mesh Ensemble Motion Graph of the levels DIR... (one folder of OBJ
frames per wind level, calmest first): per group a rigid frame and a PCA basis,
transitions within and between levels from every one-second interval, their
offsets found by the nonpenetration solver. A task that finds nothing searches
harder until --budget is spent; a level with no loop is reported and plays
its frames and cuts back. It prints (--json: as one object) Table I's figures
of the paper, the costs against synchronous transitions, the new
interpenetrations at the unconstrained minimum and after the solver, a report
per level, and the wind-change latency between levels.

In shards: --prepare fits the model once; --shard K/N --shard-round 1 runs
shard K's block of the intervals' transitions within levels; --shard K/N
--shard-round 2 (after every shard of round 1) its block of those between
levels, and checks its share; gallop merge of round 2's files prints and
writes what the unsharded build does.`)
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	dirs := fs.Args()
	switch {
	case len(dirs) == 0:
		fs.Usage()
		return errUsage
	case *tauMax < 1 || *tauMax > 120:
		return fmt.Errorf("--tau-max %d: want 1 to 120 frames", *tauMax)
	case *samples < 1 || *samples > 1000:
		return fmt.Errorf("--samples %d: want 1 to 1000", *samples)
	case !(*eta >= 0) || *eta > 1e6:
		return fmt.Errorf("--eta %v: want a positive factor", *eta)
	case *tries < 1 || *tries > 1000:
		return fmt.Errorf("--tries %d: want 1 to 1000", *tries)
	case *harder < 0 || *harder > 8:
		return fmt.Errorf("--harder %d: want 0 to 8", *harder)
	case !(*stepTol > 0) || *stepTol > 100:
		return fmt.Errorf("--step-tolerance %v: want a positive factor up to 100", *stepTol)
	case !(*budget >= 0) || *budget > 30*24*3600:
		return fmt.Errorf("--budget %v: want seconds, 0 for no limit", *budget)
	}
	run, err := so.run(merged)
	if err != nil {
		return err
	}
	checker, checkerName := tens.Oracle, "oracle"
	if *check {
		checker, checkerName = tens.Exhaustive, "exhaustive"
	}
	ctx := context.Background()
	pr := newProgress()
	defer pr.Done()

	// The model: fitted here, or read from the prepared stage.
	var prep ensemblePrepared
	have, err := run.ReadPrepared(&prep)
	if err != nil {
		return err
	}
	if !have {
		start := time.Now()
		d, _, err := tens.Load(ctx, dirs, *groups, func(done, total int) { pr.Report("loading frames %d/%d", done, total) })
		if err != nil {
			return err
		}
		prep.LoadSeconds = time.Since(start).Seconds()
		start = time.Now()
		prep.Model, err = ensemble.NewModel(ctx, d, ensemble.Options{TauMax: *tauMax}, func(done, total int) { pr.Report("fitting groups %d/%d", done, total) })
		if err != nil {
			return err
		}
		prep.ModelSeconds = time.Since(start).Seconds()
	}
	if run.Prepare {
		return run.WritePrepared(&prep)
	}
	m := prep.Model
	settings := tens.BuildSettings{Seed: *seed, Samples: *samples, Eta: *eta, Tries: *tries, Harder: option.Literal(*harder), StepTolerance: *stepTol, Budget: *budget, Walk: *walk}
	opts, within, err := ensemble.PlanBuild(m, settings.Options())
	if err != nil {
		return err
	}
	taskProgress := func(_ ensemble.Task, done, total int) { pr.Report("transitions: task %d/%d", done, total) }

	var g *ensemble.Graph
	var st ensemble.BuildStats
	var chk *tens.Check
	var checkSeconds float64
	switch {
	case run.Sharded() && run.Round == 1:
		start := time.Now()
		lo, hi := run.Range(len(within))
		rs, err := ensemble.RunTasks(ctx, m, opts, within[lo:hi], lo, nil, time.Now(), taskProgress, nil)
		if err != nil {
			return err
		}
		return run.Write(len(within), &ensembleRound1{Results: rs, Seconds: time.Since(start).Seconds()})
	case run.Sharded():
		start := time.Now()
		files, err := run.ReadRound(1)
		if err != nil {
			return err
		}
		var phase1 []ensemble.TaskResult
		var mine ensembleRound1
		for _, f := range files {
			var r ensembleRound1
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
		rs, err := ensemble.RunTasks(ctx, m, opts, between[lo:hi], len(within)+lo, g, time.Now(), taskProgress, nil)
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
		pr.Report("checking %d transitions (%s)", len(ts), checkerName)
		start = time.Now()
		c, err := tens.CheckTransitions(ctx, m, ts, checker)
		if err != nil {
			return err
		}
		return run.Write(len(between), &ensembleRound2{
			Phase1: mine.Results, Phase2: rs, Checked: ts, Check: *c,
			BuildSeconds: buildSeconds, CheckSeconds: time.Since(start).Seconds(),
		})
	case merged != nil:
		var phase1, phase2 []ensemble.TaskResult
		checks := map[string][2]int{}
		for _, f := range merged {
			var r ensembleRound2
			if err := f.Decode(&r); err != nil {
				return err
			}
			if len(r.Checked) != len(r.Check.After) || len(r.Checked) != len(r.Check.Unconstrained) {
				return fmt.Errorf("%s: %d transitions checked, %d and %d results", f.Path, len(r.Checked), len(r.Check.After), len(r.Check.Unconstrained))
			}
			phase1 = append(phase1, r.Phase1...)
			phase2 = append(phase2, r.Phase2...)
			for x, t := range r.Checked {
				checks[transitionKey(t)] = [2]int{r.Check.After[x], r.Check.Unconstrained[x]}
			}
			st.Seconds += r.BuildSeconds
			checkSeconds += r.CheckSeconds
		}
		if len(phase1) != len(within) {
			return fmt.Errorf("%s: round 2's files hold %d tasks of phase 1, the build has %d", merged[0].Path, len(phase1), len(within))
		}
		var between []ensemble.Task
		g, between = ensemble.JoinLevels(m, opts, phase1)
		if len(phase2) != len(between) || merged[0].Total != len(between) {
			return fmt.Errorf("%s: round 2's files hold %d tasks of phase 2, the build has %d", merged[0].Path, len(phase2), len(between))
		}
		seconds := st.Seconds
		st = ensemble.FinishBuild(m, opts, g, phase1, phase2)
		st.Seconds = seconds
		chk = &tens.Check{After: make([]int, len(g.Transitions)), Unconstrained: make([]int, len(g.Transitions))}
		for x, t := range g.Transitions {
			c, ok := checks[transitionKey(t)]
			if !ok {
				return fmt.Errorf("%s: transition %v → %v was not checked by any shard", merged[0].Path, t.From, t.To)
			}
			chk.After[x], chk.Unconstrained[x] = c[0], c[1]
		}
	default:
		g, st, err = ensemble.Build(ctx, m, settings.Options(), taskProgress, nil)
		if err != nil {
			return err
		}
		pr.Report("checking %d transitions (%s)", len(g.Transitions), checkerName)
		start := time.Now()
		if chk, err = tens.CheckTransitions(ctx, m, g.Transitions, checker); err != nil {
			return err
		}
		checkSeconds = time.Since(start).Seconds()
	}
	pr.Done()

	res := ensembleBuildResult{LoadSeconds: prep.LoadSeconds, ModelSeconds: prep.ModelSeconds, CheckSeconds: checkSeconds, Checker: checkerName}
	if *out != "" {
		f, err := tens.NewGraphFile(dirs, *groups, m, settings, g)
		if err != nil {
			return err
		}
		if err := tens.SaveGraph(*out, f); err != nil {
			return err
		}
		res.Out = *out
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
	fillEnsembleReport(&res, m, g, st, opts)
	_, res.TCDSeconds = st.CSP.TCD()
	res.Transitions, res.Intervals, res.IntervalsServed = st.Found, st.Intervals, st.Served
	res.IntegerPrograms, res.Wins = st.CSP.Programs, st.CSP.Wins
	res.OKCullTimeout = []float64{ok, cull, timeOut}
	res.NLocal, res.Contacts, res.C = st.CSP.NLocal(), st.CSP.MeanContacts(), st.C
	res.BuildSeconds, res.MeanPhi, res.MeanPhiSync = st.Seconds, st.MeanPhi, st.MeanPhi0
	if st.Found > 0 {
		res.SecondsPerTransition = st.Seconds / float64(st.Found)
	}
	for x := range g.Transitions {
		res.InterpenetrationsAfter += chk.After[x]
		res.InterpenetrationsUnconstrained += float64(chk.Unconstrained[x])
	}
	if n := len(g.Transitions); n > 0 {
		res.InterpenetrationsUnconstrained /= float64(n)
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "%d groups (%d vertices, total rank %d), %d levels, %d frames\n", res.Groups, res.Vertices, res.Ranks, res.Levels, res.Frames)
	fmt.Fprintf(stdout, "%d transitions in %.1f s (%.2f s each); %d of %d one-second intervals served; components %v frames\n",
		res.Transitions, res.BuildSeconds, res.SecondsPerTransition, res.IntervalsServed, res.Intervals, res.Components)
	fmt.Fprintf(stdout, "Table I: t_CD %.3f s, nLocal %.1f, |C| %.1f, nWin/nIP %d/%d, OK/Cull/TOut %.2f/%.2f/%.2f, C = %g\n",
		res.TCDSeconds, res.NLocal, res.Contacts, res.Wins, res.IntegerPrograms, ok, cull, timeOut, res.C)
	fmt.Fprintf(stdout, "mean Φ %.4g (synchronous Φ(0) of the same pairs %.4g)\n", res.MeanPhi, res.MeanPhiSync)
	fmt.Fprintf(stdout, "new interpenetrations (%s): %.1f per transition at the unconstrained minimum, %d after the solver\n", checkerName, res.InterpenetrationsUnconstrained, res.InterpenetrationsAfter)
	printEnsembleReport(stdout, &res)
	if res.Out != "" {
		fmt.Fprintf(stdout, "wrote %s\n", res.Out)
	}
	return nil
}

// fillEnsembleReport sets the per-level report and the latencies of res
// from a finished build.
func fillEnsembleReport(res *ensembleBuildResult, m *ensemble.Model, g *ensemble.Graph, st ensemble.BuildStats, opts ensemble.BuildOptions) {
	res.Search = opts.CSP.Search.String()
	res.Harder, res.CutShort, res.Skipped, res.Missing, res.Tasks = st.Harder, st.CutShort, st.Skipped, st.Missing, st.Tasks
	res.Loops = true
	for from, l := range st.Levels {
		ok, cull, timeOut, inf := l.Programs.Fractions()
		lj := ensembleLevelJSON{Name: l.Name, Frames: l.Frames, Component: l.Component, Loops: l.Loops, Transitions: l.Out,
			Programs: l.Programs.Programs, OKCullTimeout: []float64{ok, cull, timeOut, inf}, Missing: l.Missing, Skipped: l.Skipped, Tasks: l.Tasks, Seconds: l.Seconds}
		for _, ps := range l.To {
			ok, cull, timeOut, inf := ps.Fractions()
			lj.ProgramsTo = append(lj.ProgramsTo, ps.Programs)
			lj.OKCullTimeoutTo = append(lj.OKCullTimeoutTo, []float64{ok, cull, timeOut, inf})
		}
		if !l.Loops {
			res.Loops = false
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
		msg += " Most were proved infeasible: some groups lie on opposite sides of each other in the two levels' frames, and a blend moves every vertex straight between them, through the other group (see the README: Ensemble, transitions between levels)."
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

// printEnsembleReport prints the per-level report and the latencies.
func printEnsembleReport(w io.Writer, res *ensembleBuildResult) {
	for _, l := range res.LevelReports {
		loops := "loops"
		if !l.Loops {
			loops = "NO LOOP"
		}
		fmt.Fprintf(w, "level %s: %s, component %d of %d frames, transitions to each level %v, %d programs\n", l.Name, loops, l.Component, l.Frames, l.Transitions, l.Programs)
		if l.Note != "" {
			fmt.Fprintf(w, "  %s\n", l.Note)
		}
	}
	fmt.Fprintln(w, "wind-change latency, median / worst seconds (from row to column; -1: unreachable):")
	for a := range res.LatencyMedian {
		fmt.Fprintf(w, "  %d:", a+1)
		for b := range res.LatencyMedian[a] {
			if a == b {
				fmt.Fprint(w, "          -")
				continue
			}
			fmt.Fprintf(w, " %4.2f/%4.2f", res.LatencyMedian[a][b], res.LatencyWorst[a][b])
		}
		fmt.Fprintln(w)
	}
}

// ensemblePrepared is the prepared stage of a sharded build: the fitted
// model (with its dataset; ensemble.Model encodes itself bit for bit) and
// the times it took.
type ensemblePrepared struct {
	Model                     *ensemble.Model
	LoadSeconds, ModelSeconds float64
}

// ensembleRound1 is a shard of round 1: the results of its block of phase
// 1's tasks, in order, and its wall time.
type ensembleRound1 struct {
	Results []ensemble.TaskResult
	Seconds float64
}

// ensembleRound2 is a shard of round 2: the results of round 1's shard of
// the same number (carried on, so that the merge needs round 2's files
// alone) and of its block of phase 2's tasks; the transitions it checked
// (the kept ones of its phase 1 block, all of its phase 2 block) with
// their counts; its wall times.
type ensembleRound2 struct {
	Phase1, Phase2             []ensemble.TaskResult
	Checked                    []ensemble.Transition
	Check                      tens.Check
	BuildSeconds, CheckSeconds float64
}

// transitionKey identifies a transition by its pair of states and its
// offsets; two transitions with one key are the same transition, and a
// check counts the same for both.
func transitionKey(t ensemble.Transition) string {
	return fmt.Sprint(t.From, t.To, t.Tau)
}

// ensemblePlayResult is what `gallop ensemble play --json` prints.
type ensemblePlayResult struct {
	Frames        int     `json:"frames"`
	Seconds       float64 `json:"seconds"`
	FPS           float64 `json:"fps"`
	Transitions   int     `json:"transitions"`
	Cuts          int     `json:"cuts"` // jumps back to the first frame of a level without a loop
	WindChanges   int     `json:"wind_changes"`
	LevelsShown   []int   `json:"levels_shown"`          // 1-based
	NotReached    []int   `json:"levels_not_reached"`    // levels of --wind never shown, 1-based
	Checked       bool    `json:"checked"`               // --check: every frame tested by the exhaustive checker
	NewPairFrames int     `json:"new_interpenetrations"` // with --check: (frame, pair)s intersecting in no source frame the frame shows
	FramesWithNew int     `json:"frames_with_new"`       // with --check: frames with one or more
	MaxStepRatio  float64 `json:"max_step_ratio"`        // largest step of a group over the model's source frames' largest
	MaxStepData   float64 `json:"max_step_ratio_data"`   // the same over the data's own
	MaxSewnGap    float64 `json:"max_sewn_gap"`
	MsPerFrame    float64 `json:"ms_per_frame"` // the player alone, one core
	Out           string  `json:"out,omitempty"`
	Bytes         int64   `json:"bytes,omitempty"`       // the compact glTF
	PlainBytes    int64   `json:"plain_bytes,omitempty"` // the same frames as a plain per-frame morph glTF
	ModelSeconds  float64 `json:"model_seconds"`
	PlaySeconds   float64 `json:"play_seconds"`
	ExportSeconds float64 `json:"export_seconds,omitempty"`
}

// plainLimit is the most frames whose plain per-frame export play writes
// to compare sizes: beyond it the file (12 bytes a vertex a frame) would
// not be worth writing.
const plainLimit = 5400

func runEnsemblePlay(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ensemble play", flag.ContinueOnError)
	seconds := fs.Float64("seconds", 60, "length of the output, seconds")
	windList := fs.String("wind", "", "wind levels in turn, 1-based, as 1,3,2 (default: the first level throughout)")
	every := fs.Float64("change-every", 20, "seconds between wind changes")
	seed := fs.Uint64("seed", 1, "random seed of the player's choices")
	out := fs.String("out", "", "write the output: OUT.glb or .gltf (compact: a node per group, PCA basis as morph targets) or a folder DIR/ of OBJ frames")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	check := fs.Bool("check", false, "test every frame played with the exhaustive checker (every triangle pair) for groups intersecting that intersect in no source frame the frame shows or blends")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop ensemble play GRAPH --seconds S [--wind 1,3,2] [--change-every T]
                            [--seed K] [--out OUT.glb|DIR/] [--check] [--json]

Plays the motion graph GRAPH (written by gallop ensemble build --out) for S
seconds, the wind moving through the listed levels every T seconds, and writes
the result as a compact glTF (one node per group, its PCA basis as morph
targets) or as OBJ frames with one o block per group.`)
		fs.PrintDefaults()
	}
	in, err := parseInput(fs, args)
	if err != nil {
		return err
	}
	if !(*seconds > 0) || *seconds > 24*3600 {
		return fmt.Errorf("--seconds %v: want a positive length up to a day", *seconds)
	}
	if !(*every > 0) {
		return fmt.Errorf("--change-every %v: want a positive number of seconds", *every)
	}
	gf, err := tens.LoadGraph(in)
	if err != nil {
		return err
	}
	winds := []int{0}
	if *windList != "" {
		winds = winds[:0]
		for _, w := range strings.Split(*windList, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(w))
			if err != nil || n < 1 || n > len(gf.Levels) {
				return fmt.Errorf("--wind %q: want levels from 1 to %d, separated by commas", *windList, len(gf.Levels))
			}
			winds = append(winds, n-1)
		}
	}
	ctx := context.Background()
	pr := newProgress()
	defer pr.Done()
	start := time.Now()
	m, g, e, err := gf.Open(ctx, func(done, total int) { pr.Report("loading frames %d/%d", done, total) })
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	res := ensemblePlayResult{ModelSeconds: time.Since(start).Seconds(), FPS: m.Dataset().FPS}
	n := int(math.Round(*seconds * res.FPS))
	glb := strings.HasSuffix(strings.ToLower(*out), ".glb") || strings.HasSuffix(strings.ToLower(*out), ".gltf")
	objDir := *out != "" && !glb
	if objDir {
		if err := os.MkdirAll(*out, 0o755); err != nil {
			return err
		}
	}
	start = time.Now()
	opts := tens.PlayOptions{Frames: n, Winds: winds, ChangeEvery: max(1, int(math.Round(*every*res.FPS))), Seed: *seed, Record: glb, Keep: glb && n <= plainLimit, Check: *check}
	played, err := tens.Play(m, g, opts, func(f int, x []mgl64.Vec3) error {
		pr.Report("frame %d/%d", f+1, n)
		if !objDir {
			return nil
		}
		path := filepath.Join(*out, fmt.Sprintf("%d.obj", f+1))
		return atomicfile.Write(path, func(w io.Writer) error { return assets.WriteEnsembleOBJ(w, e.Groups, x) })
	})
	if err != nil {
		return err
	}
	res.PlaySeconds = time.Since(start).Seconds()
	res.Frames, res.Seconds, res.Transitions, res.WindChanges, res.Cuts = n, float64(n)/res.FPS, played.Transitions, played.WindChanges, played.Cuts
	res.MaxStepRatio, res.MaxStepData, res.MaxSewnGap = played.MaxStepRatio, played.MaxStepData, played.MaxSewnGap
	res.MsPerFrame = played.StepSeconds * 1000 / float64(n)
	for _, l := range played.LevelsShown {
		res.LevelsShown = append(res.LevelsShown, l+1)
	}
	for _, w := range winds {
		if !slices.Contains(res.LevelsShown, w+1) && !slices.Contains(res.NotReached, w+1) {
			res.NotReached = append(res.NotReached, w+1)
		}
	}
	res.Checked, res.NewPairFrames, res.FramesWithNew = *check, played.NewPairFrames, played.FramesWithNew
	if *out != "" {
		res.Out = *out
	}
	if glb {
		start = time.Now()
		a, err := played.Recording.Compact(m, e, strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out)))
		if err != nil {
			return err
		}
		if err := assets.SaveRigidGLTF(*out, a); err != nil {
			return err
		}
		res.ExportSeconds = time.Since(start).Seconds()
		if st, err := os.Stat(*out); err == nil {
			res.Bytes = st.Size()
		}
		if played.Positions != nil {
			if res.PlainBytes, err = plainSize(*out, e, played.Positions, res.FPS); err != nil {
				return err
			}
		}
	}
	pr.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	fmt.Fprintf(stdout, "%d frames (%.1f s) at %g fps, %d transitions, %d wind changes, levels shown %v\n", res.Frames, res.Seconds, res.FPS, res.Transitions, res.WindChanges, res.LevelsShown)
	if len(res.NotReached) > 0 {
		fmt.Fprintf(stdout, "levels asked for but never reached: %v (the graph has no route to them: see gallop ensemble build's report)\n", res.NotReached)
	}
	fmt.Fprintf(stdout, "largest step %.3f of the sources' largest (%.3f of the data's); sewn vertices within %.2g; %.3f ms a frame\n", res.MaxStepRatio, res.MaxStepData, res.MaxSewnGap, res.MsPerFrame)
	if res.Checked {
		fmt.Fprintf(stdout, "new interpenetrations (exhaustive checker, every frame): %d in %d frames\n", res.NewPairFrames, res.FramesWithNew)
	}
	if res.Out != "" {
		fmt.Fprintf(stdout, "wrote %s", res.Out)
		if res.Bytes > 0 {
			fmt.Fprintf(stdout, " (%d bytes", res.Bytes)
			if res.PlainBytes > 0 {
				fmt.Fprintf(stdout, "; the plain per-frame morph export: %d bytes, %.1f×", res.PlainBytes, float64(res.PlainBytes)/float64(res.Bytes))
			}
			fmt.Fprint(stdout, ")")
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

// plainSize returns the size of frames as the plain per-frame morph export
// (one mesh, one morph target per frame) in out's format, counted without
// writing a file (none beside out is touched).
func plainSize(out string, e *assets.Ensemble, frames [][]mgl64.Vec3, fps float64) (int64, error) {
	obj := &assets.Object{Name: "ensemble", Mesh: e.Mesh(), Clip: &assets.Clip{Name: "played", FPS: fps, Frames: frames}}
	return assets.GLTFSize(obj, assets.ExportOptions{Mode: assets.ExportMorph}, strings.EqualFold(filepath.Ext(out), ".glb"))
}
