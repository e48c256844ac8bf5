package guitest

import (
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
)

// rigToolButton is the Rig tool's entry in the tool panel of a 1280x800
// window.

// colourfulPixels counts the pixels of the viewport whose channels differ
// by more than 80: heat-map colours, not the grey mesh or background.
func colourfulPixels(img *image.RGBA) int {
	n := 0
	for y := viewportArea.Min.Y; y < viewportArea.Max.Y; y++ {
		for x := viewportArea.Min.X; x < viewportArea.Max.X; x++ {
			c := img.RGBAAt(x, y)
			hi := max(c.R, c.G, c.B)
			lo := min(c.R, c.G, c.B)
			if int(hi)-int(lo) > 80 {
				n++
			}
		}
	}
	return n
}

// TestRigHorseSession (acceptance 4 of issue 5, 6 of issue 35): the real
// binary opens horse-gallop's frames, the Rig tool rigs them as a skeleton
// of 20 bones (typed into the field, the skeleton box ticked), the
// skeleton is drawn (its root joint ringed, in the viewport), the weight
// heat map is shown, the rig is applied to the object, and exported
// through the native Save dialog; the file passes the glTF validator and
// holds a 20-joint skeleton with one root.
func TestRigHorseSession(t *testing.T) {
	s := newSession(t)
	frames := filepath.Join(s.root, "..", "shared", "data", "horse-gallop", "frames")
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"}, frames)
	s.waitFor("horse-gallop to load", 60*time.Second, func() bool {
		return strings.Contains(s.windowName(), "horse-gallop")
	})
	s.waitScreen("rig-1-loaded", 10*time.Second, "the horse in the viewport", func(img *image.RGBA) bool {
		return meshPixels(img) > 5000
	})
	s.clickUntil("tool Rig", "rig: start")
	defer func() {
		if t.Failed() {
			s.screenshot("rig-failed")
		}
	}()

	// 20 bones, typed into the field.
	bones := centre(s.widget("rig: bones"))
	s.clickAt(image.Pt(bones.X-20, bones.Y))
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", "20")
	s.xdo("key", "Return")
	time.Sleep(500 * time.Millisecond)
	s.click("rig: skeleton")
	s.widget("rig: root") // the root's choice shows with the skeleton
	s.click("rig: start")
	began := time.Now()
	s.waitFor("the rig", 150*time.Second, func() bool { return strings.Contains(cmd.output(), "rig: finished") })
	out := cmd.output()
	if !strings.Contains(out, "rig: finished, 20 bones, a skeleton rooted at bone") {
		t.Fatalf("the rig is not a skeleton of 20 bones:\n%s", lastLines(out, 10))
	}
	t.Logf("rigged in %.0f s: %s", time.Since(began).Seconds(), lastLines(out[strings.Index(out, "rig: finished"):], 1))

	s.widget("rig: lock picked") // the picked bone's root and lock
	s.noOverflow("Rig, a skeleton finished")

	// The skeleton drawn: its root joint, ringed, bright over the mesh.
	root := s.widget("rig: root joint")
	if !root.In(s.widget("viewport")) {
		t.Errorf("the root joint is drawn at %v, outside the viewport %v", root, s.widget("viewport"))
	}
	img := s.screenshot("rig-2-skeleton")
	if c := img.RGBAAt(centre(root).X, centre(root).Y); c.R < 200 || c.G < 200 || c.B < 200 {
		t.Errorf("the root joint's dot is %v, not the bones' white", c)
	}

	// The weight heat map: the viewport turns colourful.
	view := centre(s.widget("viewport"))
	s.moveTo(view)
	before := s.waitStill("rig-2-rigged", 20*time.Second)
	s.clickAt(s.widgetInView("rig: heat Weights"))
	s.moveTo(view)
	s.waitScreen("rig-3-weights", 10*time.Second, "the weight heat map", func(img *image.RGBA) bool {
		return changedPixels(before, img) > 3000 && colourfulPixels(img) > colourfulPixels(before)+3000
	})

	// Apply: the object becomes a skinned object of 20 joints.
	s.clickAt(s.widgetInView("rig: apply"))
	s.waitFor("the rig applied", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), "rig: applied to horse-gallop, 20 joints")
	})

	// Export through the Save dialog.
	glb := filepath.Join(t.TempDir(), "horse-rig.glb")
	s.dialogFrom("rig: export", "^(Save|Export)", glb)
	s.waitFor("the exported file", 60*time.Second, func() bool {
		st, err := os.Stat(glb)
		return err == nil && st.Size() > 0
	})
	time.Sleep(1500 * time.Millisecond) // the morph-size measurement, then the report
	s.screenshot("rig-4-exported")
	s.quitAnswering(cmd, "confirm: Don't Save") // the applied rig is unsaved work
	gltftest.Validate(t, glb)
	objs, err := assets.LoadGLTF(glb)
	if err != nil {
		t.Fatal(err)
	}
	o := objs[0]
	if o.Rig == nil || len(o.Rig.Joints) != 20 || o.Clip == nil || len(o.Clip.Frames) != 48 {
		t.Fatalf("the export holds rig %v, clip %v; want 20 joints and 48 frames", o.Rig != nil, o.Clip != nil)
	}
	roots := 0
	for _, jt := range o.Rig.Joints {
		if jt.Parent < 0 {
			roots++
		}
	}
	if roots != 1 {
		t.Errorf("the exported skeleton has %d roots, want 1", roots)
	}
}
