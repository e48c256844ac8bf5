package app

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"time"

	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/cputime"
	"gallop/internal/figure"
	"gallop/internal/jobs"
	"gallop/panels"
	"gallop/panels/dynamicspanel"
	"gallop/panels/posepanel"
	"gallop/panels/rigpanel"
	"gallop/panels/synthpanel"
	"gallop/tools/dynamics"
	"gallop/viewport"
)

// chainBench drives the chain of issue 32 in the real window, frame by
// frame in its loop, on the mesh animation it was opened on (gallop bench
// --scale opens horse-gallop subdivided twice: 134,782 vertices, 48
// frames): Rig with 20 bones and Apply; the rigged clip played with the
// camera turning while each frame's work on the UI thread is timed;
// Pose with every frame as an example, a handle of a few vertices at the
// top of the head, a drag of it while the solver iterates, then another
// tool; Dynamics: a stroke of Jelly across the middle of the mesh, its
// simulation, Bake; Synthesize: Analyse, 4 variations; Export as a
// skinned glTF to a temporary file. Each step goes through the tool
// models' methods that the panels' buttons call, with the mouse over the
// viewport scripted (scriptedMouse) where the artist drags, and waits
// for the jobs it started by their state, never by time alone.
//
// Its figures are printed to out as gallop bench's JSON lines as each is
// measured, so a chain that fails part way still shows how far it came:
// per step its wall time (chain_<step>_seconds), the peak resident
// memory of the process during the step (chain_<step>_peak_gb, Linux's
// VmHWM, reset as the step begins) and what stays resident after it
// (chain_<step>_resident_gb, after debug.FreeOSMemory: Go returns freed
// memory to the OS lazily); at the end the peak over the whole chain
// (chain_peak_gb); the frame figures (frame_x16_*, see playStep); and
// the Pose tool's (pose_x16_*, see the pose steps).
//
// With $GALLOP_BENCH_HEAP set to a folder, a heap profile of each step is
// written there as the live heap reaches its largest (STEP-peak.pb.gz)
// and at the step's end (STEP-end.pb.gz), for go tool pprof.
type chainBench struct {
	out   io.Writer
	steps []chainStep
	cur   int // the step running
	phase int // the step's own progress, from 0 as it begins
	began time.Time
	at    time.Time // when the step's current phase began
	err   error
	done  bool

	peak    float64 // the largest VmHWM of the steps, bytes
	heapDir string
	heapTop uint64 // the live heap of the step's last peak profile

	mouse scriptedMouse

	// The frames timed by playStep.
	timing  bool
	samples []frameSample
	turned  time.Time       // when the camera last turned
	camera  viewport.Camera // as it was before
	own     time.Duration   // the CPU time the chain's own work took in this UI frame

	// The Pose steps' state.
	updates    uint64    // the solver's updates as the phase began
	firstAt    time.Time // the drag's first solver update
	firstCount uint64
	lastAt     time.Time     // the drag's latest solver update
	lastCount  uint64        // the update count then
	longest    time.Duration // the longest wait between two updates of the drag
	shortRate  bool          // pose_x16_updates_per_s is out

	export    string    // the exported file
	exportJob *jobs.Job // writing it
}

// chainStep is one step of the chain: run is called once per frame until
// it reports that the step is done.
type chainStep struct {
	name string
	run  func(c *chainBench, a *App) (done bool, err error)
}

// frameSample is the UI thread's CPU time in one frame, by part (see
// playStep).
type frameSample struct {
	total, deform, normals, upload, draw time.Duration
}

// chainTimeout is the longest a step may take: then the chain fails.
const chainTimeout = 30 * time.Minute

func newChainBench(out io.Writer) *chainBench {
	c := &chainBench{out: out, heapDir: os.Getenv("GALLOP_BENCH_HEAP")}
	c.steps = []chainStep{
		{"load", (*chainBench).loadStep},
		{"rig", (*chainBench).rigStep},
		{"apply", (*chainBench).applyStep},
		{"play", (*chainBench).playStep},
		{"pose_prepare", (*chainBench).posePrepareStep},
		{"pose_handle", (*chainBench).poseHandleStep},
		{"pose_drag", (*chainBench).poseDragStep},
		{"dynamics", (*chainBench).dynamicsStep},
		{"synth", (*chainBench).synthStep},
		{"export", (*chainBench).exportStep},
	}
	c.began, c.at = time.Now(), time.Now()
	resetPeak()
	return c
}

// result is the chain's error, or nil when every step was done.
func (c *chainBench) result() error {
	if c.err == nil && c.cur < len(c.steps) {
		return fmt.Errorf("the window closed during chain step %s", c.steps[c.cur].name)
	}
	return c.err
}

// emit prints one figure.
func (c *chainBench) emit(name string, value float64, unit string) {
	if err := figure.Write(c.out, name, value, unit); err != nil && c.err == nil {
		c.err = err
	}
}

// fail ends the chain with err (the first error wins): an error any tool
// reported while the chain ran, or a step's own.
func (c *chainBench) fail(a *App, err error) {
	if c.done || err == nil || jobs.IsCanceled(err) {
		return
	}
	if c.cur < len(c.steps) {
		err = fmt.Errorf("chain step %s: %w", c.steps[c.cur].name, err)
	}
	c.err, c.done = err, true
	a.quitNow()
}

// frame runs the current step once; it is called at the start of every
// UI frame, after the jobs' callbacks and the tools' Update.
func (c *chainBench) frame(a *App) {
	if c.done {
		return
	}
	start := cputime.Thread()
	defer func() { c.own += cputime.Thread() - start }()
	giu.Update() // the next frame comes at once, input or not
	c.heapPeak()
	s := c.steps[c.cur]
	done, err := s.run(c, a)
	if err == nil && !done && time.Since(c.began) > chainTimeout {
		err = fmt.Errorf("not done after %v", chainTimeout)
	}
	if err != nil {
		c.fail(a, err)
		return
	}
	if !done {
		return
	}
	c.emit("chain_"+s.name+"_seconds", time.Since(c.began).Seconds(), "s")
	peak := vmHWM()
	c.peak = max(c.peak, peak)
	debug.FreeOSMemory()
	c.emit("chain_"+s.name+"_peak_gb", peak/(1<<30), "GB resident at most during the step")
	c.emit("chain_"+s.name+"_resident_gb", vmRSS()/(1<<30), "GB resident after it")
	c.writeHeap(s.name + "-end")
	c.heapTop = 0
	c.cur++
	c.phase, c.began, c.at = 0, time.Now(), time.Now()
	resetPeak()
	if c.cur == len(c.steps) {
		c.emit("chain_peak_gb", c.peak/(1<<30), "GB resident at most over the chain")
		c.done = true
		a.quitNow()
	}
}

// next moves the current step to its next phase.
func (c *chainBench) next() {
	c.phase++
	c.at = time.Now()
}

// loadStep waits for the frames to load and the viewport to draw them.
func (c *chainBench) loadStep(a *App) (bool, error) {
	o := a.doc.Object()
	if a.loading > 0 || o == nil || a.renderer == nil {
		return false, nil
	}
	if c.phase == 0 { // the viewport draws it in this frame
		c.next()
		return false, nil
	}
	if o.Clip == nil {
		return false, fmt.Errorf("%s has no clip", o.Name)
	}
	c.emit("chain_vertices", float64(o.Mesh.NumVertices()), "vertices")
	c.emit("chain_triangles", float64(o.Mesh.NumTriangles()), "triangles")
	c.emit("chain_frames", float64(o.Clip.NumFrames()), "frames")
	return true, nil
}

// toolOf returns the window's tool of type T; with use, it becomes the
// active tool.
func toolOf[T panels.Tool](a *App, use bool) T {
	for i, t := range a.tools {
		if p, ok := t.(T); ok {
			if use {
				a.setTool(i)
			}
			return p
		}
	}
	panic(fmt.Sprintf("no tool %T", *new(T)))
}

// rigStep runs the Rig tool with 20 bones to its result.
func (c *chainBench) rigStep(a *App) (bool, error) {
	m := toolOf[*rigpanel.Panel](a, c.phase == 0).Model()
	if c.phase == 0 {
		m.Sync(a)
		m.Settings.Bones = 20
		m.Start(a)
		c.next()
		return false, nil
	}
	if m.Running() {
		return false, nil
	}
	if m.Result(a) == nil {
		return false, fmt.Errorf("the rig ended without a result: %v", m.RunError())
	}
	return true, nil
}

// applyStep applies the rig to the object (its clip becomes the rigged
// one) and goes back to the Select tool.
func (c *chainBench) applyStep(a *App) (bool, error) {
	m := toolOf[*rigpanel.Panel](a, c.phase == 0).Model()
	m.Apply(a)
	if r := m.Result(a); r == nil || !r.Applied() {
		return false, errors.New("the rig was not applied")
	}
	a.setTool(0)
	return true, nil
}

// Frame timing of playStep.
const (
	playWarmUp  = 2 * time.Second
	playMeasure = 6 * time.Second
	playFrames  = 60
	playTurn    = 0.3 // the camera's turn, radians per second
)

// playStep plays the rigged clip in the Select tool with the camera
// turning and, after a warm-up of playWarmUp, times each UI frame for at
// least playMeasure and playFrames frames in CPU time of the UI thread
// (cputime: what the frame's work costs, not the time other threads held
// the core; here those of Mesa's llvmpipe, rasterising the frame before,
// a GPU's work). The figures, median and 95th percentile over the frames,
// in ms: frame_x16_cpu_* is Gallop's own work per frame, the frame less
// the OpenGL draw calls (in which llvmpipe shades the vertices and bins
// the triangles on this thread, as a GPU would); by part,
// frame_x16_deform_* the positions and colours shown (the clip's frame,
// the tool's Display), frame_x16_normals_* a new frame's positions and
// vertex normals for OpenGL, frame_x16_upload_* handing OpenGL what
// changed, frame_x16_panels_* the rest (jobs, tools, panels, menus,
// overlays), and frame_x16_draw_* the draw calls, not in cpu. Dear
// ImGui's drawing and the buffer swap follow the frame and are in none.
func (c *chainBench) playStep(a *App) (bool, error) {
	switch c.phase {
	case 0:
		a.setTool(0)
		a.play.loop = true
		if !a.play.playing {
			a.togglePlay()
		}
		c.camera = a.view.Camera
		c.next()
	case 1:
		if time.Since(c.at) >= playWarmUp {
			c.timing = true
			c.next()
		}
	case 2:
		if time.Since(c.at) < playMeasure || len(c.samples) < playFrames {
			return false, nil
		}
		c.timing = false
		a.play.playing = false
		a.view.Camera = c.camera // the next steps see the horse as loaded
		c.frameFigures(time.Since(c.at))
		c.emit("frame_x16_loadavg", loadAverage(), "runnable threads on the machine (1-minute load average)")
		return true, nil
	}
	return false, nil
}

// viewport is called after the viewport drew: the camera turns while the
// clip plays.
func (c *chainBench) viewport(a *App) {
	now := time.Now()
	if c.timing && !c.turned.IsZero() {
		a.view.Camera.Orbit(playTurn*now.Sub(c.turned).Seconds(), 0)
	}
	c.turned = now
}

// frameEnd records a UI frame that took total CPU time on the UI
// thread, the chain's own work in it aside.
func (c *chainBench) frameEnd(a *App, total time.Duration) {
	total -= c.own
	c.own = 0
	if !c.timing {
		return
	}
	var rt struct{ normals, upload, draw time.Duration }
	if a.renderer != nil {
		t := a.renderer.Times
		rt.normals, rt.upload, rt.draw = t.Normals, t.Upload, t.Draw
	}
	c.samples = append(c.samples, frameSample{total: total, deform: a.deformTime, normals: rt.normals, upload: rt.upload, draw: rt.draw})
}

// frameFigures prints the frame figures of the samples taken over d.
func (c *chainBench) frameFigures(d time.Duration) {
	parts := []struct {
		name string
		of   func(s frameSample) time.Duration
	}{
		{"cpu", func(s frameSample) time.Duration { return s.total - s.draw }},
		{"deform", func(s frameSample) time.Duration { return s.deform }},
		{"normals", func(s frameSample) time.Duration { return s.normals }},
		{"upload", func(s frameSample) time.Duration { return s.upload }},
		{"panels", func(s frameSample) time.Duration { return s.total - s.deform - s.normals - s.upload - s.draw }},
		{"draw", func(s frameSample) time.Duration { return s.draw }},
	}
	c.emit("frame_x16_frames", float64(len(c.samples)), fmt.Sprintf("frames timed in %.1f s", d.Seconds()))
	for _, p := range parts {
		ms := make([]float64, len(c.samples))
		for i, s := range c.samples {
			ms[i] = p.of(s).Seconds() * 1e3
		}
		slices.Sort(ms)
		c.emit("frame_x16_"+p.name+"_median_ms", percentile(ms, 0.5), "ms")
		c.emit("frame_x16_"+p.name+"_p95_ms", percentile(ms, 0.95), "ms")
	}
}

// percentile returns the p-quantile of sorted values (the nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	return sorted[min(len(sorted)-1, int(math.Ceil(p*float64(len(sorted))))-1)]
}

// posePrepareStep opens the Pose tool at the first frame and adds every
// frame as an example (the panel's Add all frames), then waits until the
// solver has prepared them (pose_x16_prepare_s: compressed, GᵀG
// analysed).
func (c *chainBench) posePrepareStep(a *App) (bool, error) {
	m := toolOf[*posepanel.Panel](a, c.phase == 0).Model()
	if c.phase == 0 {
		m.Sync(a)
		a.setFrame(0)
		frames := make([]int, a.NumFrames())
		for i := range frames {
			frames[i] = i
		}
		m.AddFrames(a, frames)
		c.next()
		return false, nil
	}
	if !m.Compression().Known {
		return false, nil
	}
	c.emit("pose_x16_prepare_s", time.Since(c.at).Seconds(), "s from Add all frames to the examples prepared")
	return true, nil
}

// poseHandleStep selects a few vertices at the top of the head (the
// highest vertex of the frame shown and its nearest neighbours) and
// makes them a handle, then waits for the solver's first update
// (pose_x16_first_update_s).
func (c *chainBench) poseHandleStep(a *App) (bool, error) {
	m := toolOf[*posepanel.Panel](a, c.phase == 0).Model()
	if c.phase == 0 {
		a.SetSelection(headVertices(a.Positions(), 12))
		c.updates = m.Status(time.Now()).Updates
		m.MakeHandle(a)
		if len(m.Handles()) != 1 {
			return false, errors.New("no handle made")
		}
		c.next()
		return false, nil
	}
	if m.Status(time.Now()).Updates == c.updates {
		return false, nil
	}
	c.emit("pose_x16_first_update_s", time.Since(c.at).Seconds(), "s from Make handle to the solver's first update")
	return true, nil
}

// Pose drag of poseDragStep.
const (
	dragSpeedX, dragSpeedY = 30.0, -15.0 // pixels per second
	dragMeasure            = 3 * time.Second
	dragSteady             = 10 * time.Second
	dragUpdates            = 3
	dragLongest            = 5 * time.Minute
)

// poseDragStep drags the handle's ring with the scripted mouse (pressed
// on its centre, moving steadily up and to the right) and counts the
// solver's updates from the drag's first (pose_x16_drag_first_update_s)
// for at least dragMeasure and dragUpdates more updates
// (pose_x16_updates_per_s), then on to dragSteady
// (pose_x16_updates_per_s_10s: the first seconds of a drag right after
// Make handle hold its one cold, full iteration, a long wait that a few
// seconds' count is mostly made of) with the longest wait between two
// updates meanwhile (pose_x16_drag_longest_wait_s), releases it, and
// leaves the tool; its solver goes (see pose.Leave), in pose_x16_leave_s.
func (c *chainBench) poseDragStep(a *App) (bool, error) {
	m := toolOf[*posepanel.Panel](a, c.phase == 0).Model()
	now := time.Now()
	switch c.phase {
	case 0:
		x, y, ok := a.view.ToScreen(m.HandleCentre(a, 0))
		if !ok {
			return false, errors.New("the handle is off screen")
		}
		c.mouse = pressAlong(func(t float64) (float64, float64) { return x + dragSpeedX*t, y + dragSpeedY*t })
		c.updates = m.Status(now).Updates
		c.next()
	case 1:
		if _, dragging := m.Dragging(); !dragging && now.Sub(c.at) > time.Second {
			return false, errors.New("the press did not grab the handle")
		}
		n := m.Status(now).Updates
		if c.firstAt.IsZero() && n > c.updates {
			c.firstAt, c.firstCount = now, n
			c.lastAt, c.lastCount = now, n
			c.emit("pose_x16_drag_first_update_s", now.Sub(c.at).Seconds(), "s from the drag's start to its first solver update")
		}
		if !c.firstAt.IsZero() {
			c.longest = max(c.longest, now.Sub(c.lastAt))
			if n != c.lastCount {
				c.lastAt, c.lastCount = now, n
			}
		}
		since := now.Sub(c.firstAt)
		if !c.firstAt.IsZero() && !c.shortRate && since >= dragMeasure && n >= c.firstCount+dragUpdates {
			c.emit("pose_x16_updates_per_s", float64(n-c.firstCount)/since.Seconds(), "solver updates per second while dragging (3 s)")
			c.shortRate = true
		}
		if c.shortRate && since >= dragSteady && n >= c.firstCount+dragUpdates {
			c.emit("pose_x16_updates_per_s_10s", float64(n-c.firstCount)/since.Seconds(), "solver updates per second while dragging (10 s)")
			c.emit("pose_x16_drag_longest_wait_s", c.longest.Seconds(), "s: the longest wait between two solver updates of the drag")
			c.mouse.down = false
			c.next()
		} else if now.Sub(c.at) > dragLongest {
			return false, fmt.Errorf("%d solver updates in %v of dragging", n-c.updates, dragLongest)
		}
	case 2:
		if _, dragging := m.Dragging(); dragging {
			return false, nil
		}
		c.mouse = scriptedMouse{}
		a.setTool(0)
		c.next()
	case 3:
		if !jobsEnded(a) {
			return false, nil
		}
		c.emit("pose_x16_leave_s", time.Since(c.at).Seconds(), "s from leaving the tool to its solver's end")
		return true, nil
	}
	return false, nil
}

// jobsEnded reports whether no job runs: after a tool is left, it has
// stopped its work and let go of what that held.
func jobsEnded(a *App) bool { return len(a.jobs.Running()) == 0 }

// headVertices returns the n vertices nearest the highest vertex of pos
// (the top of a standing animal's head), sorted.
func headVertices(pos []assets.Vec3, n int) []int {
	top := 0
	for i, p := range pos {
		if p[1] > pos[top][1] {
			top = i
		}
	}
	idx := make([]int, len(pos))
	for i := range idx {
		idx[i] = i
	}
	d := func(i int) float64 { return pos[i].Sub(pos[top]).LenSqr() }
	slices.SortFunc(idx, func(i, j int) int {
		switch di, dj := d(i), d(j); {
		case di < dj:
			return -1
		case di > dj:
			return 1
		}
		return i - j
	})
	out := slices.Clone(idx[:min(n, len(idx))])
	slices.Sort(out)
	return out
}

// Brush of dynamicsStep.
const (
	strokeRadius = 100 // pixels
	strokeTime   = time.Second
)

// dynamicsStep opens the Dynamics tool on the rigged object, waits for
// the simulation of its unpainted (stiff) materials, paints a stroke of
// Jelly across the middle of the mesh on screen with the scripted mouse,
// waits for the simulation of the painted materials, and bakes it.
func (c *chainBench) dynamicsStep(a *App) (bool, error) {
	m := toolOf[*dynamicspanel.Panel](a, c.phase == 0).Model()
	st := m.Status(a)
	if st.Err != nil {
		return false, st.Err
	}
	simulated := st.Total > 0 && st.Frames == st.Total && st.Current
	switch c.phase {
	case 0: // the stiff simulation
		if !simulated {
			return false, nil
		}
		m.Brush.Channel, m.Brush.Preset, m.Brush.Radius = dynamics.ChannelMaterial, presetIndex("Jelly"), strokeRadius
		x, y, err := c.strokeStart(a)
		if err != nil {
			return false, err
		}
		c.mouse = pressAlong(func(t float64) (float64, float64) {
			return x + a.view.Width/6*math.Sin(2*math.Pi*min(t/strokeTime.Seconds(), 1)), y
		})
		c.next()
	case 1: // the stroke: across a third of the viewport's width, and back
		if time.Since(c.at) >= strokeTime {
			c.mouse.down = false
			c.next()
		}
	case 2:
		if m.Painting() {
			return false, nil
		}
		c.mouse = scriptedMouse{}
		if m.Painted(a) == 0 {
			return false, errors.New("the stroke painted nothing")
		}
		c.emit("chain_dynamics_painted_vertices", float64(m.Painted(a)), "vertices")
		c.next()
	case 3: // the painted simulation, baked
		if !simulated {
			return false, nil
		}
		m.Bake(a)
		if m.Baked() == "" {
			return false, errors.New("nothing baked")
		}
		a.setTool(0)
		c.next()
	case 4: // the tool left: its simulation ends
		return jobsEnded(a), nil
	}
	return false, nil
}

// strokeStart returns a point of the viewport over the mesh near the
// middle of its picture: the screen position of the vertex nearest the
// centre of the mesh's bounding box.
func (c *chainBench) strokeStart(a *App) (x, y float64, err error) {
	pos := a.view.PickPositions()
	if len(pos) == 0 {
		return 0, 0, errors.New("nothing to paint on")
	}
	lo, hi := assets.Bounds(pos)
	mid := lo.Add(hi).Mul(0.5)
	best := 0
	for i, p := range pos {
		if p.Sub(mid).LenSqr() < pos[best].Sub(mid).LenSqr() {
			best = i
		}
	}
	x, y, ok := a.view.ToScreen(pos[best])
	if !ok {
		return 0, 0, errors.New("the mesh's middle is off screen")
	}
	if _, hit := a.view.PickVertex(x, y); !hit {
		return 0, 0, errors.New("no mesh under the mesh's middle on screen")
	}
	return x, y, nil
}

// presetIndex returns the index of the dynamics preset called name.
func presetIndex(name string) int {
	return slices.IndexFunc(dynamics.Presets, func(p dynamics.Preset) bool { return p.Name == name })
}

// synthStep analyses the object's (baked) clip in the Synthesize tool and
// generates 4 variations.
func (c *chainBench) synthStep(a *App) (bool, error) {
	m := toolOf[*synthpanel.Panel](a, c.phase == 0).Model()
	switch c.phase {
	case 0:
		m.Sync(a)
		m.Settings.Count = 4
		m.Analyse(a)
		c.next()
	case 1:
		if m.Analysing() {
			return false, nil
		}
		if m.Analysis(a) == nil {
			return false, errors.New("the analysis ended without a result")
		}
		m.Generate(a)
		c.next()
	case 2:
		if m.Generating() {
			return false, nil
		}
		if g := m.Gallery(); g == nil || g.Made() != 4 {
			return false, errors.New("fewer than 4 variations made")
		}
		a.setTool(0)
		c.next()
	case 3:
		return jobsEnded(a), nil
	}
	return false, nil
}

// exportStep exports the object (rig, joint animation and the baked
// dynamics as corrective morph targets) as a skinned glTF to a temporary
// file, as File > Export glTF > Skinned animation does, and removes it.
func (c *chainBench) exportStep(a *App) (bool, error) {
	switch c.phase {
	case 0:
		dir, err := os.MkdirTemp("", "gallop-chain-")
		if err != nil {
			return false, err
		}
		c.export = filepath.Join(dir, "chain.glb")
		c.exportJob = a.exportGLTF(a.doc.Object(), c.export, assets.ExportSkin)
		c.next()
	case 1:
		select {
		case <-c.exportJob.Done():
		default:
			return false, nil
		}
		if err := c.exportJob.Err(); err != nil {
			return false, err
		}
		st, err := os.Stat(c.export)
		if err != nil {
			return false, err
		}
		c.emit("chain_export_mb", float64(st.Size())/(1<<20), "MB written")
		os.RemoveAll(filepath.Dir(c.export))
		return true, nil
	}
	return false, nil
}

// scriptedMouse is the chain's mouse over the viewport: while on, the
// tools get its input in place of the real mouse's (which stays still
// under Xvfb). Its left button is pressed where its path starts and held
// while down, as it moves along the path; like a real mouse it reports
// where it is every mouseEvery, so a frame's Path holds the way it went
// since the last frame, however long the frame took.
type scriptedMouse struct {
	on, down bool
	path     func(t float64) (x, y float64) // where it is t seconds after the press
	pressed  time.Time
	sent     float64 // the path's time last reported
	wasDown  bool
}

// mouseEvery is how often the scripted mouse reports its position.
const mouseEvery = 0.01 // seconds

// pressAlong returns the mouse pressed at path(0) now, to move along path.
func pressAlong(path func(t float64) (x, y float64)) scriptedMouse {
	return scriptedMouse{on: true, down: true, path: path, pressed: time.Now()}
}

// input replaces in with the scripted mouse's state for this frame.
func (m *scriptedMouse) input(in *viewport.Input) {
	if !m.on {
		return
	}
	now := time.Since(m.pressed).Seconds()
	x, y := m.path(now)
	lx, ly := m.path(m.sent)
	*in = viewport.Input{X: x, Y: y, DX: x - lx, DY: y - ly, Hovered: true, OriginX: in.OriginX, OriginY: in.OriginY}
	in.Pressed[viewport.Left] = m.down && !m.wasDown
	in.Down[viewport.Left] = m.down
	in.Released[viewport.Left] = !m.down && m.wasDown
	if !in.Pressed[viewport.Left] {
		for t := m.sent + mouseEvery; t < now; t += mouseEvery {
			px, py := m.path(t)
			in.Path = append(in.Path, viewport.Motion{X: px, Y: py, Down: in.Down})
		}
	}
	in.Path = append(in.Path, viewport.Motion{X: x, Y: y, Down: in.Down})
	m.sent, m.wasDown = now, m.down
}

// heapPeak writes a heap profile of the step when the live heap has grown
// by a tenth since the last (with $GALLOP_BENCH_HEAP).
func (c *chainBench) heapPeak() {
	if c.heapDir == "" {
		return
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > c.heapTop+c.heapTop/10 {
		c.heapTop = ms.HeapAlloc
		c.writeHeap(c.steps[c.cur].name + "-peak")
	}
}

// writeHeap writes the heap profile name.pb.gz (with $GALLOP_BENCH_HEAP).
func (c *chainBench) writeHeap(name string) {
	if c.heapDir == "" {
		return
	}
	f, err := os.Create(filepath.Join(c.heapDir, name+".pb.gz"))
	if err == nil {
		err = pprof.WriteHeapProfile(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil && c.err == nil {
		c.err = err
	}
}

// vmHWM returns the process's peak resident set since resetPeak, in
// bytes (Linux; NaN elsewhere).
func vmHWM() float64 { return procStatus("VmHWM:") }

// vmRSS returns the process's resident set, in bytes.
func vmRSS() float64 { return procStatus("VmRSS:") }

// procStatus returns a size field of /proc/self/status in bytes.
func procStatus(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return math.NaN()
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == field {
			kb, err := strconv.ParseFloat(string(f[1]), 64)
			if err != nil {
				return math.NaN()
			}
			return kb * 1024
		}
	}
	return math.NaN()
}

// loadAverage returns the machine's 1-minute load average (Linux; NaN
// elsewhere): frame times on a machine that other work shares grow with
// it.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if f := bytes.Fields(b); err == nil && len(f) > 0 {
		if v, err := strconv.ParseFloat(string(f[0]), 64); err == nil {
			return v
		}
	}
	return math.NaN()
}

// resetPeak makes VmHWM start again from the resident set of now (Linux's
// /proc/self/clear_refs).
func resetPeak() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
