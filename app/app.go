// Package app is Gallop's window: the menus, panels, timeline and status
// bar around the 3D viewport, the open document with its undo history, and
// the job runner that keeps long work off the UI thread.
//
// Everything here runs on giu's main thread, once per UI frame, in loop.
// Jobs report back through jobs.Runner.Poll at the start of each frame.
package app

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	_ "gallop/internal/cimguilink" // link fix for cimgui-go, see package doc
	"gallop/internal/cputime"
	"gallop/internal/jobs"
	"gallop/internal/parallel"
	"gallop/internal/undo"
	"gallop/panels"
	"gallop/panels/dynamicspanel"
	"gallop/panels/ensemblepanel"
	"gallop/panels/gallerypanel"
	"gallop/panels/posepanel"
	"gallop/panels/rigpanel"
	"gallop/panels/synthpanel"
	"gallop/viewport"
	"gallop/viewport/render"
)

// Options are the command-line choices for the window.
type Options struct {
	// Files to open at start: a project, a mesh file, OBJ files or a folder
	// of them. With none, the built-in demo scene opens.
	Files []string
	// SaveTo is where Save writes when the document has no project path
	// yet, instead of asking with a dialog (scripted sessions and tests).
	SaveTo string
	// Width and Height of the window; zero means 1280 x 800.
	Width, Height int
	// Bench, if set, runs the viewport benchmark and quits (gallop bench).
	Bench *BenchResult
	// Chain, if set, runs the chain benchmark on Files, writes its
	// figures there and quits (gallop bench --scale; see chainBench).
	Chain io.Writer
	// Autosave is how often unsaved changes are written to the recovery
	// file (see autosaver); zero means DefaultAutosave, negative never.
	Autosave time.Duration
	// SlowFrame, when positive, is slept in every UI frame: a test hook
	// ($GALLOP_SLOW_FRAME) standing in for the slow frames of a big mesh,
	// for the GUI tests of input that must survive them.
	SlowFrame time.Duration
}

// App is the running application.
type App struct {
	opts Options
	win  *giu.MasterWindow

	doc     *Document
	history undo.Stack
	jobs    jobs.Runner
	waker   waker

	view     *viewport.View
	renderer *render.Renderer
	glErr    error

	tools []panels.Tool
	tool  int // index of the active tool

	preview *preview // shown instead of the document's scene, or nil

	play    playback
	overlay overlayKind
	heat    heatCache

	rename struct { // the object name field of the properties panel
		obj     *assets.Object
		text    string
		editing bool
	}

	msgs    messages
	modal   modalState
	recent  []string
	dialogs *dialogs
	loading int // load jobs running: the document is about to be replaced

	layout     layout          // the side panels' widths
	objectOpen map[string]bool // per tool: the properties' Object block is unfolded

	keys       []keyEvent        // key presses since the last frame
	trail      mouseTrail        // reads the cursor's path of each frame
	path       []viewport.Motion // this frame's, in Dear ImGui's coordinates
	pathOK     bool              // path could be read (else only io.MousePos is)
	lastFrame  time.Time
	lastActive time.Time // last input, playback or job activity
	lastInput  time.Time // last input (mouse, keys, an open modal)
	fps        uint      // the frame rate asked of the window loop
	bench      *benchState
	chain      *chainBench
	// deformTime is the CPU time this frame took to get the positions
	// and colours the viewport shows (the chain benchmark's frame
	// figures).
	deformTime time.Duration

	crash    crashState // panics caught on the UI thread (see loop)
	autosave *autosaver // the recovery file of this session, nil when off
}

// Run opens the window and runs until it is closed.
func Run(opts Options) error {
	if opts.Width == 0 {
		opts.Width, opts.Height = 1280, 800
	}
	// Background work yields to the UI: solver and loader threads run at a
	// lower OS priority, and one P more than the workers use is left for
	// the main goroutine (see package parallel).
	parallel.SetNice(5)
	runtime.GOMAXPROCS(parallel.Workers() + 1)
	a := &App{
		opts:   opts,
		doc:    NewDocument(),
		view:   viewport.NewView(),
		tools:  newTools(),
		recent: loadRecent(),
		layout: loadLayout(),

		objectOpen: map[string]bool{},
	}
	a.dialogs = newDialogs(a.waker.wake, a.fail)
	if len(a.recent) > 0 {
		a.dialogs.near(a.recent[0]) // dialogs start next to the data last opened
	}
	a.play.loop = true
	a.win = giu.NewMasterWindow("Gallop", opts.Width, opts.Height, 0)
	a.fps = fpsActive
	a.win.SetTargetFPS(fpsActive)
	a.jobs.Wake = a.waker.wake
	a.win.SetAdditionalInputHandlerCallback(a.onKey)
	a.win.SetDropCallback(func(paths []string) { a.guard("opening dropped files", func() { a.openPaths(paths, true) }) })
	a.win.SetCloseCallback(func() bool {
		if a.dirty() {
			a.confirmDiscard("quitting", a.quitNow)
			return false
		}
		a.waker.close()
		a.jobs.CancelAll()
		return true
	})
	switch {
	case opts.Bench != nil:
		a.bench = newBench(opts.Bench)
	case opts.Chain != nil:
		a.chain = newChainBench(opts.Chain)
	default:
		a.startAutosave()
	}
	if len(opts.Files) > 0 {
		a.openPaths(opts.Files, false)
	} else {
		a.openDemo()
	}
	a.win.Run(a.loop)
	if a.autosave != nil {
		a.autosave.close()
	}
	a.jobs.CancelAll()
	// Jobs end their work before Gallop exits: the farm's local tasks,
	// which run in this process, are cancelled (Slurm's run on).
	a.jobs.WaitTimeout(quitWait)
	if a.glErr == nil && a.chain != nil {
		return a.chain.result()
	}
	return a.glErr
}

// quitWait is how long Gallop waits at exit for its cancelled jobs to end.
const quitWait = 10 * time.Second

// newTools returns the tools, in the order the tool panel lists them.
func newTools() []panels.Tool {
	return []panels.Tool{&panels.Select{}, &posepanel.Panel{}, &gallerypanel.Panel{}, &rigpanel.Panel{}, &dynamicspanel.Panel{}, &synthpanel.Panel{}, &ensemblepanel.Panel{}}
}

// openDemo replaces the document with the demo scene, ready to pose: the
// Pose tool active with the bar's examples and two handles (see
// pose.SetUpDemo), and a hint in the viewport until the first drag.
func (a *App) openDemo() {
	a.setDocument(&Document{Scene: assets.DemoScene(), Title: "demo: bending bar"}, nil)
	for i, t := range a.tools {
		if p, ok := t.(*posepanel.Panel); ok {
			a.setTool(i)
			p.Model().SetUpDemo(a)
		}
	}
}

// quitNow closes the window without asking.
func (a *App) quitNow() {
	a.waker.close()
	a.jobs.CancelAll()
	a.win.SetShouldClose(true)
}

// setDocument replaces the document (after open or new), resetting history
// and tools, and frames the camera on it. state holds restored tool and
// application settings from a project, or nil.
func (a *App) setDocument(d *Document, p *assets.Project) {
	a.preview = nil
	a.doc = d
	a.history.Clear()
	a.play.playing = false
	a.heat = heatCache{}
	for _, t := range a.tools {
		if c, ok := t.(interface{ Close() }); ok {
			c.Close() // stop the tool's background work
		}
	}
	a.tools = newTools()
	a.tool = 0
	a.frameAll()
	if p != nil {
		a.restoreSettings(p)
	}
	a.win.SetTitle("Gallop - " + filepath.Base(d.DisplayName()))
}

// frame builds one UI frame (called by loop, which catches its panics).
func (a *App) frame() {
	if a.opts.SlowFrame > 0 {
		time.Sleep(a.opts.SlowFrame)
	}
	if a.chain != nil {
		start := cputime.Thread()
		defer func() { a.chain.frameEnd(a, cputime.Thread()-start) }()
	}
	a.path, a.pathOK = a.trail.take()
	now := time.Now()
	dt := now.Sub(a.lastFrame)
	if a.lastFrame.IsZero() {
		dt = 0
		// Gallop's shortcuts own the keyboard unless a text field has
		// it: Dear ImGui's keyboard navigation would also take Home, the
		// arrows and Space (moving focus between widgets and activating
		// them behind the artist's back), so it is off.
		io := imgui.CurrentIO()
		io.SetConfigFlags(io.ConfigFlags() &^ imgui.ConfigFlagsNavEnableKeyboard)
	}
	a.lastFrame = now
	if a.bench != nil {
		a.bench.frame(a, dt)
	}
	a.jobs.Poll()
	a.dialogs.poll()
	a.advancePlayback(dt)
	if a.autosave != nil {
		a.autosave.tick(a)
	}
	a.tools[a.tool].Update(a)
	if a.chain != nil {
		a.chain.frame(a)
	}
	a.shortcuts()

	w, h := a.win.GetSize()
	giu.SingleWindowWithMenuBar().Layout(
		a.menuBar(),
		a.body(float32(w), float32(h)),
		a.modals(),
		a.recoverModal(),
	)
	if imgui.CurrentIO().WantTextInput() {
		// For the GUI tests: a text field has the keyboard.
		panels.RecordRect("keyboard: text input", imgui.Vec2{}, imgui.Vec2{})
	}
	if a.play.playing {
		panels.RecordRect("timeline: playing", imgui.Vec2{}, imgui.Vec2{})
	}
	panels.FlushWidgets()
	if a.play.playing || a.busy() {
		giu.Update()
	}
	a.pace(now)
}

// Frame rates of the window loop (see pace).
const (
	fpsActive = 60 // input
	fpsJob    = 32 // a job is working: leave it cycles, still show 32 updates a second
	fpsIdle   = 12 // nothing happening for a second
)

// pace sets the window loop's frame rate for what is going on, so an idle
// window does not keep a core busy redrawing the same picture, and a
// solver streaming its iterates is not starved by frames nobody needs.
// Playback draws at the clip's rate (two frames a second above it, so no
// frame is skipped), not the input rate: without a GPU every frame is
// drawn by the CPU. The banner's preview playing at 60 frames a second
// beside its motion graph's build took 1.7 of the 2 cores (the UI thread
// and llvmpipe's), and the build ran 88-94 s against 40 s headless; at the
// job's 32, 74 s.
func (a *App) pace(now time.Time) {
	io := imgui.CurrentIO()
	d := io.MouseDelta()
	input := d.X != 0 || d.Y != 0 || io.MouseWheel() != 0 || len(a.keys) > 0 ||
		imgui.IsMouseDown(imgui.MouseButtonLeft) || imgui.IsMouseDown(imgui.MouseButtonRight) || imgui.IsMouseDown(imgui.MouseButtonMiddle) ||
		a.modal.anyOpen()
	busy := a.busy()
	benchmark := a.bench != nil || a.chain != nil
	if input {
		a.lastInput = now
	}
	if input || a.play.playing || busy || benchmark {
		a.lastActive = now
	}
	fps := frameRate(benchmark, busy, now.Sub(a.lastInput), now.Sub(a.lastActive), a.play.playing, a.stage().FPS())
	if fps != a.fps {
		a.fps = fps
		a.win.SetTargetFPS(fps)
	}
}

// frameRate is pace's rule: the frame rate for a window last given input
// sinceInput ago and last active (input, playback, a job) sinceActive ago,
// playing or not a clip of clipFPS frames a second.
func frameRate(benchmark, busy bool, sinceInput, sinceActive time.Duration, playing bool, clipFPS float64) uint {
	play := uint(max(fpsIdle, min(fpsActive, math.Ceil(clipFPS)+2)))
	switch {
	case benchmark:
		return fpsActive
	case busy: // a solver streaming iterates while a handle is dragged, say
		if playing {
			return max(fpsJob, play)
		}
		return fpsJob
	case sinceInput < time.Second:
		return fpsActive
	case playing:
		return play
	case sinceActive < time.Second:
		return fpsActive
	}
	return fpsIdle
}

// busy reports whether a job is working (not idle).
func (a *App) busy() bool {
	for _, j := range a.jobs.Running() {
		if !j.Idle() {
			return true
		}
	}
	return false
}

// fail reports an error to the artist: in the message log and, for errors
// of actions they started, in a modal with the whole text.
func (a *App) fail(err error) {
	if err == nil || jobs.IsCanceled(err) {
		return
	}
	a.msgs.add(true, err.Error())
	a.modal.errorText = err.Error()
	fmt.Fprintln(os.Stderr, "gallop:", err)
	if a.chain != nil {
		a.chain.fail(a, err)
	}
}

// info reports something that went well.
func (a *App) info(format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	a.msgs.add(false, text)
	if panels.Trace {
		fmt.Println(text)
	}
}
