package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"gallop/solver/meshik"
	"gallop/tools/pose"
)

// splitMulti lets a flag take several values (`--examples a.obj b.obj`):
// it gathers the arguments after the flag up to the next one starting with
// "-", and returns the rest for package flag.
func splitMulti(args []string, name string) (values, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-"+name || a == "--"+name {
			for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
				values = append(values, args[i])
			}
			continue
		}
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			values = append(values, v)
			continue
		}
		if v, ok := strings.CutPrefix(a, "-"+name+"="); ok {
			values = append(values, v)
			continue
		}
		rest = append(rest, a)
	}
	return values, rest
}

const poseUsage = `Usage: gallop pose --reference REF.obj [--examples FILE|DIR...] --constraints C.json
                   [--space nonlinear|linear] [--components N] [--prior K]
                   [--out OUT.obj] [--json]

Poses the reference mesh by Mesh-Based Inverse Kinematics (Sumner et al.
2005): the constrained vertices go to their positions and the rest follows the
deformations of the example poses (.obj files with the reference's vertices
and faces, or folders of them). With no examples the reference alone guides
the solve (identity features). Any number of examples works, a whole capture
included: they are compressed to their principal components (every one above
the noise of the files, at most 64, unless --components says how many), and
the weights are held near the examples' mean by a prior whose strength comes
from the variation the compression drops (--prior sets it; 0 is automatic).

C.json: {"constraints": [{"vertex": 17, "position": [x, y, z]}, ...],
         "frozen_triangles": [3, 4, ...]}
(0-based indices in the reference's order; frozen triangles keep their shape
and are left out of the weight fit, as in the paper's Figure 6C).`

func runPose(args []string, stdout io.Writer) error {
	examplePaths, args := splitMulti(args, "examples")
	fs := flag.NewFlagSet("pose", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the reference (rest) mesh, an .obj file")
	consPath := fs.String("constraints", "", "the constraints, a JSON file (see below)")
	spaceName := fs.String("space", "nonlinear", "feature space: nonlinear (Eq. 6) or linear (Section 3.2)")
	out := fs.String("out", "", "write the posed mesh to this .obj file")
	asJSON := fs.Bool("json", false, "print one JSON object with the solve's figures")
	maxIter := fs.Int("max-iterations", 50, "stop after this many Gauss-Newton iterations")
	prior := fs.Float64("prior", 0, "how strongly the pose is held near the examples' mean: k of Eq. 5 (0: automatic, from the variation the compression drops; negative: none; at most 1e30)")
	components := fs.Int("components", 0, "principal components of the examples to keep (0: automatic, every one above the noise floor, at most 64)")
	fs.Usage = usageOf(fs, poseUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *refPath == "" || *consPath == "" || fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	var kind meshik.SpaceKind
	switch *spaceName {
	case "nonlinear":
		kind = meshik.Nonlinear
	case "linear":
		kind = meshik.Linear
	default:
		return fmt.Errorf("--space %q: want nonlinear or linear", *spaceName)
	}
	if *maxIter < 1 {
		return fmt.Errorf("--max-iterations %d: want at least 1", *maxIter)
	}
	if *components < 0 {
		return fmt.Errorf("--components %d: want 0 (automatic) or more", *components)
	}
	if math.IsNaN(*prior) || math.IsInf(*prior, 0) || math.Abs(*prior) > meshik.MaxStrength {
		return fmt.Errorf("--prior %v: want a number of size at most %g (as strong as a prior gets: the weights held at the examples' mean)", *prior, meshik.MaxStrength)
	}
	line := newProgress()
	defer line.Done()
	c := pose.SolveCommand{Reference: *refPath, Examples: examplePaths, Constraints: *consPath, Out: *out, Status: line.Report,
		Options: meshik.Options{Space: kind, MaxIterations: *maxIter, Prior: *prior, Components: *components}}
	r, solveErr := c.Run()
	if r == nil {
		return solveErr
	}
	line.Done()
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s space, %d examples, %d constraints: %d iterations, objective %.6g, weights %.4g\n",
			r.Space, r.Examples, r.Constraints, r.Iterations, r.Objective, r.Weights)
		if r.Examples > 0 {
			fmt.Fprintf(stdout, "examples compressed to %d principal components (%.4g%% of their variation), prior k = %.3g\n",
				r.Components, 100*r.VarianceKept, r.Prior)
		}
		fmt.Fprintf(stdout, "factorization %.3f s (analysis %.3f s), %.2f ms per iteration\n", r.FactorSeconds, r.AnalyzeSeconds, 1e3*r.IterationSeconds)
	}
	return solveErr // a solve that did not converge, reported after the figures: the pose of the last iterate was still written
}
