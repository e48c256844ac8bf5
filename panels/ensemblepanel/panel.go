package ensemblepanel

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"strings"

	"github.com/AllenDang/giu"

	"gallop/internal/words"
	"gallop/panels"
	memg "gallop/solver/ensemble"
	"gallop/tools"
	"gallop/tools/ensemble"
)

// Panel implements panels.Tool: the dataset (open, progress, what it
// holds, the groups' colours); the build (settings, Build / Stop,
// progress, the solver's trace, Table I); play (the wind slider, Play,
// what is shown); Compare (a transition under τ = 0, the unconstrained
// minimum and the solver's τ); export, Add to document and the graph
// file.
func (p *Panel) Panel(h tools.Host) giu.Layout {
	return giu.Layout{
		p.dataPanel(h),
		giu.Separator(),
		p.buildPanel(h),
		giu.Separator(),
		p.playPanel(h),
		giu.Separator(),
		p.comparePanel(h),
		giu.Separator(),
		p.exportPanel(h),
	}
}

func (p *Panel) dataPanel(h tools.Host) giu.Widget {
	l := giu.Layout{
		giu.Row(
			panels.Tipped(panels.Marked("ensemble: open", giu.Button("Open ensemble...").Disabled(p.m.Opening()).OnClick(func() { p.m.Open(h, false) })), "Pick its groups.csv or a frame of one level: every folder of OBJ frames beside that level is a wind level, sorted by name (the calmest first)"),
			panels.Tipped(giu.Button("Open graph...").Disabled(p.m.Opening()).OnClick(func() { p.m.OpenGraph(h) }), "A motion graph saved by Gallop or gallop ensemble build --out, with the data it was built from"),
		),
		giu.Button("Open level folder...").Disabled(p.m.Opening()).OnClick(func() { p.m.Open(h, true) }),
		panels.Tipped(panels.Marked("ensemble: add clip", giu.Button("Add clip folder...").Disabled(p.m.Opening() || p.m.Data() == nil).OnClick(func() { p.m.AddClip(h) })), "Add a folder of frames of this ensemble from anywhere: a take whose wind changes (with its wind.csv, frame by frame) joins the levels, so that the wind can change through its frames"),
	}
	if pr := p.m.OpenProgress(); pr != nil && p.m.Opening() {
		l = append(l, panels.Marked("ensemble: open progress", giu.ProgressBar(float32(pr.Fraction)).Size(-1, 0).Overlay(pr.Text)))
	}
	l = append(l, panels.Marked("ensemble: summary", panels.Text(p.m.Summary())))
	d := p.m.Data()
	if d == nil {
		return l
	}
	l = append(l, panels.Text(fmt.Sprintf("levels: %s", levelNames(d))))
	if p.m.Playing(h) {
		return l
	}
	return append(l, panels.Text("The viewport shows the wind level's source frames, each group in its colour."))
}

// levelNames lists the level folders' names.
func levelNames(d *ensemble.Data) string {
	s := ""
	for i, l := range d.Levels {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", i+1, filepath.Base(l))
	}
	return s
}

func (p *Panel) buildPanel(h tools.Host) giu.Widget {
	s := &p.m.Settings
	eta, effort, budget, within := float32(s.Eta), float32(s.Effort), float32(s.Budget), float32(s.ChangeWithin)
	l := giu.Layout{
		giu.Label("Motion graph"),
		// One setting per row: the artist's words are longer than the
		// paper's symbols, and two to a row overflow the panel.
		panels.Tipped(giu.InputInt(&s.TauMax).Label("time offsets up to").Size(60), "How far apart in time (frames) the groups may switch clips in one transition: larger finds more transitions that avoid collisions, but each takes longer to play (the paper's τ_max)"),
		panels.Tipped(panels.Marked("ensemble: samples", giu.InputInt(&s.Samples).Label("tries per transition").Size(60)), "How many sets of offsets the collision solver tries for each transition it looks for (the paper's N_samples)"),
		panels.Tipped(panels.Marked("ensemble: tries", giu.InputInt(&s.Tries).Label("frames tried").Size(60)), "How many frames of each second of a clip try to leave it, toward each clip and level"),
		panels.Tipped(giu.InputFloat(&eta).Label("patience").Size(60).Format("%.3g").OnChange(func() { s.Eta = float64(eta) }), "How long one try may run before it is given up, as a multiple of its first collision pass (the paper's time-out factor η)"),
		panels.Tipped(panels.Marked("ensemble: effort", giu.InputFloat(&effort).Label("search effort").Size(60).Format("%.3g").OnChange(func() { s.Effort = float64(effort) })), "How much more a second of a clip that found no transition may search, as a multiple of its first search (0: no second search). Counted in collision tests, not seconds: the same build gives the same graph on a busy machine"),
		panels.Tipped(panels.Marked("ensemble: budget", giu.InputFloat(&budget).Label("time cap s").Size(60).Format("%.4g").OnChange(func() { s.Budget = float64(budget) })), "Seconds after which nothing more is searched (0: none). A build that reaches it depends on the machine's speed and load"),
		panels.Tipped(panels.Marked("ensemble: change within", giu.InputFloat(&within).Label("wind changes within s").Size(60).Format("%.3g").OnChange(func() { s.ChangeWithin = float64(within) })), "How soon a change of wind level completes once it begins. Longer is smoother: the groups' switching times are freer, and the blends cheaper (on the banner, 2.7 s keeps 0.45 of a synchronous blend's cost Φ(0), the default 1.33 s 0.93); shorter answers the slider sooner"),
		giu.InputInt(&s.Seed).Label("seed").Size(80),
	}
	if err := s.Check(); err != nil {
		l = append(l, panels.ErrorLabel(err.Error()))
	}
	if p.m.Building() {
		l = append(l, panels.Marked("ensemble: build", giu.Button("Stop##build").OnClick(p.m.StopBuild)))
	} else {
		l = append(l, giu.Row(
			panels.Marked("ensemble: build", giu.Button("Build").Disabled(p.m.Data() == nil || p.m.Opening()).OnClick(func() { p.m.Build(h) })),
			p.farm.Button(h, &p.m.Farm, p.m.Data() == nil || p.m.Opening(), func() { p.m.RunOnFarm(h) }),
		))
	}
	l = append(l, p.farm.Status(&p.m.Farm))
	if path, ends := p.m.FarmWaiting(); path != "" {
		keep := "Keep playing"
		if !strings.HasPrefix(ends, "the played stretch") {
			keep = "Keep building"
		}
		l = append(l,
			panels.Marked("ensemble: farm graph waits", panels.Text(fmt.Sprintf("A farm build finished: its graph (%s) waits, since using it ends %s.", filepath.Base(filepath.Dir(path)), ends))),
			giu.Row(
				panels.Tipped(panels.Marked("ensemble: use farm graph", giu.Button("Use its graph").OnClick(func() { p.m.UseFarmGraph(h) })), "Open the farm's graph with its data, as Open graph... does, in place of this one"),
				panels.Tipped(panels.Marked("ensemble: keep playing", giu.Button(keep).OnClick(func() { p.m.KeepFarmGraphWaiting(h) })), "Leave the farm's graph unused (Open graph... opens its file later)"),
			))
	}
	pr := p.m.BuildProgress()
	if pr != nil && p.m.Building() {
		l = append(l, panels.Marked("ensemble: build progress", giu.ProgressBar(float32(pr.Fraction)).Size(-1, 0).Overlay(pr.Text)))
		if d := p.m.Data(); d != nil && len(pr.Levels) == len(d.Levels) {
			l = append(l, panels.Marked("ensemble: level progress", levelProgress(d, pr.Levels)))
		}
	}
	if pr != nil && pr.Trace != nil {
		l = append(l, traceplots(pr))
	}
	if b := p.m.Built(); b != nil {
		l = append(l, panels.Marked("ensemble: table", tableI(b)))
		if len(b.Stats.Levels) > 0 {
			l = append(l, panels.Marked("ensemble: levels", levelReports(b.Stats.Levels)))
		}
		if len(b.Latency) > 1 {
			l = append(l, panels.Marked("ensemble: latency", latencyTable(b)))
		}
		for _, msg := range p.m.Blockages() {
			l = append(l, panels.Marked("ensemble: unreachable", panels.ErrorLabel(msg)))
		}
	}
	return l
}

// levelProgress is a build's tasks done per level, within it and toward
// the others.
func levelProgress(d *ensemble.Data, levels []ensemble.LevelProgress) giu.Widget {
	var out giu.Layout
	for i, lp := range levels {
		out = append(out, panels.Text(fmt.Sprintf("clip %d (%s): %d tasks within, %d toward other levels", i+1, filepath.Base(d.Levels[i]), lp.Within, lp.Between)))
	}
	return out
}

// levelReports is what a build found per level: whether it loops (a level
// without a loop plays its frames and cuts back to the first) and its
// transitions to each level.
func levelReports(levels []memg.LevelReport) giu.Widget {
	var out giu.Layout
	for _, r := range levels {
		loops := "loops"
		if !r.Loops {
			loops = "NO LOOP: plays its frames and cuts back to the first"
		}
		line := fmt.Sprintf("clip %s: %s; %d of %d frames in its loop; transitions to each level %v", r.Name, loops, r.Component, r.Frames, r.Out)
		if r.Skipped > 0 {
			line += fmt.Sprintf("; %d of %d tasks skipped, the budget spent", r.Skipped, r.Tasks)
		}
		if r.Loops {
			out = append(out, panels.Text(line))
		} else {
			out = append(out, panels.ErrorLabel(line))
		}
	}
	return out
}

// latencyTable is the wind-change latency of the graph: from each level
// (rows) to each other (columns), the median and the worst seconds from a
// frame of the first's loop until the player is in the second's.
func latencyTable(b *ensemble.Built) giu.Widget {
	n := len(b.Latency)
	cols := []*giu.TableColumnWidget{giu.TableColumn("from \\ to")}
	winds := b.Model.WindLevels()
	for to := range n {
		cols = append(cols, giu.TableColumn(fmt.Sprintf("level %g", winds[to])))
	}
	rows := make([]*giu.TableRowWidget, n)
	for from := range n {
		cells := []giu.Widget{giu.Label(fmt.Sprintf("level %g", winds[from]))}
		for to := range n {
			var cell string
			switch lt := b.Latency[from][to]; {
			case from == to:
				cell = "-"
			case math.IsInf(lt.Worst, 1):
				cell = "unreachable"
			default:
				cell = fmt.Sprintf("%.2f / %.2f s", lt.Median, lt.Worst)
			}
			cells = append(cells, giu.Label(cell))
		}
		rows[from] = giu.TableRow(cells...)
	}
	return giu.Layout{
		panels.Text("Wind-change latency, median / worst: from a frame of the row's loop until the player is in the column's"),
		giu.Table().Columns(cols...).Rows(rows...).Size(-1, float32(24*(n+1)+8)),
	}
}

// traceplots are the paper's Fig. 10 for the last COMPUTE-MEMG-TRANSITION
// call: φ and φ_min (top), |B| and |C| (bottom) against time.
func traceplots(pr *ensemble.Progress) giu.Widget {
	tr := pr.Trace
	end := 1e-6
	if n := len(tr.Seconds); n > 0 {
		end = max(end, tr.Seconds[n-1])
	}
	hiPhi, hiSet := 1e-12, 1.0
	for i := range tr.Seconds {
		for _, v := range []float64{tr.Phi[i], tr.PhiMin[i]} {
			if !math.IsNaN(v) {
				hiPhi = max(hiPhi, v)
			}
		}
		hiSet = max(hiSet, tr.Bad[i], tr.Contacts[i])
	}
	found := "found a transition"
	if !tr.Transition {
		found = "found none"
	}
	return giu.Layout{
		panels.Text(fmt.Sprintf("The solver (Fig. 10): transition call %d, %s, %.2f s", pr.Calls, found, end)),
		panels.Marked("ensemble: phi plot", giu.Plot("φ, φ_min##phi").Size(-1, 130).Flags(giu.PlotFlagsNoMenus).
			AxisLimits(0, end, 0, hiPhi*1.05, giu.ConditionAlways).
			Plots(giu.LineXY("φ", tr.Seconds, tr.Phi), giu.LineXY("φ_min", tr.Seconds, tr.PhiMin))),
		giu.Plot("|B|, |C|##sets").Size(-1, 130).Flags(giu.PlotFlagsNoMenus).
			AxisLimits(0, end, 0, hiSet*1.05, giu.ConditionAlways).
			Plots(giu.LineXY("|B|", tr.Seconds, tr.Bad), giu.LineXY("|C|", tr.Seconds, tr.Contacts)),
	}
}

// tableI is the built graph's figures: the paper's Table I and what the
// build found.
func tableI(b *ensemble.Built) giu.Widget {
	g := b.Graph
	if b.FromFile {
		from := "the project" // a graph no file held, kept in the project
		if b.Path != "" {
			from = filepath.Base(b.Path)
		}
		return panels.Text(fmt.Sprintf("%s from %s (built with %d tries, %d samples, η %g, seed %d)",
			words.Count(len(g.Transitions), "transition", "transitions"), from, b.Settings.Tries, b.Settings.Samples, b.Settings.Eta, b.Settings.Seed))
	}
	st := b.Stats
	c := st.CSP
	ok, cull, timeOut, _ := c.Fractions()
	_, tcd := c.TCD()
	per := 0.0
	if st.Found > 0 {
		per = st.Seconds / float64(st.Found)
	}
	return giu.Layout{
		panels.Text(fmt.Sprintf("%s in %.1f s (%.2f s each); %d of %d one-second intervals served",
			words.Count(st.Found, "transition", "transitions"), st.Seconds, per, st.Served, st.Intervals)),
		panels.Text(fmt.Sprintf("Table I: t_CD %.3f s, nLocal %.1f, |C| %.1f, nWin/nIP %d/%d, OK/Cull/TOut %.2f/%.2f/%.2f, C = %g",
			tcd, c.NLocal(), c.MeanContacts(), c.Wins, c.Programs, ok, cull, timeOut, st.C)),
		panels.Text(fmt.Sprintf("mean Φ %.4g; the synchronous Φ(0) of the same pairs %.4g", st.MeanPhi, st.MeanPhi0)),
	}
}

// blendText is the colour of the blending note, the highlight's yellow.
var blendText = color.RGBA{R: 255, G: 230, B: 40, A: 255}

func (p *Panel) playPanel(h tools.Host) giu.Widget {
	d := p.m.Data()
	levels := 1
	if d != nil {
		levels = max(1, len(d.Winds()))
	}
	wind := p.m.Settings.Wind
	record := float32(p.m.Settings.Record)
	// The slider marks a level the graph cannot reach from every other.
	marks := p.m.UnreachableFrom()
	format := "%d"
	if w := int(wind) - 1; w >= 0 && w < len(marks) && len(marks[w]) > 0 {
		format = "%d: unreachable from " + levelList(marks[w])
	}
	l := giu.Layout{
		giu.Label("Play"),
		panels.Tipped(panels.Marked("ensemble: wind", giu.SliderInt(&wind, 1, int32(levels)).Label("wind level").Size(panels.Room("wind level")).Format(format).
			OnChange(func() { p.m.SetWind(h, int(wind)) })), "The level the player heads for, through the graph's transitions"),
	}
	var cannot []string
	for w, from := range marks {
		if len(from) > 0 {
			cannot = append(cannot, fmt.Sprintf("level %d (from %s)", w+1, levelList(from)))
		}
	}
	if len(cannot) > 0 {
		l = append(l, panels.Marked("ensemble: wind marks", panels.ErrorLabel("The wind cannot change to "+strings.Join(cannot, ", ")+": the player stays where it is; see why under the build.")))
	}
	l = append(l,
		giu.Row(
			panels.Tipped(panels.Marked("ensemble: play", giu.Button("Play").Disabled(p.m.Built() == nil).OnClick(func() { p.m.Play(h) })), "Play the motion graph forever from the wind level's first frame, in place of the scene; the timeline pauses and scrubs the last seconds played"),
			giu.Button("Back to scene").Disabled(h.ShownClip() == nil).OnClick(func() {
				if err := h.ShowClip(nil, nil, false); err != nil {
					h.Error(err)
				}
			}),
		),
		giu.Row(
			panels.Tipped(giu.InputFloat(&record).Label("seconds kept").Size(80).Format("%.3g").OnChange(func() {
				if record >= 1 && record <= 3600 {
					p.m.Settings.Record = float64(record)
				}
			}), "The most seconds of the played stretch kept on the timeline, to scrub and export"),
		),
	)
	ps, ok := p.m.PlayState(h)
	if !ok {
		return l
	}
	fps := h.FPS()
	if c := h.ShownClip(); c != nil && c.Clip != nil {
		fps = c.Clip.FPS
	}
	shown := fmt.Sprintf("level %d shown", ps.Level)
	if ps.Level == 0 {
		shown = "the wind changing"
	}
	heading := fmt.Sprintf("heading for level %d", ps.Wind)
	switch {
	case ps.Heading == 0:
		heading = fmt.Sprintf("level %d cannot be reached from here (see why above)", ps.Wind)
	case ps.Heading != ps.Wind:
		heading = fmt.Sprintf("level %d cannot be reached from here (see why above), so it plays on at level %d", ps.Wind, ps.Heading)
	}
	l = append(l, panels.Marked("ensemble: playing", panels.Text(fmt.Sprintf("%.1f s played; %s, %s; %s taken",
		float64(ps.Output+1)/fps, shown, heading, words.Count(ps.Transitions, "transition", "transitions")))))
	// The line stays when no group blends, so the layout does not jump.
	if n := ensemble.Marked(ps.Blending); n > 0 {
		l = append(l, giu.Style().SetColor(giu.StyleColorText, blendText).To(giu.Label(fmt.Sprintf("%s blending (yellow)", words.Count(n, "group", "groups")))))
	} else {
		l = append(l, giu.Label("no group blending"))
	}
	return l
}

// levelList is "1", "1 and 3", "1, 2 and 3".
func levelList(levels []int) string {
	s := make([]string, len(levels))
	for x, w := range levels {
		s[x] = fmt.Sprint(w)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

// variantLabels are the variants' radio buttons: τ = 0, the unconstrained
// minimum of Φ, the solver's τ.
var variantLabels = [ensemble.Variants]string{"τ = 0", "minimum", "solver"}

// redText is the colour of the interpenetration note, the marking's red.
var redText = color.RGBA{R: 255, G: 80, B: 80, A: 255}

func (p *Panel) comparePanel(h tools.Host) giu.Widget {
	l := giu.Layout{giu.Label("Compare")}
	b := p.m.Built()
	if b == nil || len(b.Graph.Transitions) == 0 {
		return append(l, panels.Text("Build or open a motion graph to compare one of its transitions under τ = 0, the unconstrained minimum of Φ and the solver's τ."))
	}
	n := len(b.Graph.Transitions)
	x := p.m.CompareIndex()
	pick := int32(x + 1)
	tr := b.Graph.Transitions[x]
	what := "within level"
	if tr.From.Level != tr.To.Level {
		what = "between levels"
	}
	l = append(l,
		panels.Tipped(panels.Marked("ensemble: compare transition", giu.SliderInt(&pick, 1, int32(n)).Label("transition").Size(panels.Room("transition")).
			OnChange(func() { p.m.SetCompareIndex(int(pick) - 1) })), "The transition of the graph to compare; by default the one the player took last, else the first between levels"),
		panels.Text(fmt.Sprintf("level %d frame %d → level %d frame %d (%s)", tr.From.Level+1, tr.From.Frame+1, tr.To.Level+1, tr.To.Frame+1, what)),
	)
	if p.m.Comparing() {
		l = append(l, panels.Marked("ensemble: compare", giu.Button("Stop##compare").OnClick(p.m.StopCompare)))
		if pr := p.m.CompareProgress(); pr != nil {
			l = append(l, panels.Marked("ensemble: compare progress", giu.ProgressBar(float32(pr.Fraction)).Size(-1, 0).Overlay(pr.Text)))
		}
	} else {
		l = append(l, giu.Row(
			panels.Tipped(panels.Marked("ensemble: compare", giu.Button("Compare").OnClick(func() { p.m.Compare(h) })), "Show the transition's frames in place of the scene under the variant chosen below, the groups of new interpenetrating pairs red, the blending ones yellow"),
			panels.Tipped(panels.Marked("ensemble: back to playing", giu.Button("Back to playing").OnClick(func() { p.m.BackToPlaying(h) })), "The played stretch where it was left (before playing, the wind level's source frames)"),
		))
	}
	c := p.m.Comparison()
	var radios []giu.Widget
	for v := range ensemble.Variants {
		radios = append(radios, panels.Tipped(panels.Marked(fmt.Sprintf("ensemble: variant %d", int(v)+1),
			giu.RadioButton(variantLabels[v], p.m.Variant() == v).OnChange(func() { p.m.SetVariant(h, v) })), v.String()))
	}
	l = append(l, giu.Row(radios...))
	if c == nil || c.Index != x {
		return append(l, panels.Text("Compare computes the new interpenetrating pairs and Φ of all three."))
	}
	vs := &c.Variants
	l = append(l, panels.Marked("ensemble: compared", panels.Text(fmt.Sprintf("new pairs %d | %d | %d; Φ %.4g | %.4g | %.4g",
		len(vs[0].Pairs), len(vs[1].Pairs), len(vs[2].Pairs), vs[0].Phi, vs[1].Phi, vs[2].Phi))))
	if v, ok := p.m.CompareShown(h); ok {
		f, _ := h.ShownFrame()
		r := &c.Variants[v]
		f = max(0, min(f, len(r.Red)-1))
		if red := ensemble.Marked(r.Red[f]); red > 0 {
			l = append(l, giu.Style().SetColor(giu.StyleColorText, redText).To(panels.Text(fmt.Sprintf("%s in new pairs (red) here", words.Count(red, "group", "groups")))))
		} else {
			l = append(l, panels.Text("no new pair here"))
		}
	}
	return l
}

func (p *Panel) exportPanel(h tools.Host) giu.Widget {
	l := giu.Layout{
		giu.Row(
			panels.Tipped(panels.Marked("ensemble: export", giu.Button("Export glTF...").Disabled(!p.m.Playing(h)).OnClick(func() { p.m.Export(h) })), "The played stretch kept on the timeline, compact: a node per group, its PCA basis and sewing as morph targets"),
			panels.Tipped(panels.Marked("ensemble: add", giu.Button("Add to document").Disabled(!p.m.Playing(h)).OnClick(func() { p.m.AddToDocument(h) })), "The played stretch kept on the timeline as a new object of the document, the whole ensemble with its clip (undoable): saved in the project, exported from File > Export, used by the other tools"),
		),
		panels.Tipped(panels.Marked("ensemble: save graph", giu.Button("Save graph...").Disabled(p.m.Built() == nil).OnClick(func() { p.m.SaveGraph(h) })), "The motion graph (transitions with their offsets) as a small JSON file Gallop reopens with its data"),
	}
	if r := p.m.Report(); r != "" {
		l = append(l, panels.Text(r))
	}
	return l
}
