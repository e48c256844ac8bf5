// Package dynamicspanel is the Dynamics tool's panel: it lays out the
// model of package tools/dynamics (the simulation's settings and state,
// the display and heat map, the brush, the fit with its progress and
// energy plot, bake and export) and turns a left drag over the viewport
// into a paint stroke or a poke.
package dynamicspanel

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/dynamics"
	"gallop/viewport"
)

// Drag is what a left drag over the mesh does.
type Drag int

const (
	// DragPaint paints with the brush (Ctrl inverts it).
	DragPaint Drag = iota
	// DragPoke pulls the vertex grabbed; released, the mesh wobbles back.
	DragPoke
)

// Panel is the Dynamics tool in the window. Its zero value is ready to
// use.
type Panel struct {
	m    dynamics.Dynamics
	drag Drag

	traceAt     time.Time
	traceStatus string
}

var (
	_ panels.Tool    = (*Panel)(nil)
	_ panels.Extras  = (*Panel)(nil)
	_ panels.Legend  = (*Panel)(nil)
	_ panels.KeyHelp = (*Panel)(nil)
	_ panels.Leaver  = (*Panel)(nil)
)

// Model returns the tool's model.
func (p *Panel) Model() *dynamics.Dynamics { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Dynamics" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "Dynamic skinning (Shi et al. 2008): paint how soft each region is, or fit it to an example simulation; play to see the secondary motion, poke the mesh, bake and export."
}

// Close stops the model's jobs (the document is being replaced).
func (p *Panel) Close() { p.m.Close() }

// Leave implements panels.Leaver: the simulation and its memory go; the
// materials and settings stay.
func (p *Panel) Leave(tools.Host) { p.m.Leave() }

// Update implements panels.Tool; with panels.Trace the simulation's and
// the fit's state go to stderr once a second and when they change, for
// the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Update(h)
	if !panels.Trace {
		return
	}
	st := p.m.Status(h)
	s := fmt.Sprintf("dynamics: simulated %d of %d frames, current %v, %d vertices painted", st.Frames, st.Total, st.Current, p.m.Painted(h))
	if fp := p.m.FitProgress(); fp != nil && p.m.Fitting() {
		s = "dynamics: fit " + fp.Text()
	}
	if r := p.m.FitReport(); r != "" && !p.m.Fitting() {
		s += "; " + r
	}
	for _, r := range []string{p.m.Baked(), p.m.Exported()} {
		if r != "" {
			s += "; " + r
		}
	}
	if s != p.traceStatus || time.Since(p.traceAt) >= time.Second {
		p.traceStatus, p.traceAt = s, time.Now()
		fmt.Fprintln(os.Stderr, s)
	}
}

// Display implements panels.Tool.
func (p *Panel) Display(h tools.Host) ([]assets.Vec3, [][3]float32) { return p.m.Display(h) }

// Legend implements panels.Legend.
func (p *Panel) Legend(h tools.Host) (string, float64, float64, bool) { return p.m.Legend(h) }

// ExtraItems implements panels.Extras: the plain skinning beside or over
// the dynamic animation.
func (p *Panel) ExtraItems(h tools.Host) []viewport.Item { return p.m.ExtraItems(h) }

// Markers implements panels.Tool: none.
func (p *Panel) Markers(tools.Host) []viewport.PointSet { return nil }

// State implements panels.Tool.
func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error { return p.m.Restore(h, state) }

// KeyHelp implements panels.KeyHelp.
func (p *Panel) KeyHelp() [][2]string {
	return [][2]string{
		{"[ / ]", "Dynamics: shrink / grow the brush"},
		{"Ctrl + drag", "Dynamics: paint with the brush inverted (Add subtracts, Set sets the opposite)"},
	}
}

// Shortcut implements panels.Tool: [ and ] change the brush's radius by
// a tenth.
func (p *Panel) Shortcut(_ tools.Host, k panels.Key) bool {
	b := &p.m.Brush
	switch {
	case k.Key == giu.KeyLeftBracket && k.Mods == giu.ModNone:
		b.Radius = max(2, b.Radius/1.1)
	case k.Key == giu.KeyRightBracket && k.Mods == giu.ModNone:
		b.Radius = min(500, b.Radius*1.1)
	default:
		return false
	}
	return true
}

// Brush outline colours: painting, and poking.
var (
	brushColour = imgui.Vec4{X: 1, Y: 1, Z: 1, W: 0.8}
	pokeColour  = imgui.Vec4{X: 1, Y: 0.55, Z: 0.2, W: 1}
)

// Viewport implements panels.Tool: a left drag over the mesh paints a
// stroke (one undo step) along every position the cursor went through
// (the input's Path), or pokes, as the panel's drag mode says; the
// brush's outline follows the cursor over the mesh.
func (p *Panel) Viewport(h tools.Host, in *viewport.Input) {
	p.m.Sync(h)
	if dynamics.RigError(h.Object()) != nil {
		return
	}
	panels.DrawLabels(h, in, "dynamics: label ", p.m.Labels(h))
	dl := imgui.WindowDrawList()
	at := imgui.Vec2{X: float32(in.OriginX + in.X), Y: float32(in.OriginY + in.Y)}
	switch {
	case p.m.Painting():
		// Dabs along the whole way the cursor went with the button held
		// since the last frame, not only where this frame sees it: a
		// quick stroke over a slow frame keeps all of its path.
		p.m.ContinueStroke(h, in.Dragged(viewport.Left), in.Ctrl)
		if !in.Down[viewport.Left] {
			p.m.EndStroke(h)
		}
	case p.m.Poking():
		if in.Down[viewport.Left] {
			p.m.MovePoke(h, in.X, in.Y)
		} else {
			p.m.EndPoke()
		}
	case in.Pressed[viewport.Left] && !in.Alt:
		if p.drag == DragPaint {
			// The press is at (X, Y); where the cursor went after it,
			// in the same frame, is painted at once.
			if p.m.BeginStroke(h, in.X, in.Y, in.Ctrl) {
				p.m.ContinueStroke(h, in.Dragged(viewport.Left), in.Ctrl)
			}
		} else {
			p.m.StartPoke(h, in.X, in.Y)
		}
	}
	if from, to, ok := p.m.PokeLine(h); ok {
		a, oka := screen(h, in, from)
		b, okb := screen(h, in, to)
		if oka && okb {
			dl.AddLineV(a, b, imgui.ColorU32Vec4(pokeColour), 2)
			dl.AddCircleFilled(b, 5, imgui.ColorU32Vec4(pokeColour))
		}
		return
	}
	if p.drag == DragPaint && in.Hovered && (p.m.Painting() || p.m.OverMesh(h, in.X, in.Y)) {
		dl.AddCircleV(at, float32(p.m.Brush.Radius), imgui.ColorU32Vec4(brushColour), 48, 1.5)
	}
}

// screen returns a model-space point's position on screen.
func screen(h tools.Host, in *viewport.Input, q assets.Vec3) (imgui.Vec2, bool) {
	x, y, ok := h.View().ToScreen(q)
	return imgui.Vec2{X: float32(in.OriginX + x), Y: float32(in.OriginY + y)}, ok
}
