package gallerypanel

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/internal/words"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/gallery"
	"gallop/viewport"
)

// Panel implements panels.Tool: scenario and constraints, chain settings,
// Start / Stop and progress, the gallery, the plots and the favourites.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	return giu.Layout{
		p.scenarioPanel(h),
		giu.Separator(),
		p.chainPanel(h),
		giu.Separator(),
		p.progressPanel(),
		p.galleryPanel(h),
		giu.Separator(),
		p.plotsPanel(),
		p.favouritesPanel(h),
	}
}

func (p *Panel) scenarioPanel(h tools.Host) giu.Widget {
	// The scenarios as radio buttons, two to a row: one click picks one.
	var pick giu.Layout
	var row []giu.Widget
	names := gallery.ScenarioNames()
	for i, name := range names {
		radio := giu.RadioButton(name, i == p.m.Scenario()).OnChange(func() { p.m.SetScenario(h, i) })
		mark := panels.Mark("gallery: scenario " + name)
		row = append(row, giu.Custom(func() { radio.Build(); mark.Build() }))
		if len(row) == 2 || i == len(names)-1 {
			pick = append(pick, giu.Row(row...))
			row = nil
		}
	}
	s := p.m.Settings()
	l := giu.Layout{
		giu.Label("Scenario"),
		pick,
		p.editors.settingsPanel(s, func() { p.m.Edited(h) }),
	}
	if _, err := s.Model(); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	}
	return l
}

func (p *Panel) chainPanel(h tools.Host) giu.Widget {
	l := giu.Layout{
		giu.InputInt(&p.m.Chains).Label("chains").Size(100),
		giu.InputInt(&p.m.Iterations).Label("iterations").Size(100).StepSize(1000).StepSizeFast(10000),
		giu.InputInt(&p.m.Seed).Label("seed (first chain)").Size(100),
	}
	s := p.m.Settings()
	if ll := s.LogLambda(); ll != nil {
		v := float32(*ll)
		l = append(l, giu.InputFloat(&v).Label("log λ").Size(100).Format("%.3g").OnChange(func() { *ll = float64(v) }))
	}
	if m, err := s.Model(); err == nil {
		if len(p.m.Weights) != len(m.Weights) {
			p.m.Weights = append([]float64(nil), m.Weights...)
		}
		l = append(l, giu.Label("Proposal weights"))
		for i, name := range m.Kernels {
			w := float32(p.m.Weights[i])
			// The kernel's name inside its slider: the names are long.
			l = append(l, giu.SliderFloat(&w, 0, 10).Label("##kernel"+name).Size(-1).Format(name+": %.2f").OnChange(func() { p.m.Weights[i] = float64(w) }))
		}
	}
	start := panels.Marked("gallery: start", giu.Button("Start").OnClick(func() { p.m.Start(h) }))
	if p.m.Running() {
		start = panels.Marked("gallery: start", giu.Button("Stop").OnClick(p.m.Stop))
	}
	return append(l, giu.Row(start, p.farm.Button(h, &p.m.Farm, false, func() { p.m.RunOnFarm(h) })), p.farm.Status(&p.m.Farm))
}

func (p *Panel) progressPanel() giu.Widget {
	snap := p.m.Snapshot()
	if snap == nil {
		if p.m.Running() {
			return giu.Label("starting...")
		}
		return giu.Label("Not started.")
	}
	frac := float32(snap.Done) / float32(max(1, snap.Total))
	l := giu.Layout{
		giu.ProgressBar(frac).Size(-1, 0).Overlay(fmt.Sprintf("%d / %d iterations", snap.Done, snap.Total)),
	}
	kept := 0
	for _, k := range snap.Kept {
		kept += k
	}
	l = append(l, panels.Text(fmt.Sprintf("%s kept, %d distinct shown", words.Count(kept, "satisfying sample", "satisfying samples"), len(snap.Samples))))
	for _, u := range p.m.Unsatisfied() {
		l = append(l, panels.ErrorLabel(u))
	}
	return l
}

// plotsPanel draws the paper's plots over the iterations, one line per
// chain: the scenario's value (Figure 2), the constraints met (Figure 6)
// and log p (Figure 7).
func (p *Panel) plotsPanel() giu.Widget {
	snap := p.m.Snapshot()
	if snap == nil || len(snap.Lines) == 0 {
		return giu.Layout{}
	}
	label := p.m.PlotLabel()
	l := giu.Layout{giu.Label("Plots (one line per chain)")}
	if label != "" {
		l = append(l, plot(snap, label, func(ln *gallery.Line) []float64 { return ln.Value }))
	}
	return append(l,
		plot(snap, "constraints met", func(ln *gallery.Line) []float64 { return ln.Met }),
		plot(snap, "log p", func(ln *gallery.Line) []float64 { return ln.LogP }),
		giu.Separator(),
	)
}

// plot is one plot of ys (per chain) against the iteration, its axes
// fitted to the finite values.
func plot(snap *gallery.Snapshot, title string, ys func(*gallery.Line) []float64) giu.Widget {
	lo, hi := math.Inf(1), math.Inf(-1)
	var plots []giu.PlotWidget
	for c := range snap.Lines {
		ln := &snap.Lines[c]
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
		AxisLimits(0, float64(max(1, snap.Total/max(1, len(snap.Lines)))), lo-pad, hi+pad, giu.ConditionAlways).
		Plots(plots...)
}

func (p *Panel) galleryPanel(h tools.Host) giu.Widget {
	var samples []*gallery.Sample
	if snap := p.m.Snapshot(); snap != nil {
		samples = snap.Samples
	}
	back := giu.Button("Back to scene").OnClick(func() { p.m.BackToScene(h) })
	if !p.m.ShowingScene() {
		back = giu.Button("Show scenario").OnClick(func() { p.m.Edited(h) })
	}
	return giu.Layout{
		giu.Labelf("Gallery (%d)", len(samples)),
		giu.Row(
			panels.Marked("gallery: export", giu.Button("Export glTF...").Disabled(p.m.Chosen() == nil).OnClick(func() { p.m.Export(h) })),
			back,
		),
		giu.Custom(func() { p.grid(h, samples) }),
	}
}

// Thumbnail size in pixels.
const thumbW, thumbH = panels.ThumbW, panels.ThumbH

// strobeFrames is how many exposures of each body a still thumbnail
// shows, for animations of at most strobeBodies bodies.
const (
	strobeFrames = 12
	strobeBodies = 2
)

// picture returns what s's thumbnail shows of frame: a still of a few
// bodies shows their paths (a strobe); of many, where they ended (a strobe
// of ten balls is a blur).
func picture(s *gallery.Sample) panels.Picture {
	return func(frame int) (viewport.Camera, []viewport.Item) {
		cam := s.Scene.ThumbnailCamera(float64(thumbW) / thumbH)
		n := s.Scene.NumFrames()
		switch {
		case frame >= 0:
			return cam, s.Scene.Items(frame)
		case len(s.Anim.Bodies) > strobeBodies:
			return cam, s.Scene.Items(n - 1)
		}
		return cam, s.Scene.Strobe(strobeFrames)
	}
}

// grid draws the thumbnails: hovering one animates it, clicking it plays
// it, its star button keeps it as a favourite.
func (p *Panel) grid(h tools.Host, samples []*gallery.Sample) {
	p.thumbs.Begin()
	// As many to a row as the panel's width holds (at least one).
	spacing := imgui.CurrentStyle().ItemSpacing().X
	perRow := max(1, int((imgui.ContentRegionAvail().X+spacing)/(thumbW+8+spacing)))
	for i, s := range samples {
		if i%perRow != 0 {
			imgui.SameLine()
		}
		imgui.BeginGroup()
		tex := p.thumbs.Texture(s, s.Scene.NumFrames(), s.Anim.FPS, picture(s))
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
			panels.Mark("gallery: thumbnail 1").Build()
		}
		if imgui.IsItemHovered() {
			p.thumbs.Hover(s)
		}
		panels.ShowTip(fmt.Sprintf("%s (log p %.3g): click to play it", s.Caption(), s.LogP))
		if clicked {
			p.m.Play(h, s)
		}
		star := "☆"
		if p.m.IsFavourite(s) {
			star = "★"
		}
		left := imgui.CursorPosX()
		if imgui.SmallButton(fmt.Sprintf("%s##star%d", star, i)) {
			p.m.ToggleFavourite(s)
		}
		imgui.SameLine()
		caption := s.Caption()
		if p.m.Chosen() == s {
			caption = "playing: " + caption
		}
		// The caption wraps within the thumbnail's width.
		imgui.PushTextWrapPosV(left + thumbW + 8)
		imgui.TextUnformatted(caption)
		imgui.PopTextWrapPos()
		if i == 0 {
			panels.Mark("gallery: caption 1").Build()
		}
		imgui.EndGroup()
	}
	p.thumbs.End()
}

func (p *Panel) favouritesPanel(h tools.Host) giu.Widget {
	favs := p.m.Favourites()
	l := giu.Layout{giu.Labelf("Favourites (%d)", len(favs))}
	for i, f := range favs {
		l = append(l, giu.Row(
			giu.SmallButton(fmt.Sprintf("Play##fav%d", i)).OnClick(func() { p.m.PlayFavourite(h, i) }),
			giu.SmallButton(fmt.Sprintf("x##fav%d", i)).OnClick(func() { p.m.RemoveFavourite(i) }),
			giu.Label(f.Label()),
		))
	}
	return l
}
