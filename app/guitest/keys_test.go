package guitest

import (
	"fmt"
	"image"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestItem5EscClosesPopupsAndF1IsComplete (issue 10, item 5): F1 lists
// the Pose tool's keys too (Ctrl+H, I, X / Y / Z); Escape closes the
// Shortcuts list and the message log, as it closes error messages.
func TestItem5EscClosesPopupsAndF1IsComplete(t *testing.T) {
	s := newSession(t)
	cmd := s.start(filepath.Join(s.root, "..", "shared", "data", "lion-poses", "reference.obj"))
	s.waitFor("the lion", 30*time.Second, func() bool { return strings.Contains(s.windowName(), "Gallop - reference") })
	s.moveTo(centre(s.widget("viewport")))
	closed := func(popup string) func() bool {
		return func() bool { _, open := s.rects()[popup]; return !open }
	}

	s.xdo("key", "F1")
	s.widget("popup Shortcuts")
	s.screenshot("item5-f1")
	for _, keys := range []string{"Ctrl + H", "I", "X, Y, Z (dragging a handle)", "Space", "F1"} {
		if _, ok := s.rects()["shortcuts: "+keys]; !ok {
			t.Errorf("F1 does not list %q", keys)
		}
	}
	s.xdo("key", "Escape")
	s.waitFor("Escape to close the Shortcuts list", 5*time.Second, closed("popup Shortcuts"))

	// The message log (the load left a message in the status bar).
	s.click("status: Log")
	s.widget("popup Messages")
	s.xdo("key", "Escape")
	s.waitFor("Escape to close the message log", 5*time.Second, closed("popup Messages"))
	s.quit(cmd)
}

// TestItem10OverlaysStayUnderPopups (issue 10, item 10): the Rig tool's
// bones, drawn over the viewport, stay under a modal window: with the F1
// list open over them, none of the selected bone's yellow shows through.
func TestItem10OverlaysStayUnderPopups(t *testing.T) {
	s := newSession(t)
	cmd := s.start()
	s.waitFor("the demo scene", 30*time.Second, func() bool { return strings.Contains(s.windowName(), "Gallop - demo") })
	s.clickUntil("tool Rig", "rig: start")
	s.click("rig: start")
	s.widget("rig: export") // the rig is done: its result panel shows
	view := s.widget("viewport")
	// Click the mesh near the viewport's centre: its bone becomes the
	// selected, yellow one, under where the F1 list opens.
	img := s.waitStill("item10-rigged", 20*time.Second)
	spot, ok := meshSpot(img, centre(view))
	if !ok {
		t.Fatal("no mesh on screen")
	}
	s.clickAt(spot)
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	before := s.waitStill("item10-bones", 20*time.Second)
	if n := yellowPixels(before, view); n < 30 {
		t.Fatalf("no bones drawn (%d yellow pixels)", n)
	}
	s.xdo("key", "F1")
	// An auto-sized popup is laid out small in its first frame: wait for
	// its full size.
	var popup image.Rectangle
	s.waitFor("the F1 list at its size", 10*time.Second, func() bool {
		popup = s.rects()["popup Shortcuts"]
		return popup.Dx() > 300
	})
	under := yellowPixels(before, popup)
	if under < 10 {
		t.Fatalf("the bones are not where the F1 list opens (%d yellow pixels there): the test cannot tell", under)
	}
	after := s.waitStill("item10-popup", 10*time.Second)
	if n := yellowPixels(after, popup); n > 0 {
		t.Errorf("%d yellow bone pixels show over the F1 list (%d before it opened)", n, under)
	}
	s.xdo("key", "Escape")
	s.quit(cmd)
}

// yellowPixels counts the selected bone's yellow (1, 0.85, 0.2) in r.
func yellowPixels(img *image.RGBA, r image.Rectangle) int {
	n := 0
	r = r.Intersect(img.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := img.RGBAAt(x, y)
			if c.R > 220 && c.G > 180 && c.G < 240 && c.B < 90 {
				n++
			}
		}
	}
	return n
}

// TestItem4ShortcutsOwnTheKeyboard (issue 10, item 4): after a click on a
// panel widget, Home and the arrow keys do not hand the keyboard to a
// widget (Dear ImGui's keyboard navigation): Space then toggles playback,
// every time, and nothing opens a text field.
func TestItem4ShortcutsOwnTheKeyboard(t *testing.T) {
	s := newSession(t)
	s.start() // ended by the session's cleanup: A below edits the selection
	s.waitFor("the demo scene", 30*time.Second, func() bool { return strings.Contains(s.windowName(), "Gallop - demo") })
	s.click("tool Select")
	state := func() (playing, typing bool) {
		rs := s.rects()
		_, playing = rs["timeline: playing"]
		_, typing = rs["keyboard: text input"]
		return playing, typing
	}
	for i, keys := range [][]string{{"Home"}, {"Down", "Down"}, {"Up"}, {"Right"}} {
		s.xdo(append([]string{"key"}, keys...)...)
		for _, want := range []bool{true, false} {
			s.xdo("key", "space")
			s.waitFor(fmt.Sprintf("Space %d after %v to set playing %v", i, keys, want), 5*time.Second, func() bool {
				playing, typing := state()
				if typing {
					t.Fatalf("after %v and Space a text field has the keyboard", keys)
				}
				return playing == want
			})
		}
	}
	s.xdo("key", "a") // select all: a shortcut, never typed into a field
	time.Sleep(300 * time.Millisecond)
	if _, typing := state(); typing {
		t.Error("A went to a text field")
	}
}

// TestItem10SelectionBoxStaysUnderPopups (issue 10, item 10): the Select
// tool's box, drawn while a drag is held, stays under a modal window: the
// F1 list opened in the middle of a drag across it looks as it does with
// no drag at all.
func TestItem10SelectionBoxStaysUnderPopups(t *testing.T) {
	s := newSession(t)
	s.start() // ended by the session's cleanup: the box selects, an unsaved change
	s.clickUntil("tool Select", "object: name")
	view := s.widget("viewport")
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	// The F1 list with no drag: where it opens and what it looks like.
	s.xdo("key", "F1")
	var popup image.Rectangle
	s.waitFor("the F1 list at its size", 10*time.Second, func() bool {
		popup = s.rects()["popup Shortcuts"]
		return popup.Dx() > 300
	})
	plain := s.waitStill("item10-f1-plain", 10*time.Second)
	s.xdo("key", "Escape")
	s.waitFor("the F1 list to close", 5*time.Second, func() bool { _, open := s.rects()["popup Shortcuts"]; return !open })

	// A box dragged from the viewport's corner across where the list
	// opens, then F1 while the button is held.
	from := image.Pt(view.Min.X+10, view.Min.Y+10)
	to := image.Pt(popup.Max.X-20, popup.Max.Y-20)
	s.xdo("mousemove", fmt.Sprint(from.X), fmt.Sprint(from.Y), "mousedown", "1")
	for k := 1; k <= 10; k++ {
		s.xdo("mousemove", fmt.Sprint(from.X+(to.X-from.X)*k/10), fmt.Sprint(from.Y+(to.Y-from.Y)*k/10))
		time.Sleep(20 * time.Millisecond)
	}
	boxing := s.screenshot("item10-box")
	if n := changedPixels(plain, boxing); n < 100 {
		t.Fatalf("the selection box does not show (%d pixels changed): the test cannot tell", n)
	}
	s.xdo("key", "F1")
	s.widget("popup Shortcuts")
	time.Sleep(500 * time.Millisecond)
	over := s.screenshot("item10-box-f1")
	s.xdo("mouseup", "1")
	n := 0
	in := popup.Intersect(over.Bounds())
	for y := in.Min.Y; y < in.Max.Y; y++ {
		for x := in.Min.X; x < in.Max.X; x++ {
			p, q := plain.RGBAAt(x, y), over.RGBAAt(x, y)
			if absDiff(p.R, q.R)+absDiff(p.G, q.G)+absDiff(p.B, q.B) > 40 {
				n++
			}
		}
	}
	if n > 0 {
		t.Errorf("%d pixels of the F1 list differ with a selection box dragged under it: the box is drawn over the list", n)
	}
}

// TestItem7EscapeClosesMenus (issue 25, item 7): Escape closes each menu
// of the menu bar (the Edit menu stayed open).
func TestItem7EscapeClosesMenus(t *testing.T) {
	s := newSession(t)
	cmd := s.start()
	s.widget("pose: make handle")
	for _, m := range []string{"File", "Edit", "View", "Help"} {
		s.clickUntil("menu "+m, "menu: "+m+" items")
		s.xdo("key", "Escape")
		s.waitFor("Escape to close the "+m+" menu", 5*time.Second, func() bool { _, open := s.rects()["menu: "+m+" items"]; return !open })
	}
	s.quit(cmd)
}
