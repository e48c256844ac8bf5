package panels

import (
	"fmt"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/tools/farmrun"
)

// FarmRun is "Run on farm…" in a tool's panel: the button beside the
// tool's Start, its popup (engine, shards, partition, CPUs per task,
// Submit / Cancel) and a status line per job the tool submitted, with
// Cancel. The jobs themselves are the tool model's (farmrun.Jobs). Its
// zero value is ready to use.
type FarmRun struct {
	open bool // the popup is to open at the next layout
}

// farmPopup is the popup's title (and ImGui id).
const farmPopup = "Run on farm"

// Button is "Run on farm…", marked "farm: run", which opens the popup for
// js's settings; submit runs when the artist presses Submit. Lay it out
// once per panel (the popup lives beside it).
func (f *FarmRun) Button(h Host, js *farmrun.Jobs, disabled bool, submit func()) giu.Widget {
	return giu.Custom(func() {
		Marked("farm: run", giu.Button("Run on farm…").Disabled(disabled).OnClick(func() {
			js.Defaults(h)
			f.open = true
		})).Build()
		if f.open {
			giu.OpenPopup(farmPopup)
			f.open = false
		}
		imgui.SetNextWindowPosV(imgui.MainViewport().Center(), imgui.CondAlways, imgui.Vec2{X: 0.5, Y: 0.5})
		giu.PopupModal(farmPopup).Flags(giu.WindowFlagsAlwaysAutoResize).Layout(f.popup(js, submit)...).Build()
	})
}

// popup lays out the settings of the next job.
func (f *FarmRun) popup(js *farmrun.Jobs, submit func()) giu.Layout {
	s := &js.Settings
	engine := func(name, help string) giu.Widget {
		return giu.Row(
			Marked("farm: engine "+name, giu.RadioButton(name, s.Engine == name).OnChange(func() { s.Engine = name })),
			giu.Label(help),
		)
	}
	l := giu.Layout{
		Mark("popup Run on farm"),
		giu.Label("Engine"),
		engine("slurm", "a Slurm cluster (sbatch)"),
		engine("local", "this machine, the same job scripts"),
	}
	if s.Engine == "" {
		l = append(l, giu.Label("looking for a Slurm cluster…"))
	}
	l = append(l,
		Marked("farm: shards", giu.InputInt(&s.Shards).Label("shards").Size(100)),
		giu.InputText(&s.Partition).Label("partition (empty: the cluster's default)").Size(160),
		giu.InputInt(&s.CPUs).Label("CPUs per task (0: 1)").Size(100),
		giu.Dummy(460, 0),
		Text("Slurm jobs run on when Gallop closes (gallop farm status DIR follows them); "+
			"the local engine's tasks run inside Gallop, and closing it cancels them. "+
			"The work folder is in your cache folder, which every node of a real cluster must see."),
	)
	if err := s.Check(); err != nil && s.Engine != "" {
		l = append(l, ErrorLabel(err.Error()))
	}
	return append(l,
		giu.Row(
			Marked("farm: submit", giu.Button("Submit").Disabled(s.Check() != nil).OnClick(func() {
				giu.CloseCurrentPopup()
				submit()
			})),
			giu.Button("Cancel##farm").OnClick(giu.CloseCurrentPopup),
		),
		giu.Custom(func() {
			if imgui.IsKeyPressedBool(imgui.KeyEscape) {
				imgui.CloseCurrentPopup()
			}
		}),
	)
}

// Status is a line per job of js: where it stands, and Cancel while it is
// followed (x to forget it once it ended); a failure in the error colour.
func (f *FarmRun) Status(js *farmrun.Jobs) giu.Layout {
	var l giu.Layout
	for i, j := range js.List() {
		text := j.Line()
		line := Text(text)
		if j.Status().Phase == farmrun.Failed {
			line = ErrorLabel(text)
		}
		button := giu.SmallButton(fmt.Sprintf("Cancel##farm%d", i)).OnClick(j.Cancel)
		if !j.Active() {
			button = giu.SmallButton(fmt.Sprintf("x##farm%d", i)).OnClick(func() { js.Remove(j) })
		}
		l = append(l, giu.Row(button, Marked(fmt.Sprintf("farm: status %d", i+1), line)))
	}
	return l
}

// FarmTrace is what GALLOP_TRACE prints of js: "; farm: LINE" per job.
func FarmTrace(js *farmrun.Jobs) string {
	s := ""
	for _, j := range js.List() {
		s += "; farm: " + j.Line()
	}
	return s
}
