package guitest

import (
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/farm/farmtest"
)

// TestFarmSynthSession (issue 14, the farm in the window): the real binary
// opens pcow's frames; in the Synthesize tool "Run on farm…" opens its
// popup, the engine (Slurm when GALLOP_REQUIRE_SLURM=1, as make test sets
// it with a cluster running; else the local engine) and 2 shards are
// chosen and 4 variations submitted; the status line follows the job to
// "loaded", and the 4 clips fill the gallery, one of them plays and is
// exported skinned (issue 25, acceptance 1: that export once closed the
// window); the file passes the glTF validator.
func TestFarmSynthSession(t *testing.T) {
	engine := "local"
	if os.Getenv("GALLOP_REQUIRE_SLURM") == "1" {
		farmtest.RequireSlurm(t)
		engine = "slurm"
	}
	s := newSession(t)
	frames := filepath.Join(s.root, "..", "shared", "data", "pcow", "frames")
	cache := t.TempDir()
	cmd := s.startEnv([]string{"GALLOP_TRACE=1", "XDG_CACHE_HOME=" + cache}, frames)
	s.waitFor("pcow to load", 60*time.Second, func() bool {
		return strings.Contains(s.windowName(), "pcow")
	})
	s.clickUntil("tool Synthesize", "farm: run")
	defer func() {
		if t.Failed() {
			s.screenshot("farm-failed")
			t.Log(lastLines(cmd.output(), 20))
		}
	}()
	start := time.Now()

	// 4 variations instead of 12.
	s.widgetInView("synth: variations")
	r := s.widget("synth: variations")
	s.clickAt(image.Pt(r.Min.X+20, (r.Min.Y+r.Max.Y)/2))
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", "4")
	s.xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)

	s.clickAt(s.widgetInView("farm: run"))
	s.widget("popup Run on farm")
	time.Sleep(500 * time.Millisecond) // a click in a popup's first frames can be lost
	s.click("farm: engine " + engine)
	sh := s.widget("farm: shards")
	s.clickAt(image.Pt(sh.Min.X+20, (sh.Min.Y+sh.Max.Y)/2))
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", "2")
	s.xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
	s.screenshot("farm-1-popup")
	s.click("farm: submit")

	running := regexp.MustCompile(`farm: synth on ` + engine + `, (jobs \d+,\d+,\d+|tasks of pid \d+): running, stage \w+`)
	s.waitFor("the job running", 30*time.Second, func() bool { return running.MatchString(cmd.output()) })
	s.screenshot("farm-2-running")
	s.waitFor("the job loaded", 90*time.Second, func() bool {
		return strings.Contains(cmd.output(), "farm: synth on "+engine) && strings.Contains(cmd.output(), ": loaded")
	})
	if strings.Contains(cmd.output(), ": failed: ") {
		t.Fatalf("the farm job failed:\n%s", lastLines(cmd.output(), 10))
	}
	s.widgetInView("synth: variation 1")
	s.waitFor("4 variations in the gallery", 30*time.Second, func() bool {
		return regexp.MustCompile(`4 of 4 variations, 4 thumbnails, \d+ splices in all; 4 variations from the farm`).MatchString(cmd.output())
	})
	t.Logf("submitted to loaded in %.1f s on %s", time.Since(start).Seconds(), engine)
	s.widget("farm: status 1")
	s.screenshot("farm-3-loaded")

	s.clickAt(s.widgetInView("synth: variation 2"))
	s.waitFor("a variation from the farm playing", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), `playing "pcow variation 2", 300 frames`)
	})
	dirs, _ := filepath.Glob(filepath.Join(cache, "gallop", "farm", "*-synth", "clips", "clip-*.glb"))
	if len(dirs) != 4 {
		t.Errorf("the work folder holds %d clips, want 4", len(dirs))
	}

	// Issue 25, item 1: exporting a variation that came back from the farm
	// (skinned, the default) closed the window; it writes a valid file
	// with the variation's rig, and the window goes on.
	glb := filepath.Join(t.TempDir(), "farm-variation.glb")
	s.dialogFrom("synth: export", "^(Save|Export)", glb)
	s.waitFor("the exported file", 60*time.Second, func() bool {
		st, err := os.Stat(glb)
		return err == nil && st.Size() > 0 && strings.Contains(cmd.output(), "wrote "+glb)
	})
	if strings.Contains(cmd.output(), "Gallop hit a bug") {
		t.Errorf("the export panicked:\n%s", lastLines(cmd.output(), 10))
	}
	s.quit(cmd)
	gltftest.Validate(t, glb)
	objs, err := assets.LoadGLTF(glb)
	if err != nil {
		t.Fatal(err)
	}
	if o := objs[0]; o.Rig == nil || len(o.Rig.Joints) == 0 || o.NumFrames() != 300 {
		t.Errorf("the farm variation's export holds rig %v, %d frames; want a skinned clip of 300 frames", o.Rig != nil, o.NumFrames())
	}
}
