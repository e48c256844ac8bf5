package guitest

import (
	"fmt"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gallop/assets/gltftest"
)

// TestEnsembleBannerSession (acceptance 6 of issue 13): the real binary
// opens the banner through the Ensemble tool's Open dialog (its groups
// file), builds a small motion graph (one leaving frame per task, two
// samples per transition, typed into the panel) with its progress bar and
// the solver's plots, plays it with the wind slider moved to level 3 (the
// banner moves; groups blend, highlighted, on the way), compares the player's last transition (the solver's τ without new
// interpenetrating pairs; the unconstrained minimum's pairs red on screen
// when it has any), goes back to playing, exports the played stretch
// through the native Save dialog (the file passes the glTF validator),
// adds it to the document as an object and undoes that; quitting asks
// about the unsaved graph, saves it in the project, which reopens with it.
func TestEnsembleBannerSession(t *testing.T) {
	s := newSession(t)
	groups := filepath.Join(s.root, "..", "shared", "data", "ensemble-banner", "groups.csv")
	_, err := os.Stat(groups)
	need(t, "../shared/data/ensemble-banner", err == nil)
	project := filepath.Join(t.TempDir(), "banner.gallop")
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"}, "--save-to", project)
	s.clickUntil("tool Ensemble", "ensemble: open")
	defer func() {
		if t.Failed() {
			s.screenshot("ensemble-failed")
			t.Log(lastLines(cmd.output(), 20))
		}
	}()

	view := centre(s.widget("viewport"))
	s.moveTo(view)
	before := s.screenshot("ensemble-0-demo")
	s.dialogFrom("ensemble: open", "^Open", groups)
	s.waitFor("the banner to open", 60*time.Second, func() bool {
		return strings.Contains(cmd.output(), "ensemble: ensemble-banner: 31 groups, 2152 vertices, 3 levels, 630 frames")
	})
	s.moveTo(view)
	s.waitScreen("ensemble-1-opened", 10*time.Second, "the banner in place of the demo scene", func(img *image.RGBA) bool {
		return changedPixels(before, img) > 2000
	})

	// A small build: one try per task, two samples per transition.
	s.typeInto("ensemble: tries", "1")
	s.typeInto("ensemble: samples", "2")
	s.clickAt(s.widgetInView("ensemble: build"))
	sawBar := false
	s.waitFor("the build's progress", 30*time.Second, func() bool {
		_, sawBar = s.rects()["ensemble: build progress"]
		return sawBar || strings.Contains(cmd.output(), "; building, transitions: task")
	})
	s.screenshot("ensemble-2-building")
	s.waitFor("the motion graph", 120*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; motion graph of ")
	})
	built := regexp.MustCompile(`motion graph of (\d+) transitions`).FindStringSubmatch(cmd.output())
	if built == nil || built[1] == "0" {
		t.Fatalf("no transitions:\n%s", lastLines(cmd.output(), 10))
	}
	if !strings.Contains(cmd.output(), "; building, transitions: task") {
		t.Error("the build's progress never showed")
	}
	t.Logf("built %s transitions (progress bar seen: %v)", built[1], sawBar)
	s.widget("ensemble: table")
	s.widget("ensemble: phi plot")
	s.noOverflow("Ensemble with a graph")

	// Play, then move the wind to level 3 (the slider's right end).
	s.clickAt(s.widgetInView("ensemble: play"))
	s.waitFor("playing", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; playing level 1, wind 1")
	})
	s.moveTo(view)
	a := s.screenshot("ensemble-3-playing")
	s.setWind("3")
	s.waitFor("wind level 3", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), ", wind 3, ")
	})
	s.moveTo(view)
	time.Sleep(700 * time.Millisecond)
	b := s.screenshot("ensemble-4-windy")
	if n := changedPixels(a, b); n < 500 {
		t.Errorf("the banner moved only %d pixels", n)
	}
	blends := regexp.MustCompile(`groups blending, at most [1-9]\d* so far`)
	s.waitFor("groups blending", 60*time.Second, func() bool { return blends.MatchString(cmd.output()) })
	s.waitFor("level 3", 60*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; playing level 3, wind 3")
	})
	s.screenshot("ensemble-5-level-3")
	s.noOverflow("Ensemble, playing")

	// Compare the player's last transition: the solver's τ first, then
	// the unconstrained minimum, whose new interpenetrating pairs are red.
	s.clickAt(s.widgetInView("ensemble: variant 3"))
	s.clickAt(s.widgetInView("ensemble: compare"))
	s.waitFor("the solver's variant", 60*time.Second, func() bool {
		return strings.Contains(cmd.output(), "showing solver's τ at frame")
	})
	s.moveTo(view)
	time.Sleep(500 * time.Millisecond)
	solved := s.screenshot("ensemble-6-solver")
	s.clickAt(s.widgetInView("ensemble: variant 2"))
	shown := regexp.MustCompile(`comparing transition (\d+), showing unconstrained minimum at frame \d+, (\d+) groups red; new pairs (\d+) \(τ = 0\), (\d+) \(unconstrained\), (\d+) \(solver\)`)
	var cmpd []string
	s.waitFor("the unconstrained variant", 20*time.Second, func() bool {
		cmpd = shown.FindStringSubmatch(cmd.output())
		return cmpd != nil
	})
	t.Logf("transition %s compared: new pairs %s (τ = 0), %s (unconstrained, %s groups red at the frame shown), %s (solver)", cmpd[1], cmpd[3], cmpd[4], cmpd[2], cmpd[5])
	if cmpd[5] != "0" {
		t.Errorf("the solver's τ has %s new pairs", cmpd[5])
	}
	s.moveTo(view)
	base := redPixels(solved, viewportArea)
	if cmpd[4] != "0" {
		s.waitScreen("ensemble-7-unconstrained", 10*time.Second, "red groups", func(img *image.RGBA) bool {
			return redPixels(img, viewportArea) > base+100
		})
	} else {
		s.screenshot("ensemble-7-unconstrained")
	}
	s.noOverflow("Ensemble, comparing")
	s.clickAt(s.widgetInView("ensemble: back to playing"))
	s.waitFor("playing again", 20*time.Second, func() bool {
		out := cmd.output()
		return strings.Contains(out[strings.LastIndex(out, "comparing transition"):], "; playing level")
	})

	glb := filepath.Join(t.TempDir(), "banner-played.glb")
	s.dialogFrom("ensemble: export", "^(Save|Export)", glb)
	s.waitFor("the exported file", 60*time.Second, func() bool {
		st, err := os.Stat(glb)
		return err == nil && st.Size() > 0 && strings.Contains(cmd.output(), "wrote "+glb)
	})

	// Issue 25, item 3: Add to document makes the played stretch an
	// object of the document, listed among the scene's objects.
	s.clickAt(s.widgetInView("ensemble: add"))
	added := regexp.MustCompile(`added (ensemble-banner played, frames \d+-\d+) \((\d+) frames`)
	var obj []string
	s.waitFor("the played stretch in the document", 20*time.Second, func() bool {
		obj = added.FindStringSubmatch(cmd.output())
		return obj != nil
	})
	s.widget("object " + obj[1])
	t.Logf("added %s (%s frames)", obj[1], obj[2])
	// One undoable step: Ctrl+Z takes it out again (and leaves nothing
	// unsaved in the document).
	s.moveTo(view)
	s.xdo("key", "ctrl+z")
	s.waitFor("the object undone", 20*time.Second, func() bool { _, there := s.rects()["object "+obj[1]]; return !there })

	// Issue 33, item 5: the graph is work no file keeps, though the
	// document has no change: Ctrl+Q asks, Save keeps the graph in the
	// project (--save-to) and quits, and the project reopens with it.
	s.quitAnswering(cmd, "confirm: Save")
	again := s.startEnv([]string{"GALLOP_TRACE=1"}, project)
	s.waitFor("the project's graph", 120*time.Second, func() bool {
		return strings.Contains(again.output(), "; motion graph of "+built[1]+" transitions")
	})
	s.quit(again)
	gltftest.Validate(t, glb)
}

// TestEnsembleReedsSession (acceptance 6 of issue 23): the real binary
// opens the reeds (80 blades in three wind levels) through the Ensemble
// tool's Open dialog, builds a small motion graph (one leaving frame per
// task, two samples per transition, a budget of 20 s, typed into the
// panel) with its progress per level, shows each level's report and the
// wind-change latency table, and plays with the wind slider moved to each
// level in turn. Where the small graph cannot reach a level from
// another, the panel says why (the blade pairs that stop the closest
// transitions) and the wind slider's marks name the levels.
func TestEnsembleReedsSession(t *testing.T) {
	s := newSession(t)
	groups := filepath.Join(s.root, "..", "shared", "data", "ensemble-reeds", "groups.csv")
	_, err := os.Stat(groups)
	need(t, "../shared/data/ensemble-reeds", err == nil)
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"})
	s.clickUntil("tool Ensemble", "ensemble: open")
	defer func() {
		if t.Failed() {
			s.screenshot("reeds-failed")
			t.Log(lastLines(cmd.output(), 20))
		}
	}()

	view := centre(s.widget("viewport"))
	s.dialogFrom("ensemble: open", "^Open", groups)
	s.waitFor("the reeds to open", 120*time.Second, func() bool {
		return strings.Contains(cmd.output(), "ensemble: ensemble-reeds: 80 groups, 1920 vertices, 3 levels, 1350 frames")
	})
	time.Sleep(time.Second) // the panel settles with the dataset's lines
	for _, f := range []struct{ name, value string }{{"ensemble: tries", "1"}, {"ensemble: samples", "2"}, {"ensemble: budget", "20"}} {
		s.widgetInView(f.name)
		s.typeInto(f.name, f.value)
	}
	s.clickAt(s.widgetInView("ensemble: build"))
	perLevel := false
	s.waitFor("the build's progress per level", 120*time.Second, func() bool {
		_, perLevel = s.rects()["ensemble: level progress"]
		return perLevel
	})
	s.screenshot("reeds-1-building")
	s.waitFor("the motion graph", 600*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; motion graph of ")
	})
	if !regexp.MustCompile(`transitions: task \d+ of \d+ \(level [123] to [123]\)`).MatchString(cmd.output()) {
		t.Error("the build's progress never named a level")
	}
	s.widget("ensemble: levels")
	s.widget("ensemble: latency")
	lat := regexp.MustCompile(`worst wind-change latency (1→2 [^,;]+, 1→3 [^,;]+, 2→1 [^,;]+, 2→3 [^,;]+, 3→1 [^,;]+, 3→2 [^,;]+)`).FindStringSubmatch(cmd.output())
	if lat == nil {
		t.Fatalf("no latency figures:\n%s", lastLines(cmd.output(), 5))
	}
	t.Logf("latency: %s", lat[1])
	if strings.Contains(lat[1], "unreachable") {
		// Issue 33's acceptance 4: the panel says what stops each
		// unreachable level, and the slider marks them.
		s.widgetInView("ensemble: unreachable")
		s.widgetInView("ensemble: wind marks")
	}
	s.screenshot("reeds-2-built")
	s.noOverflow("Ensemble with the reeds' graph")

	s.clickAt(s.widgetInView("ensemble: play"))
	s.waitFor("playing", 20*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; playing level 1, wind 1")
	})
	s.moveTo(view)
	prev := s.screenshot("reeds-3-playing")
	for _, level := range []string{"2", "3", "1"} {
		s.setWind(level)
		s.waitFor("wind level "+level, 20*time.Second, func() bool {
			return strings.Contains(cmd.output(), ", wind "+level+", ")
		})
		if level == "2" && strings.Contains(lat[1], "1→2 unreachable") {
			// The panel says the level asked for cannot be reached from
			// where the output is, and plays on at its own.
			s.waitFor("the player to stay at level 1", 20*time.Second, func() bool {
				return strings.Contains(cmd.output(), ", wind 2, heading 1, ")
			})
		}
		s.moveTo(view)
		time.Sleep(700 * time.Millisecond)
		img := s.screenshot("reeds-4-wind-" + level)
		if n := changedPixels(prev, img); n < 200 {
			t.Errorf("wind %s: the reeds moved only %d pixels", level, n)
		}
		prev = img
	}
	s.noOverflow("Ensemble, playing the reeds")
	s.quitAnswering(cmd, "confirm: Don't Save") // the graph is unsaved work
}

// TestEnsembleRampSession (issue 33, acceptance 6): the real binary opens
// the reeds' take whose wind changes (ensemble-reeds-ramp: one clip and
// its wind.csv) through the Ensemble tool's Open dialog, builds the motion
// graph with the panel's defaults, plays from the calm start and moves the
// wind slider to 3, 1 and 2: the player reaches each level (the panel's
// line says which level is playing), through the take's own frames where
// no blend joins the levels. The build takes about half an hour in the
// window on two cores (ten minutes with gallop ensemble build), too long
// for make test: GALLOP_SLOW_GUI=1 runs it. The wait fails only on a hang.
func TestEnsembleRampSession(t *testing.T) {
	if os.Getenv("GALLOP_SLOW_GUI") == "" {
		t.Skip("the reeds' take builds for about half an hour in the window; GALLOP_SLOW_GUI=1 runs this test")
	}
	s := newSession(t)
	groups := filepath.Join(s.root, "..", "shared", "data", "ensemble-reeds-ramp", "groups.csv")
	_, err := os.Stat(groups)
	need(t, "../shared/data/ensemble-reeds-ramp", err == nil)
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"})
	s.clickUntil("tool Ensemble", "ensemble: open")
	defer func() {
		if t.Failed() {
			s.screenshot("ramp-failed")
			t.Log(lastLines(cmd.output(), 20))
		}
	}()
	view := centre(s.widget("viewport"))
	s.dialogFrom("ensemble: open", "^Open", groups)
	s.waitFor("the ramp to open", 180*time.Second, func() bool {
		return strings.Contains(cmd.output(), "ensemble: ensemble-reeds-ramp: 80 groups") && strings.Contains(cmd.output(), "765 frames")
	})
	time.Sleep(time.Second)
	s.clickAt(s.widgetInView("ensemble: build"))
	s.waitFor("the motion graph", 60*time.Minute, func() bool {
		return strings.Contains(cmd.output(), "; motion graph of ")
	})
	s.screenshot("ramp-1-built")
	s.clickAt(s.widgetInView("ensemble: play"))
	s.waitFor("playing", 60*time.Second, func() bool {
		return strings.Contains(cmd.output(), "; playing level 1, wind 1")
	})
	for _, level := range []string{"3", "1", "2"} {
		mark := len(cmd.output())
		s.setWind(level)
		s.waitFor("level "+level+" playing", 180*time.Second, func() bool {
			return strings.Contains(cmd.output()[mark:], "; playing level "+level+", wind "+level+",")
		})
		s.moveTo(view)
		s.screenshot("ramp-2-level-" + level)
	}
	s.quitAnswering(cmd, "confirm: Don't Save")
}

// typeInto replaces the text of the input field marked name by value:
// a click into it, Ctrl+A, the keys and Return.
func (s *session) typeInto(name, value string) {
	s.t.Helper()
	r := s.widget(name)
	s.clickAt(image.Pt(r.Min.X+20, (r.Min.Y+r.Max.Y)/2))
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", value)
	s.xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
}

// setWind types level into the Ensemble tool's wind slider (Ctrl+click
// makes a slider a text field).
func (s *session) setWind(level string) {
	s.t.Helper()
	s.widgetInView("ensemble: wind")
	wind := s.widget("ensemble: wind")
	s.xdo("mousemove", fmt.Sprint(wind.Min.X+20), fmt.Sprint((wind.Min.Y+wind.Max.Y)/2), "sleep", "0.2", "keydown", "ctrl", "click", "1", "keyup", "ctrl")
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", level)
	s.xdo("key", "Return")
}
