package guitest

import (
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
