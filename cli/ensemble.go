package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"gallop/assets"
	"gallop/internal/option"
	"gallop/internal/shard"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
	tens "gallop/tools/ensemble"
)

const ensembleUsage = `Usage: gallop ensemble build DIR... [--groups groups.csv] [--tau-max 30] [--samples N]
                             [--eta E] [--tries T] [--harder H] [--budget SECONDS]
                             [--step-tolerance F] [--walk] [--seed S] [--out GRAPH] [--check] [--json]
       gallop ensemble play GRAPH --seconds S [--wind 1,3,2] [--change-every T]
                            [--seed K] [--out OUT.glb|DIR/] [--check] [--json]

Mesh Ensemble Motion Graphs (James et al. 2007): build the motion graph of an
ensemble simulated at several wind levels (one folder of OBJ frames per level,
calmest first; groups.csv, attachments.csv and reference.obj beside them), with
asynchronous, interpenetration-free transitions; then play it for as long as
wanted, changing the wind. gallop ensemble build --help and play --help say more.`

func runEnsemble(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, ensembleUsage)
		return errUsage
	}
	switch args[0] {
	case "build":
		return ensembleBuild(args[1:], stdout, nil)
	case "play":
		return runEnsemblePlay(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, ensembleUsage)
		return flag.ErrHelp
	}
	fmt.Fprintf(os.Stderr, "gallop ensemble: unknown subcommand %q (want build or play)\n", args[0])
	return errUsage
}

const ensembleBuildUsage = `Usage: gallop ensemble build DIR... [--groups groups.csv] [--tau-max 30] [--samples N]
                             [--eta E] [--tries T] [--harder H] [--effort X] [--budget SECONDS]
                             [--step-tolerance F] [--walk] [--seed S] [--out GRAPH] [--check] [--json]
                             [--prepare | --shard K/N --shard-round R] [--shard-dir D]

Builds the Mesh Ensemble Motion Graph of the clips DIR... (folders of OBJ
frames of one ensemble, from one folder or several): a folder with a wind.csv
is a take whose wind changes, frame by frame; one without is a clip at one
wind level, the number its name ends with (wind-3) or else its place among
DIR.... Per group a rigid frame and a PCA basis; transitions within and
between levels from every one-second interval, joining a level's frames in
every clip that has them, their offsets found by the nonpenetration solver;
a take's frames while the wind changes are played on the way between levels.
A task that finds nothing searches harder, up to --effort times its first
search's work (the same on any machine; --budget adds a time cap); a level
with no loop is reported and plays its frames and cuts back. It prints (--json: as one object) Table I's figures
of the paper, the costs against synchronous transitions, the new
interpenetrations at the unconstrained minimum and after the solver, a report
per level, and the wind-change latency between levels.

In shards: --prepare fits the model once; --shard K/N --shard-round 1 runs
shard K's block of the intervals' transitions within levels; --shard K/N
--shard-round 2 (after every shard of round 1) its block of those between
levels, and checks its share; gallop merge of round 2's files prints and
writes what the unsharded build does.`

// ensembleBuild runs `gallop ensemble build args`: the plain build, its
// prepared stage, a shard of one of its rounds, or (merged not nil: the
// last round's shard files, in order) the merge.
func ensembleBuild(args []string, stdout io.Writer, merged []*shard.File) error {
	fs := flag.NewFlagSet("ensemble build", flag.ContinueOnError)
	groups := fs.String("groups", "", "the groups file (default: groups.csv beside the level folders; none: each OBJ group a root group)")
	tauMax := fs.Int("tau-max", 30, "largest transition offset τ_max, frames")
	samples := fs.Int("samples", csp.DefaultSamples, "N_samples: constraint programs per transition")
	eta := fs.Float64("eta", 0, "time-out factor η: a program stops after η times the work of its first collision pass (0: the search's default, 40; the walk's 10)")
	tries := fs.Int("tries", 4, "leaving frames tried per interval and target level at first")
	harder := fs.Int("harder", 2, "times a task that found no transition searches harder (more leaving frames, N_samples and η); 0: never")
	stepTol := fs.Float64("step-tolerance", 1, "no group moves further in a frame than this times its largest step in the data")
	effort := fs.Float64("effort", ensemble.DefaultEffort, "search effort: a task that found nothing may spend this many times the work of its first attempt searching harder (0: none); counted in work, so the build is the same on any machine")
	budget := fs.Float64("budget", tens.DefaultBudget, "a time cap: seconds after which tasks stop searching harder (0: none); a build that reaches it depends on the machine's speed and load")
	within := fs.Float64("change-within", tens.DefaultChangeWithin, "seconds within which a change of wind level completes its blends: longer is smoother (the offsets free to find cheaper blends), shorter answers the wind sooner")
	walk := fs.Bool("walk", false, "search with the paper's LOCAL-SEARCH random walk instead of propagation (for comparison)")
	seed := fs.Uint64("seed", 1, "random seed of the build")
	out := fs.String("out", "", "write the graph to this file (JSON)")
	check := fs.Bool("check", false, "count interpenetrations with the independent exhaustive checker (every triangle pair) instead of the solver's oracle")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	so := addShardOptions(fs, tens.BuildPlan, args)
	fs.Usage = usageOf(fs, ensembleBuildUsage)
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
	case !(*effort >= 0) || *effort > 1000:
		return fmt.Errorf("--effort %v: want 0 to 1000", *effort)
	case !(*budget >= 0) || *budget > 30*24*3600:
		return fmt.Errorf("--budget %v: want seconds, 0 for no limit", *budget)
	case !(*within >= tens.MinChangeWithin) || *within > tens.MaxChangeWithin:
		return fmt.Errorf("--change-within %v: want %g to %g seconds", *within, tens.MinChangeWithin, tens.MaxChangeWithin)
	}
	run, err := so.run(merged)
	if err != nil {
		return err
	}
	c := tens.BuildCommand{Levels: dirs, Groups: *groups, TauMax: *tauMax, Out: *out, Checker: tens.Oracle,
		Settings: tens.BuildSettings{Seed: *seed, Samples: *samples, Eta: *eta, Tries: *tries, Harder: option.Literal(*harder), StepTolerance: *stepTol, Effort: option.Literal(*effort), Budget: *budget, ChangeWithin: *within, Walk: *walk}}
	if *check {
		c.Checker = tens.Exhaustive
	}
	pr := newProgress()
	defer pr.Done()
	c.Status = pr.Report
	res, err := c.Run(context.Background(), run)
	if err != nil || run.Partial() {
		return err
	}
	pr.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	printEnsembleBuild(stdout, res)
	return nil
}

// printEnsembleBuild prints a build's report.
func printEnsembleBuild(w io.Writer, res *tens.BuildReport) {
	fmt.Fprintf(w, "%d groups (%d vertices, total rank %d), %d levels, %d frames\n", res.Groups, res.Vertices, res.Ranks, res.Levels, res.Frames)
	fmt.Fprintf(w, "%d transitions in %.1f s (%.2f s each); %d of %d one-second intervals served; components %v frames\n",
		res.Transitions, res.BuildSeconds, res.SecondsPerTransition, res.IntervalsServed, res.Intervals, res.Components)
	ok, cull, timeOut := res.OKCullTimeout[0], res.OKCullTimeout[1], res.OKCullTimeout[2]
	fmt.Fprintf(w, "Table I: t_CD %.3f s, nLocal %.1f, |C| %.1f, nWin/nIP %d/%d, OK/Cull/TOut %.2f/%.2f/%.2f, C = %g\n",
		res.TCDSeconds, res.NLocal, res.Contacts, res.Wins, res.IntegerPrograms, ok, cull, timeOut, res.C)
	fmt.Fprintf(w, "mean Φ %.4g (synchronous Φ(0) of the same pairs %.4g)\n", res.MeanPhi, res.MeanPhiSync)
	fmt.Fprintf(w, "new interpenetrations (%s): %.1f per transition at the unconstrained minimum, %d after the solver\n", res.Checker, res.InterpenetrationsUnconstrained, res.InterpenetrationsAfter)
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
	for _, u := range res.Unreachable {
		fmt.Fprintln(w, u.Message)
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
	if res.Out != "" {
		fmt.Fprintf(w, "wrote %s\n", res.Out)
	}
}

const ensemblePlayUsage = `Usage: gallop ensemble play GRAPH --seconds S [--wind 1,3,2] [--change-every T]
                            [--seed K] [--out OUT.glb|DIR/] [--check] [--json]

Plays the motion graph GRAPH (written by gallop ensemble build --out) for S
seconds, the wind moving through the listed levels every T seconds, and writes
the result as a compact glTF (one node per group, its PCA basis as morph
targets) or as OBJ frames with one o block per group.`

func runEnsemblePlay(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ensemble play", flag.ContinueOnError)
	seconds := fs.Float64("seconds", 60, "length of the output, seconds")
	windList := fs.String("wind", "", "wind levels in turn, 1-based, as 1,3,2 (default: the first level throughout)")
	every := fs.Float64("change-every", 20, "seconds between wind changes")
	seed := fs.Uint64("seed", 1, "random seed of the player's choices")
	out := fs.String("out", "", "write the output: OUT.glb or .gltf (compact: a node per group, PCA basis as morph targets) or a folder DIR/ of OBJ frames")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	check := fs.Bool("check", false, "test every frame played with the exhaustive checker (every triangle pair) for groups intersecting that intersect in no source frame the frame shows or blends")
	fs.Usage = usageOf(fs, ensemblePlayUsage)
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
	winds, err := parseWinds(*windList, assets.MaxWindLevel) // checked against the data's levels as it plays
	if err != nil {
		return err
	}
	pr := newProgress()
	defer pr.Done()
	c := tens.PlayCommand{Graph: gf, Path: in, Seconds: *seconds, Winds: winds, ChangeEvery: *every, Seed: *seed, Out: *out, Check: *check, Status: pr.Report}
	res, err := c.Run(context.Background())
	if err != nil {
		return err
	}
	pr.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(res)
	}
	printEnsemblePlay(stdout, res)
	return nil
}

// parseWinds reads --wind: levels from 1 to levels, separated by commas,
// returned 0-based; "" is the first level throughout.
func parseWinds(list string, levels int) ([]int, error) {
	if list == "" {
		return []int{0}, nil
	}
	var winds []int
	for _, w := range strings.Split(list, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 || n > levels {
			return nil, fmt.Errorf("--wind %q: want levels from 1 to %d, separated by commas", list, levels)
		}
		winds = append(winds, n-1)
	}
	return winds, nil
}

// printEnsemblePlay prints a play's report.
func printEnsemblePlay(w io.Writer, res *tens.PlayReport) {
	fmt.Fprintf(w, "%d frames (%.1f s) at %g fps, %d transitions, %d wind changes, levels shown %v\n", res.Frames, res.Seconds, res.FPS, res.Transitions, res.WindChanges, res.LevelsShown)
	if len(res.Changes) > 0 {
		fmt.Fprintf(w, "wind changes reached: %d of %d, the slowest after %.2f s\n", len(res.Changes)-res.Missed, len(res.Changes), res.ChangeWorst)
		for _, ch := range res.Changes {
			if ch.Reached == nil {
				fmt.Fprintf(w, "  at %.1f s, wind %d: not reached before the next change (no route from where the output was: see gallop ensemble build's report)\n", ch.At, ch.Level)
			}
		}
	}
	if len(res.NotReached) > 0 {
		fmt.Fprintf(w, "levels asked for but never reached: %v (the graph has no route to them: see gallop ensemble build's report)\n", res.NotReached)
	}
	fmt.Fprintf(w, "largest step %.3f of the sources' largest (%.3f of the data's); sewn vertices within %.2g; %.3f ms a frame\n", res.MaxStepRatio, res.MaxStepData, res.MaxSewnGap, res.MsPerFrame)
	if res.Checked {
		fmt.Fprintf(w, "new interpenetrations (exhaustive checker, every frame): %d in %d frames\n", res.NewPairFrames, res.FramesWithNew)
	}
	if res.Out != "" {
		fmt.Fprintf(w, "wrote %s", res.Out)
		if res.Bytes > 0 {
			fmt.Fprintf(w, " (%d bytes", res.Bytes)
			if res.PlainBytes > 0 {
				fmt.Fprintf(w, "; the plain per-frame morph export: %d bytes, %.1f×", res.PlainBytes, float64(res.PlainBytes)/float64(res.Bytes))
			}
			fmt.Fprint(w, ")")
		}
		fmt.Fprintln(w)
	}
}
