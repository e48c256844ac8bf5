package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/viewport"
)

const benchUsage = `Usage: gallop bench [options]

Prints one JSON object per line, {"name": ..., "value": ..., "unit": ...}:
  load_horse_gallop             loading horse-gallop's 48 OBJ frames (median)
  export_horse_gallop_glb       exporting it as a morph-target .glb (median)
  pick_horse_mean, pick_horse_max  one viewport pick on the horse (BVH ray cast)
  pose_lion_*, pose_horse_*, pose_horse_subdivided_*, pose_horse_gallop_47_*
                                Mesh-Based IK (median): _iteration, the mean
                                Gauss-Newton iteration of a solve to pose 5's
                                positions at 10 handles (lion: 9 examples;
                                horse and the horse subdivided once: 4;
                                horse-gallop: frames 1-47, to frame 48);
                                _drag_update, an iteration of a drag;
                                _analyze_factor, symbolic analysis and first
                                factorization; _new_handle_set, switching to
                                another handle set; horse-gallop also
                                _turning_drag_iterations and _position, a
                                hoof held and the muzzle dragged, both
                                turning with the pose, 10 positions each
                                solved to convergence
  sample_ball2d_chains_reaching, sample_ball2d_median_first
                                2D ball, 20 chains of 1,000 iterations (seeds
                                1-20): chains within 0.1 D of the target, and
                                the median chain's first iteration there
  sample_ball2d_1000_iterations one chain of 1,000 iterations (median)
  sample_spell_hi_iterations_per_core
                                "HI" (7 x 5 bins, 10 balls): iterations per
                                second of one chain on one core
  sample_spell_hi_median_first[_seconds]
                                "HI": median over seeds 1-5 of the first
                                iteration with all ten balls in place, and
                                of the seconds to it (two chains at a time)
  sample_spell_hi_simulate, sample_bowling_simulate, sample_dice_simulate
                                one simulation (median over 20 prior draws)
  sample_bowling_strike_median_first[_seconds], sample_dice_median_first[_seconds]
                                iterations and seconds to the first strike,
                                and to the first die at rest on the target
                                with face 6 up (median of seeds 1-3)
  rig_<set>_<B>_seconds, rig_<set>_<B>_rmse, rig_<set>_<B>_rmse_relative,
  rig_<set>_<B>_iterations      SSDR with the default options (Dem Bones',
                                then 5 rounds without translation affinity),
                                at most 8 influences, set horse_gallop or
                                pcow (rest: reference.obj), B = 10, 20, 30
                                bones: the
                                decomposition's wall time (median of --runs,
                                at least 3), RMSE, RMSE over the bounding-box
                                diagonal, rounds run
  rig_<set>_<B>_k4_rmse, rig_<set>_<B>_k4_rmse_relative
                                the same with at most 4 influences
  dynamics_step_<mesh>_ms, _ns_per_vertex, _vertices
                                one dynamic-skinning step (median of --runs
                                passes over the animation), mesh tube (2,282
                                vertices, 3 bones), horse (8,431; 20 SSDR
                                bones from horse-gallop) or horse_subdivided
                                (33,705; the same rig), after a first pass
  dynamics_step_<mesh>_first_pass_ns_per_vertex
                                that first pass, whose steps also put each
                                goal frame in the model's vertex order
  dynamics_start_<mesh>_ms      putting the mesh on the first frame (each
                                ring's polar decomposition), once per pass,
                                not counted in the step
  dynamics_fit_tube_<model>_seconds, _iterations, _iteration_seconds,
  _train_ratio, _test_ratio     the fit on dynskin-tube train (one run),
                                model kappa (five parameters) or paper
                                (four), and the fitted simulation's RMSE over
                                plain skinning's on train and on test
  synth_pcow_ssdr_seconds, synth_pcow_analysis_seconds
                                One-to-Many on pcow (20 SSDR bones): the rig,
                                then the transitions and graph
  synth_pcow_1000_clips_seconds 1,000 clips of 10 s (300 frames) on every
                                core, bone motion only (median of up to 3)
  synth_pcow_clip_ms            one such clip on one core (median of 50)
  synth_<set>_<blend>_mean_splice_ratio, _splices_over_1_5, _edge_ratio,
  _mean_strain                  quality of 100 clips (seeds 1-100), set pcow
                                or horse_gallop, each blend of synth.Blends
  synth_<set>_forced_<bin>_<blend>_strain, _volume, _accel
                                the blend comparison: splices forced between
                                every other pair of frames whose bones lie
                                a mean 0-20, 20-40 or 40+ degrees apart
                                (bin 0, 20, 40), the mean excess edge strain,
                                volume change and acceleration ratio per
                                blend (crossfade_vertex: the per-vertex
                                crossfade, bones left affine;
                                gradient_affine: the gradient blend without
                                the rigid projection)
  synth_horse_gallop_clip_ms, synth_horse_gallop_subdivided_clip_ms,
  synth_resolution_ratio        one clip on horse-gallop and on it subdivided
                                once (the same bones, weights carried over)
  synth_horse_gallop_x16_command_seconds, _peak_gb, _ssdr_seconds,
  _synthesis_seconds, _vertices gallop synth DIR --count 1000 --seconds 10
                                --seed 1 --json (its own process) on
                                horse-gallop's frames subdivided twice
  ensemble_banner_load_seconds, ensemble_banner_model_seconds,
  ensemble_banner_total_rank    ensemble-banner's three levels read, and its
                                model (frames and PCA bases) fitted
  ensemble_banner_build_seconds, _transitions, _seconds_per_transition,
  _intervals_served, _t_cd_seconds, _n_local, _contacts, _ok, _cull,
  _timeout, _phi_over_sync      the motion graph (seed 1, the defaults): its
                                build on both cores and Table I's figures
  ensemble_banner_interpenetrations_unconstrained, _after
                                new interpenetrating pairs per transition at
                                the unconstrained minimum of Φ, and over all
                                accepted transitions (the solver's oracle)
  ensemble_banner_player_ms_per_frame
                                the player on one core (median of a minute's
                                mean)
  ensemble_banner_10min_max_step_ratio, _data
                                ten minutes, the wind changing every 20 s: the
                                largest step against the sources' and the data's
  ensemble_banner_minute_compact_mb, _plain_mb
                                a minute as the compact glTF and as the plain
                                per-frame morph export
  viewport_fps_idle, viewport_fps_busy, viewport_longest_frame_idle,
  viewport_longest_frame_busy   the window showing horse-gallop at 1280x800
                                (playing, camera turning), alone and while a
                                job reloads horse-gallop on both cores
  viewport_busy_cpu, viewport_busy_job_loads
                                CPU cores the process used in the busy phase,
                                and the job's reloads per second meanwhile

With --scale, the chain in the window (issue 32) on horse-gallop
subdivided twice (134,782 vertices, 269,488 triangles, 48 frames), step
by step: load, rig (20 bones), apply, play, pose_prepare, pose_handle,
pose_drag, dynamics (a Jelly stroke, bake), synth (analyse, 4
variations), export (skinned glTF); $GALLOP_BENCH_HEAP=DIR writes a heap
profile of each step there (STEP-peak.pb.gz, STEP-end.pb.gz):
  chain_vertices, chain_triangles, chain_frames
  chain_<step>_seconds, chain_<step>_peak_gb, chain_<step>_resident_gb
                                the step's wall time, the window process's
                                peak resident memory during it (VmHWM), and
                                what stays resident after it (once the heap's
                                free memory is returned to the system)
  chain_peak_gb                 the peak over the whole chain (budget: 4 GB)
  chain_dynamics_painted_vertices, chain_export_mb
                                the vertices the stroke painted; the file size
  frame_x16_cpu_median_ms, frame_x16_cpu_p95_ms
                                Gallop's own work per frame (budget: 10 ms)
                                while the rigged clip plays and the camera
                                turns, in CPU time of the UI thread: the
                                frame less the OpenGL draw calls (a GPU's
                                work, done here by Mesa's llvmpipe), median
                                and 95th percentile over frame_x16_frames
  frame_x16_<part>_median_ms, frame_x16_<part>_p95_ms
                                by part: deform (the positions and colours
                                shown), normals, upload (to OpenGL), panels
                                (the rest: jobs, tools, panels, overlays) and
                                draw (the draw calls, not in cpu)
  frame_x16_loadavg             the machine's load average meanwhile
  pose_x16_prepare_s, pose_x16_first_update_s, pose_x16_drag_first_update_s,
  pose_x16_updates_per_s, pose_x16_updates_per_s_10s,
  pose_x16_drag_longest_wait_s, pose_x16_leave_s
                                the Pose tool with the 48 frames as examples:
                                from Add all frames to the solver prepared,
                                from Make handle (a few vertices at the top of
                                the head) to the solver's first update, from a
                                drag's start (right after Make handle) to its
                                first update, the updates per second while
                                dragging over 3 s and over 10 s from that
                                update, the longest wait between two updates
                                in those 10 s, and from leaving the tool to
                                its solver's end`

func runBench(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	data := fs.String("data", defaultDataDir(), "the shared data folder (horse-gallop etc.)")
	runs := fs.Int("runs", 5, "repetitions per timed figure; the median is reported")
	gui := fs.Bool("viewport", true, "also measure the viewport (needs a display: $DISPLAY, e.g. Xvfb)")
	pose := fs.Bool("pose", true, "also measure the Pose tool's solver (lion-poses, horse-poses)")
	sampling := fs.Bool("sample", true, "also measure the Gallery's samplers (2D ball, \"HI\")")
	rigging := fs.Bool("rig", true, "also measure rigging from animation (SSDR on horse-gallop and pcow)")
	dyn := fs.Bool("dynamics", true, "also measure dynamic skinning (steps on the tube and the horse, fits on dynskin-tube)")
	syn := fs.Bool("synth", true, "also measure One-to-Many synthesis (pcow, horse-gallop)")
	ens := fs.Bool("ensemble", true, "also measure mesh ensemble motion graphs (ensemble-banner)")
	scale := fs.Bool("scale", false, "also run the chain in the window on horse-gallop subdivided twice (134,782 vertices; several minutes; needs a display)")
	fs.Usage = usageOf(fs, benchUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if *runs < 1 {
		return fmt.Errorf("--runs %d: want at least 1", *runs)
	}
	frames := filepath.Join(*data, "horse-gallop", "frames")
	if _, err := os.Stat(frames); err != nil {
		return fmt.Errorf("horse-gallop not found (%v); pass --data DIR", err)
	}

	if err := benchHorse(stdout, frames, *runs); err != nil {
		return err
	}
	sections := []struct {
		on  bool
		run func(w io.Writer, data string, runs int) error
	}{
		{*pose, benchPose},
		{*sampling, func(w io.Writer, _ string, runs int) error { return benchSample(w, runs) }},
		{*rigging, benchRig},
		{*dyn, benchDynamics},
		{*syn, benchSynth},
		{*ens, benchEnsemble},
	}
	for _, sec := range sections {
		if !sec.on {
			continue
		}
		if err := sec.run(stdout, *data, *runs); err != nil {
			return err
		}
	}
	display := os.Getenv("DISPLAY") != ""
	if *gui && !display {
		fmt.Fprintln(os.Stderr, "gallop bench: no $DISPLAY, viewport figures skipped (run under Xvfb: make bench)")
	}
	if *gui && display {
		if err := windowBench(stdout, "--bench-viewport", "--size", "1280x800", frames); err != nil {
			return fmt.Errorf("viewport benchmark: %w", err)
		}
	}
	if !*scale {
		return nil
	}
	if !display {
		return errors.New("--scale runs the window: it needs a display ($DISPLAY, e.g. Xvfb)")
	}
	return benchScale(stdout, *data, *runs)
}

// benchScale prints the figures of issue 32 at production size, on
// horse-gallop subdivided twice (writeDenseHorse): the Pose solver's
// (benchPoseScale), then the chain opened in the window, which rigs,
// poses, simulates, synthesises and exports it and prints its figures
// (see app's chainBench), relayed here.
func benchScale(stdout io.Writer, data string, runs int) error {
	dir, err := writeDenseHorse(data)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := benchPoseScale(stdout, data, dir, runs); err != nil {
		return fmt.Errorf("pose benchmark at scale: %w", err)
	}
	if err := windowBench(stdout, "--bench-chain", filepath.Join(dir, "frames"), "--size", "1280x800"); err != nil {
		return fmt.Errorf("chain benchmark: %w", err)
	}
	return nil
}

// benchHorse prints the figures of horse-gallop's frames (the folder
// frames): loading them, exporting them as a morph-target .glb (the
// median of runs each) and picking on the first frame.
func benchHorse(stdout io.Writer, frames string, runs int) error {
	var obj *assets.Object
	t, err := median(runs, func() error {
		objs, err := assets.Import(context.Background(), []string{frames}, nil)
		if err == nil {
			obj = objs[0]
		}
		return err
	})
	if err != nil {
		return err
	}
	figure.Write(stdout, "load_horse_gallop", t.Seconds(), "s")

	tmp, err := os.MkdirTemp("", "gallop-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "horse-gallop.glb")
	t, err = median(runs, func() error { return assets.SaveGLTF(out, obj, assets.ExportOptions{Mode: assets.ExportMorph}) })
	if err != nil {
		return err
	}
	figure.Write(stdout, "export_horse_gallop_glb", t.Seconds(), "s")

	mean, worst := benchPick(obj)
	figure.Write(stdout, "pick_horse_mean", mean.Seconds()*1e3, "ms")
	figure.Write(stdout, "pick_horse_max", worst.Seconds()*1e3, "ms")
	return nil
}

// median runs f n times and returns the median wall time.
func median(n int, f func() error) (time.Duration, error) {
	ts := make([]time.Duration, n)
	for i := range ts {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		ts[i] = time.Since(start)
	}
	slices.Sort(ts)
	return ts[n/2], nil
}

// benchPick times viewport picks on the first frame of o with the camera
// framing it at 1280x800: 1000 clicks at random pixels of the central half,
// the BVH built beforehand as it is after the first click.
func benchPick(o *assets.Object) (mean, worst time.Duration) {
	v := viewport.NewView()
	v.Width, v.Height = 1280, 800
	pos := o.PositionsAt(0)
	v.SetMesh(pos, o.Mesh.Triangles)
	v.FramePoints(pos)
	v.PickVertex(640, 400)
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1000
	var total time.Duration
	for i := 0; i < n; i++ {
		x, y := 320+rng.Float64()*640, 200+rng.Float64()*400
		start := time.Now()
		v.PickVertex(x, y)
		d := time.Since(start)
		total += d
		worst = max(worst, d)
	}
	return total / n, worst
}

// windowBench runs the window's own benchmark in a child process (the
// window must own the main thread), this executable with args, and
// relays its figures (the JSON lines of its output).
func windowBench(stdout io.Writer, args ...string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Stderr = os.Stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sc := bufio.NewScanner(pipe)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "{") {
			fmt.Fprintln(stdout, sc.Text())
		}
	}
	return cmd.Wait()
}

// defaultDataDir is ../shared/data from the working directory, or
// $GALLOP_DATA.
func defaultDataDir() string {
	if d := os.Getenv("GALLOP_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "data")
}
