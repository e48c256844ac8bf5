package gallery

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/solver/plausible"
	"gallop/viewport"
)

// TestAnimationOfEveryScenario turns each scenario's setup into the
// animation the tool shows and checks it: it validates, exports as a
// glTF file the validator accepts, and has one mesh per shape, shared.
func TestAnimationOfEveryScenario(t *testing.T) {
	for _, sc := range scenarios {
		m, err := sc.New().Model()
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		a, err := m.Setup(fps)
		if err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		if len(a.Bodies) == 0 || len(a.Static) == 0 {
			t.Fatalf("%s: %d bodies, %d static parts", sc.Name, len(a.Bodies), len(a.Static))
		}
		path := filepath.Join(t.TempDir(), "setup.glb")
		if err := assets.SaveRigidGLTF(path, a); err != nil {
			t.Fatalf("%s: %v", sc.Name, err)
		}
		gltftest.Validate(t, path)
	}
}

// TestPinMesh: the bowling pin's pieces make a mesh 15 in tall with its
// bottom on the deck, 4.766 in across at its widest (the rules' pin).
func TestPinMesh(t *testing.T) {
	const inch = 0.0254
	b, err := plausible.NewBowling("strike", math.Exp(2.5))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := b.Record(b.Mode(), 30)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Animation(rec)
	if err != nil {
		t.Fatal(err)
	}
	head := a.Bodies[1] // the ball, then pin 1
	if head.Name != "pin 1" || a.Bodies[2].Mesh != head.Mesh {
		t.Fatalf("body 1 is %q; pins share a mesh: %v", head.Name, a.Bodies[2].Mesh == head.Mesh)
	}
	lo, hi := assets.Vec3{1e9, 1e9, 1e9}, assets.Vec3{-1e9, -1e9, -1e9}
	for _, v := range head.Mesh.Positions {
		w := head.Rotations[0].Rotate(v).Add(head.Positions[0])
		for k := range 3 {
			lo[k], hi[k] = math.Min(lo[k], w[k]), math.Max(hi[k], w[k])
		}
	}
	if math.Abs(lo[1]) > 1e-3 || math.Abs(hi[1]-lo[1]-plausible.BowlingPinHeight) > 1e-6 {
		t.Errorf("the head pin spans y %v to %v, want 0 to %v", lo[1], hi[1], plausible.BowlingPinHeight)
	}
	if wd := hi[0] - lo[0]; math.Abs(wd-4.766*inch) > 0.003 {
		t.Errorf("pin's widest diameter %.4f m, want 4.766 in", wd)
	}
}

// TestDicePipsMesh: 21 pips of 12 triangles each, moving with the die.
func TestDicePipsMesh(t *testing.T) {
	d := plausible.NewDice()
	rec, err := d.Record(d.Mode(), 30)
	if err != nil {
		t.Fatal(err)
	}
	a, err := Animation(rec)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(a.Bodies[1].Mesh.Triangles); a.Bodies[1].Name != "pips" || got != 21*12 {
		t.Errorf("%s: %d triangles, want 21 boxes of 12", a.Bodies[1].Name, got)
	}
}

// TestAnimationRefusesBadRecording: a recording that does not validate
// (here a body without a shape) is an error, not a panic.
func TestAnimationRefusesBadRecording(t *testing.T) {
	rec := &plausible.Recording{Name: "bad", FPS: 30, Bodies: []plausible.RecordedBody{{Name: "ghost", Positions: make([]assets.Vec3, 2), Rotations: make([]mgl64.Quat, 2)}}}
	if _, err := Animation(rec); err == nil {
		t.Error("a body without a shape was accepted")
	}
	rec.Bodies[0].Shape = &plausible.Shape{Pieces: []plausible.Piece{{Kind: plausible.SpherePiece, Radius: -1, Segments: 8}}}
	if _, err := Animation(rec); err == nil {
		t.Error("a sphere of radius -1 was accepted")
	}
}

// TestItem9SpellThumbnailFramesTheBins (issue 10, item 9): a Spell
// thumbnail frames the bins, seen from above, so they fill the picture
// (the whole scene, with the balls' drops above the bins, left them a
// third of it), and its caption reads in words.
func TestItem9SpellThumbnailFramesTheBins(t *testing.T) {
	sc, err := plausible.NewSpell("HI", plausible.SpellLetters["HI"], math.Exp(5))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := sc.Record(sc.Ideal(), 30)
	if err != nil {
		t.Fatal(err)
	}
	anim, err := Animation(rec)
	if err != nil {
		t.Fatal(err)
	}
	scene, err := viewport.NewRigidScene(anim)
	if err != nil {
		t.Fatal(err)
	}
	const aspect = 116.0 / 87 // the thumbnail's
	// share returns the part of the view's width and height the bins'
	// projection takes.
	share := func(cam viewport.Camera) (w, h float64) {
		lo, hi := mgl64.Vec3{math.Inf(1), math.Inf(1)}, mgl64.Vec3{math.Inf(-1), math.Inf(-1)}
		for i := range 8 {
			c := rec.FocusLo
			for k := range 3 {
				if i&(1<<k) != 0 {
					c[k] = rec.FocusHi[k]
				}
			}
			ndc, visible := cam.Project(c, aspect)
			if !visible {
				t.Fatalf("a corner of the bins, %v, is out of the picture", c)
			}
			for k := range 2 {
				lo[k], hi[k] = math.Min(lo[k], ndc[k]), math.Max(hi[k], ndc[k])
			}
		}
		return (hi[0] - lo[0]) / 2, (hi[1] - lo[1]) / 2
	}
	w, h := share(scene.ThumbnailCamera(aspect))
	if math.Max(w, h) < 0.9 || w*h < 0.5 {
		t.Errorf("the bins take %.0f%% of the thumbnail's width and %.0f%% of its height; want one at least 90%% and the area at least half", 100*w, 100*h)
	}
	ww, wh := share(scene.Camera(aspect))
	t.Logf("the bins take %.0f%% × %.0f%% of the thumbnail (whole scene framed: %.0f%% × %.0f%%)", 100*w, 100*h, 100*ww, 100*wh)

	s := &Sample{Entry: plausible.Entry{Chain: 1, Iteration: 1466}}
	if c := s.Caption(); c != "chain 2, iteration 1,466" {
		t.Errorf("caption %q, want %q", c, "chain 2, iteration 1,466")
	}
}
