package app

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gallop/assets"
	"gallop/panels"
	"gallop/viewport"
)

// brokenTool is a tool whose state cannot be serialised.
type brokenTool struct{ panels.Select }

func (*brokenTool) Name() string                    { return "Broken" }
func (*brokenTool) State() (json.RawMessage, error) { return nil, errors.New("a NaN in its settings") }

// testApp is an App without a window on the demo scene, with tools.
func testApp(t *testing.T, tools ...panels.Tool) *App {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // the recent-files list
	t.Setenv("HOME", t.TempDir())
	return &App{doc: &Document{Scene: assets.DemoScene()}, view: viewport.NewView(), tools: tools}
}

// TestSaveFailsOnToolState: a tool whose state does not serialise makes
// the save fail naming it; the previous file is untouched, the document
// stays unsaved and a quit waiting for the save does not happen.
func TestSaveFailsOnToolState(t *testing.T) {
	a := testApp(t, &panels.Select{}, &brokenTool{})
	a.history.Do(&renameCmd{obj: a.doc.Scene.Objects[0], before: "bar", after: "edited"})
	path := filepath.Join(t.TempDir(), "work.gallop")
	if err := os.WriteFile(path, []byte("the previous project"), 0o644); err != nil {
		t.Fatal(err)
	}
	quit := false
	a.save(path, func() { quit = true })
	a.jobs.Wait()
	if b, _ := os.ReadFile(path); string(b) != "the previous project" {
		t.Errorf("the previous file was changed to %d bytes", len(b))
	}
	if quit {
		t.Error("the pending quit ran after a failed save")
	}
	if !a.history.Dirty() || a.doc.Path != "" {
		t.Errorf("after a failed save: dirty %v, path %q; want unsaved", a.history.Dirty(), a.doc.Path)
	}
	if !strings.Contains(a.modal.errorText, "Broken tool") || !strings.Contains(a.modal.errorText, "nothing was written") {
		t.Errorf("error shown %q; want one naming the tool", a.modal.errorText)
	}
}

// TestSaveKeepsAView: a camera with NaN values does not vanish from the
// file: the project keeps a finite view framing the scene, and says so.
func TestSaveKeepsAView(t *testing.T) {
	a := testApp(t, &panels.Select{})
	a.view.Camera.Target[0] = math.NaN()
	path := filepath.Join(t.TempDir(), "nan.gallop")
	saved := false
	a.save(path, func() { saved = true })
	a.jobs.Wait()
	if !saved || a.modal.errorText != "" {
		t.Fatalf("saved %v, error %q", saved, a.modal.errorText)
	}
	p, err := assets.LoadProject(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var s settings
	if err := json.Unmarshal(p.Settings["app"], &s); err != nil || len(s.Camera) == 0 {
		t.Fatalf("the file's settings %s have no camera (%v)", p.Settings["app"], err)
	}
	var cam viewport.Camera
	if err := json.Unmarshal(s.Camera, &cam); err != nil {
		t.Fatal(err)
	}
	for _, x := range cam.Target {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("the saved camera is not finite: %+v", cam)
		}
	}
}

// TestDiscardQuestion: the unsaved-changes question names the tools'
// unsaved work beside the document's changes, or alone.
func TestDiscardQuestion(t *testing.T) {
	graph := []string{"the Ensemble tool's motion graph of ensemble-reeds"}
	for _, tc := range []struct {
		changed bool
		work    []string
		want    string
	}{
		{true, nil, "horse has unsaved changes.\nSave them before quitting?"},
		{true, graph, "horse has unsaved changes, and the Ensemble tool's motion graph of ensemble-reeds is not saved.\nSave the project before quitting?"},
		{false, graph, "The Ensemble tool's motion graph of ensemble-reeds is not saved in any file.\nSave the project (it keeps it) before quitting?"},
	} {
		if got := discardQuestion("horse", tc.changed, tc.work, "quitting"); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}
