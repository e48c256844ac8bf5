package guitest

import (
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
)

// TestSynthPcowSession (acceptance 6 of issue 12): the real binary opens
// pcow's frames; the Synthesize tool analyses them, generates 12
// variations into the gallery (thumbnails drawn), plays one in the
// viewport (the mesh moves, its splices counted), and exports it through
// the native Save dialog; the file passes the glTF validator and holds the
// 10-second clip.
func TestSynthPcowSession(t *testing.T) {
	s := newSession(t)
	frames := filepath.Join(s.root, "..", "shared", "data", "pcow", "frames")
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"}, frames)
	s.waitFor("pcow to load", 60*time.Second, func() bool {
		return strings.Contains(s.windowName(), "pcow")
	})
	s.waitScreen("synth-1-loaded", 10*time.Second, "the cow in the viewport", func(img *image.RGBA) bool {
		return meshPixels(img) > 2000
	})
	s.clickUntil("tool Synthesize", "synth: analyse")
	defer func() {
		if t.Failed() {
			s.screenshot("synth-failed")
			t.Log(lastLines(cmd.output(), 20))
		}
	}()

	s.click("synth: analyse")
	s.waitFor("the analysis", 120*time.Second, func() bool {
		return strings.Contains(cmd.output(), "steps); motion graph of")
	})
	graphRE := regexp.MustCompile(`synth: (\d+) candidate transitions \(median [0-9.]+ steps\); motion graph of (\d+) nodes, largest strongly connected component (\d+)`)
	graph := graphRE.FindStringSubmatch(cmd.output())
	if graph == nil {
		t.Fatalf("no graph figures:\n%s", lastLines(cmd.output(), 10))
	}
	t.Logf("analysed: %s", graph[0])
	s.widget("synth: graph")

	s.clickAt(s.widgetInView("synth: generate"))
	s.waitFor("12 variations with thumbnails", 120*time.Second, func() bool {
		return strings.Contains(cmd.output(), "12 of 12 variations, 12 thumbnails")
	})
	madeRE := regexp.MustCompile(`12 of 12 variations, 12 thumbnails, (\d+) splices in all`)
	made := madeRE.FindAllStringSubmatch(cmd.output(), -1)

	// The threshold (issue 24): 4 steps admits more transitions, shown at
	// once, and the next generation's variations splice differently.
	s.widgetInView("synth: threshold")
	th := s.widget("synth: threshold")
	s.xdo("mousemove", strconv.Itoa(th.Min.X+20), strconv.Itoa((th.Min.Y+th.Max.Y)/2), "sleep", "0.2", "keydown", "ctrl", "click", "1", "keyup", "ctrl")
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", "4")
	s.xdo("key", "Return")
	s.waitFor("more candidates at 4 steps", 20*time.Second, func() bool {
		all := graphRE.FindAllStringSubmatch(cmd.output(), -1)
		return len(all) > 0 && all[len(all)-1][1] != graph[1]
	})
	all := graphRE.FindAllStringSubmatch(cmd.output(), -1)
	before, _ := strconv.Atoi(graph[1])
	after, _ := strconv.Atoi(all[len(all)-1][1])
	t.Logf("candidates: %d at the default threshold, %d at 4 steps", before, after)
	if after <= before {
		t.Errorf("4 steps gives %d candidates, the default %d", after, before)
	}
	mark := len(cmd.output())
	s.clickAt(s.widgetInView("synth: generate"))
	started := regexp.MustCompile(`; (\d|1[01]) of 12 variations|12 of 12 variations, (\d|1[01]) thumbnails`)
	s.waitFor("12 new variations", 120*time.Second, func() bool {
		out := cmd.output()[mark:]
		loc := started.FindStringIndex(out)
		return loc != nil && madeRE.MatchString(out[loc[1]:])
	})
	out := cmd.output()[mark:]
	again := madeRE.FindAllStringSubmatch(out[started.FindStringIndex(out)[1]:], -1)
	t.Logf("splices of the 12 variations: %s at the default threshold, %s at 4 steps", made[len(made)-1][1], again[len(again)-1][1])
	if again[len(again)-1][1] == made[len(made)-1][1] {
		t.Errorf("the variations at 4 steps splice as often (%s) as at the default", made[len(made)-1][1])
	}
	s.screenshot("synth-2-gallery")
	s.noOverflow("Synthesize with a gallery")

	// Play the third variation: the viewport shows it, moving.
	view := centre(s.widget("viewport"))
	s.clickAt(s.widgetInView("synth: variation 3"))
	s.waitFor("the variation playing", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), `playing "pcow variation 3", 300 frames`)
	})
	s.moveTo(view)
	a := s.screenshot("synth-3-playing")
	time.Sleep(700 * time.Millisecond)
	b := s.screenshot("synth-4-playing")
	if n := changedPixels(a, b); n < 500 {
		t.Errorf("the playing variation moved only %d pixels in 0.7 s", n)
	}
	s.noOverflow("Synthesize, a variation playing")
	m := regexp.MustCompile(`playing "pcow variation 3", 300 frames, (\d+) splices`).FindStringSubmatch(cmd.output())
	if n, _ := strconv.Atoi(m[1]); n == 0 {
		t.Error("the variation has no splice")
	}
	st := s.widget("synth: strain") // the variation's strain figure is shown
	if st.Dx() == 0 {
		t.Error("no strain figure for the playing variation")
	}

	// Export it through the Save dialog.
	glb := filepath.Join(t.TempDir(), "pcow-variation.glb")
	s.dialogFrom("synth: export", "^(Save|Export)", glb)
	s.waitFor("the exported file", 60*time.Second, func() bool {
		st, err := os.Stat(glb)
		return err == nil && st.Size() > 0 && strings.Contains(cmd.output(), "wrote "+glb)
	})
	s.screenshot("synth-5-exported")
	s.quit(cmd)
	gltftest.Validate(t, glb)
	objs, err := assets.LoadGLTF(glb)
	if err != nil {
		t.Fatal(err)
	}
	// One joint per bone, under the one root joint the export adds above
	// free bones (issue 35).
	if o := objs[0]; o.Rig == nil || len(o.Rig.Joints) != 21 || o.Rig.Joints[0].Name != "root" || o.NumFrames() != 300 {
		t.Errorf("the export holds rig %v, %d frames; want 21 joints (a root, then one per bone) and 300 frames", o.Rig != nil, o.NumFrames())
	}
}
