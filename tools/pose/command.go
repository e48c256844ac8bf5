package pose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/meshik"
)

// constraintsFile is the format of `gallop pose --constraints`:
//
//	{"constraints": [{"vertex": 17, "position": [x, y, z]}, ...],
//	 "frozen_triangles": [3, 4, ...]}
//
// with 0-based indices in the reference's order.
type constraintsFile struct {
	Constraints []struct {
		Vertex   *int      `json:"vertex"`
		Position []float64 `json:"position"`
	} `json:"constraints"`
	FrozenTriangles []int `json:"frozen_triangles"`
}

// SolveReport is what `gallop pose` reports (with --json, as one JSON
// object).
type SolveReport struct {
	Space       string    `json:"space"`
	Vertices    int       `json:"vertices"`
	Triangles   int       `json:"triangles"`
	Examples    int       `json:"examples"`
	Constraints int       `json:"constraints"`
	Frozen      int       `json:"frozen_triangles"`
	Iterations  int       `json:"iterations"`
	Converged   bool      `json:"converged"`
	Objective   float64   `json:"objective"`
	Weights     []float64 `json:"weights"` // one per example: the blend the solve found
	// Components is how many principal components of the examples the
	// feature space kept, VarianceKept the fraction of their variation
	// those hold, Prior the k of Eq. 5 in use (see meshik.Options).
	Components       int     `json:"components"`
	VarianceKept     float64 `json:"variance_kept"`
	Prior            float64 `json:"prior"`
	PrepareSeconds   float64 `json:"prepare_seconds"` // the examples compressed and GᵀG analysed (meshik.New)
	AnalyzeSeconds   float64 `json:"analyze_seconds"`
	FactorSeconds    float64 `json:"factor_seconds"`
	IterationSeconds float64 `json:"iteration_seconds"`
	SolveSeconds     float64 `json:"solve_seconds"`
}

// SolveCommand is the work of `gallop pose`: a reference mesh posed by
// Mesh-Based IK to the positions of a constraints file, following example
// poses, and written.
type SolveCommand struct {
	Reference   string   // the reference (rest) mesh, an OBJ file
	Examples    []string // example poses: OBJ files and folders of them
	Constraints string   // the constraints file (constraintsFile)
	Options     meshik.Options
	Out         string // the posed mesh's OBJ file; "" for none
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style), after every iteration.
	Status func(format string, args ...any)
}

// Run solves and writes the pose and reports on the solve. A solve that
// did not converge still writes the pose of its last iterate and reports:
// its error (meshik.ErrNotConverged) comes with the report.
func (c *SolveCommand) Run() (*SolveReport, error) {
	ref, err := assets.LoadOBJ(c.Reference)
	if err != nil {
		return nil, err
	}
	examples, err := LoadExamples(ref, c.Reference, c.Examples)
	if err != nil {
		return nil, err
	}
	handles, targets, frozen, err := ReadConstraints(c.Constraints, ref)
	if err != nil {
		return nil, err
	}
	prepStart := time.Now()
	s, err := meshik.New(ref.Positions, ref.Triangles, examples, c.Options)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Reference, err)
	}
	prepare := time.Since(prepStart)
	handles, targets = meshik.SortHandles(handles, targets)
	if err := s.SetHandles(handles); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Constraints, err)
	}
	if err := s.SetTargets(targets); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Constraints, err)
	}
	if err := s.SetFrozen(frozen); err != nil {
		return nil, fmt.Errorf("%s: %w", c.Constraints, err)
	}
	start := time.Now()
	if err := s.StartFromLinear(); err != nil {
		return nil, err
	}
	var iterTime time.Duration
	iterStart := time.Now()
	res, solveErr := s.Solve(func(st meshik.Stats) bool {
		iterTime += time.Since(iterStart)
		if c.Status != nil {
			c.Status("pose: iteration %d, objective %.4g", st.Iteration, st.Objective)
		}
		iterStart = time.Now()
		return true
	})
	total := time.Since(start)
	if solveErr != nil && !errors.Is(solveErr, meshik.ErrNotConverged) {
		return nil, solveErr
	}
	if c.Out != "" {
		if err := assets.SaveOBJ(c.Out, ref, s.Positions()); err != nil {
			return nil, err
		}
	}
	analyze, factor := s.FactorTimes()
	r := &SolveReport{
		Space: s.Space().String(), Vertices: ref.NumVertices(), Triangles: ref.NumTriangles(),
		Examples: len(examples), Constraints: len(handles), Frozen: len(frozen),
		Iterations: res.Iterations, Converged: res.Converged, Objective: res.Objective,
		Weights: s.ExampleWeights(), PrepareSeconds: prepare.Seconds(), AnalyzeSeconds: analyze.Seconds(), FactorSeconds: (analyze + factor).Seconds(),
		SolveSeconds: total.Seconds(),
	}
	ci := s.Compression()
	r.Components, r.VarianceKept, r.Prior = ci.Components, ci.Kept, ci.Prior
	if res.Iterations > 0 {
		r.IterationSeconds = iterTime.Seconds() / float64(res.Iterations)
	}
	return r, solveErr
}

// LoadExamples reads example poses from OBJ files and folders of them and
// checks that each has the vertices and faces of the reference ref, read
// from refPath.
func LoadExamples(ref *assets.Mesh, refPath string, paths []string) ([][]mgl64.Vec3, error) {
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

// WriteConstraints writes a constraints file (the format of `gallop pose
// --constraints`) putting the given vertices at their positions in pose.
func WriteConstraints(path string, vertices []int, pose []assets.Vec3) error {
	var cf constraintsFile
	for _, v := range vertices {
		p := pose[v]
		cf.Constraints = append(cf.Constraints, struct {
			Vertex   *int      `json:"vertex"`
			Position []float64 `json:"position"`
		}{&v, []float64{p[0], p[1], p[2]}})
	}
	b, err := json.Marshal(cf)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ReadConstraints reads a constraints file (the format of `gallop pose
// --constraints`) and checks it against the mesh ref: the constrained
// vertices, each once, with their targets, and the frozen triangles.
func ReadConstraints(path string, ref *assets.Mesh) (handles []int, targets []mgl64.Vec3, frozen []int, err error) {
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
