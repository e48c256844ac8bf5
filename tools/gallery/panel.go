package gallery

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/panels"
	"gallop/tools"
)

// Panel implements panels.Tool: scenario and constraints, chain settings,
// Start / Stop and progress, the gallery, the plots and the favourites.
func (t *Gallery) Panel(h tools.Host) giu.Layout {
	t.defaults()
	return giu.Layout{
		t.scenarioPanel(h),
		giu.Separator(),
		t.chainPanel(h),
		giu.Separator(),
		t.progressPanel(),
		t.galleryPanel(h),
		giu.Separator(),
		t.plotsPanel(),
		t.favouritesPanel(h),
	}
}

func (t *Gallery) scenarioPanel(h tools.Host) giu.Widget {
	// The scenarios as radio buttons, two to a row: one click picks one.
	var pick giu.Layout
	var row []giu.Widget
	for i, sc := range scenarios {
		radio := giu.RadioButton(sc.Name, i == t.scenario).OnChange(func() { t.setScenario(h, i) })
		mark := t.marks.Mark("scenario " + sc.Name)
		row = append(row, giu.Custom(func() { radio.Build(); mark.Build() }))
		if len(row) == 4 || i == len(scenarios)-1 {
			pick = append(pick, giu.Row(row...))
			row = nil
		}
	}
	s := t.current()
	l := giu.Layout{
		giu.Label("Scenario"),
		pick,
		s.Panel(func() { t.edited(h) }),
	}
	if _, err := s.Model(); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	}
	return l
}

func (t *Gallery) chainPanel(h tools.Host) giu.Widget {
	l := giu.Layout{
		giu.InputInt(&t.chains).Label("chains").Size(100),
		giu.InputInt(&t.iterations).Label("iterations").Size(100).StepSize(1000).StepSizeFast(10000),
		giu.InputInt(&t.seed).Label("seed (first chain)").Size(100),
	}
	s := t.current()
	if ll := s.LogLambda(); ll != nil {
		v := float32(*ll)
		l = append(l, giu.InputFloat(&v).Label("log λ").Size(100).Format("%.3g").OnChange(func() { *ll = float64(v) }))
	}
	if m, err := s.Model(); err == nil {
		if len(t.weights) != len(m.Weights) {
			t.weights = append([]float64(nil), m.Weights...)
		}
		l = append(l, giu.Label("Proposal weights"))
		for i, name := range m.Kernels {
			w := float32(t.weights[i])
			l = append(l, giu.SliderFloat(&w, 0, 10).Label(name).Size(140).Format("%.2f").OnChange(func() { t.weights[i] = float64(w) }))
		}
	}
	if t.running() {
		l = append(l, giu.Button("Stop").OnClick(t.stop), t.marks.Mark("start"))
	} else {
		l = append(l, giu.Button("Start").OnClick(func() { t.start(h) }), t.marks.Mark("start"))
	}
	return l
}

func (t *Gallery) progressPanel() giu.Widget {
	if t.snap == nil {
		if t.running() {
			return giu.Label("starting...")
		}
		return giu.Label("Not started.")
	}
	frac := float32(t.snap.done) / float32(max(1, t.snap.total))
	l := giu.Layout{
		giu.ProgressBar(frac).Size(-1, 0).Overlay(fmt.Sprintf("%d / %d iterations", t.snap.done, t.snap.total)),
	}
	kept := 0
	for _, k := range t.snap.kept {
		kept += k
	}
	l = append(l, giu.Labelf("%d satisfying samples kept, %d distinct shown", kept, len(t.snap.samples)))
	for _, u := range t.unsatisfied {
		l = append(l, panels.ErrorLabel(u))
	}
	return l
}

// plotsPanel draws the paper's plots over the iterations, one line per
// chain: the scenario's value (Figure 2), the constraints met (Figure 6)
// and log p (Figure 7).
func (t *Gallery) plotsPanel() giu.Widget {
	if t.snap == nil || len(t.snap.lines) == 0 {
		return giu.Layout{}
	}
	label := t.run.gallery.PlotLabel()
	l := giu.Layout{giu.Label("Plots (one line per chain)")}
	if label != "" {
		l = append(l, t.plot(label, func(ln *line) []float64 { return ln.Value }))
	}
	return append(l,
		t.plot("constraints met", func(ln *line) []float64 { return ln.Met }),
		t.plot("log p", func(ln *line) []float64 { return ln.LogP }),
		giu.Separator(),
	)
}

// plot is one plot of ys (per chain) against the iteration, its axes
// fitted to the finite values.
func (t *Gallery) plot(title string, ys func(*line) []float64) giu.Widget {
	lo, hi := math.Inf(1), math.Inf(-1)
	var plots []giu.PlotWidget
	for c := range t.snap.lines {
		ln := &t.snap.lines[c]
		v := ys(ln)
		for _, y := range v {
			if !math.IsInf(y, 0) && !math.IsNaN(y) {
				lo, hi = min(lo, y), max(hi, y)
			}
		}
		plots = append(plots, giu.LineXY(fmt.Sprintf("chain %d", c+1), ln.Iteration, v))
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	pad := max((hi-lo)*0.05, 0.5)
	return giu.Plot(title).Size(-1, 130).Flags(giu.PlotFlagsNoLegend|giu.PlotFlagsNoMenus).
		AxisLimits(0, float64(max(1, t.snap.total/max(1, len(t.snap.lines)))), lo-pad, hi+pad, giu.ConditionAlways).
		Plots(plots...)
}

func (t *Gallery) galleryPanel(h tools.Host) giu.Widget {
	var samples []*sample
	if t.snap != nil {
		samples = t.snap.samples
	}
	head := giu.Row(
		giu.Labelf("Gallery (%d)", len(samples)),
		giu.Button("Export glTF...").Disabled(t.chosen == nil).OnClick(func() { t.export(h) }),
		t.marks.Mark("export"),
	)
	back := giu.Button("Back to scene").OnClick(func() { t.show(h, nil, false) })
	if t.want == nil {
		back = giu.Button("Show scenario").OnClick(func() { t.edited(h) })
	}
	return giu.Layout{head, back, giu.Custom(func() { t.grid(h, samples) })}
}

// Thumbnail size in pixels, and thumbnails per row.
const (
	thumbW, thumbH = 116, 87
	perRow         = 2
)

// grid draws the thumbnails: hovering one animates it, clicking it plays
// it, its star button keeps it as a favourite.
func (t *Gallery) grid(h tools.Host, samples []*sample) {
	t.thumbs.begin()
	for i, s := range samples {
		if i%perRow != 0 {
			imgui.SameLine()
		}
		imgui.BeginGroup()
		tex := t.thumbs.texture(s, t.thumbs.hovered == s)
		size := imgui.Vec2{X: thumbW, Y: thumbH}
		id := fmt.Sprintf("##thumb%d", i)
		var clicked bool
		if tex != 0 {
			ref := imgui.NewTextureRefTextureID(imgui.TextureID(tex))
			clicked = imgui.ImageButtonV(id, *ref, size, imgui.Vec2{X: 0, Y: 1}, imgui.Vec2{X: 1, Y: 0}, imgui.Vec4{}, imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1})
		} else {
			clicked = imgui.ButtonV("..."+id, imgui.Vec2{X: thumbW + 8, Y: thumbH + 8})
		}
		if i == 0 {
			t.marks.Mark("thumbnail 1").Build()
		}
		if imgui.IsItemHovered() {
			t.thumbs.hover(s)
			imgui.SetTooltip(fmt.Sprintf("chain %d, iteration %d, log p %.3g: click to play", s.Chain+1, s.Iteration, s.LogP))
		}
		if clicked {
			t.play(h, s)
		}
		star := "☆"
		if t.favouriteOf(s) >= 0 {
			star = "★"
		}
		if imgui.SmallButton(fmt.Sprintf("%s##star%d", star, i)) {
			t.toggleFavourite(s)
		}
		imgui.SameLine()
		if t.chosen == s {
			imgui.Text("playing")
		} else {
			imgui.Text(fmt.Sprintf("%d/%d", s.Chain+1, s.Iteration))
		}
		imgui.EndGroup()
	}
	t.thumbs.end()
}

func (t *Gallery) favouritesPanel(h tools.Host) giu.Widget {
	l := giu.Layout{giu.Labelf("Favourites (%d)", len(t.favourites))}
	for i, f := range t.favourites {
		l = append(l, giu.Row(
			giu.SmallButton(fmt.Sprintf("Play##fav%d", i)).OnClick(func() { t.playFavourite(h, i) }),
			giu.SmallButton(fmt.Sprintf("x##fav%d", i)).OnClick(func() {
				t.favourites = append(t.favourites[:i:i], t.favourites[i+1:]...)
			}),
			giu.Label(f.label()),
		))
	}
	return l
}
