package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/solver/decimate"
	"gallop/solver/farthest"
	"gallop/solver/meshik"
	"gallop/tools/pose"
)

// poseCase is one of the Pose tool's speed figures (issue: ten times the
// paper's Table 1 on the same sizes): a mesh, its examples, and the pose
// whose positions at the handles are the targets.
type poseCase struct {
	name     string
	ref      *assets.Mesh
	examples [][]assets.Vec3
	target   []assets.Vec3
	// turning: also time a drag of handles that turn (turningDrag).
	turning bool
}

// loadPoseSet reads set/reference.obj and its frames 1..n (named by the
// pattern, such as "%d.obj") from the data folder, each checked against
// the reference.
func loadPoseSet(data, set, pattern string, n int) (*assets.Mesh, [][]assets.Vec3, error) {
	dir := filepath.Join(data, set)
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		return nil, nil, err
	}
	var poses [][]assets.Vec3
	for f := 1; f <= n; f++ {
		m, err := assets.LoadOBJ(filepath.Join(dir, "frames", fmt.Sprintf(pattern, f)))
		if err != nil {
			return nil, nil, err
		}
		if err := ref.SameTopology(m); err != nil {
			return nil, nil, fmt.Errorf("%s frame %d: %w", set, f, err)
		}
		poses = append(poses, m.Positions)
	}
	return ref, poses, nil
}

// subdivided returns a mesh subdivided by midpoints times times, with
// the poses carried along.
func subdivided(ref *assets.Mesh, poses [][]assets.Vec3, times int) (*assets.Mesh, [][]assets.Vec3) {
	out := slices.Clone(poses)
	for range times {
		for i, p := range out {
			out[i] = assets.SubdivideMidpointPositions(ref, p)
		}
		ref = assets.SubdivideMidpoint(ref)
	}
	return ref, out
}

// poseCases loads the lion with its 9 poses as examples (targets from pose
// 5), the horse with poses 1-4 (targets from pose 5), the horse
// subdivided once by midpoints with the same poses, and horse-gallop with
// frames 1-47, a whole capture (targets from frame 48).
func poseCases(data string) ([]poseCase, error) {
	lion, lionPoses, err := loadPoseSet(data, "lion-poses", "%d.obj", 9)
	if err != nil {
		return nil, err
	}
	horse, horsePoses, err := loadPoseSet(data, "horse-poses", "%d.obj", 5)
	if err != nil {
		return nil, err
	}
	sub, subPoses := subdivided(horse, horsePoses, 1)
	gallop, gallopFrames, err := loadPoseSet(data, "horse-gallop", "%04d.obj", 48)
	if err != nil {
		return nil, err
	}
	return []poseCase{
		{"lion", lion, lionPoses, lionPoses[4], false},
		{"horse", horse, horsePoses[:4], horsePoses[4], false},
		{"horse_subdivided", sub, subPoses[:4], subPoses[4], false},
		{"horse_gallop_47", gallop, gallopFrames[:47], gallopFrames[47], true},
	}, nil
}

// poseRun is one timed run of a case.
type poseRun struct {
	analyzeFactor time.Duration // symbolic analysis + numeric factorization of the first handle set
	newHandles    time.Duration // a second, different handle set (numeric refactorization)
	iteration     time.Duration // mean Gauss-Newton iteration of a solve to the targets (the paper's: meshik.Options.Exact)
	iterations    int
	update        time.Duration // mean iteration of a drag, as the Pose tool solves one (the weight system reused)
	// The two-level drag (meshik.Coarse), from meshik.CoarseAbove
	// vertices: building its coarse level, an update (one coarse
	// iteration and the full mesh placed), and how far the settled
	// preview is from the full solve that finishes it (rms and max over
	// the vertices, of the bounding box's diagonal).
	coarseBuild            time.Duration
	coarseUpdate           time.Duration
	previewRMS, previewMax float64
}

// dragSteps and dragIterations are the simulated drag of poseCase.run:
// the handles moved in dragSteps steps, dragIterations iterations each
// (about what the window gets between two mouse moves).
const (
	dragSteps      = 10
	dragIterations = 2
)

// run builds the solver as the Pose tool does on loading the examples,
// makes 10 well-spread handles (farthest-point sampling from vertex 0),
// solves from the reference to the targets, then switches to a handle set
// of 7. Solves start from the space's neutral weights, as after
// ResetWeights (meshik's BenchmarkIteration measures the same).
func (c *poseCase) run() (poseRun, error) {
	var r poseRun
	s, err := meshik.New(c.ref.Positions, c.ref.Triangles, c.examples, meshik.Options{Exact: true})
	if err != nil {
		return r, err
	}
	handles := farthest.Points(c.ref.Positions, 10, 0)
	if err := s.SetHandles(handles); err != nil {
		return r, err
	}
	analyze, factor := s.FactorTimes()
	r.analyzeFactor = analyze + factor
	sorted := s.Handles()
	targets := make([]assets.Vec3, len(sorted))
	for i, v := range sorted {
		targets[i] = c.target[v]
	}
	if err := s.SetTargets(targets); err != nil {
		return r, err
	}
	// The first solve warms the solver's memory, as the first moments of a
	// drag do in the Pose tool; the second, from the reference again, is
	// timed.
	if _, err := s.Solve(nil); err != nil {
		return r, err
	}
	if err := s.SetPositions(c.ref.Positions); err != nil {
		return r, err
	}
	s.ResetWeights()
	start := time.Now()
	res, err := s.Solve(nil)
	if err != nil {
		return r, err
	}
	r.iterations = res.Iterations
	r.iteration = time.Since(start) / time.Duration(max(1, res.Iterations))

	from := s.Positions()
	// A drag from the target pose back toward the reference, as the
	// Pose tool solves one: each new position of the handles gets
	// dragIterations iterations, reusing the weight system.
	s.SetExact(false)
	n := 0
	start = time.Now()
	for step := 1; step <= dragSteps; step++ {
		a := float64(step) / dragSteps
		for i, v := range sorted {
			targets[i] = from[v].Mul(1 - a).Add(c.ref.Positions[v].Mul(a))
		}
		if err := s.SetTargets(targets); err != nil {
			return r, err
		}
		for range dragIterations {
			if _, err := s.Iterate(); err != nil {
				return r, err
			}
			n++
		}
	}
	r.update = time.Since(start) / time.Duration(n)
	if len(c.ref.Positions) >= meshik.CoarseAbove {
		// The same drag back, through the coarse level.
		if err := c.twoLevel(s, &r, sorted, s.Positions(), from); err != nil {
			return r, err
		}
	}
	start = time.Now()
	if err := s.SetHandles(handles[:7]); err != nil {
		return r, err
	}
	r.newHandles = time.Since(start)
	return r, nil
}

// twoLevel measures a drag through a coarse level (the Pose tool's from
// meshik.CoarseAbove vertices), the handles moved from their positions in
// pose a to those in pose b in dragSteps steps: one update per position,
// then updates until the coarse solve settles, then the full solve that
// finishes it.
func (c *poseCase) twoLevel(s *meshik.Solver, r *poseRun, sorted []int, a, b []assets.Vec3) error {
	start := time.Now()
	simp, err := decimate.Simplify(c.ref.Positions, c.ref.Triangles, meshik.CoarseVertices)
	if err != nil {
		return err
	}
	co, err := meshik.NewCoarse(context.Background(), simp, c.ref.Positions, c.ref.Triangles, c.examples, meshik.Options{})
	if err != nil {
		return err
	}
	r.coarseBuild = time.Since(start)
	if err := co.Sync(s, nil, c.ref.Triangles); err != nil {
		return err
	}
	targets := make([]assets.Vec3, len(sorted))
	start = time.Now()
	for step := 1; step <= dragSteps; step++ {
		t := float64(step) / dragSteps
		for i, v := range sorted {
			targets[i] = a[v].Mul(1 - t).Add(b[v].Mul(t))
		}
		if err := s.SetTargets(targets); err != nil {
			return err
		}
		if _, err := co.Step(s); err != nil {
			return err
		}
	}
	r.coarseUpdate = time.Since(start) / dragSteps
	for range 50 {
		st, err := co.Step(s)
		if err != nil {
			return err
		}
		if st.Converged {
			break
		}
	}
	preview := s.Positions()
	if _, err := s.Solve(nil); err != nil {
		return err
	}
	lo, hi := assets.Bounds(preview)
	diag := hi.Sub(lo).Len()
	sq := 0.0
	for v, q := range s.Positions() {
		d := q.Sub(preview[v]).Len() / diag
		sq += d * d
		r.previewMax = max(r.previewMax, d)
	}
	r.previewRMS = math.Sqrt(sq / float64(len(preview)))
	return nil
}

// turningDrag drags handles that turn with the pose (meshik's
// SetRotating, the Pose tool's default for a handle of several vertices):
// from the target pose, a hoof (the 60 vertices nearest its lowest) held
// and the muzzle (the 30 nearest its foremost) moved by a tenth of the
// diagonal in dragSteps steps, each solved until it converges (at most
// 200 iterations, the Pose tool's cap). It returns the iterations of the
// whole drag and the mean time per position.
func (c *poseCase) turningDrag() (int, time.Duration, error) {
	s, err := meshik.New(c.ref.Positions, c.ref.Triangles, c.examples, meshik.Options{})
	if err != nil {
		return 0, 0, err
	}
	pos := c.target
	low, front := 0, 0
	for v, p := range pos {
		if p[1] < pos[low][1] {
			low = v
		}
		if p[0] > pos[front][0] {
			front = v
		}
	}
	hoof, muzzle := nearestVertices(pos, low, 60), nearestVertices(pos, front, 30)
	if err := s.SetPositions(pos); err != nil {
		return 0, 0, err
	}
	if err := s.SetHandles(append(slices.Clone(hoof), muzzle...)); err != nil {
		return 0, 0, err
	}
	s.FitWeights()
	if err := s.SetRotating([][]int{hoof, muzzle}); err != nil {
		return 0, 0, err
	}
	lo, hi := assets.Bounds(pos)
	push := assets.Vec3{0.1, 0.05, 0}.Mul(hi.Sub(lo).Len())
	iters := 0
	start := time.Now()
	for step := 1; step <= dragSteps; step++ {
		targets := make([]assets.Vec3, 0, len(hoof)+len(muzzle))
		for _, v := range s.Handles() {
			p := pos[v]
			if slices.Contains(muzzle, v) {
				p = p.Add(push.Mul(float64(step) / dragSteps))
			}
			targets = append(targets, p)
		}
		if err := s.SetTargets(targets); err != nil {
			return 0, 0, err
		}
		for n := 1; ; n++ {
			st, err := s.Iterate()
			if err != nil {
				return 0, 0, err
			}
			iters++
			if st.Converged {
				break
			}
			if n == 200 {
				return 0, 0, fmt.Errorf("position %d did not converge in %d iterations", step, n)
			}
		}
	}
	return iters, time.Since(start) / dragSteps, nil
}

// nearestVertices returns the k vertices nearest to vertex c (c first).
func nearestVertices(pos []assets.Vec3, c, k int) []int {
	vs := make([]int, len(pos))
	for i := range vs {
		vs[i] = i
	}
	slices.SortStableFunc(vs, func(a, b int) int { return cmp.Compare(pos[a].Sub(pos[c]).LenSqr(), pos[b].Sub(pos[c]).LenSqr()) })
	return vs[:min(k, len(vs))]
}

// benchPose prints the Pose tool's figures, each the median of runs.
func benchPose(stdout io.Writer, data string, runs int) error {
	cases, err := poseCases(data)
	if err != nil {
		return fmt.Errorf("pose benchmark: %w", err)
	}
	for _, c := range cases {
		if err := c.emit(stdout, runs); err != nil {
			return err
		}
	}
	return nil
}

// emit runs the case runs times and prints the medians of its figures.
func (c *poseCase) emit(stdout io.Writer, runs int) error {
	rs := make([]poseRun, runs)
	for i := range rs {
		// The previous run's solver is garbage: collect it now, not
		// concurrently with the timed solve (a drag in the Pose tool
		// does not follow a solver's worth of garbage either).
		runtime.GC()
		var err error
		if rs[i], err = c.run(); err != nil {
			return fmt.Errorf("pose benchmark %s: %w", c.name, err)
		}
	}
	med := func(f func(poseRun) time.Duration) float64 {
		ts := make([]time.Duration, runs)
		for i, r := range rs {
			ts[i] = f(r)
		}
		slices.Sort(ts)
		return ts[runs/2].Seconds() * 1e3
	}
	figure.Write(stdout, "pose_"+c.name+"_iteration", med(func(r poseRun) time.Duration { return r.iteration }), "ms")
	upd := med(func(r poseRun) time.Duration { return r.update })
	figure.Write(stdout, "pose_"+c.name+"_drag_update", upd, "ms")
	figure.Write(stdout, "pose_"+c.name+"_drag_updates_per_s", 1e3/upd, "solver updates per second while dragging")
	if rs[0].coarseUpdate > 0 {
		cu := med(func(r poseRun) time.Duration { return r.coarseUpdate })
		figure.Write(stdout, "pose_"+c.name+"_two_level_update", cu, "ms: a drag update through the coarse level (one coarse iteration, the full mesh placed)")
		figure.Write(stdout, "pose_"+c.name+"_two_level_updates_per_s", 1e3/cu, "solver updates per second while dragging, through the coarse level")
		figure.Write(stdout, "pose_"+c.name+"_two_level_build", med(func(r poseRun) time.Duration { return r.coarseBuild })/1e3, "s: the mesh simplified and its solver built")
		figure.Write(stdout, "pose_"+c.name+"_preview_rms", rs[0].previewRMS, "of the diagonal: the settled preview from the full solve, rms over the vertices")
		figure.Write(stdout, "pose_"+c.name+"_preview_max", rs[0].previewMax, "of the diagonal: the same, the farthest vertex")
	}
	if c.turning {
		iters, perPosition, err := c.turningDrag()
		if err != nil {
			return fmt.Errorf("pose benchmark %s, the drag of turning handles: %w", c.name, err)
		}
		figure.Write(stdout, "pose_"+c.name+"_turning_drag_iterations", float64(iters), fmt.Sprintf("iterations: a drag of handles that turn, %d positions each solved to convergence", dragSteps))
		figure.Write(stdout, "pose_"+c.name+"_turning_drag_position", perPosition.Seconds()*1e3, "ms: the same, per position")
	}
	figure.Write(stdout, "pose_"+c.name+"_analyze_factor", med(func(r poseRun) time.Duration { return r.analyzeFactor }), "ms")
	figure.Write(stdout, "pose_"+c.name+"_new_handle_set", med(func(r poseRun) time.Duration { return r.newHandles }), "ms")
	return nil
}

// benchPoseScale prints the Pose tool's figures at production size: the
// horse subdivided twice (134,782 vertices) with poses 1-4 as examples,
// as benchPose measures its other cases (the median of runs); and
// horse-gallop subdivided twice with frames 1-47 as examples (a whole
// capture), run as `gallop pose` in its own process on the frames written
// to dir (writeDenseHorse) for its peak resident memory, with 10
// farthest-point vertices constrained to frame 48: the time to prepare
// the examples (compress them, analyse GᵀG), the factorization and an
// iteration.
func benchPoseScale(stdout io.Writer, data, dir string, runs int) error {
	horse, horsePoses, err := loadPoseSet(data, "horse-poses", "%d.obj", 5)
	if err != nil {
		return err
	}
	sub, subPoses := subdivided(horse, horsePoses, 2)
	c := poseCase{"horse_x16", sub, subPoses[:4], subPoses[4], false}
	if err := c.emit(stdout, runs); err != nil {
		return err
	}

	target, err := assets.LoadOBJ(filepath.Join(dir, "frames", "0048.obj"))
	if err != nil {
		return err
	}
	cons := filepath.Join(dir, "constraints.json")
	if err := pose.WriteConstraints(cons, farthest.Points(target.Positions, 10, 0), target.Positions); err != nil {
		return err
	}
	args := []string{"pose", "--reference", filepath.Join(dir, "reference.obj"), "--constraints", cons, "--json", "--examples"}
	for f := 1; f <= 47; f++ {
		args = append(args, filepath.Join(dir, "frames", fmt.Sprintf("%04d.obj", f)))
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("gallop pose on horse-gallop subdivided twice: %w", err)
	}
	var r pose.SolveReport
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return fmt.Errorf("gallop pose on horse-gallop subdivided twice: %w: %s", err, out.String())
	}
	const name = "pose_horse_gallop_x16_47"
	figure.Write(stdout, name+"_prepare", r.PrepareSeconds, "s: 47 examples compressed, GᵀG analysed")
	figure.Write(stdout, name+"_components", float64(r.Components), "principal components kept")
	figure.Write(stdout, name+"_factor", 1e3*(r.FactorSeconds-r.AnalyzeSeconds), "ms: the numeric factorization of a handle set")
	figure.Write(stdout, name+"_cli_analyze_factor", 1e3*r.FactorSeconds, "ms: gallop pose's symbolic analysis and numeric factorization")
	figure.Write(stdout, name+"_solve_iteration", 1e3*r.IterationSeconds, "ms: mean iteration of gallop pose's solve (the weight system reused)")
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		figure.Write(stdout, name+"_peak_gb", float64(ru.Maxrss)/(1<<20), "GB resident at most")
	}
	// One Gauss-Newton iteration as the paper takes it (the weight
	// system formed anew), in this process, on the same frames.
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		return err
	}
	var frames [][]assets.Vec3
	for f := 1; f <= 47; f++ {
		m, err := assets.LoadOBJ(filepath.Join(dir, "frames", fmt.Sprintf("%04d.obj", f)))
		if err != nil {
			return err
		}
		frames = append(frames, m.Positions)
	}
	g := poseCase{"horse_gallop_x16_47", ref, frames, target.Positions, false}
	return g.emit(stdout, 1)
}
