package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/tools/dynamics"
)

// dynamicsResult is what `gallop dynamics fit|apply --json` prints.
type dynamicsResult struct {
	Vertices int    `json:"vertices"`
	Frames   int    `json:"frames"`
	Model    string `json:"model"` // "kappa" (five parameters) or "paper" (four)
	// Fit only: iterations simulated, the best one, whether ε stopped it.
	Iterations    int       `json:"iterations"`
	BestIteration int       `json:"best_iteration,omitempty"`
	Converged     bool      `json:"converged,omitempty"`
	EnergyHistory []float64 `json:"energy_history,omitempty"`
	// RMSE of the goal (plain skinning) and of the simulation against the
	// example, absolute and relative to the rest bounding box diagonal;
	// ratio = rmse_dynamic / rmse_lbs.
	RMSELBS     float64 `json:"rmse_lbs,omitempty"`
	RMSEDynamic float64 `json:"rmse_dynamic,omitempty"`
	Ratio       float64 `json:"ratio,omitempty"`
	Diagonal    float64 `json:"bbox_diagonal"`
	Seconds     float64 `json:"seconds"`
	// Apply --skinned: what the file carries besides the skin.
	Export *exportFigures `json:"export,omitempty"`
}

// exportFigures are a skinned export's figures (assets.ExportReport).
type exportFigures struct {
	Bytes            int64    `json:"bytes"`
	CorrectiveShapes int      `json:"corrective_shapes"`        // morph targets carrying the secondary motion
	MissRelative     float64  `json:"correction_miss_relative"` // the most they miss the motion by, over the diagonal
	ActiveTargets    int      `json:"active_targets"`           // the most blended at once
	TrimmedVertices  int      `json:"trimmed_vertices"`         // vertices cut to --influences
	RootJoints       int      `json:"root_joints"`
	Warnings         []string `json:"warnings,omitempty"`
}

func runDynamics(args []string, stdout io.Writer) error {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, `Usage:
  gallop dynamics fit   --rig RIG.glb (--animation NAME | --goal DIR) --example DIR
                        [--iterations N] [--paper] [--out PARAMS.csv] [--json]
  gallop dynamics apply --rig RIG.glb (--animation NAME | --goal DIR) --params PARAMS.csv
                        [--example DIR] [--out OUT.glb|DIR/] [--skinned] [--json]

Secondary motion on skinned animation (Shi et al. 2008, with the goal-relative
damping κ). fit learns per-vertex parameters from an example simulation of the
skinned mesh; apply runs them on a skeletal animation. gallop dynamics fit
--help and apply --help list the options.`)
	}
	if len(args) == 0 {
		usage(os.Stderr)
		return errUsage
	}
	switch args[0] {
	case "fit":
		return runDynamicsFit(args[1:], stdout)
	case "apply":
		return runDynamicsApply(args[1:], stdout)
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return nil
	}
	fmt.Fprintf(os.Stderr, "gallop dynamics: unknown subcommand %q (fit or apply)\n", args[0])
	return errUsage
}

// dynamicsInput are the flags fit and apply share.
type dynamicsInput struct {
	rig, anim, goal *string
	substeps        *int
	paper, asJSON   *bool
}

func dynamicsFlags(fs *flag.FlagSet) dynamicsInput {
	return dynamicsInput{
		rig:      fs.String("rig", "", "the skinned mesh: a .glb or .gltf file with a skin (required)"),
		anim:     fs.String("animation", "", "which of the file's animations drives it (default: its first)"),
		goal:     fs.String("goal", "", "drive it with this folder of OBJ frames (the skinning alone) instead of a glTF animation"),
		substeps: fs.Int("substeps", 1, "simulation steps per frame"),
		paper:    fs.Bool("paper", false, "the paper's four parameters only (κ = 0)"),
		asJSON:   fs.Bool("json", false, "print one JSON object with the figures"),
	}
}

// parse parses args into fs, whose flag required must be set and which
// takes no positional argument, and loads the rigged object and its
// rigging.
func (in dynamicsInput) parse(ctx context.Context, fs *flag.FlagSet, args []string, required *string) (*assets.Object, *dynamics.Rigging, error) {
	if err := parse(fs, args); err != nil {
		return nil, nil, err
	}
	if fs.NArg() > 0 || *required == "" {
		fs.Usage()
		return nil, nil, errUsage
	}
	return in.load(ctx)
}

// load returns the rigged object and its rigging.
func (in dynamicsInput) load(ctx context.Context) (*assets.Object, *dynamics.Rigging, error) {
	if *in.rig == "" {
		return nil, nil, fmt.Errorf("--rig is required")
	}
	if *in.goal != "" && *in.anim != "" {
		return nil, nil, fmt.Errorf("--animation and --goal both name the goal: give one")
	}
	objs, err := assets.LoadGLTFAnimation(*in.rig, *in.anim)
	if err != nil {
		return nil, nil, err
	}
	o := assets.FirstSkinned(objs)
	if o == nil {
		return nil, nil, fmt.Errorf("%s: no skinned object (infer a rig with gallop rig first)", *in.rig)
	}
	if *in.goal == "" {
		rg, err := dynamics.NewRigging(o)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", *in.rig, err)
		}
		return o, rg, nil
	}
	gobjs, err := assets.Import(ctx, []string{*in.goal}, nil)
	if err != nil {
		return nil, nil, err
	}
	g := gobjs[0]
	if g.Clip == nil {
		return nil, nil, fmt.Errorf("%s: not an animation", *in.goal)
	}
	if err := dynamics.SameMesh(o, g.Mesh); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", *in.goal, err)
	}
	rg, err := dynamics.NewRiggingFromClip(o, g.Clip)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", *in.goal, err)
	}
	return o, rg, nil
}

func (in dynamicsInput) model() string {
	if *in.paper {
		return "paper"
	}
	return "kappa"
}

func runDynamicsFit(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("dynamics fit", flag.ContinueOnError)
	in := dynamicsFlags(fs)
	example := fs.String("example", "", "the example simulation: a folder of OBJ frames (or a .glb) of the same mesh, frame for frame with the goal (required)")
	iters := fs.Int("iterations", dynskin.DefaultFitIterations, "most fitting iterations")
	mu := fs.Float64("step-ratio", 0.1, "μ, how far each iteration moves towards the per-vertex optima")
	eps := fs.Float64("tolerance", dynskin.DefaultFitTolerance, "ε: stop when |Eᵏ − Eᵏ⁻¹| / E⁰ < ε")
	out := fs.String("out", "", "write the fitted parameters to this CSV file")
	ctx := context.Background()
	o, rg, err := in.parse(ctx, fs, args, example)
	if err != nil {
		return err
	}
	ex, err := dynamics.LoadExample(ctx, *example, o, rg.Goal.NumFrames(), rg.Goal.FPS)
	if err != nil {
		return err
	}
	p := newProgress()
	start := time.Now()
	res, err := dynskin.Fit(ctx, rg.Model, rg.Goal, ex, dynskin.FitOptions{
		Sim: dynskin.Options{Substeps: *in.substeps}, Kappa: !*in.paper,
		Iterations: *iters, StepRatio: *mu, Tolerance: *eps,
		Progress: func(k int, e float64, _ []dynskin.Material) {
			p.Report("fit: iteration %d of at most %d, E = %.6g", k, *iters, e)
		},
	})
	p.Done()
	secs := time.Since(start).Seconds()
	if err != nil {
		return err
	}
	if *out != "" {
		if err := dynamics.SaveParams(*out, res.Params); err != nil {
			return err
		}
	}
	r := in.result(rg, secs)
	r.Iterations, r.BestIteration, r.Converged, r.EnergyHistory = len(res.Energy)-1, res.Best, res.Converged, res.Energy
	r.setRMSE(dynskin.RMSE(rg.Goal.Positions, ex), res.RMSE)
	return r.print(stdout, *in.asJSON)
}

func runDynamicsApply(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("dynamics apply", flag.ContinueOnError)
	in := dynamicsFlags(fs)
	params := fs.String("params", "", "the per-vertex parameters, a CSV file written by gallop dynamics fit (required)")
	example := fs.String("example", "", "report the RMSE against this example simulation (a folder of OBJ frames)")
	out := fs.String("out", "", "write the dynamic animation: a .glb/.gltf (morph targets) or a folder of OBJ frames")
	skinned := fs.Bool("skinned", false, "with --out FILE.glb: write the rig and its joint animation, the secondary motion as corrective morph targets")
	missBy := fs.Float64("correction-error", assets.DefaultCorrectionError, "with --skinned: how far, over the bounding-box diagonal, the corrective shapes may miss the motion (fewer shapes: a smaller file)")
	influences := fs.Int("influences", 4, "with --skinned: the most joints per vertex written, 4 or 8")
	ctx := context.Background()
	o, rg, err := in.parse(ctx, fs, args, params)
	if err != nil {
		return err
	}
	p, err := dynamics.LoadParams(*params, rg.Model.NumVertices())
	if err != nil {
		return err
	}
	if *in.paper {
		for i := range p {
			p[i].Kappa = 0
		}
	}
	start := time.Now()
	sim, err := dynskin.Simulate(rg.Model, p, rg.Goal, dynskin.Options{Substeps: *in.substeps})
	if err != nil {
		return err
	}
	r := in.result(rg, time.Since(start).Seconds())
	if *example != "" {
		ex, err := dynamics.LoadExample(ctx, *example, o, rg.Goal.NumFrames(), rg.Goal.FPS)
		if err != nil {
			return err
		}
		r.setRMSE(dynskin.RMSE(rg.Goal.Positions, ex), dynskin.RMSE(sim, ex))
	}
	if *out != "" {
		baked := &assets.Object{Name: o.Name + " dynamic", Mesh: o.Mesh, Clip: &assets.Clip{Name: "dynamic", FPS: rg.Goal.FPS, Frames: sim}}
		if *skinned {
			if o.Skin == nil || len(o.Skin.Frames) != len(sim) {
				return fmt.Errorf("--skinned writes the rig's joint animation: drive it with the rig's animation (--animation), not --goal")
			}
			baked.Rig, baked.Skin = o.Rig, o.Skin
			if !(*missBy > 0) {
				return fmt.Errorf("--correction-error %g: want a fraction of the diagonal > 0", *missBy)
			}
			var rep assets.ExportReport
			if err := assets.SaveGLTF(*out, baked, assets.ExportOptions{Mode: assets.ExportSkin, CorrectionError: *missBy, Influences: *influences, Report: &rep}); err != nil {
				return err
			}
			st, err := os.Stat(*out)
			if err != nil {
				return err
			}
			r.Export = &exportFigures{Bytes: st.Size(), CorrectiveShapes: rep.CorrectiveShapes, MissRelative: rep.CorrectionMiss / r.Diagonal,
				ActiveTargets: rep.ActiveTargets, TrimmedVertices: rep.TrimmedVertices, RootJoints: rep.RootJoints, Warnings: rep.Warnings}
			for _, w := range rep.Warnings {
				fmt.Fprintf(os.Stderr, "gallop dynamics apply: warning: %s\n", w)
			}
		} else if err := writeAnimation(*out, baked); err != nil {
			return err
		}
	}
	return r.print(stdout, *in.asJSON)
}

// result returns the figures every run reports.
func (in dynamicsInput) result(rg *dynamics.Rigging, seconds float64) dynamicsResult {
	return dynamicsResult{Vertices: rg.Model.NumVertices(), Frames: rg.Goal.NumFrames(), Model: in.model(), Diagonal: rg.Model.Diagonal(), Seconds: seconds}
}

// setRMSE records the RMSE of plain skinning and of the simulation
// against the example, and their ratio.
func (r *dynamicsResult) setRMSE(lbs, dynamic float64) {
	r.RMSELBS, r.RMSEDynamic, r.Ratio = lbs, dynamic, dynamic/lbs
}

// writeAnimation writes o's clip to a glTF file (morph targets) or, for a
// folder path (see isFolder), as OBJ frames.
func writeAnimation(path string, o *assets.Object) error {
	if isFolder(path) {
		return writeSequence(path, o)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".glb", ".gltf":
		return assets.SaveGLTF(path, o, assets.ExportOptions{Mode: assets.ExportMorph})
	}
	return fmt.Errorf("%s: unknown output type %q (want .glb, .gltf or a folder)", path, filepath.Ext(path))
}

// print prints r as JSON or as a few lines of text.
func (r dynamicsResult) print(w io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(w).Encode(r)
	}
	fmt.Fprintf(w, "%d vertices, %d frames, %s model\n", r.Vertices, r.Frames, r.Model)
	if r.Iterations > 0 {
		fmt.Fprintf(w, "fit: %d iterations, best %d (E %.6g from %.6g), converged %v\n", r.Iterations, r.BestIteration, r.EnergyHistory[r.BestIteration], r.EnergyHistory[0], r.Converged)
	}
	if r.RMSELBS > 0 {
		fmt.Fprintf(w, "RMSE against the example: skinning %.5g (%.3f%% of the diagonal), dynamic %.5g (%.3f%%), ratio %.3f\n", r.RMSELBS, 100*r.RMSELBS/r.Diagonal, r.RMSEDynamic, 100*r.RMSEDynamic/r.Diagonal, r.Ratio)
	}
	if e := r.Export; e != nil {
		fmt.Fprintf(w, "skinned file: %d bytes, the secondary motion in %d corrective shapes (%d blended at once) missing it by at most %.2g of the diagonal, %d root joint(s)\n",
			e.Bytes, e.CorrectiveShapes, e.ActiveTargets, e.MissRelative, e.RootJoints)
	}
	fmt.Fprintf(w, "%.2f s\n", r.Seconds)
	return nil
}
