package rigpanel

import (
	"fmt"
	"slices"

	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/panels"
	"gallop/solver/ssdr"
	"gallop/tools"
	"gallop/tools/rig"
)

// Panel implements panels.Tool: the clip, the settings, Start / Stop with
// the progress and the error plot, then the result's display and export.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	p.m.Sync(h)
	return giu.Layout{
		p.clipPanel(h),
		giu.Separator(),
		p.settingsPanel(h),
		giu.Separator(),
		p.progressPanel(),
		giu.Separator(),
		p.resultPanel(h),
	}
}

func (p *Panel) clipPanel(h tools.Host) giu.Widget {
	o := h.Object()
	if err := rig.ClipError(o); err != nil {
		return panels.ErrorLabel(err.Error())
	}
	return panels.Text(fmt.Sprintf("Clip: %s, %s, %s", o.Clip.Name, words.Count(len(o.Clip.Frames), "frame", "frames"), words.Count(o.Mesh.NumVertices(), "vertex", "vertices")))
}

func (p *Panel) settingsPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	smooth := float32(s.Smooth)
	l := giu.Layout{
		panels.Tipped(panels.Marked("rig: bones", giu.InputInt(&s.Bones).Label("bones").Size(100)),
			"How many bones to find (B): more follow the animation more closely and cost more to play"),
		panels.Tipped(giu.SliderInt(&s.MaxInfluences, 1, 8).Label("max influences").Size(100),
			"The most bones that move one vertex (K); game engines take 4"),
		panels.Tipped(giu.InputInt(&s.Iterations).Label("iterations").Size(100).StepSize(10),
			"The most rounds of fitting the bones and their weights; it stops sooner once the error stops falling"),
		panels.Tipped(giu.InputFloat(&smooth).Label("smoothness").Size(100).Format("%.2g").OnChange(func() { s.Smooth = float64(smooth) }),
			"How strongly neighbouring vertices keep like weights (Dem Bones' weightsSmooth μ); 0 for none"),
		panels.Tipped(panels.Marked("rig: skeleton", giu.Checkbox("skeleton", &s.Skeleton)),
			"Join the bones into a skeleton an animator can pose and retarget: one root bone, every other bone turning about a joint it shares with its parent, "+
				"so that no bone changes length (Le and Deng 2014). Off: free bones, each with its own motion, which follow the clip a little more closely"),
	}
	if s.Skeleton {
		roots := make([]string, s.Bones+1)
		roots[0] = "automatic"
		for j := int32(1); j <= s.Bones; j++ {
			roots[j] = fmt.Sprintf("bone %d", j-1)
		}
		root := s.Root
		if root < 0 || root > s.Bones {
			root = 0
		}
		l = append(l, panels.Tipped(panels.Marked("rig: root", giu.Combo("root", roots[root], roots, &root).Size(100).OnChange(func() { s.Root = root })),
			"The bone the skeleton hangs from, the only one that moves as well as turns; automatic takes the bone whose motion alone best follows the whole mesh (the body)"))
		if p.m.Result(h) != nil {
			b := int(p.m.Bone)
			locked := slices.Contains(s.LockedBones(), b)
			l = append(l, giu.Row(
				panels.Tipped(panels.Marked("rig: root picked", giu.Button(fmt.Sprintf("root: bone %d", b)).OnClick(func() { s.Root = int32(b) + 1 })),
					"Root the next run at the picked bone (click a vertex with the Weights heat map to pick the bone that moves it most)"),
				panels.Tipped(panels.Marked("rig: lock picked", giu.Checkbox(fmt.Sprintf("lock bone %d", b), &locked).OnChange(func() { s.SetLocked(b, locked) })),
					"Keep the weights of the vertices the picked bone moves through the next run's skeleton rounds (the same settings give the same bones)"),
			))
		}
		if s.Locked != "" {
			l = append(l, panels.Text("locked: bones "+s.Locked))
		}
	}
	if o := h.Object(); rig.ClipError(o) == nil {
		if err := s.Check(o.Mesh.NumVertices()); err != nil {
			l = append(l, panels.ErrorLabel(err.Error()))
		}
	}
	if p.m.Running() {
		l = append(l, giu.Button("Stop").OnClick(p.m.Stop), panels.Mark("rig: start"))
	} else {
		l = append(l, giu.Row(
			panels.Marked("rig: start", giu.Button("Start").OnClick(func() { p.m.Start(h) })),
			panels.Tipped(panels.Marked("rig: fit skeleton", giu.Button("Fit to skeleton...").OnClick(func() { p.m.FitSkeleton(h) })),
				"Fit the clip to the skeleton of a glTF skin bound to this mesh (one exported before, or your own): its bones, joints and names are kept, "+
					"their animation and the weights are solved"),
		))
	}
	return l
}

// progressPanel shows the run's progress and the RMSE per iteration.
func (p *Panel) progressPanel() giu.Widget {
	pr := p.m.Progress()
	if pr == nil {
		switch {
		case p.m.Running():
			return giu.Label("Clustering...")
		case p.m.RunError() != nil:
			return panels.ErrorLabel(p.m.RunError().Error())
		}
		return giu.Label("Not started.")
	}
	frac := float32(pr.Fraction())
	text := pr.Text()
	converged := giu.Layout{}
	if p.m.Converged() {
		// Beside the bar's text it would not fit the panel's width.
		converged = giu.Layout{giu.Label("Converged: the error stopped falling.")}
	}
	xs := make([]float64, len(pr.History))
	hi := 0.0
	for i, v := range pr.History {
		xs[i], hi = float64(i+1), max(hi, v)
	}
	return giu.Layout{
		giu.ProgressBar(frac).Size(-1, 0).Overlay(text),
		converged,
		giu.Plot("RMSE per iteration").Size(-1, 140).Flags(giu.PlotFlagsNoLegend|giu.PlotFlagsNoMenus).
			AxisLimits(0, float64(max(2, len(xs))), 0, hi*1.05+1e-12, giu.ConditionAlways).
			Plots(giu.LineXY("RMSE", xs, pr.History)),
	}
}

// noResult says what the panel shows before a run of this session: the
// rig the object already has (applied before, or reopened with a project
// or a recovered session), or that it has none.
func noResult(o *assets.Object) string {
	if o != nil && o.Rig != nil && len(o.Rig.Joints) > 0 {
		return fmt.Sprintf("%s has a rig (%s), applied before; Start infers a new one.", o.Name, words.Count(len(o.Rig.Joints), "joint", "joints"))
	}
	return "No rig yet."
}

func (p *Panel) resultPanel(h tools.Host) giu.Widget {
	r := p.m.Result(h)
	if r == nil {
		return giu.Label(noResult(h.Object()))
	}
	rr := r.SSDR
	radio := func(label string, v rig.Show) giu.Widget {
		return giu.Custom(func() {
			giu.RadioButton(label, p.m.Show == v).OnChange(func() { p.m.SetShow(h, v) }).Build()
			panels.Mark("rig: show " + label).Build()
		})
	}
	heat := func(label string, v rig.Heat) giu.Widget {
		return giu.Custom(func() {
			giu.RadioButton(label, p.m.Heat == v).OnChange(func() { p.m.Heat = v }).Build()
			panels.Mark("rig: heat " + label).Build()
		})
	}
	bones := !p.m.HideBones
	l := giu.Layout{
		giu.Label(fmt.Sprintf("%s, ≤ %s", words.Count(r.Bones(), "bone", "bones"), words.Count(int(r.Settings.MaxInfluences), "influence", "influences"))),
		panels.Text(fmt.Sprintf("RMSE %.4g (%.3g of the diagonal)", rr.RMSE, rr.RMSE/r.Diagonal)),
		panels.Text(iterationsText(rr)),
		giu.Label("Show"),
		giu.Row(radio("Original", rig.ShowOriginal), radio("Skinned", rig.ShowSkinned), radio("Side by side", rig.ShowBoth)),
		giu.Label("Heat map"),
		giu.Row(heat("None", rig.HeatNone), heat("Weights", rig.HeatWeights), heat("Error", rig.HeatError)),
		panels.Tipped(giu.SliderInt(&p.m.Bone, 0, int32(r.Bones()-1)).Label("bone").Size(panels.Room("bone")).OnChange(func() { p.m.Heat = rig.HeatWeights }), "The bone whose weights the heat map shows; a click on a vertex picks the bone that moves it most"),
		giu.Checkbox("Bones", &bones).OnChange(func() { p.m.HideBones = !bones }),
		giu.Button("Export skinned glTF...").OnClick(func() { p.m.Export(h) }), panels.Mark("rig: export"),
		giu.Button("Apply rig to the object").Disabled(r.Applied()).OnClick(func() { p.m.Apply(h) }), panels.Tipped(panels.Mark("rig: apply"), "The object gets the rig, its joint animation and the skinned clip (undoable; the clip it had stays one of its takes); saving and File > Export glTF then keep the rig"),
	}
	if e := p.m.Exported(); e != "" {
		l = append(l, giu.Label(e))
	}
	return l
}

// iterationsText says how many rounds the decomposition ran, by stage,
// and which was best.
func iterationsText(r *ssdr.Result) string {
	return fmt.Sprintf("%s, best round %d", rig.RoundWords(r), r.BestIteration)
}
