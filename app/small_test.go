package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gallop/assets"
	"gallop/panels/synthpanel"
)

// TestItem14Plurals (issue 10, item 14): counts of one are singular in
// what the window says ("1 frames", "1 corners" before).
func TestItem14Plurals(t *testing.T) {
	tri := &assets.Object{Name: "t", Mesh: &assets.Mesh{Positions: []assets.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}}}
	if got, want := loadedMessage(tri), "Loaded t: 3 vertices, 1 triangle, 1 frame"; got != want {
		t.Errorf("load message %q, want %q", got, want)
	}
	bad := filepath.Join(t.TempDir(), "bad.obj")
	if err := os.WriteFile(bad, []byte("v 0 0 0\nv 1 0 0\nf 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := assets.LoadOBJ(bad); err == nil || !strings.Contains(err.Error(), "face has 1 corner,") {
		t.Errorf("a one-corner face: %v", err)
	}
}

// TestItem14TimelineCounter (issue 10, item 14): the timeline of an empty
// scene says so instead of "1 / 1".
func TestItem14TimelineCounter(t *testing.T) {
	if got := frameCounter(NewDocument()); got != "empty scene" {
		t.Errorf("empty scene: %q", got)
	}
	still := &Document{Scene: &assets.Scene{Objects: []*assets.Object{{Name: "bar", Mesh: assets.DemoBar()}}}}
	if got := frameCounter(still); got != "a still" {
		t.Errorf("a static mesh: %q", got)
	}
	demo := &Document{Scene: assets.DemoScene(), Frame: 2}
	if got := frameCounter(demo); got != "3 / 60" {
		t.Errorf("the demo at its third frame: %q", got)
	}
}

// TestItem14DialogsStartNextToTheData (issue 10, item 14): once a file or
// a folder of frames has been opened, file dialogs start next to it
// rather than in the folder Gallop was started from.
func TestItem14DialogsStartNextToTheData(t *testing.T) {
	data := t.TempDir()
	frames := filepath.Join(data, "horse", "frames")
	if err := os.MkdirAll(frames, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(data, "lion.obj")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDialogs(func() {}, func(error) {})
	if got := d.start(); got != "" {
		t.Errorf("before anything was opened the dialogs start in %q, want the toolkit's choice", got)
	}
	d.near(file)
	if got := d.start(); got != data {
		t.Errorf("after opening %s the dialogs start in %q, want %q", file, got, data)
	}
	d.near(frames)
	if got, want := d.start(), filepath.Dir(frames); got != want {
		t.Errorf("after opening the folder %s the dialogs start in %q, want %q", frames, got, want)
	}
	d.near(filepath.Join(data, "gone.obj"))
	if got, want := d.start(), filepath.Dir(frames); got != want {
		t.Errorf("a path that does not exist moved the start to %q", got)
	}
}

// TestSaveDialogsStartAwayFromTheData (issue 34): a Save or Export dialog
// starts in the suggested file's folder (the project's own), else where
// the last save went, else the home folder; not next to the data opened,
// where exports landed beside a capture that is not the artist's.
func TestSaveDialogsStartAwayFromTheData(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	data := t.TempDir()
	file := filepath.Join(data, "lion.obj")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d := newDialogs(func() {}, func(error) {})
	d.near(file)
	if got := d.saveStart("lion.glb"); got != home {
		t.Errorf("an export after opening %s starts in %q, want the home folder %q", file, got, home)
	}
	if got, want := d.saveStart(filepath.Join(data, "p.gallop")), data; got != want {
		t.Errorf("saving the project %s starts in %q", want, got)
	}
	out := filepath.Join(t.TempDir(), "exports")
	d.run(true, func() (string, error) { return filepath.Join(out, "a.glb"), nil }, func(string) {})
	for d.isOpen() {
		time.Sleep(time.Millisecond)
	}
	if got := d.saveStart("b.glb"); got != out {
		t.Errorf("after saving to %s the next export starts in %q", out, got)
	}
	if got := d.start(); got != data {
		t.Errorf("a save moved the Open dialogs' start to %q", got)
	}
}

// TestItem14HeatMapUnits (issue 10, item 14): the View menu's heat maps
// name their units in the colour bar's title.
func TestItem14HeatMapUnits(t *testing.T) {
	a := &App{doc: &Document{Scene: assets.DemoScene()}}
	for _, k := range []overlayKind{overlayDisplacement, overlaySpeed} {
		a.overlay = k
		a.heat = heatCache{}
		hm := a.heatMap(a.doc.Object())
		if hm == nil {
			t.Fatalf("%s: no heat map", overlayNames[k])
		}
		if !strings.Contains(hm.title, "model units") {
			t.Errorf("%s: title %q, want its units", overlayNames[k], hm.title)
		}
	}
}

// TestItem7ProgressTextFits (issue 25, item 7): a job's name longer than
// its progress bar showed as "ion graph of ensemble-banner 55%", cut on
// the left by Dear ImGui's centring; now the name is cut at its end, with
// an ellipsis, and the percentage always shows.
func TestItem7ProgressTextFits(t *testing.T) {
	measure := func(s string) float32 { return 7 * float32(len([]rune(s))) } // a 7-pixel monospace font
	for _, name := range []string{"Build motion graph of ensemble-banner", "Save", strings.Repeat("x", 200)} {
		got := progressOverlay(name, 0.55, 208, measure)
		if measure(got) > 208 {
			t.Errorf("%q: %q is %g pixels wide, the bar 208", name, got, measure(got))
		}
		if !strings.HasSuffix(got, " 55%") {
			t.Errorf("%q: %q hides the percentage", name, got)
		}
		if head := []rune(name)[:min(4, len([]rune(name)))]; !strings.HasPrefix(got, string(head)) {
			t.Errorf("%q: %q lost the name's beginning", name, got)
		}
	}
	if got := progressOverlay("Save", 1, 208, measure); got != "Save 100%" {
		t.Errorf("a short name: %q", got)
	}
}

// TestItem5ObstaclesShownWhileAVariationPlays (issue 25, item 5): the
// Synthesize tool's obstacle spheres were drawn over the document but not
// over a variation playing in its place; now they are drawn over both.
func TestItem5ObstaclesShownWhileAVariationPlays(t *testing.T) {
	sp := &synthpanel.Panel{}
	a := testApp(t, sp)
	sp.Model().AddSphere(a)
	spheres := func() int {
		n := 0
		for _, it := range a.drawItems() {
			if it.Key != nil && len(it.Triangles) > 100 && it.Key != any(a.doc.Scene.Objects[0]) {
				n++
			}
		}
		return n
	}
	if n := spheres(); n != 1 {
		t.Fatalf("%d spheres over the document, want 1", n)
	}
	clip := a.doc.Scene.Objects[0]
	a.preview = &preview{clip: clip, doc: &Document{Scene: &assets.Scene{Objects: []*assets.Object{clip}}}}
	if n := spheres(); n != 1 {
		t.Errorf("%d spheres over a variation playing, want 1", n)
	}
}

// TestCrashReportsDoNotOverwrite (issue 34): two crash reports of one
// process in one second are two files, each whole.
func TestCrashReportsDoNotOverwrite(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	a, err := writeCrashReport("first", []byte("stack 1"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := writeCrashReport("second", []byte("stack 2"))
	if err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("both reports in %s", a)
	}
	for path, want := range map[string]string{a: "first\n\nstack 1", b: "second\n\nstack 2"} {
		if got, err := os.ReadFile(path); err != nil || string(got) != want {
			t.Errorf("%s: %q, %v; want %q", path, got, err, want)
		}
	}
}

// TestGettingStarted (issue 34): Help > Getting started has its pages
// (the window, each tool, the chain) from started.md, and the README's
// Getting started section is that text: one source for both.
func TestGettingStarted(t *testing.T) {
	if len(gettingStarted) < 9 || gettingStarted[0].tool != "The window" || len(gettingStarted[0].lines) != 3 {
		t.Fatalf("pages %+v", gettingStarted)
	}
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	body := strings.SplitN(startedText, "\n", 2)[1] // without its title
	want := strings.ReplaceAll("\n"+body, "\n## ", "\n### ")
	if !strings.Contains(string(readme), "## Getting started\n"+want) {
		t.Error("the README's Getting started section is not app/started.md (its ## headings as ###)")
	}
}
