package guitest

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/assets/gltftest"
)

// redPixels counts the pixels of r that are the sampled balls' red.
func redPixels(img *image.RGBA, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R > 120 && int(c.R) > 2*int(c.G) && int(c.R) > 2*int(c.B) {
				n++
			}
		}
	}
	return n
}

// galleryThumbnails returns the number of thumbnails the last progress
// line reported.
func galleryThumbnails(out string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		var done, total, samples, thumbs int
		if _, err := fmt.Sscanf(l, "gallery: %d of %d iterations, %d samples, %d thumbnails", &done, &total, &samples, &thumbs); err == nil {
			n = thumbs
		}
	}
	return n
}

// TestGallerySession opens the Gallery tool on the demo scene, picks the
// "HI" spelling (the Spell scenario's default), runs two chains until the
// gallery shows at least four distinct correct spellings (at most three
// minutes), stops them, clicks the first thumbnail and checks that the
// viewport plays it on the timeline, then exports it through the native
// Save dialog and validates the file. The document is untouched, so Ctrl+Q
// quits without asking.
func TestGallerySession(t *testing.T) {
	s := newSession(t)
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"})
	s.waitFor("the demo scene", 30*time.Second, func() bool { return strings.Contains(s.windowName(), "Gallop - demo") })
	s.clickUntil("tool Gallery", "gallery: scenario Spell")
	start0 := s.widget("gallery: start")
	s.click("gallery: scenario Spell")
	// The Spell panel (presets, the bin grid) is taller: Start moves down.
	var start image.Point
	s.waitFor("the Spell scenario's panel", 10*time.Second, func() bool {
		start = centre(s.widget("gallery: start"))
		return start.Y > centre(start0).Y+50
	})
	// The setup in the viewport: the HI bins in green and ten red balls.
	s.waitScreen("gallery-setup", 10*time.Second, "the HI setup in the viewport", func(img *image.RGBA) bool {
		return redPixels(img, viewportArea) > 1000
	})
	s.clickAt(start)
	began := time.Now()
	s.waitFor("four thumbnails of correct spellings", 180*time.Second, func() bool {
		return galleryThumbnails(cmd.output()) >= 4
	})
	t.Logf("four distinct spellings of HI after %.0f s", time.Since(began).Seconds())
	s.clickAt(start) // now Stop
	s.waitFor("the chains to stop", 20*time.Second, func() bool { return strings.Contains(cmd.output(), "gallery: finished") })

	// Scroll the panel until the first thumbnail is in the window.
	s.clickAt(s.widgetInView("gallery: thumbnail 1"))
	s.moveTo(centre(s.widget("viewport")))
	s.waitFor("the sample to play", 10*time.Second, func() bool { return strings.Contains(cmd.output(), "gallery: playing chain") })
	// Playing: the balls are in the viewport and move from one screenshot
	// to a later one (however slowly a loaded machine draws).
	a := s.screenshot("gallery-play-1")
	b := s.waitScreen("gallery-play-2", 3*time.Minute, "the balls moving", func(img *image.RGBA) bool {
		return changedPixels(a, img) >= 50
	})
	if n := redPixels(b, viewportArea); n < 500 {
		t.Fatalf("no balls in the viewport while the sample plays (%d red pixels)", n)
	}

	// Export the sample played and validate the file.
	out := filepath.Join(t.TempDir(), "hi.glb")
	s.clickAt(s.widgetInView("gallery: export"))
	defer func() {
		if t.Failed() {
			s.screenshot("gallery-export-failed")
		}
	}()
	s.enterInDialog("^(Save|Export)", out)
	s.waitFor("the exported file", 20*time.Second, func() bool {
		st, err := os.Stat(out)
		return err == nil && st.Size() > 0
	})
	time.Sleep(300 * time.Millisecond)
	s.quit(cmd)
	objs, err := assets.Import(t.Context(), []string{out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) < 10 {
		t.Errorf("the export holds %d objects, want the 10 balls and the box", len(objs))
	}
	gltftest.Validate(t, out)
}
