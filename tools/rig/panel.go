package rig

import (
	"fmt"

	"github.com/AllenDang/giu"

	"gallop/panels"
	"gallop/tools"
)

// Panel implements panels.Tool: the clip, the settings, Start / Stop with
// the progress and the error plot, then the result's display and export.
func (t *Rig) Panel(h tools.Host) giu.Layout {
	t.sync(h)
	return giu.Layout{
		t.clipPanel(h),
		giu.Separator(),
		t.settingsPanel(h),
		giu.Separator(),
		t.progressPanel(),
		giu.Separator(),
		t.resultPanel(h),
	}
}

func (t *Rig) clipPanel(h tools.Host) giu.Widget {
	o := h.Object()
	if err := clipError(o); err != nil {
		return panels.ErrorLabel(err.Error())
	}
	return giu.Labelf("Clip: %s, %d frames, %d vertices", o.Clip.Name, len(o.Clip.Frames), o.Mesh.NumVertices())
}

func (t *Rig) settingsPanel(h tools.Host) giu.Widget {
	s := &t.settings
	smooth := float32(s.Smooth)
	l := giu.Layout{
		giu.InputInt(&s.Bones).Label("bones").Size(100), t.marks.Mark("bones"),
		giu.SliderInt(&s.MaxInfluences, 1, 8).Label("max influences").Size(100),
		giu.InputInt(&s.Iterations).Label("iterations").Size(100).StepSize(10),
		giu.InputFloat(&smooth).Label("smoothness").Size(100).Format("%.2g").OnChange(func() { s.Smooth = float64(smooth) }),
	}
	if o := h.Object(); clipError(o) == nil {
		if err := s.check(o.Mesh.NumVertices()); err != nil {
			l = append(l, panels.ErrorLabel(err.Error()))
		}
	}
	if t.running() {
		l = append(l, giu.Button("Stop").OnClick(t.stop), t.marks.Mark("start"))
	} else {
		l = append(l, giu.Button("Start").OnClick(func() { t.start(h) }), t.marks.Mark("start"))
	}
	return l
}

// progressPanel shows the run's progress and the RMSE per iteration.
func (t *Rig) progressPanel() giu.Widget {
	p := t.prog
	if p == nil {
		switch {
		case t.running():
			return giu.Label("Clustering...")
		case t.run != nil && t.run.err != nil:
			return panels.ErrorLabel(t.run.err.Error())
		}
		return giu.Label("Not started.")
	}
	frac := float32(p.iteration) / float32(max(1, p.total))
	text := fmt.Sprintf("%d / %d iterations", p.iteration, p.total)
	if t.run.finished && t.run.res != nil && p.iteration < p.total {
		text += " (converged)"
	}
	xs := make([]float64, len(p.history))
	hi := 0.0
	for i, v := range p.history {
		xs[i], hi = float64(i+1), max(hi, v)
	}
	return giu.Layout{
		giu.ProgressBar(frac).Size(-1, 0).Overlay(text),
		giu.Plot("RMSE per iteration").Size(-1, 140).Flags(giu.PlotFlagsNoLegend|giu.PlotFlagsNoMenus).
			AxisLimits(0, float64(max(2, len(xs))), 0, hi*1.05+1e-12, giu.ConditionAlways).
			Plots(giu.LineXY("RMSE", xs, p.history)),
	}
}

func (t *Rig) resultPanel(h tools.Host) giu.Widget {
	r := t.shown(h)
	if r == nil {
		return giu.Label("No rig yet.")
	}
	rr := r.res
	radio := func(label string, v Show) giu.Widget {
		return giu.Custom(func() {
			giu.RadioButton(label, t.show == v).OnChange(func() { t.setShow(h, v) }).Build()
			t.marks.Mark("show " + label).Build()
		})
	}
	heat := func(label string, v Heat) giu.Widget {
		return giu.Custom(func() {
			giu.RadioButton(label, t.heat == v).OnChange(func() { t.heat = v }).Build()
			t.marks.Mark("heat " + label).Build()
		})
	}
	bones := !t.noBones
	l := giu.Layout{
		giu.Labelf("%d bones, ≤ %d influences", r.bones(), r.settings.MaxInfluences),
		giu.Labelf("RMSE %.4g (%.3g of the diagonal)", rr.RMSE, rr.RMSE/r.diag),
		giu.Labelf("%d iterations, best %d", rr.Iterations, rr.BestIteration),
		giu.Label("Show"),
		giu.Row(radio("Original", ShowOriginal), radio("Skinned", ShowSkinned), radio("Side by side", ShowBoth)),
		giu.Label("Heat map"),
		giu.Row(heat("None", HeatNone), heat("Weights", HeatWeights), heat("Error", HeatError)),
		giu.SliderInt(&t.bone, 0, int32(r.bones()-1)).Label("bone (or click a vertex)").Size(140).OnChange(func() { t.heat = HeatWeights }),
		giu.Checkbox("Bones", &bones).OnChange(func() { t.noBones = !bones }),
		giu.Button("Export skinned glTF...").OnClick(func() { t.export(h, r) }), t.marks.Mark("export"),
		giu.Button("Apply rig to the object").Disabled(r.applied()).OnClick(func() { h.Do(newApply(r)) }),
		giu.Tooltip("The object gets the rig, its joint animation and the skinned clip (undoable); saving and File > Export glTF then keep the rig"),
	}
	if t.exported != "" {
		l = append(l, giu.Label(t.exported))
	}
	return l
}

// setShow changes what the viewport shows; side by side frames both.
func (t *Rig) setShow(h tools.Host, v Show) {
	t.show = v
	if r := t.shown(h); r != nil && v == ShowBoth {
		lo, hi := r.clip.Bounds()
		h.View().FrameBox(lo, hi.Add(r.offset))
	}
}
