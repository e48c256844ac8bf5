// Package posepanel is the Pose tool's panel: it lays out the model of
// package tools/pose (mode and feature space, examples, handles, frozen
// region, solver status, keys and the animation solve), draws the
// handles' rings over the viewport, turns presses on a ring into drags of
// the model's handle and any other press into selection, as the Select
// tool does, and maps Blender's keys (Ctrl+H, I, X / Y / Z) to the model.
package posepanel

import (
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"os"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/panels"
	"gallop/solver/meshik"
	"gallop/tools"
	"gallop/tools/pose"
	"gallop/viewport"
)

// Panel is the Pose tool in the window. Its zero value is ready to use.
type Panel struct {
	m   pose.Pose
	sel panels.Select // clicks and boxes that do not grab a handle select

	traceAt time.Time // last GALLOP_TRACE line
}

var (
	_ panels.Tool    = (*Panel)(nil)
	_ panels.KeyHelp = (*Panel)(nil)
	_ panels.Leaver  = (*Panel)(nil)
)

// traceStart is when the process started, for the trace's time stamps.
var traceStart = time.Now()

// Model returns the tool's model.
func (p *Panel) Model() *pose.Pose { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Pose" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "Mesh-Based IK: add example poses, select vertices and make handles (Ctrl+H), drag a handle's ring to pose (X/Y/Z lock an axis)."
}

// Close stops the model's solver (the document is being replaced).
func (p *Panel) Close() { p.m.Close() }

// Leave implements panels.Leaver: the solver and its memory go; the pose
// shown and every setting stay.
func (p *Panel) Leave(h tools.Host) { p.m.Leave(h) }

// Update implements panels.Tool: the model takes the solver's latest
// iterate; with panels.Trace the update rate goes to stderr once a second
// while it solves, and the marked widgets' positions, for the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Resume(h) // after Leave
	p.m.Update(h)
	if !panels.Trace {
		return
	}
	now := time.Now()
	if now.Sub(p.traceAt) < time.Second {
		return
	}
	p.traceAt = now
	if st := p.m.Status(now); st.Rate > 0 {
		fmt.Fprintf(os.Stderr, "pose: %d solver updates in the last second (%d in all at %.3f s), iteration %d, objective %.6g\n",
			st.Rate, st.Updates, now.Sub(traceStart).Seconds(), st.Iteration, st.Objective)
	}
}

// Display implements panels.Tool.
func (p *Panel) Display(h tools.Host) ([]assets.Vec3, [][3]float32) { return p.m.Display(h) }

// Markers implements panels.Tool: the selection, and each handle's
// vertices in its colour.
func (p *Panel) Markers(h tools.Host) []viewport.PointSet {
	return append(p.sel.Markers(h), p.m.Markers()...)
}

// State implements panels.Tool.
func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error { return p.m.Restore(h, state) }

// KeyHelp implements panels.KeyHelp: the keys Shortcut handles.
func (p *Panel) KeyHelp() [][2]string {
	return [][2]string{
		{"Ctrl + H", "Pose: make a handle of the selected vertices"},
		{"I", "Pose: insert a key of the handles at this frame"},
		{"X, Y, Z (dragging a handle)", "Pose: lock the drag to an axis; again frees it"},
	}
}

// Shortcut implements panels.Tool: Ctrl+H makes a handle, I inserts a key,
// X / Y / Z lock the drag to an axis (Blender's keys).
func (p *Panel) Shortcut(h tools.Host, k panels.Key) bool {
	switch {
	case k.Key == giu.KeyH && k.Mods == giu.ModControl:
		p.m.MakeHandle(h)
	case k.Key == giu.KeyI && k.Mods == giu.ModNone:
		p.m.InsertKey(h)
	case k.Mods == giu.ModNone && (k.Key == giu.KeyX || k.Key == giu.KeyY || k.Key == giu.KeyZ):
		return p.m.LockAxis(map[giu.Key]int{giu.KeyX: 0, giu.KeyY: 1, giu.KeyZ: 2}[k.Key])
	default:
		return false
	}
	return true
}

// Viewport implements panels.Tool: the handles' rings, a drag of a ring
// moves its handle, anything else selects.
func (p *Panel) Viewport(h tools.Host, in *viewport.Input) {
	p.m.Sync(h)
	dl := imgui.WindowDrawList()
	dragged, dragging := p.m.Dragging()
	for i, hd := range p.m.Handles() {
		x, y, ok := h.View().ToScreen(p.m.HandleCentre(h, i))
		if !ok {
			continue
		}
		c := hd.Color
		col := imgui.ColorU32Vec4(imgui.Vec4{X: c[0], Y: c[1], Z: c[2], W: 1})
		centre := imgui.Vec2{X: float32(in.OriginX + x), Y: float32(in.OriginY + y)}
		thick := float32(2)
		if dragging && dragged == i {
			thick = 3.5
		}
		dl.AddCircleV(centre, pose.GrabRadius, col, 24, thick)
	}
	p.drawHint(h, in)
	if p.m.Drag(h, in) {
		return
	}
	p.sel.XRay = p.m.XRay
	p.sel.Viewport(h, in)
	p.m.XRay = p.sel.XRay
}

// drawHint writes the model's hint (the demo's first steps) at the top of
// the viewport, wrapped to two thirds of its width, on a dark backing.
func (p *Panel) drawHint(h tools.Host, in *viewport.Input) {
	hint := p.m.Hint()
	if hint == "" {
		return
	}
	dl := imgui.WindowDrawList()
	width := float32(h.View().Width) * 2 / 3
	size := imgui.CalcTextSizeV(hint, false, width)
	at := imgui.Vec2{X: float32(in.OriginX) + (float32(h.View().Width)-size.X)/2, Y: float32(in.OriginY) + 44}
	lo, hi := imgui.Vec2{X: at.X - 10, Y: at.Y - 8}, imgui.Vec2{X: at.X + size.X + 10, Y: at.Y + size.Y + 8}
	dl.AddRectFilledV(lo, hi, imgui.ColorU32Vec4(imgui.Vec4{X: 0.1, Y: 0.12, Z: 0.16, W: 0.85}), 6, 0)
	clip := imgui.Vec4{X: float32(in.OriginX), Y: float32(in.OriginY), Z: float32(in.OriginX + h.View().Width), W: float32(in.OriginY + h.View().Height)}
	dl.AddTextFontPtrV(imgui.CurrentFont(), imgui.FontSize(), at, imgui.ColorU32Vec4(imgui.Vec4{X: 1, Y: 0.95, Z: 0.7, W: 1}), hint, width, &clip)
	panels.RecordRect("pose: hint", lo, hi)
}

// Panel implements panels.Tool.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	p.m.Sync(h)
	if !p.m.HasObject() {
		return giu.Layout{giu.Label("Open or import a mesh to pose it.")}
	}
	return giu.Layout{
		p.modePanel(h),
		giu.Separator(),
		p.examplesPanel(h),
		giu.Separator(),
		p.handlesPanel(h),
		giu.Separator(),
		p.statusPanel(h),
		giu.Separator(),
		p.animPanel(h),
	}
}

func (p *Panel) modePanel(h tools.Host) giu.Widget {
	mode, space := p.m.Mode(), p.m.Space()
	return giu.Layout{
		giu.Row(
			giu.RadioButton("Drag handles", mode == pose.IK).OnChange(func() { p.m.SetMode(h, pose.IK) }),
			giu.RadioButton("Blend examples", mode == pose.Blend).OnChange(func() { p.m.SetMode(h, pose.Blend) }),
		),
		giu.Condition(mode == pose.IK, giu.Row(
			giu.Label("Space:"),
			giu.RadioButton("Nonlinear", space == meshik.Nonlinear).OnChange(func() { p.m.SetSpace(h, meshik.Nonlinear) }),
			giu.RadioButton("Linear", space == meshik.Linear).OnChange(func() { p.m.SetSpace(h, meshik.Linear) }),
		), nil),
	}
}

func (p *Panel) examplesPanel(h tools.Host) giu.Widget {
	exs := p.m.Examples()
	// The buttons come first so they stay put as the list grows.
	l := giu.Layout{
		giu.Labelf("Examples (%d)", len(exs)),
		giu.Row(
			panels.Marked("pose: add OBJ examples", giu.Button("Add OBJ...").OnClick(func() {
				h.OpenFile("Add example pose", []string{"obj"}, func(path string) { p.m.AddExampleFiles(h, []string{path}) })
			})),
			giu.Button("Add folder...").OnClick(func() {
				h.OpenFolder("Add a folder of example poses", func(path string) { p.m.AddExampleFolder(h, path) })
			}),
		),
		giu.Row(
			giu.Button("Add this frame").OnClick(func() { p.m.AddFrames(h, []int{h.Frame()}) }),
			panels.Marked("pose: add all frames", giu.Button("Add all frames").OnClick(func() {
				fs := make([]int, h.NumFrames())
				for i := range fs {
					fs[i] = i
				}
				p.m.AddFrames(h, fs)
			})),
		),
		giu.Condition(p.m.IsDemoBar() && len(exs) == 0, giu.Button("Add the bar's two examples").OnClick(func() { p.m.AddDemoExamples(h) }), nil),
	}
	if len(exs) > 0 && p.m.Mode() == pose.IK {
		l = append(l, p.compressionPanel(h))
	}
	l = append(l, giu.RadioButton("Reference: the object's rest pose", p.m.Reference() < 0).OnChange(func() { p.m.SetReference(h, -1) }))
	blend := p.m.Mode() == pose.Blend
	for i, ex := range exs {
		weight := giu.Widget(giu.Dummy(90, 0))
		if ex.HasWeight {
			weight = giu.ProgressBar(float32(math.Max(0, math.Min(1, ex.Weight)))).Size(90, 0).Overlay(fmt.Sprintf("%.2f", ex.Weight))
		}
		l = append(l, giu.Row(
			panels.Tipped(giu.RadioButton(fmt.Sprintf("##ref%d", i), p.m.Reference() == i).OnChange(func() { p.m.SetReference(h, i) }), "Use this example as the reference pose"),
			panels.Tipped(giu.SmallButton(fmt.Sprintf("x##ex%d", i)).OnClick(func() { p.m.RemoveExample(h, i) }), "Remove this example"),
			weight,
			panels.Text(ex.Name),
		))
		if blend {
			v := float32(ex.Blend)
			l = append(l, giu.SliderFloat(&v, -0.5, 1.5).Label(fmt.Sprintf("##blend%d", i)).Size(-1).OnChange(func() {
				p.m.SetBlend(h, i, float64(v))
			}))
		}
	}
	return l
}

// compressionPanel says how the examples are compressed for the solve
// and holds the two settings of it: the components kept and how strongly
// the pose stays near the examples.
func (p *Panel) compressionPanel(h tools.Host) giu.Widget {
	c := p.m.Compression()
	summary := "Preparing the examples..."
	if c.Known {
		kept := "all of how they vary"
		if c.Kept < 0.99995 {
			kept = fmt.Sprintf("%.2f%% of how they vary", 100*c.Kept)
		}
		summary = fmt.Sprintf("They vary in %s; the solve uses %d (%s).",
			words.Count(c.Rank, "independent way", "independent ways"), c.Components, kept)
	}
	auto, autoPrior := c.AutoComponents, c.AutoPrior
	n := int32(max(c.Components, 1))
	if !auto {
		n = int32(c.SetComponents)
	}
	k := float32(c.Prior)
	if !autoPrior {
		k = float32(max(c.SetPrior, 0))
	}
	mark := "pose: preparing examples"
	if c.Known {
		mark = "pose: examples ready"
	}
	l := giu.Layout{
		panels.Tipped(panels.Marked(mark, panels.Text(summary)), "Principal components of the examples' deformations (Sumner et al. 2005, §3.2, with probabilistic PCA, Tipping and Bishop 1999). "+
			"Repeated and in-between poses add nothing, so a whole capture costs only as much as the ways its poses differ."),
		giu.Row(
			giu.Label("Components:"),
			panels.Tipped(panels.Marked("pose: components automatic", giu.Checkbox("automatic##components", &auto).OnChange(func() {
				if auto {
					p.m.SetComponents(h, 0)
				} else {
					p.m.SetComponents(h, max(c.Components, 1))
				}
			})), "Automatic keeps every component above the noise of the files (at most 64). Fewer components solve faster and stay closer to the examples' main motions."),
		),
		giu.Condition(!auto && c.Rank > 0, giu.SliderInt(&n, 1, int32(max(c.Rank, 1))).Label("##components").Size(-1).OnChange(func() {
			p.m.SetComponents(h, int(n))
		}), nil),
		giu.Row(
			giu.Label("Stay near the examples:"),
			panels.Tipped(panels.Marked("pose: prior automatic", giu.Checkbox("automatic##prior", &autoPrior).OnChange(func() {
				if autoPrior {
					p.m.SetPrior(h, 0)
				} else {
					p.m.SetPrior(h, max(c.Prior, 0.01))
				}
			})), "How strongly the pose is pulled toward the examples' average pose: k of Eq. 5. Automatic takes it from the variation the components leave out "+
				"(k = σ of probabilistic PCA; 0 when they leave none). Raise it if a drag bends the mesh into shapes none of the examples has."),
		),
		giu.Condition(!autoPrior, giu.Custom(func() {
			imgui.SetNextItemWidth(-1)
			if imgui.SliderFloatV("##prior", &k, 0.001, 10, "%.3g", imgui.SliderFlagsLogarithmic) {
				p.m.SetPrior(h, float64(k))
			}
		}), nil),
	}
	if autoPrior && c.Known {
		l = append(l, panels.Text(fmt.Sprintf("Prior: k = %.3g (automatic)", c.Prior)))
	}
	return l
}

func (p *Panel) handlesPanel(h tools.Host) giu.Widget {
	hs := p.m.Handles()
	l := giu.Layout{
		giu.Labelf("Handles (%d)", len(hs)),
		giu.Button("Make handle from selection (Ctrl+H)").OnClick(func() { p.m.MakeHandle(h) }),
		panels.Mark("pose: make handle"),
	}
	if len(hs) > 0 {
		l = append(l, panels.Text("A ticked handle turns with the pose, as the examples turn it there; untick it to hold its orientation."))
	}
	for i, hd := range hs {
		c := hd.Color
		name := hd.Name
		turns := hd.Turns
		l = append(l, giu.Row(
			giu.Style().SetColor(giu.StyleColorText, color.RGBA{R: uint8(255 * c[0]), G: uint8(255 * c[1]), B: uint8(255 * c[2]), A: 255}).To(giu.Label("●")),
			panels.Tipped(giu.InputText(&name).Label(fmt.Sprintf("##hname%d", i)).Size(90).Flags(giu.InputTextFlagsEnterReturnsTrue).OnChange(func() { p.m.RenameHandle(h, i, name) }), words.Count(hd.Vertices, "vertex", "vertices")+"; Enter renames the handle"),
			panels.Tipped(panels.Marked(fmt.Sprintf("pose: handle %d turns", i+1), giu.Checkbox(fmt.Sprintf("turns##h%d", i), &turns).OnChange(func() { p.m.SetHandleTurns(h, i, turns) })), "Turns with the pose (the rotation the example blend gives at the handle); unticked, the handle keeps its orientation"),
			giu.SmallButton(fmt.Sprintf("Reset##h%d", i)).OnClick(func() { p.m.ResetHandle(h, i) }),
			giu.SmallButton(fmt.Sprintf("x##h%d", i)).OnClick(func() { p.m.RemoveHandle(h, i) }),
		))
	}
	if drift, known := p.m.Drift(); known && drift > pose.DriftThreshold {
		what, button := "The pose shown", "Add the pose shown as an example"
		if p.m.ShownIsReference(h) {
			what, button = "The reference pose", "Add the reference pose as an example"
		}
		l = append(l,
			panels.ErrorLabel(fmt.Sprintf("%s is not a blend of the examples: the first drag will pull the whole mesh toward one (by up to %.0f%% of its size).", what, 100*drift)),
			panels.Mark("pose: not a blend"),
			giu.Button(button).OnClick(func() { p.m.AddShownExample(h) }),
			panels.Mark("pose: add shown example"),
		)
	}
	l = append(l,
		giu.Label("Frozen: "+words.Count(p.m.FrozenTriangles(), "triangle", "triangles")),
		giu.Row(
			giu.Button("Freeze selection").OnClick(func() { p.m.FreezeSelection(h, true) }),
			giu.Button("Unfreeze selection").OnClick(func() { p.m.FreezeSelection(h, false) }),
		),
	)
	return l
}

func (p *Panel) statusPanel(h tools.Host) giu.Widget {
	st := p.m.Status(time.Now())
	state := panels.Marked("pose: solver state", panels.Text("Solver: "+st.State))
	if st.Preview {
		state = panels.Marked("pose: previewing", state)
	}
	l := giu.Layout{
		state,
		panels.Text(fmt.Sprintf("iteration %d, objective %.4g, %d updates/s", st.Iteration, st.Objective, st.Rate)),
	}
	if f := p.m.Failure(); f != nil {
		if label := f.FixLabel(); label != "" {
			l = append(l, panels.Marked("pose: fix", giu.Button(label).OnClick(func() { p.m.ApplyFix(h) })))
		}
	}
	return append(l, giu.Row(
		giu.Button("Re-solve").OnClick(func() { p.m.Resolve(h) }),
		giu.Button("Export posed OBJ...").OnClick(func() { p.m.ExportOBJ(h) }),
	))
}

func (p *Panel) animPanel(h tools.Host) giu.Widget {
	keys := p.m.KeyFrames()
	l := giu.Layout{
		giu.Label("Animation: " + words.Count(len(keys), "key", "keys")),
		giu.Row(
			giu.Button("Insert key (I)").OnClick(func() { p.m.InsertKey(h) }),
			giu.Button("Solve animation").Disabled(p.m.Animating()).OnClick(func() { p.m.SolveAnimation(h) }),
		),
	}
	for i, f := range keys {
		l = append(l, giu.Row(
			giu.Labelf("key at frame %d", f+1),
			giu.SmallButton(fmt.Sprintf("x##key%d", i)).OnClick(func() { p.m.RemoveKey(h, i) }),
		))
	}
	if capped := p.m.CappedFrames(); len(capped) > 0 {
		l = append(l, panels.ErrorLabel(fmt.Sprintf("%s stopped at the iteration cap (first: frame %d)", words.Count(len(capped), "frame", "frames"), capped[0].Frame+1)))
	}
	label := "Show the solved animation"
	if p.m.ShowingClip() {
		label = "Show the live pose"
	}
	l = append(l, giu.Button(label).OnClick(func() { p.m.SetShowClip(!p.m.ShowingClip()) }))
	return l
}
