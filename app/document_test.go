package app

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"gallop/assets"
	"gallop/internal/undo"
	"gallop/panels"
)

func TestDocumentCommandsUndo(t *testing.T) {
	d := &Document{Scene: assets.DemoScene()}
	var h undo.Stack
	bar := d.Scene.Objects[0]
	h.Do(&selectCmd{doc: d, before: nil, after: []int{1, 2, 3}})

	other := &assets.Object{Name: "other", Mesh: assets.DemoBar()}
	h.Do(&addObjectsCmd{doc: d, objs: []*assets.Object{other}})
	if len(d.Scene.Objects) != 2 || d.Object() != other || d.Selection != nil {
		t.Fatalf("after import: %d objects, active %q, selection %v", len(d.Scene.Objects), d.Object().Name, d.Selection)
	}
	h.Do(&renameCmd{obj: other, before: "other", after: "renamed"})
	h.Do(&removeObjectCmd{doc: d, index: 0, obj: bar})
	if len(d.Scene.Objects) != 1 || d.Scene.Objects[0] != other {
		t.Fatal("delete removed the wrong object")
	}
	h.Do(&setFPSCmd{clip: bar.Clip, before: 30, after: 24})

	// Undo everything, in order.
	h.Undo() // fps
	if bar.Clip.FPS != 30 {
		t.Fatalf("fps %v", bar.Clip.FPS)
	}
	h.Undo() // delete
	if len(d.Scene.Objects) != 2 || d.Scene.Objects[0] != bar {
		t.Fatal("undo delete did not put the object back in its place")
	}
	h.Undo() // rename
	if other.Name != "other" {
		t.Fatalf("name %q", other.Name)
	}
	h.Undo() // import
	if len(d.Scene.Objects) != 1 || d.Object() != bar || !reflect.DeepEqual(d.Selection, []int{1, 2, 3}) {
		t.Fatalf("undo import: %d objects, selection %v", len(d.Scene.Objects), d.Selection)
	}
	h.Undo() // select
	if d.Selection != nil || h.Dirty() {
		t.Fatalf("selection %v dirty %v", d.Selection, h.Dirty())
	}
	for h.CanRedo() {
		h.Redo()
	}
	if len(d.Scene.Objects) != 1 || other.Name != "renamed" || bar.Clip.FPS != 24 {
		t.Fatal("redo did not restore the edits")
	}
}

func TestFPSDragIsOneStep(t *testing.T) {
	clip := &assets.Clip{FPS: 30}
	var h undo.Stack
	for _, f := range []float64{29, 28, 25} {
		h.Do(&setFPSCmd{clip: clip, before: clip.FPS, after: f})
	}
	h.Undo()
	if clip.FPS != 30 || h.CanUndo() {
		t.Fatalf("fps %v after one undo", clip.FPS)
	}
}

func TestDocumentTimeline(t *testing.T) {
	d := &Document{Scene: assets.DemoScene()}
	if d.NumFrames() != 60 || d.FPS() != assets.DefaultFPS {
		t.Fatalf("frames %d fps %v", d.NumFrames(), d.FPS())
	}
	lo, hi, ok := d.Bounds()
	if !ok || !(hi[1] > lo[1]) {
		t.Fatalf("bounds %v %v", lo, hi)
	}
	e := NewDocument()
	if e.Object() != nil || e.NumFrames() != 1 {
		t.Fatal("empty document")
	}
	if _, _, ok := e.Bounds(); ok {
		t.Fatal("empty document has bounds")
	}
}

func TestOverlayValues(t *testing.T) {
	o := assets.DemoScene().Objects[0]
	disp := overlayValues(nil, o, overlayDisplacement, 0)
	for i, v := range disp {
		if v != 0 {
			t.Fatalf("frame 0 is the rest pose, vertex %d displaced by %v", i, v)
		}
	}
	disp = overlayValues(disp, o, overlayDisplacement, 30)
	tip := len(disp) - 1 // the far cap's centre moves most
	if !(disp[tip] > 1) || disp[0] != 0 {
		t.Fatalf("bent bar: tip displaced %v, fixed end %v", disp[tip], disp[0])
	}
	speed := overlayValues(nil, o, overlaySpeed, 10)
	want := o.Clip.Frames[10][tip].Sub(o.Clip.Frames[9][tip]).Len() * o.Clip.FPS
	if speed[tip] != want {
		t.Fatalf("speed %v, want %v", speed[tip], want)
	}
}

// TestHideObjects: H-style hiding is one undo step, leaves the object out
// of what the viewport draws, and survives a project round trip.
func TestHideObjects(t *testing.T) {
	a := testApp(t, &panels.Select{})
	o := a.doc.Scene.Objects[0]
	a.setHidden([]*assets.Object{o}, true)
	if !o.Hidden || a.history.UndoName() != "Hide "+o.Name {
		t.Fatalf("hidden %v, undo step %q", o.Hidden, a.history.UndoName())
	}
	for _, it := range a.drawItems() {
		if it.Key == any(o) {
			t.Error("a hidden object is drawn")
		}
	}
	p, err := a.projectSnapshot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hidden.gallop")
	if err := assets.SaveProject(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := assets.LoadProject(context.Background(), path, nil)
	if err != nil || !q.Scene.Objects[0].Hidden {
		t.Errorf("after a round trip: hidden %v (%v)", err == nil && q.Scene.Objects[0].Hidden, err)
	}
	a.history.Undo()
	if o.Hidden {
		t.Error("undo did not show the object again")
	}
}
