package dynamicspanel

import (
	"fmt"

	"github.com/AllenDang/giu"

	"gallop/internal/words"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/dynamics"
)

// Panel implements panels.Tool: the rig (or how to get one), the
// simulation, the display, the brush, the fit, and bake and export.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	p.m.Sync(h)
	o := h.Object()
	if err := dynamics.RigError(o); err != nil {
		l := giu.Layout{panels.ErrorLabel(err.Error())}
		if dynamics.CanInfer(o) {
			l = append(l, p.inferPanel(h))
		}
		return l
	}
	return giu.Layout{
		p.simPanel(h),
		giu.Separator(),
		p.showPanel(h),
		giu.Separator(),
		p.brushPanel(h),
		giu.Separator(),
		p.fitPanel(h),
		giu.Separator(),
		p.resultPanel(h),
	}
}

// inferPanel offers to infer a rig for an object that has a clip but no
// rig, the first step of fitting materials to any mesh animation.
func (p *Panel) inferPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	l := giu.Layout{
		panels.Text("Infer a rig from the clip (the Rig tool's method); the clip then stays as the example the fit reproduces."),
		giu.InputInt(&s.Bones).Label("bones").Size(100),
	}
	if pr := p.m.InferProgress(); p.m.Inferring() {
		frac, text := float32(0), "clustering"
		if pr != nil {
			frac, text = float32(pr.Round)/float32(max(1, pr.Asked)), fmt.Sprintf("round %d, RMSE %.4g", pr.Round, pr.RMSE)
		}
		return append(l, giu.ProgressBar(frac).Size(-1, 0).Overlay(text))
	}
	return append(l, panels.Marked("dynamics: infer", giu.Button("Infer a rig").OnClick(func() { p.m.InferRig(h) })))
}

// simPanel shows the simulation's state and settings.
func (p *Panel) simPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	st := p.m.Status(h)
	text := fmt.Sprintf("Simulated %d of %d frames", st.Frames, st.Total)
	switch {
	case st.Total == 0 && st.Err == nil:
		text = "Building the goal..."
	case st.Frames == st.Total && st.Current:
		text = fmt.Sprintf("%s simulated", words.Count(st.Total, "frame", "frames"))
	case st.Live:
		text = "Poke: simulating live"
	}
	l := giu.Layout{
		giu.ProgressBar(float32(st.Frames)/float32(max(1, st.Total))).Size(-1, 0).Overlay(text),
		panels.Mark("dynamics: simulation"),
		giu.Row(
			giu.InputInt(&s.Substeps).Label("substeps").Size(80),
			panels.Tipped(giu.Checkbox("Loop", &s.Loop), "Simulate one pass of the clip first, so that a looping clip closes without a jump"),
		),
	}
	if w := st.Warning(); w != "" && st.Current {
		l = append(l, panels.ErrorLabel(w))
	}
	if err := s.Check(); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	}
	if st.Err != nil {
		l = append(l, panels.ErrorLabel(st.Err.Error()))
	}
	return l
}

// showPanel chooses what the viewport shows and the heat map.
func (p *Panel) showPanel(h tools.Host) giu.Widget {
	show := func(label string, v dynamics.Show) giu.Widget {
		return panels.Marked("dynamics: show "+label, giu.RadioButton(label, p.m.Show == v).OnChange(func() { p.m.SetShow(h, v) }))
	}
	heat := func(label string, v dynamics.Heat) giu.Widget {
		return panels.Marked("dynamics: heat "+label, giu.RadioButton(label, p.m.Heat == v).OnChange(func() { p.m.Heat = v }))
	}
	return giu.Layout{
		giu.Label("Show"),
		giu.Row(show("Dynamic", dynamics.ShowDynamic), show("Skinned", dynamics.ShowSkinned)),
		giu.Row(show("Side by side", dynamics.ShowBoth), show("Overlay", dynamics.ShowOverlay)),
		giu.Label("Heat map"),
		giu.Row(heat("Parameter", dynamics.HeatParam), heat("Distance", dynamics.HeatDistance), heat("None", dynamics.HeatNone)),
	}
}

// channelNames are the brush's channels in the combo, in Channel order.
var channelNames = []string{"alpha (goal)", "beta (surface)", "gamma (spokes)", "lambda (damping)", "kappa (goal damping)", "material (preset)"}

// brushPanel lays out the brush: what a drag does, what it paints and
// how, and the fills.
func (p *Panel) brushPanel(h tools.Host) giu.Widget {
	b := &p.m.Brush
	drag := func(label string, v Drag) giu.Widget {
		return panels.Marked("dynamics: drag "+label, giu.RadioButton(label, p.drag == v).OnChange(func() { p.drag = v }))
	}
	op := func(label string, v dynamics.Op) giu.Widget {
		return panels.Marked("dynamics: op "+label, giu.RadioButton(label, b.Op == v).OnChange(func() { b.Op = v }))
	}
	channel := int32(b.Channel)
	falloff := int32(b.Falloff)
	radius, strength, value := float32(b.Radius), float32(b.Strength), float32(b.Value)
	l := giu.Layout{
		giu.Label("Left drag"),
		giu.Row(drag("Paint", DragPaint), drag("Poke", DragPoke)),
		giu.Combo("paint", channelNames[channel], channelNames, &channel).Size(panels.Room("paint")).OnChange(func() {
			b.Channel = dynamics.Channel(channel)
			p.m.Heat = dynamics.HeatParam
		}),
		panels.Mark("dynamics: channel"),
	}
	if b.Channel == dynamics.ChannelMaterial {
		presets := make([]giu.Widget, len(dynamics.Presets))
		for i, pr := range dynamics.Presets {
			presets[i] = panels.Marked("dynamics: preset "+pr.Name, giu.RadioButton(pr.Name, b.Preset == i).OnChange(func() { b.Preset = i }))
		}
		l = append(l, giu.Row(presets...))
	} else {
		l = append(l, giu.SliderFloat(&value, 0, 1).Label("value").Size(panels.Room("value")).Format("%.2f of the range").OnChange(func() { b.Value = float64(value) }))
	}
	l = append(l,
		giu.Row(op("Set", dynamics.OpSet), op("Add", dynamics.OpAdd), op("Subtract", dynamics.OpSubtract), op("Smooth", dynamics.OpSmooth)),
		giu.SliderFloat(&radius, 2, 500).Label("radius").Size(panels.Room("radius")).Format("%.0f px").OnChange(func() { b.Radius = float64(radius) }),
		giu.SliderFloat(&strength, 0, 1).Label("strength").Size(panels.Room("strength")).Format("%.2f").OnChange(func() { b.Strength = float64(strength) }),
		giu.Combo("falloff", []string{"smooth", "linear", "constant"}[falloff], []string{"smooth", "linear", "constant"}, &falloff).Size(panels.Room("falloff")).OnChange(func() { b.Falloff = dynamics.Falloff(falloff) }),
		panels.Tipped(giu.Row(
			panels.Marked("dynamics: fill selection", giu.Button("Fill selection").Disabled(len(h.Selection()) == 0).OnClick(func() { p.m.Fill(h, false) })),
			panels.Marked("dynamics: fill all", giu.Button("Fill all").OnClick(func() { p.m.Fill(h, true) })),
		), "Set the selected vertices (Select tool) or all of them to the brush's value or preset"),
	)
	return l
}

// fitPanel lays out the fit: its settings, the examples to fit to, the
// progress and the energy plot.
func (p *Panel) fitPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	l := giu.Layout{
		giu.Label("Fit to an example simulation"),
		giu.InputInt(&s.Iterations).Label("iterations").Size(100).StepSize(10),
		panels.Tipped(giu.Checkbox("Paper's four parameters only", &s.Paper), "Fit alpha, beta, gamma and lambda, kappa held at 0 (the paper's model); by default kappa is fitted too"),
	}
	if p.m.Fitting() {
		l = append(l, panels.Marked("dynamics: stop fit", giu.Button("Stop").OnClick(p.m.StopFit)))
	} else {
		l = append(l, giu.Row(
			panels.Tipped(panels.Marked("dynamics: fit file", giu.Button("Example...").OnClick(func() {
				h.OpenFile("Open an example: a glTF animation, or one OBJ frame of a sequence", []string{"glb", "gltf", "obj"}, func(path string) { p.m.Fit(h, path) })
			})), "A simulation of this mesh driven by its animation: a glTF file, or an OBJ file standing for every OBJ frame in its folder"),
			panels.Marked("dynamics: fit own", giu.Button("Its own clip").Disabled(!p.m.HasOwnExample(h)).OnClick(func() { p.m.Fit(h, "") })),
		))
	}
	if pr := p.m.FitProgress(); pr != nil {
		xs := make([]float64, len(pr.Energy))
		hi := 0.0
		for i, e := range pr.Energy {
			xs[i], hi = float64(i), max(hi, e)
		}
		l = append(l,
			giu.ProgressBar(float32(pr.Fraction())).Size(-1, 0).Overlay(pr.Text()),
			panels.Mark("dynamics: fit progress"),
			giu.Plot("E per iteration").Size(-1, 140).Flags(giu.PlotFlagsNoLegend|giu.PlotFlagsNoMenus).
				AxisLimits(0, float64(max(2, len(xs))), 0, hi*1.05+1e-12, giu.ConditionAlways).
				Plots(giu.LineXY("E", xs, pr.Energy)),
		)
	}
	if r := p.m.FitReport(); r != "" {
		l = append(l, panels.Text(r))
	}
	return l
}

// resultPanel offers bake, export and the materials file.
func (p *Panel) resultPanel(h tools.Host) giu.Widget {
	can := p.m.CanBake(h)
	l := giu.Layout{
		panels.Tipped(giu.Row(
			panels.Marked("dynamics: bake", giu.Button("Bake to clip").Disabled(!can).OnClick(func() { p.m.Bake(h) })),
			panels.Marked("dynamics: export", giu.Button("Export glTF...").Disabled(!can).OnClick(func() { p.m.Export(h) })),
		), "Bake: the dynamic animation becomes the object's clip (undoable). Export: glTF 2.0 with the frames as morph targets"),
		panels.Tipped(giu.Row(
			giu.Button("Import materials...").OnClick(func() { p.m.ImportParams(h) }),
			giu.Button("Export materials...").OnClick(func() { p.m.ExportParams(h) }),
		), "The per-vertex parameters as CSV: vertex,alpha,beta,gamma,lambda,kappa"),
	}
	if b := p.m.Baked(); b != "" {
		l = append(l, panels.Text(b))
	}
	if e := p.m.Exported(); e != "" {
		l = append(l, panels.Text(e))
	}
	return l
}
