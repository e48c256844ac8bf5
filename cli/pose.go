package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/meshik"
)

// constraintsFile is the format of `gallop pose --constraints`.
type constraintsFile struct {
	Constraints []struct {
		Vertex   *int      `json:"vertex"`
		Position []float64 `json:"position"`
	} `json:"constraints"`
	FrozenTriangles []int `json:"frozen_triangles"`
}

// poseResult is what `gallop pose --json` prints.
type poseResult struct {
	Space            string    `json:"space"`
	Vertices         int       `json:"vertices"`
	Triangles        int       `json:"triangles"`
	Examples         int       `json:"examples"`
	Constraints      int       `json:"constraints"`
	Frozen           int       `json:"frozen_triangles"`
	Iterations       int       `json:"iterations"`
	Converged        bool      `json:"converged"`
	Objective        float64   `json:"objective"`
	Weights          []float64 `json:"weights"`
	AnalyzeSeconds   float64   `json:"analyze_seconds"`
	FactorSeconds    float64   `json:"factor_seconds"`
	IterationSeconds float64   `json:"iteration_seconds"`
	SolveSeconds     float64   `json:"solve_seconds"`
}

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

func runPose(args []string, stdout io.Writer) error {
	examplePaths, args := splitMulti(args, "examples")
	fs := flag.NewFlagSet("pose", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the reference (rest) mesh, an .obj file")
	consPath := fs.String("constraints", "", "the constraints, a JSON file (see below)")
	spaceName := fs.String("space", "nonlinear", "feature space: nonlinear (Eq. 6) or linear (Section 3.2)")
	out := fs.String("out", "", "write the posed mesh to this .obj file")
	asJSON := fs.Bool("json", false, "print one JSON object with the solve's figures")
	maxIter := fs.Int("max-iterations", 50, "stop after this many Gauss-Newton iterations")
	prior := fs.Float64("prior", 0, "weight k of the ‖w‖ prior (Eq. 5)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop pose --reference REF.obj [--examples FILE|DIR...] --constraints C.json
                   [--space nonlinear|linear] [--out OUT.obj] [--json]

Poses the reference mesh by Mesh-Based Inverse Kinematics (Sumner et al.
2005): the constrained vertices go to their positions and the rest follows the
deformations of the example poses (.obj files with the reference's vertices
and faces, or folders of them). With no examples the reference alone guides
the solve (identity features).

C.json: {"constraints": [{"vertex": 17, "position": [x, y, z]}, ...],
         "frozen_triangles": [3, 4, ...]}
(0-based indices in the reference's order; frozen triangles keep their shape
and are left out of the weight fit, as in the paper's Figure 6C).`)
		fs.PrintDefaults()
	}
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
	ref, err := assets.LoadOBJ(*refPath)
	if err != nil {
		return err
	}
	examples, err := loadExamples(ref, *refPath, examplePaths)
	if err != nil {
		return err
	}
	handles, targets, frozen, err := readConstraints(*consPath, ref)
	if err != nil {
		return err
	}

	s, err := meshik.New(ref.Positions, ref.Triangles, examples, meshik.Options{Space: kind, MaxIterations: *maxIter, Prior: *prior})
	if err != nil {
		return fmt.Errorf("%s: %w", *refPath, err)
	}
	handles, targets = meshik.SortHandles(handles, targets)
	if err := s.SetHandles(handles); err != nil {
		return fmt.Errorf("%s: %w", *consPath, err)
	}
	if err := s.SetTargets(targets); err != nil {
		return fmt.Errorf("%s: %w", *consPath, err)
	}
	if err := s.SetFrozen(frozen); err != nil {
		return fmt.Errorf("%s: %w", *consPath, err)
	}
	start := time.Now()
	if err := s.StartFromLinear(); err != nil {
		return err
	}
	var iterTime time.Duration
	iterStart := time.Now()
	line := newProgress()
	res, solveErr := s.Solve(func(st meshik.Stats) bool {
		iterTime += time.Since(iterStart)
		line.Report("pose: iteration %d, objective %.4g", st.Iteration, st.Objective)
		iterStart = time.Now()
		return true
	})
	line.Done()
	total := time.Since(start)
	if solveErr != nil && !errors.Is(solveErr, meshik.ErrNotConverged) {
		return solveErr
	}
	if *out != "" {
		if err := assets.SaveOBJ(*out, ref, s.Positions()); err != nil {
			return err
		}
	}
	analyze, factor := s.FactorTimes()
	r := poseResult{
		Space: s.Space().String(), Vertices: ref.NumVertices(), Triangles: ref.NumTriangles(),
		Examples: len(examples), Constraints: len(handles), Frozen: len(frozen),
		Iterations: res.Iterations, Converged: res.Converged, Objective: res.Objective,
		Weights: s.Weights(), AnalyzeSeconds: analyze.Seconds(), FactorSeconds: (analyze + factor).Seconds(),
		SolveSeconds: total.Seconds(),
	}
	if res.Iterations > 0 {
		r.IterationSeconds = iterTime.Seconds() / float64(res.Iterations)
	}
	if *asJSON {
		if err := json.NewEncoder(stdout).Encode(r); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s space, %d examples, %d constraints: %d iterations, objective %.6g, weights %.4g\n",
			r.Space, r.Examples, r.Constraints, r.Iterations, r.Objective, r.Weights)
		fmt.Fprintf(stdout, "factorization %.3f s (analysis %.3f s), %.2f ms per iteration\n", r.FactorSeconds, r.AnalyzeSeconds, 1e3*r.IterationSeconds)
	}
	if solveErr != nil {
		return solveErr // reported after the figures: the pose of the last iterate was still written
	}
	return nil
}

// loadExamples reads example poses from .obj files and folders of them and
// checks that each has the reference's vertices and faces.
func loadExamples(ref *assets.Mesh, refPath string, paths []string) ([][]mgl64.Vec3, error) {
	var examples [][]mgl64.Vec3
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if st.IsDir() {
			if files, err = assets.ListOBJSequence(p); err != nil {
				return nil, err
			}
		}
		for _, f := range files {
			m, err := assets.LoadOBJ(f)
			if err != nil {
				return nil, err
			}
			if err := ref.SameTopology(m); err != nil {
				return nil, fmt.Errorf("%s: does not match the reference %s: %w", f, refPath, err)
			}
			examples = append(examples, m.Positions)
		}
	}
	return examples, nil
}

// readConstraints reads and checks a constraints file against the mesh.
func readConstraints(path string, ref *assets.Mesh) (handles []int, targets []mgl64.Vec3, frozen []int, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	var cf constraintsFile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cf); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(cf.Constraints) == 0 {
		return nil, nil, nil, fmt.Errorf("%s: no constraints", path)
	}
	seen := map[int]bool{}
	for i, c := range cf.Constraints {
		if c.Vertex == nil {
			return nil, nil, nil, fmt.Errorf("%s: constraint %d has no vertex", path, i)
		}
		v := *c.Vertex
		if v < 0 || v >= ref.NumVertices() {
			return nil, nil, nil, fmt.Errorf("%s: constraint %d: vertex %d does not exist (the mesh has %d vertices)", path, i, v, ref.NumVertices())
		}
		if seen[v] {
			return nil, nil, nil, fmt.Errorf("%s: constraint %d: vertex %d is constrained twice", path, i, v)
		}
		seen[v] = true
		if len(c.Position) != 3 {
			return nil, nil, nil, fmt.Errorf("%s: constraint %d: position has %d numbers, want 3", path, i, len(c.Position))
		}
		p := mgl64.Vec3{c.Position[0], c.Position[1], c.Position[2]}
		for _, x := range p {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, nil, nil, fmt.Errorf("%s: constraint %d: position %v is not finite", path, i, c.Position)
			}
		}
		handles = append(handles, v)
		targets = append(targets, p)
	}
	for _, j := range cf.FrozenTriangles {
		if j < 0 || j >= ref.NumTriangles() {
			return nil, nil, nil, fmt.Errorf("%s: frozen triangle %d does not exist (the mesh has %d triangles)", path, j, ref.NumTriangles())
		}
	}
	return handles, targets, cf.FrozenTriangles, nil
}
