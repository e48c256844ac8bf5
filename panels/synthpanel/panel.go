package synthpanel

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/cimgui-go/implot"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/panels"
	"gallop/solver/synth"
	"gallop/tools"
	tsynth "gallop/tools/synth"
	"gallop/viewport"
)

// Panel implements panels.Tool: the clip; the analysis (rig settings,
// Analyse / Stop, progress, the cost heat map and the threshold); the
// variations' settings, targets and obstacles; Generate / Stop and the
// gallery; the chosen variation's quality, components, export and
// addition to the document.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	p.m.Sync(h)
	o := h.Object()
	if err := tsynth.ClipError(o); err != nil {
		return giu.Layout{panels.ErrorLabel(err.Error())}
	}
	return giu.Layout{
		panels.Text(fmt.Sprintf("Clip: %s, %s, %s", o.Clip.Name, words.Count(len(o.Clip.Frames), "frame", "frames"), words.Count(o.Mesh.NumVertices(), "vertex", "vertices"))),
		giu.Separator(),
		p.analysisPanel(h),
		giu.Separator(),
		p.generatePanel(h),
		giu.Separator(),
		p.galleryPanel(h),
		p.chosenPanel(h),
	}
}

func (p *Panel) analysisPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	l := giu.Layout{
		giu.Label("Rig and transitions"),
		panels.Tipped(giu.InputInt(&s.Bones).Label("bones").Size(100), "SSDR bones of the rig the synthesis works on"),
		panels.Tipped(giu.Checkbox("Components", &s.Components), "Split the mesh at a cut node of the bone graph: weakly coupled parts get motion graphs of their own and transition at different frames"),
	}
	if p.m.Analysing() {
		l = append(l, giu.Button("Stop##analysis").OnClick(p.m.StopAnalysis), panels.Mark("synth: analyse"))
	} else {
		l = append(l, giu.Button("Analyse").OnClick(func() { p.m.Analyse(h) }), panels.Mark("synth: analyse"))
	}
	if pr := p.m.AnalysisProgress(); pr != nil && p.m.Analysing() {
		l = append(l, giu.ProgressBar(float32(pr.Fraction)).Size(-1, 0).Overlay(pr.Text))
	}
	r := p.m.Analysis(h)
	if r == nil {
		return append(l, giu.Label("Not analysed."))
	}
	a := r.Analysis
	l = append(l, panels.Text(fmt.Sprintf("%s, the reference bone %d", words.Count(a.Model.NumBones(), "bone", "bones"), a.Parts[0].Reference)))
	if len(a.Parts) > 1 {
		sizes := make([]string, len(a.Parts))
		for k, pt := range a.Parts {
			sizes[k] = fmt.Sprint(len(pt.Bones))
		}
		l = append(l,
			panels.Text(fmt.Sprintf("cut nodes %v; %d components of %s bones", a.CutNodes, len(a.Parts), strings.Join(sizes, ", "))),
			giu.Checkbox("Show components", &p.m.ShowComponents), panels.Mark("synth: show components"))
	} else if s.Components {
		l = append(l, panels.Text(fmt.Sprintf("cut nodes %v: no split gives parts of two bones or more", a.CutNodes)))
	}
	l = append(l, p.thresholdSlider(h, r))
	if _, err := p.m.Graphs(); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	} else {
		l = append(l, panels.Marked("synth: graph", panels.Text(p.m.GraphSummary())))
	}
	return append(l, p.costPlot(r))
}

// thresholdSlider edits the threshold, the largest pose distance of a
// transition in steps, on a logarithmic slider spanning the candidates'
// distances (and the default); the graphs follow as it moves.
func (p *Panel) thresholdSlider(h tools.Host, r *tsynth.Analysed) giu.Widget {
	def := r.Analysis.Parts[0].DefaultThreshold()
	lo, hi := def, def
	for _, pt := range r.Analysis.Parts {
		for _, c := range pt.Candidates() {
			lo, hi = min(lo, c.Distance), max(hi, c.Distance)
		}
	}
	lo = max(lo, 1e-3*def)
	return giu.Custom(func() {
		v := float32(p.m.Settings.Threshold)
		if v == 0 {
			v = float32(def)
		}
		st := imgui.CurrentStyle()
		button := imgui.CalcTextSize("default").X + 2*st.FramePadding().X + st.ItemSpacing().X
		imgui.SetNextItemWidth(panels.Room("threshold") - button)
		if imgui.SliderFloatV("threshold", &v, float32(lo), float32(hi), "%.3g steps", imgui.SliderFlagsLogarithmic) {
			p.m.SetThreshold(h, float64(v))
		}
		panels.Mark("synth: threshold").Build()
		panels.ShowTip(fmt.Sprintf("The largest pose distance a transition may join, in steps: the median distance between adjacent frames (rigidly aligned). Default %.3g", def))
		imgui.SameLine()
		if imgui.SmallButton("default") {
			p.m.SetThreshold(h, 0)
		}
	})
}

// costPlot is the first part's transition cost D(i, j) as a heat map of
// log₁₀ D (its range spans orders of magnitude), from frame i (down) to
// frame j (across), with the candidate transitions of the graph at the
// current threshold marked in white.
func (p *Panel) costPlot(r *tsynth.Analysed) giu.Widget {
	n := float64(r.Analysis.Model.NumFrames())
	var xs, ys []float64
	if gs, _ := p.m.Graphs(); len(gs) > 0 {
		for _, t := range gs[0].Transitions {
			xs, ys = append(xs, float64(t.To)+0.5), append(ys, n-float64(t.From)-0.5)
		}
	}
	if p.logCost == nil || p.logOf != r {
		// Costs that are not finite (pairs without a velocity) show as the
		// largest finite one.
		p.logOf, p.logCost = r, make([]float64, len(r.Cost))
		p.logLo, p.logHi = math.Log10(max(r.CostMax, 1e-300)), math.Log10(max(r.CostMax, 1e-300))
		for k, c := range r.Cost {
			v := p.logHi
			if c <= r.CostMax {
				v = math.Log10(max(c, r.CostMax*1e-9, 1e-300))
			}
			p.logCost[k], p.logLo = v, min(p.logLo, v)
		}
	}
	xt, yt := costTicks(int(n))
	return giu.Layout{
		panels.Text(fmt.Sprintf("Transition cost log₁₀ D, %.2g to %.2g (from frame, down; to frame, across); the %d candidates in white", p.logLo, p.logHi, len(xs))),
		giu.Plot("##cost").Size(-1, 260).Flags(giu.PlotFlagsNoLegend|giu.PlotFlagsNoMenus|giu.PlotFlagsEqual).
			AxisLimits(0, n, 0, n, giu.ConditionAlways).XTicks(xt, false).YTicks(yt, false, giu.ImPlotYAxisLeft).
			Plots(&costMap{values: p.logCost, size: r.CostSize, frames: n, lo: p.logLo, hi: p.logHi, xs: xs, ys: ys}),
	}
}

// costTicks labels the cost map's axes with frame numbers counted from 1,
// as the timeline: "to" frames across from the left, "from" frames down
// from the top, as the rows are drawn (the y axis counted up from the
// bottom, so "from" frames read off it were wrong). Frame k's cell is
// centred at x = k − ½ and y = n − k + ½. At most about six ticks a side,
// at 1 and multiples of a round step.
func costTicks(n int) (x, y []giu.PlotTicker) {
	step := 1
	for _, s := range []int{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000} {
		step = s
		if n/s <= 5 {
			break
		}
	}
	for k := 1; k <= n; k = (k/step + 1) * step {
		label := fmt.Sprint(k)
		x = append(x, giu.PlotTicker{Position: float64(k) - 0.5, Label: label})
		y = append(y, giu.PlotTicker{Position: float64(n-k) + 0.5, Label: label})
	}
	return x, y
}

// costMap is an ImPlot heat map (Viridis) of a square row-major matrix
// covering frames × frames, the first row at the top, with points marked.
type costMap struct {
	values []float64
	size   int
	frames float64
	lo, hi float64
	xs, ys []float64 // the points to mark
}

// Plot implements giu.PlotWidget.
func (w *costMap) Plot() {
	if len(w.values) == 0 || w.size*w.size != len(w.values) {
		return
	}
	implot.PushColormapPlotColormap(implot.ColormapViridis)
	implot.PlotHeatmapdoublePtrV("D", &w.values[0], int32(w.size), int32(w.size), w.lo, math.Max(w.hi, w.lo+1e-9), "",
		implot.NewPlotPoint(0, 0), implot.NewPlotPoint(w.frames, w.frames), *giu.NewPlotSpec().GetSpec())
	implot.PopColormap()
	if len(w.xs) == 0 {
		return
	}
	spec := giu.NewPlotSpec().GetSpec()
	spec.SetPropS32(implot.PropMarker, int(implot.MarkerCircle))
	spec.SetPropFloat(implot.PropMarkerSize, 2)
	white := imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1}
	spec.SetPropVec4(implot.PropMarkerFillColor, white)
	spec.SetPropVec4(implot.PropMarkerLineColor, white)
	implot.PlotScatterdoublePtrdoublePtrV("candidates", &w.xs[0], &w.ys[0], int32(len(w.xs)), *spec)
}

func (p *Panel) generatePanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	seconds := float32(s.Seconds)
	blends := synth.Blends
	l := giu.Layout{
		giu.Label("Variations"),
		panels.Marked("synth: variations", giu.InputInt(&s.Count).Label("variations").Size(100)),
		giu.InputFloat(&seconds).Label("seconds").Size(100).Format("%.3g").OnChange(func() { s.Seconds = float64(seconds) }),
		giu.InputInt(&s.Seed).Label("seed (first variation)").Size(100),
		giu.Custom(func() {
			imgui.SetNextItemWidth(120)
			if imgui.BeginCombo("splice blend", s.Blend) {
				for _, b := range blends {
					if imgui.SelectableBoolV(b, b == s.Blend, 0, imgui.Vec2{}) {
						s.Blend = b
					}
				}
				imgui.EndCombo()
			}
		}),
		p.targetsPanel(h),
		p.obstaclesPanel(h),
	}
	if err := s.Check(h.Object().Mesh.NumVertices()); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	}
	start := panels.Marked("synth: generate", giu.Button("Generate").Disabled(p.m.Analysis(h) == nil).OnClick(func() { p.m.Generate(h) }))
	if p.m.Generating() {
		start = panels.Marked("synth: generate", giu.Button("Stop##generate").OnClick(p.m.StopGenerating))
	}
	l = append(l, giu.Row(start, p.farm.Button(h, &p.m.Farm, false, func() { p.m.RunOnFarm(h) })), p.farm.Status(&p.m.Farm))
	if g := p.m.Gallery(); g != nil && p.m.Generating() {
		l = append(l, giu.ProgressBar(float32(g.Done)/float32(max(1, len(g.Variations)))).Size(-1, 0).
			Overlay(fmt.Sprintf("%d of %d variations", g.Done, len(g.Variations))))
	}
	return l
}

func (p *Panel) targetsPanel(h tools.Host) giu.Widget {
	l := giu.Layout{panels.Text("Targeted frames: input frame f shown at output frame g")}
	for i, t := range p.m.Targets {
		l = append(l, giu.Row(
			giu.SmallButton(fmt.Sprintf("x##target%d", i)).OnClick(func() { p.m.RemoveTarget(h, i) }),
			giu.Label(fmt.Sprintf("input frame %d at output frame %d", t.Input+1, t.Output+1)),
		))
	}
	// Frames are counted from 1, as on the timeline: the fields start at 1.
	p.input, p.output = max(p.input, 1), max(p.output, 1)
	return append(l,
		giu.Row(
			giu.InputInt(&p.input).Label("f").Size(90),
			panels.Tipped(giu.SmallButton("from timeline").OnClick(func() { p.input = int32(h.Frame() + 1) }), "The input frame the document's timeline shows"),
		),
		giu.Row(
			giu.InputInt(&p.output).Label("g").Size(90),
			giu.SmallButton("Add target").OnClick(func() {
				p.m.AddTarget(h, int(p.input)-1, int(p.output)-1)
			}),
		),
	)
}

func (p *Panel) obstaclesPanel(h tools.Host) giu.Widget {
	l := giu.Layout{giu.Label("Obstacles")}
	for i := range p.m.Obstacles {
		o := &p.m.Obstacles[i]
		l = append(l, giu.Row(
			giu.SmallButton(fmt.Sprintf("x##obstacle%d", i)).OnClick(func() { p.m.RemoveObstacle(h, i) }),
			giu.Label(o.Label()),
		))
		switch o.Kind {
		case tsynth.ObstacleSphere:
			l = append(l, giu.Custom(func() {
				c := [3]float32{float32(o.Center[0]), float32(o.Center[1]), float32(o.Center[2])}
				r := float32(o.Radius)
				imgui.SetNextItemWidth(panels.Room("centre"))
				if imgui.DragFloat3V(fmt.Sprintf("centre##sphere%d", i), &c, float32(o.Radius)*0.02+1e-4, 0, 0, "%.3g", 0) {
					o.Center = [3]float64{float64(c[0]), float64(c[1]), float64(c[2])}
				}
				p.dragUndo(h, "Move sphere")
				imgui.SetNextItemWidth(panels.Room("radius"))
				if imgui.DragFloatV(fmt.Sprintf("radius##sphere%d", i), &r, float32(o.Radius)*0.02+1e-4, 1e-6, 1e9, "%.3g", 0) {
					o.Radius = float64(r)
				}
				p.dragUndo(h, "Resize sphere")
			}))
		case tsynth.ObstaclePlane:
			l = append(l, giu.Custom(func() {
				y := float32(o.Height)
				imgui.SetNextItemWidth(panels.Room("height"))
				if imgui.DragFloatV(fmt.Sprintf("height##plane%d", i), &y, 0.01, 0, 0, "%.3g", 0) {
					o.Height = float64(y)
				}
				p.dragUndo(h, "Move ground")
			}))
		}
	}
	var others []string
	for _, d := range h.Objects() {
		if d != h.Object() {
			others = append(others, d.Name)
		}
	}
	l = append(l, giu.Row(
		giu.SmallButton("Add sphere").OnClick(func() { p.m.AddSphere(h) }),
		giu.SmallButton("Add ground").OnClick(func() { p.m.AddPlane(h) }),
	))
	if len(others) > 0 {
		// A row of its own: beside the other two it ran past the panel.
		p.objectObstacle = min(max(p.objectObstacle, 0), int32(len(others)-1))
		l = append(l, giu.Row(
			giu.Combo("##obstacleobject", others[p.objectObstacle], others, &p.objectObstacle).Size(panels.Room("Add object")-16),
			giu.SmallButton("Add object").OnClick(func() { p.m.AddObject(h, others[p.objectObstacle]) })))
	}
	return l
}

// dragUndo makes the edit of the field laid out last, which changes an
// obstacle in place while it is dragged or typed in, one undoable step
// named label, from the field's activation to its release.
func (p *Panel) dragUndo(h tools.Host, label string) {
	if imgui.IsItemActivated() {
		p.m.BeginSceneDrag()
	}
	if imgui.IsItemDeactivated() {
		p.m.EndSceneDrag(h, label)
	}
}

func (p *Panel) galleryPanel(h tools.Host) giu.Widget {
	g := p.m.Gallery()
	if g == nil {
		return giu.Label("No variations yet.")
	}
	l := giu.Layout{giu.Labelf("Gallery (%d)", g.Made())}
	for i, err := range g.Errors {
		if err != nil {
			l = append(l, panels.ErrorLabel(fmt.Sprintf("variation %d: %v", i+1, err)))
		}
	}
	return append(l, giu.Custom(func() { p.grid(h, g) }))
}

// Thumbnail size in pixels.
const thumbW, thumbH = panels.ThumbW, panels.ThumbH

// picture returns what variation v's thumbnail shows: the mesh at frame,
// or at the clip's middle frame for the still, seen by a camera that
// follows it (framed on a box of the rest mesh's size around the posed
// mesh's centre), as the mesh wanders over the clip.
func picture(v *tsynth.Variation, size float64) panels.Picture {
	return func(frame int) (viewport.Camera, []viewport.Item) {
		if frame < 0 {
			frame = len(v.Clip.Bones) / 2
		}
		pos := v.Clip.Pose(nil, frame)
		var c assets.Vec3
		for _, q := range pos {
			c = c.Add(q)
		}
		c = c.Mul(1 / float64(max(1, len(pos))))
		half := assets.Vec3{size, size, size}.Mul(0.5 / math.Sqrt(3))
		cam := *viewport.NewCamera()
		cam.Frame(c.Sub(half), c.Add(half), float64(thumbW)/thumbH)
		return cam, []viewport.Item{{Key: v, Triangles: v.Clip.Analysis.Model.Triangles, Positions: pos}}
	}
}

// grid draws the thumbnails: hovering one plays it in place, clicking it
// plays it in the viewport.
func (p *Panel) grid(h tools.Host, g *tsynth.Gallery) {
	spacing := imgui.CurrentStyle().ItemSpacing().X
	perRow := max(1, int((imgui.ContentRegionAvail().X+spacing)/(thumbW+8+spacing)))
	r := p.m.GalleryAnalysis()
	if r == nil {
		return
	}
	fps, size := h.Object().FPS(), r.Analysis.Diagonal
	p.thumbs.Begin()
	shown := 0
	for i, v := range g.Variations {
		if v == nil {
			continue
		}
		if shown%perRow != 0 {
			imgui.SameLine()
		}
		shown++
		imgui.BeginGroup()
		tex := p.thumbs.Texture(v, len(v.Clip.Bones), fps, picture(v, size))
		id := fmt.Sprintf("##variation%d", i)
		var clicked bool
		if tex != 0 {
			ref := imgui.NewTextureRefTextureID(imgui.TextureID(tex))
			clicked = imgui.ImageButtonV(id, *ref, imgui.Vec2{X: thumbW, Y: thumbH}, imgui.Vec2{X: 0, Y: 1}, imgui.Vec2{X: 1, Y: 0}, imgui.Vec4{}, imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1})
		} else {
			clicked = imgui.ButtonV("..."+id, imgui.Vec2{X: thumbW + 8, Y: thumbH + 8})
		}
		panels.Mark(fmt.Sprintf("synth: variation %d", shown)).Build()
		splices := len(v.SpliceFrames())
		if imgui.IsItemHovered() {
			p.thumbs.Hover(v)
		}
		panels.ShowTip(fmt.Sprintf("seed %d: %s, worst splice %.2f of the input's acceleration, mean strain %.4f, edges %.2f of the input's change: click to play it",
			v.Clip.Seed, words.Count(splices, "splice", "splices"), v.Quality.MaxAccel, v.Quality.MeanStrain, v.Quality.EdgeRatio))
		if clicked {
			p.m.Play(h, i)
		}
		caption := fmt.Sprintf("seed %d, %d splices", v.Clip.Seed, splices)
		if p.m.Chosen() == v {
			caption = "playing: " + caption
		}
		imgui.PushTextWrapPosV(imgui.CursorPosX() + thumbW + 8)
		imgui.TextUnformatted(caption)
		imgui.PopTextWrapPos()
		imgui.EndGroup()
	}
	p.thumbs.End()
}

// chosenPanel lays out export and addition, and the chosen variation's
// quality per splice (those over the bar of 1.5 in the error colour) and
// its components' seeds.
func (p *Panel) chosenPanel(h tools.Host) giu.Widget {
	v := p.m.Chosen()
	l := giu.Layout{
		giu.Row(
			panels.Tipped(giu.Checkbox("morph targets", &p.morph), "Export the posed mesh of every frame as morph targets instead of a skin of one joint per bone"),
		),
		giu.Row(
			panels.Marked("synth: export", giu.Button("Export glTF...").Disabled(v == nil).OnClick(func() { p.m.Export(h, p.morph) })),
			giu.Button("Export all...").Disabled(p.m.Gallery() == nil).OnClick(func() { p.m.ExportAll(h, p.morph) }),
		),
		giu.Row(
			panels.Marked("synth: add", giu.Button("Add to document").Disabled(v == nil).OnClick(func() { p.m.AddToDocument(h) })),
			giu.Button("Back to scene").Disabled(h.ShownClip() == nil).OnClick(func() { p.m.BackToScene(h) }),
		),
	}
	if r := p.m.Report(); r != "" {
		l = append(l, panels.Text(r))
	}
	if v == nil {
		return l
	}
	q := v.Quality
	l = append(l, giu.Separator(), giu.Label(fmt.Sprintf("Seed %d: %d frames", v.Clip.Seed, len(v.Clip.Bones))))
	l = append(l, panels.Marked("synth: strain", panels.Text(fmt.Sprintf("Mean excess edge strain of the splices %.4f (edge lengths against the crossfade of the two segments', relative to rest)", q.MeanStrain))))
	l = append(l, panels.Text(fmt.Sprintf("Splices (largest vertex acceleration within ±3 frames over the input's 99th percentile, the bar is 1.5; excess edge strain); edges change %.2f times the input's most", q.EdgeRatio)))
	k := 0
	for part, w := range v.Clip.Walks {
		for _, f := range w.Splices {
			if k >= len(q.SpliceAccel) {
				break
			}
			text := fmt.Sprintf("frame %d: %.2f", f+1, q.SpliceAccel[k])
			if k < len(q.SpliceStrain) {
				text += fmt.Sprintf(", strain %.4f", q.SpliceStrain[k])
			}
			if len(v.Clip.Walks) > 1 {
				text = fmt.Sprintf("component %d, %s", part+1, text)
			}
			if q.SpliceAccel[k] > 1.5 {
				l = append(l, panels.ErrorLabel(text))
			} else {
				l = append(l, giu.Label(text))
			}
			k++
		}
	}
	if parts := len(v.Clip.Seeds); parts > 1 {
		l = append(l, giu.Label("Each component's variation"))
		for part := range parts {
			seed := int32(v.Clip.Seeds[part])
			c := tsynth.ComponentColour(part)
			l = append(l, giu.Row(
				giu.Style().SetColor(giu.StyleColorText, color.RGBA{R: uint8(255 * c[0]), G: uint8(255 * c[1]), B: uint8(255 * c[2]), A: 255}).To(giu.Label("■")),
				giu.InputInt(&seed).Label(fmt.Sprintf("component %d seed", part+1)).Size(100).OnChange(func() {
					if seed >= 0 {
						p.m.Remix(h, part, uint64(seed))
					}
				}),
			))
		}
	}
	return l
}
