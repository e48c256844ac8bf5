package guitest

import (
	"fmt"
	"image"
	"strings"
	"testing"
	"time"
)

// Gallery tool positions on a 1280x800 window: its entry in the tool
// panel, the Start button and the first thumbnail of the right-hand
// panel, and the area of the first two thumbnails.
var (
	galleryToolButton = image.Pt(40, 104)
	galleryStart      = image.Pt(1008, 485)
	firstThumbnail    = image.Pt(1050, 640)
	thumbnailArea     = image.Rect(992, 598, 1244, 684)
)

// redPixels counts the pixels of r that are the sampled ball's red.
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

// TestGallerySession opens the Gallery tool on the demo scene, samples the
// 2D ball (two chains of 2,000 iterations), waits for the thumbnails,
// clicks one and checks that the viewport plays it on the timeline; the
// document is untouched, so Ctrl+Q quits without asking.
func TestGallerySession(t *testing.T) {
	s := newSession(t)
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"})
	s.waitFor("the demo scene", 30*time.Second, func() bool { return strings.Contains(s.windowName(), "Gallop - demo") })
	// The viewport shows the scenario's setup with the green target. A
	// click in the first frames of a new window can be lost: click again
	// while the setup has not appeared.
	clicked := time.Time{}
	s.waitScreen("gallery-setup", 20*time.Second, "the 2D ball's target in the viewport", func(img *image.RGBA) bool {
		if _, n := colourCentre(img, [3]uint8{77, 230, 89}); n > 20 {
			return true
		}
		if time.Since(clicked) > 3*time.Second {
			s.xdo("mousemove", fmt.Sprint(galleryToolButton.X), fmt.Sprint(galleryToolButton.Y), "sleep", "0.2", "click", "1")
			clicked = time.Now()
		}
		return false
	})
	s.xdo("mousemove", fmt.Sprint(galleryStart.X), fmt.Sprint(galleryStart.Y), "click", "1")
	thumbs := 0
	s.waitFor("the gallery's thumbnails", 30*time.Second, func() bool {
		out := cmd.output()
		if !strings.Contains(out, "gallery: finished") {
			return false
		}
		for _, l := range strings.Split(out, "\n") {
			var done, total, samples, n int
			if _, err := fmt.Sscanf(l, "gallery: %d of %d iterations, %d samples, %d thumbnails", &done, &total, &samples, &n); err == nil {
				thumbs = n
			}
		}
		return thumbs >= 4
	})
	s.xdo("mousemove", "600", "300")
	img := s.waitScreen("gallery-thumbnails", 10*time.Second, "balls in the thumbnails", func(img *image.RGBA) bool {
		return redPixels(img, thumbnailArea) > 100
	})
	t.Logf("%d thumbnails; %d red pixels in the first two", thumbs, redPixels(img, thumbnailArea))

	s.xdo("mousemove", fmt.Sprint(firstThumbnail.X), fmt.Sprint(firstThumbnail.Y), "click", "1", "sleep", "0.3", "mousemove", "600", "300")
	s.waitFor("the sample to play", 10*time.Second, func() bool { return strings.Contains(cmd.output(), "gallery: playing chain") })
	// Playing: the ball is in the viewport and moves between two
	// screenshots.
	a := s.screenshot("gallery-play-1")
	time.Sleep(300 * time.Millisecond)
	b := s.screenshot("gallery-play-2")
	if redPixels(b, viewportArea) < 200 {
		t.Fatalf("no ball in the viewport while the sample plays (%d red pixels)", redPixels(b, viewportArea))
	}
	if n := changedPixels(a, b); n < 50 {
		t.Fatalf("the viewport did not change while the sample plays (%d pixels)", n)
	}
	s.quit(cmd)
}
