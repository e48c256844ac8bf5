// Package guitest drives the real gallop binary the way a person does: under
// Xvfb, with xdotool for the mouse and keyboard and ImageMagick's import for
// screenshots. It needs Xvfb, xdotool and import on the PATH and
// ../shared/data; without them the tests skip, unless GALLOP_REQUIRE_GUI=1
// (as in CI), when they fail.
package guitest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// need skips (or, in CI, fails) the test when a tool is missing.
func need(t *testing.T, what string, ok bool) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv("GALLOP_REQUIRE_GUI") == "1" {
		t.Fatalf("%s missing and GALLOP_REQUIRE_GUI=1", what)
	}
	t.Skipf("%s missing: install xvfb, xdotool and imagemagick (apt-get) and run with ../shared/data present", what)
}

func repoRoot(t *testing.T) string {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

// session is one X server with the gallop binary built for it.
type session struct {
	t       *testing.T
	display string
	bin     string
	root    string
	xvfb    *exec.Cmd
}

func newSession(t *testing.T) *session {
	for _, tool := range []string{"Xvfb", "xdotool", "import"} {
		_, err := exec.LookPath(tool)
		need(t, tool, err == nil)
	}
	root := repoRoot(t)
	_, err := os.Stat(filepath.Join(root, "..", "shared", "data", "horse-gallop"))
	need(t, "../shared/data/horse-gallop", err == nil)

	s := &session{t: t, root: root, bin: filepath.Join(t.TempDir(), "gallop")}
	build := exec.Command("go", "build", "-o", s.bin, ".")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, lastLines(string(out), 20))
	}
	// A display number nobody uses.
	for n := 90 + os.Getpid()%50; ; n++ {
		if _, err := os.Stat(fmt.Sprintf("/tmp/.X11-unix/X%d", n)); os.IsNotExist(err) {
			s.display = fmt.Sprintf(":%d", n)
			break
		}
	}
	s.xvfb = exec.Command("Xvfb", s.display, "-screen", "0", "1280x800x24", "-nolisten", "tcp")
	if err := s.xvfb.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.xvfb.Process.Kill(); s.xvfb.Wait() })
	s.waitFor("X server", 10*time.Second, func() bool {
		probe := exec.Command("xdotool", "getmouselocation")
		probe.Env = s.env()
		return probe.Run() == nil
	})
	return s
}

func (s *session) env() []string {
	// GSETTINGS_BACKEND=memory keeps GTK from asking dconf over D-Bus.
	return append(os.Environ(), "DISPLAY="+s.display, "XDG_RUNTIME_DIR="+s.t.TempDir(), "GSETTINGS_BACKEND=memory")
}

// proc is a running gallop with its combined output.
type proc struct {
	*exec.Cmd
	mu  sync.Mutex
	out bytes.Buffer
}

func (p *proc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// output returns what the process printed so far.
func (p *proc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// start runs gallop with args on the session's display.
func (s *session) start(args ...string) *proc {
	p := &proc{Cmd: exec.Command(s.bin, args...)}
	p.Env = s.env()
	p.Dir = s.root
	p.Stdout, p.Stderr = p, p
	if err := p.Start(); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		if p.ProcessState == nil {
			p.Process.Kill()
			p.Wait()
		}
		if s.t.Failed() {
			s.t.Logf("gallop output:\n%s", lastLines(p.output(), 30))
		}
	})
	return p
}

// quit presses Ctrl+Q and waits for gallop to exit cleanly.
func (s *session) quit(p *proc) {
	s.t.Helper()
	s.xdo("key", "ctrl+q")
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			s.t.Fatalf("gallop exited with %v", err)
		}
	case <-time.After(15 * time.Second):
		s.screenshot("quit-failed")
		s.t.Fatal("gallop did not quit after Ctrl+Q")
	}
}

func (s *session) xdo(args ...string) string {
	cmd := exec.Command("xdotool", args...)
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		s.t.Fatalf("xdotool %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func (s *session) windowName() string {
	cmd := exec.Command("xdotool", "search", "--name", "Gallop", "getwindowname", "%@")
	cmd.Env = s.env()
	out, _ := cmd.Output()
	return strings.TrimSpace(string(out))
}

func (s *session) screenshot(name string) *image.RGBA {
	path := filepath.Join(s.t.TempDir(), name+".png")
	cmd := exec.Command("import", "-window", "root", path)
	cmd.Env = s.env()
	if out, err := cmd.CombinedOutput(); err != nil {
		s.t.Fatalf("import: %v: %s", err, out)
	}
	f, err := os.Open(path)
	if err != nil {
		s.t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		s.t.Fatal(err)
	}
	rgba := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			rgba.Set(x, y, img.At(x, y))
		}
	}
	if dir := os.Getenv("GALLOP_SCREENSHOTS"); dir != "" {
		os.MkdirAll(dir, 0o755)
		b, _ := os.ReadFile(path)
		os.WriteFile(filepath.Join(dir, name+".png"), b, 0o644)
	}
	return rgba
}

func (s *session) waitFor(what string, timeout time.Duration, ok func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitScreen takes screenshots until ok holds for one (or fails the test
// after timeout) and returns that screenshot: the window may need a few
// frames, more on a loaded machine, to show the result of an action.
func (s *session) waitScreen(name string, timeout time.Duration, what string, ok func(img *image.RGBA) bool) *image.RGBA {
	s.t.Helper()
	var img *image.RGBA
	s.waitFor(what, timeout, func() bool {
		img = s.screenshot(name)
		return ok(img)
	})
	return img
}

// waitStill waits until two screenshots in a row are the same (nothing
// moves any more) and returns the last.
func (s *session) waitStill(name string, timeout time.Duration) *image.RGBA {
	s.t.Helper()
	prev := s.screenshot(name)
	var img *image.RGBA
	s.waitFor(name+" to stop changing", timeout, func() bool {
		time.Sleep(200 * time.Millisecond)
		img = s.screenshot(name)
		same := changedPixels(prev, img) == 0
		prev = img
		return same
	})
	return img
}

// The viewport's central area on a 1280x800 screen: between the 190-pixel
// tool panel and the 290-pixel properties panel, below the menu bar and
// above the timeline.
var viewportArea = image.Rect(260, 80, 920, 700)

// meshPixels counts light, neutral grey pixels in the viewport: the shaded
// mesh. The background (59) and the grid lines (at most 102) are darker, the
// axis lines coloured.
func meshPixels(img *image.RGBA) int {
	n := 0
	for y := viewportArea.Min.Y; y < viewportArea.Max.Y; y++ {
		for x := viewportArea.Min.X; x < viewportArea.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R > 110 && absDiff(c.R, c.G) < 16 && absDiff(c.G, c.B) < 16 {
				n++
			}
		}
	}
	return n
}

// changedPixels counts viewport pixels that differ clearly between a and b.
func changedPixels(a, b *image.RGBA) int {
	n := 0
	for y := viewportArea.Min.Y; y < viewportArea.Max.Y; y++ {
		for x := viewportArea.Min.X; x < viewportArea.Max.X; x++ {
			p, q := a.RGBAAt(x, y), b.RGBAAt(x, y)
			d := absDiff(p.R, q.R) + absDiff(p.G, q.G) + absDiff(p.B, q.B)
			if d > 40 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestHorseSession opens horse-gallop, plays it, orbits the camera with a
// middle-button drag, saves with Ctrl+S, quits with Ctrl+Q, and reopens the
// saved project.
func TestHorseSession(t *testing.T) {
	s := newSession(t)
	project := filepath.Join(t.TempDir(), "horse.gallop")
	frames := filepath.Join(s.root, "..", "shared", "data", "horse-gallop", "frames")
	cmd := s.start("--save-to", project, frames)

	s.waitFor("the window", 20*time.Second, func() bool { return s.windowName() != "" })
	s.waitFor("horse-gallop to load", 30*time.Second, func() bool {
		return strings.Contains(s.windowName(), "horse-gallop")
	})
	loaded := s.waitScreen("1-loaded", 10*time.Second, "the horse in the viewport", func(img *image.RGBA) bool {
		return meshPixels(img) > 5000
	})

	// Play for a second: the horse moves.
	s.xdo("mousemove", "590", "400")
	s.xdo("key", "space")
	time.Sleep(1200 * time.Millisecond)
	s.xdo("key", "space")
	time.Sleep(300 * time.Millisecond)
	played := s.screenshot("2-played")
	if n := changedPixels(loaded, played); n < 500 {
		t.Fatalf("playing changed only %d pixels", n)
	}

	// Orbit: middle-button drag across the viewport.
	s.xdo("mousemove", "500", "400", "mousedown", "2")
	for x := 520; x <= 760; x += 40 {
		s.xdo("mousemove", fmt.Sprint(x), fmt.Sprint(400+(x-500)/8))
		time.Sleep(30 * time.Millisecond)
	}
	s.xdo("mouseup", "2")
	s.waitScreen("3-orbited", 10*time.Second, "the orbited view", func(img *image.RGBA) bool {
		return meshPixels(img) > 5000 && changedPixels(played, img) > 3000
	})
	orbited := s.waitStill("3-orbited", 10*time.Second)

	// Save with Ctrl+S to --save-to, then quit with Ctrl+Q.
	s.xdo("key", "ctrl+s")
	s.waitFor("the project file", 20*time.Second, func() bool {
		_, err := os.Stat(project)
		return err == nil
	})
	time.Sleep(300 * time.Millisecond)
	s.quit(cmd)

	// The saved project reopens: headless, and in the window.
	info := exec.Command(s.bin, "info", "--json", project)
	out, err := info.Output()
	if err != nil {
		t.Fatalf("gallop info on the saved project: %v", err)
	}
	var got struct{ Vertices, Triangles, Frames int }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Vertices != 8431 || got.Triangles != 16843 || got.Frames != 48 {
		t.Fatalf("saved project holds %+v, want 8431 vertices, 16843 triangles, 48 frames", got)
	}
	s.start(project)
	s.waitFor("the project to open", 30*time.Second, func() bool {
		return strings.Contains(s.windowName(), "horse.gallop")
	})
	s.waitScreen("4-reopened", 10*time.Second, "the reopened horse", func(img *image.RGBA) bool {
		return meshPixels(img) > 5000
	})
	reopened := s.waitStill("4-reopened", 10*time.Second)
	// The camera was saved with the project: the view matches the orbited one.
	if n := changedPixels(orbited, reopened); n > 20000 {
		t.Errorf("reopened view differs from the saved one in %d pixels", n)
	}
}

// TestBadFileThenOpenDialog starts on a malformed OBJ file: the window
// stays up and reports the file and line; then File > Open (Ctrl+O) opens
// the native dialog, a path is typed into it, and the lion loads.
func TestBadFileThenOpenDialog(t *testing.T) {
	s := newSession(t)
	bad := filepath.Join(t.TempDir(), "bad.obj")
	if err := os.WriteFile(bad, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := s.start(bad)
	s.waitFor("the window", 20*time.Second, func() bool { return s.windowName() != "" })
	s.waitFor("the error naming file and line", 30*time.Second, func() bool {
		return strings.Contains(cmd.output(), "bad.obj:4: face index 9 out of range")
	})
	time.Sleep(500 * time.Millisecond)
	if cmd.Process.Signal(syscall.Signal(0)) != nil {
		t.Fatal("gallop exited on a malformed file")
	}
	// Dismiss the error with Enter, then Ctrl+O.
	s.xdo("mousemove", "590", "400")
	s.xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+o")
	var dlg string
	defer func() {
		if t.Failed() {
			s.screenshot("dialog-failed")
		}
	}()
	s.waitFor("the file dialog", 30*time.Second, func() bool {
		cmd := exec.Command("xdotool", "search", "--onlyvisible", "--name", "^Open")
		cmd.Env = s.env()
		out, _ := cmd.Output()
		dlg = strings.TrimSpace(string(out))
		return dlg != ""
	})
	// Without a window manager the dialog does not get the keyboard by
	// itself. Ctrl+L opens GTK's location field.
	s.xdo("windowfocus", "--sync", strings.Fields(dlg)[0])
	time.Sleep(500 * time.Millisecond)
	s.xdo("key", "ctrl+l")
	time.Sleep(300 * time.Millisecond)
	lion := filepath.Join(s.root, "..", "shared", "data", "lion-poses", "reference.obj")
	s.xdo("type", "--delay", "20", lion)
	time.Sleep(500 * time.Millisecond)
	s.xdo("key", "Return")
	s.waitFor("the lion to load", 30*time.Second, func() bool {
		return strings.Contains(s.windowName(), "reference")
	})
	s.waitScreen("5-lion", 10*time.Second, "the lion in the viewport", func(img *image.RGBA) bool {
		return meshPixels(img) > 5000
	})
}

// TestGLTFSamplesPlay opens each of Khronos' three sample files (a skinned
// figure walking, a skinned cylinder, a morph animation) and plays it: the
// mesh shows and moves.
func TestGLTFSamplesPlay(t *testing.T) {
	s := newSession(t)
	for _, name := range []string{"RiggedFigure", "RiggedSimple", "SimpleMorph"} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(s.root, "..", "shared", "data", "gltf", name+".gltf")
			cmd := s.start(file)
			s.waitFor(name+" to load", 30*time.Second, func() bool {
				return strings.Contains(s.windowName(), "Gallop - ")
			})
			before := s.waitScreen(name+"-0", 10*time.Second, name+" in the viewport", func(img *image.RGBA) bool {
				return meshPixels(img) > 2000
			})
			s.xdo("mousemove", "590", "400")
			s.xdo("key", "space")
			s.waitScreen(name+"-1", 10*time.Second, name+" playing", func(img *image.RGBA) bool {
				return changedPixels(before, img) > 200
			})
			s.quit(cmd)
		})
	}
}
