// Package rigpanel is the Rig tool's panel: it lays out the model of
// package tools/rig (settings, Start / Stop, the progress and the error
// plot, the result's display, export and apply), draws the bones over the
// viewport and turns a click on a vertex into picking its bone.
package rigpanel

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"

	"gallop/assets"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/rig"
	"gallop/viewport"
)

// Panel is the Rig tool in the window. Its zero value is ready to use.
type Panel struct {
	m rig.Rig

	press   [2]float64 // where the left button went down over the viewport
	pressed bool

	traceAt      time.Time
	traceRes     *rig.Result // the result last traced as finished
	traceApplied *rig.Result // the result last traced as applied
}

var (
	_ panels.Tool   = (*Panel)(nil)
	_ panels.Extras = (*Panel)(nil)
	_ panels.Legend = (*Panel)(nil)
)

// Model returns the tool's model.
func (p *Panel) Model() *rig.Rig { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Rig" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "Rig from animation (SSDR): set the bones, Start; then show the weights (click a vertex to pick its bone), the error, and export a skinned glTF."
}

// Close stops the model's run (the document is being replaced).
func (p *Panel) Close() { p.m.Close() }

// Update implements panels.Tool: the model takes its run's latest
// progress; with panels.Trace the progress, a finished run and the marked
// widgets go to stderr for the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Update(h)
	if !panels.Trace {
		return
	}
	if r := p.m.Result(h); r != nil && r != p.traceRes {
		p.traceRes = r
		kind := "free bones"
		if k := r.SSDR.Skeleton; k != nil {
			kind = fmt.Sprintf("a skeleton rooted at bone %d", k.Root())
		}
		fmt.Fprintf(os.Stderr, "rig: finished, %d bones, %s, RMSE %g\n", r.Bones(), kind, r.SSDR.RMSE)
	}
	if r := p.m.Result(h); r != nil && r.Applied() && r != p.traceApplied {
		p.traceApplied = r
		fmt.Fprintf(os.Stderr, "rig: applied to %s, %d joints\n", h.Object().Name, len(h.Object().Rig.Joints))
	}
	if time.Since(p.traceAt) >= time.Second {
		p.traceAt = time.Now()
		if pr := p.m.Progress(); pr != nil {
			fmt.Fprintf(os.Stderr, "rig: %s\n", pr.Text())
		}
	}
}

// Display implements panels.Tool.
func (p *Panel) Display(h tools.Host) ([]assets.Vec3, [][3]float32) { return p.m.Display(h) }

// Legend implements panels.Legend.
func (p *Panel) Legend(h tools.Host) (string, float64, float64, bool) { return p.m.Legend(h) }

// ExtraItems implements panels.Extras: the skinned copy beside the clip.
func (p *Panel) ExtraItems(h tools.Host) []viewport.Item { return p.m.ExtraItems(h) }

// Markers implements panels.Tool: none (the bones are drawn by Viewport).
func (p *Panel) Markers(tools.Host) []viewport.PointSet { return nil }

// Shortcut implements panels.Tool: the tool has no keys of its own.
func (p *Panel) Shortcut(tools.Host, panels.Key) bool { return false }

// State implements panels.Tool.
func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error { return p.m.Restore(h, state) }

// Bone colours: the selected bone's and the others'.
var (
	selectedBone = imgui.Vec4{X: 1, Y: 0.85, Z: 0.2, W: 1}
	otherBone    = imgui.Vec4{X: 0.95, Y: 0.95, Z: 1, W: 0.85}
)

// Viewport implements panels.Tool: it draws the bones at the current frame
// and, on a click on the mesh (not a drag), picks the bone of largest
// weight at the vertex clicked and shows its weights.
func (p *Panel) Viewport(h tools.Host, in *viewport.Input) {
	if p.m.Result(h) == nil {
		return
	}
	p.drawBones(h, in)
	panels.DrawLabels(h, in, "rig: label ", p.m.Labels(h))
	if in.Pressed[viewport.Left] && in.Hovered && !in.Alt {
		p.press, p.pressed = [2]float64{in.X, in.Y}, true
	}
	if !p.pressed || !in.Released[viewport.Left] {
		return
	}
	p.pressed = false
	if math.Hypot(in.X-p.press[0], in.Y-p.press[1]) > 4 {
		return // a drag, not a click
	}
	p.m.PickBone(h, in.X, in.Y)
}

// drawBones draws each bone's segment as a line with a dot at its centre
// (a skeleton's: at its joint, the root's ringed),
// into the viewport window's own draw list so that popups and other
// windows stay above it.
func (p *Panel) drawBones(h tools.Host, in *viewport.Input) {
	dl := imgui.WindowDrawList()
	screen := func(q assets.Vec3) (imgui.Vec2, bool) {
		x, y, ok := h.View().ToScreen(q)
		return imgui.Vec2{X: float32(in.OriginX + x), Y: float32(in.OriginY + y)}, ok
	}
	for _, b := range p.m.Bones(h) {
		c, thick := otherBone, float32(2)
		if b.Selected {
			c, thick = selectedBone, 3.5
		}
		col := imgui.ColorU32Vec4(c)
		sa, oka := screen(b.A)
		sb, okb := screen(b.B)
		if oka && okb {
			dl.AddLineV(sa, sb, col, thick)
		}
		if sm, ok := screen(b.Centre); ok {
			dl.AddCircleFilled(sm, thick+2, col)
			if b.Root {
				r := thick + 7
				dl.AddCircleV(sm, r, col, 0, 2) // the root's ring
				panels.RecordRect("rig: root joint", imgui.Vec2{X: sm.X - r, Y: sm.Y - r}, imgui.Vec2{X: sm.X + r, Y: sm.Y + r})
			}
		}
	}
}
