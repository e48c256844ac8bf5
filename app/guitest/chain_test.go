package guitest

import (
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/assets/gltftest"
)

// TestChainRigDynamicsSynthDynamics (issue 25, acceptance 3): in one
// window, horse-gallop is rigged and the rig applied; Dynamics uses that
// rig at once, a stroke paints the horse's middle Jelly and the dynamic
// animation is baked; Synthesize takes the baked clip and makes
// variations, one of which is added to the document; Dynamics takes the
// variation as it is (no rig inferred again), paints and bakes it; File >
// Export glTF writes it skinned and as morph targets. Read back, both
// files move away from plain skinning (the jiggle is there, not only in
// the morph export), and the project still holds the captured clip.
func TestChainRigDynamicsSynthDynamics(t *testing.T) {
	s := newSession(t)
	frames := filepath.Join(s.root, "..", "shared", "data", "horse-gallop", "frames")
	project := filepath.Join(t.TempDir(), "chain.gallop")
	cmd := s.startEnv([]string{"GALLOP_TRACE=1"}, "--save-to", project, frames)
	defer func() {
		if t.Failed() {
			s.screenshot("chain-failed")
			t.Logf("output:\n%s", lastLines(cmd.output(), 30))
		}
	}()
	s.waitFor("horse-gallop to load", 60*time.Second, func() bool { return strings.Contains(s.windowName(), "horse-gallop") })
	s.waitScreen("chain-1-loaded", 10*time.Second, "the horse in the viewport", func(img *image.RGBA) bool { return meshPixels(img) > 5000 })

	// Rig, applied.
	s.clickUntil("tool Rig", "rig: start")
	s.click("rig: start")
	s.waitFor("the rig", 150*time.Second, func() bool { return strings.Contains(cmd.output(), "rig: finished") })
	s.noOverflow("Rig finished on horse-gallop")
	s.clickAt(s.widgetInView("rig: apply"))
	time.Sleep(500 * time.Millisecond)

	// Dynamics on the rigged horse: paint, bake.
	s.dynamicsPaintBake(cmd, "horse", 10)

	// Synthesize from the baked clip; one variation into the document.
	s.clickUntil("tool Synthesize", "synth: analyse")
	s.click("synth: analyse")
	s.waitFor("the analysis", 120*time.Second, func() bool { return strings.Contains(cmd.output(), "steps); motion graph of") })
	s.noOverflow("Synthesize analysed")
	s.widgetInView("synth: variations")
	r := s.widget("synth: variations")
	s.clickAt(image.Pt(r.Min.X+20, (r.Min.Y+r.Max.Y)/2))
	time.Sleep(300 * time.Millisecond)
	s.xdo("key", "ctrl+a")
	s.xdo("type", "--delay", "30", "4")
	s.xdo("key", "Return")
	time.Sleep(300 * time.Millisecond)
	s.clickAt(s.widgetInView("synth: generate"))
	// 4 variations, or the default 12 when the typed count was lost (a
	// click in a field that is scrolling into view can miss it): the chain
	// needs one.
	done := regexp.MustCompile(`(\d+) of (\d+) variations, (\d+) thumbnails`)
	s.waitFor("the variations", 180*time.Second, func() bool {
		all := done.FindAllStringSubmatch(cmd.output(), -1)
		if len(all) == 0 {
			return false
		}
		m := all[len(all)-1]
		return m[1] == m[2] && m[2] == m[3]
	})
	s.clickAt(s.widgetInView("synth: variation 1"))
	s.waitFor("the variation playing", 20*time.Second, func() bool { return strings.Contains(cmd.output(), `playing "horse-gallop variation 1"`) })
	s.clickAt(s.widgetInView("synth: add"))
	addedRE := regexp.MustCompile(`Synthesize: added (.+) to the document`)
	s.waitFor("the variation in the document", 10*time.Second, func() bool { return addedRE.MatchString(cmd.output()) })
	variation := addedRE.FindStringSubmatch(cmd.output())[1]
	s.screenshot("chain-3-added")

	// Dynamics on the variation, with the rig it came with.
	s.click("tool Select") // leave the tool, so that the variation's simulation starts afresh
	s.click("object " + variation)
	time.Sleep(300 * time.Millisecond)
	s.moveTo(centre(s.widget("viewport")))
	s.xdo("key", "shift+h") // hide the others: the horse stands where the variation starts
	s.widget("object hidden horse-gallop")
	s.dynamicsPaintBake(cmd, "variation", 0)

	// Export both ways through File > Export glTF.
	dir := t.TempDir()
	skinned, morph := filepath.Join(dir, "chain-skinned.glb"), filepath.Join(dir, "chain-morph.glb")
	s.exportFromMenu(cmd, "export: skinned", skinned)
	s.exportFromMenu(cmd, "export: morph", morph)
	s.saveAndQuit(cmd, project)

	gltftest.Validate(t, skinned)
	gltftest.Validate(t, morph)
	// Issue 35, acceptance 5: the skin with its corrective shapes is at
	// most a third of the morph export.
	ss, err := os.Stat(skinned)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := os.Stat(morph)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("skinned export %d bytes, morph export %d bytes (%.2f)", ss.Size(), ms.Size(), float64(ss.Size())/float64(ms.Size()))
	if 3*ss.Size() > ms.Size() {
		t.Errorf("the skinned export is %d bytes, more than a third of the morph export's %d", ss.Size(), ms.Size())
	}
	sk, err := assets.LoadGLTF(skinned)
	if err != nil {
		t.Fatal(err)
	}
	mo, err := assets.LoadGLTF(morph)
	if err != nil {
		t.Fatal(err)
	}
	o := sk[0]
	if o.Rig == nil || o.Skin == nil || o.Clip == nil {
		t.Fatalf("the skinned export has rig %v, joint animation %v, clip %v", o.Rig != nil, o.Skin != nil, o.Clip != nil)
	}
	plain, err := o.Rig.Bake(o.Mesh.Positions, o.Skin)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := assets.Bounds(o.Mesh.Positions)
	diag := hi.Sub(lo).Len()
	for _, c := range []struct {
		name string
		clip *assets.Clip
	}{{"skinned", o.Clip}, {"morph", mo[0].Clip}} {
		moved, rms := jiggle(plain, c.clip, diag)
		t.Logf("%s export: %d of %d vertices move more than 0.1%% of the diagonal from plain skinning; RMS %.3g of the diagonal", c.name, moved, o.Mesh.NumVertices(), rms)
		if moved == 0 || rms == 0 {
			t.Errorf("the %s export plays plain skinning: the jiggle is lost", c.name)
		}
	}

	// And in Blender: the skinned file, armature and shape keys, plays the
	// morph file's frames (to the corrective shapes' 1e-3 of the diagonal);
	// its armature alone does not.
	bl := gltftest.Blender(t, int(math.Round(o.Clip.FPS)), []int{30, 150}, skinned, morph)
	for k := range bl[0].Frames {
		d, plain := bl[0].Apart(bl[1], k)
		t.Logf("Blender: skinned with its shape keys %.3g from the morph file, its armature alone %.3g (diagonal %.3g)", d, plain, diag)
		if d > 1e-3*diag || plain < 1e-3*diag {
			t.Errorf("Blender plays the skinned file %.3g from the morph file, %.3g without its shape keys", d, plain)
		}
	}

	// And in three.js (issue 35, acceptance 5): the same, every 10th frame.
	var keys []int
	for f := 0; f < o.Clip.NumFrames(); f += 10 {
		keys = append(keys, f)
	}
	th := gltftest.Three(t, int(math.Round(o.Clip.FPS)), keys, skinned, morph)
	worst := 0.0
	for k := range keys {
		for i, p := range th[0].Frames[k] {
			q := th[1].Frames[k][i]
			worst = max(worst, mgl64.Vec3{p[0] - q[0], p[1] - q[1], p[2] - q[2]}.Len())
		}
	}
	t.Logf("three.js: the skinned file plays %.3g of the diagonal from the morph file over %d frames (%d corrective shapes at once)", worst/diag, len(keys), th[0].ActiveTargets[0])
	if worst > 1e-3*diag {
		t.Errorf("three.js plays the skinned file %.3g of the diagonal from the morph file", worst/diag)
	}

	// The captured clip is still in the document, as a take of the horse.
	p, err := assets.LoadProject(context.Background(), project, nil)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := assets.Import(context.Background(), []string{frames}, nil)
	if err != nil {
		t.Fatal(err)
	}
	captured := objs[0].Clip
	found := false
	for _, take := range p.Scene.Objects[0].Takes {
		if take.Clip.NumFrames() == captured.NumFrames() && sameFrames(take.Clip.Frames, captured.Frames) {
			found = true
		}
	}
	if !found {
		names := []string{}
		for _, take := range p.Scene.Objects[0].Takes {
			names = append(names, take.Clip.Name)
		}
		t.Errorf("the horse's takes %q do not hold the captured clip", names)
	}
}

// sameFrames reports whether a and b hold the same positions.
func sameFrames(a, b [][]assets.Vec3) bool {
	for f := range a {
		if len(a[f]) != len(b[f]) {
			return false
		}
		for i := range a[f] {
			if a[f][i] != b[f][i] {
				return false
			}
		}
	}
	return len(a) == len(b)
}

// jiggle compares a clip with plain skinning frame by frame: the vertices
// that move more than 0.1% of diag from it in some frame, and the RMS
// distance over every vertex and frame, as a fraction of diag.
func jiggle(plain, clip *assets.Clip, diag float64) (moved int, rms float64) {
	if clip == nil || len(clip.Frames) != len(plain.Frames) {
		return 0, 0
	}
	far := make([]bool, len(plain.Frames[0]))
	sum, n := 0.0, 0
	for f := range plain.Frames {
		for i, p := range plain.Frames[f] {
			d := p.Sub(clip.Frames[f][i]).Len()
			far[i] = far[i] || d > 1e-3*diag
			sum += d * d
			n++
		}
	}
	for _, m := range far {
		if m {
			moved++
		}
	}
	return moved, math.Sqrt(sum/float64(n)) / diag
}

// dynamicsPaintBake opens the Dynamics tool on the active object, which
// must have a rig (no "Infer a rig" step), paints a stroke across the
// middle of the mesh on screen with a large Jelly brush, waits for the
// simulation of the painted materials and bakes it.
func (s *session) dynamicsPaintBake(cmd *proc, what string, grow int) {
	s.t.Helper()
	mark := len(cmd.output())
	s.clickUntil("tool Dynamics", "dynamics: simulation")
	if _, ok := s.rects()["dynamics: infer"]; ok {
		s.t.Fatalf("Dynamics asks to infer a rig for the %s, which has one", what)
	}
	s.simulated(cmd, "the "+what+"'s stiff simulation", mark, 0, 0)
	s.clickAt(s.widgetInView("dynamics: heat None"))
	s.clickAt(s.widgetInView("dynamics: show Dynamic"))
	view := s.widget("viewport")
	s.moveTo(centre(view))
	for range grow { // ] grows the brush by a tenth
		s.xdo("key", "bracketright")
	}
	s.clickAt(s.widgetInView("dynamics: preset Jelly"))
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	if _, playing := s.rects()["timeline: playing"]; playing {
		s.xdo("key", "space")
	}
	img := s.waitStill("chain-"+what+"-before-paint", 20*time.Second)
	b := meshBounds(img)
	if b.Dx() < 50 || b.Dy() < 30 {
		s.t.Fatalf("the %s is not in view: %v", what, b)
	}
	c := centre(b)
	spot, ok := meshSpot(img, c)
	if !ok {
		s.t.Fatalf("no mesh near the %s's middle on screen", what)
	}
	from, to := image.Pt(spot.X-b.Dx()/6, spot.Y), image.Pt(spot.X+b.Dx()/6, spot.Y)
	s.xdo("mousemove", fmt.Sprint(spot.X), fmt.Sprint(spot.Y), "mousedown", "1")
	for _, p := range []image.Point{from, spot, to, spot} {
		s.xdo("mousemove", fmt.Sprint(p.X), fmt.Sprint(p.Y))
		time.Sleep(100 * time.Millisecond)
	}
	s.xdo("mouseup", "1")
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	painted := s.simulated(cmd, "the "+what+"'s painted simulation", mark, 1, 1<<30)
	s.t.Logf("%s: %d vertices painted", what, painted)
	// The jiggle: each vertex's distance from plain skinning, a few
	// frames in.
	s.clickAt(s.widgetInView("dynamics: heat Distance"))
	s.moveTo(image.Pt(view.Max.X-5, view.Max.Y-5))
	s.showFrame(12)
	s.waitStill("chain-"+what+"-jiggle", 20*time.Second)
	bakedRE := regexp.MustCompile(`Dynamics: Baked \d+ frames`)
	since := len(cmd.output())
	s.clickAt(s.widgetInView("dynamics: bake"))
	s.waitFor("the "+what+"'s bake", 20*time.Second, func() bool { return bakedRE.MatchString(cmd.output()[since:]) })
}

// exportFromMenu exports the active object through File > Export glTF >
// item and the native Save dialog to path.
func (s *session) exportFromMenu(cmd *proc, item, path string) {
	s.t.Helper()
	s.clickUntil("menu File", "file: Export glTF")
	s.moveTo(centre(s.widget("file: Export glTF")))
	s.click(item)
	s.enterInDialog("^(Save|Export)", path)
	s.waitFor("the export to "+filepath.Base(path), 60*time.Second, func() bool {
		st, err := os.Stat(path)
		return err == nil && st.Size() > 0 && strings.Contains(cmd.output(), "Exported "+path)
	})
}
