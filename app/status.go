package app

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/panels"
)

// message is one line of the message log.
type message struct {
	at    time.Time
	error bool
	text  string
}

// messages is the log shown in the status bar, newest last.
type messages struct {
	list []message
}

const maxMessages = 200

func (m *messages) add(isErr bool, text string) {
	m.list = append(m.list, message{at: time.Now(), error: isErr, text: text})
	if len(m.list) > maxMessages {
		m.list = m.list[len(m.list)-maxMessages:]
	}
}

func (m *messages) last() (message, bool) {
	if len(m.list) == 0 {
		return message{}, false
	}
	return m.list[len(m.list)-1], true
}

var (
	errorColor = color.RGBA{R: 255, G: 115, B: 100, A: 255}
	dimColor   = color.RGBA{R: 180, G: 180, B: 180, A: 255}
)

// statusBar shows each running job with its progress bar and a cancel
// button, then the latest message.
func (a *App) statusBar() giu.Widget {
	row := giu.Layout{}
	for _, j := range a.jobs.Running() {
		if j.Idle() {
			continue
		}
		f, text := j.Progress()
		row = append(row, giu.Row(
			giu.ProgressBar(float32(f)).Size(progressWidth, 0).Overlay(progressOverlay(j.Name, f, progressWidth-12, textWidth)),
			giu.Label(text),
			giu.SmallButton(fmt.Sprintf("Cancel##job%d", j.ID)).OnClick(j.Cancel),
		))
	}
	if m, ok := a.msgs.last(); ok {
		col := dimColor
		if m.error {
			col = errorColor
		}
		row = append(row, giu.Row(
			giu.Custom(func() {
				// The line ends before the Log button; the whole text is
				// in the log.
				room := imgui.ContentRegionAvail().X - imgui.CalcTextSize("Log").X - 24
				giu.Style().SetColor(giu.StyleColorText, col).To(giu.Label(fitText(m.at.Format("15:04:05 ")+m.text, room, textWidth))).Build()
			}),
			panels.Marked("status: Log", giu.SmallButton("Log").OnClick(func() { a.modal.openLog = true })),
		))
	} else if len(a.jobs.Running()) == 0 {
		row = append(row, giu.Style().SetColor(giu.StyleColorText, dimColor).To(giu.Label("Ready. Middle drag orbits, wheel zooms, click selects; F1 lists the shortcuts.")))
	}
	return row
}

// progressWidth is the width of a job's progress bar in the status bar.
const progressWidth = 220

// progressOverlay is the text over a job's progress bar: its name, cut
// with an ellipsis where it would not fit in width (as measured), then
// the percentage, which always shows. Dear ImGui centres an overlay and
// clips it on both sides, so a long name lost its beginning and the
// percentage ("ion graph of ensemble-banner 55%").
func progressOverlay(name string, fraction float64, width float32, measure func(string) float32) string {
	pct := fmt.Sprintf(" %.0f%%", 100*fraction)
	return fitText(name, width-measure(pct), measure) + pct
}

// textWidth is the width of text in the current font.
func textWidth(text string) float32 { return imgui.CalcTextSize(text).X }

// fitText returns text, or as much of its beginning as fits in width
// pixels (as measure measures) followed by an ellipsis.
func fitText(text string, width float32, measure func(string) float32) string {
	if measure(text) <= width {
		return text
	}
	r := []rune(text)
	lo, hi := 0, len(r) // the longest prefix that fits is in [lo, hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if measure(string(r[:mid])+"…") <= width {
			lo = mid
		} else {
			hi = mid
		}
	}
	return string(r[:lo]) + "…"
}

// modalState tracks the modal dialogs. Dear ImGui opens a popup by name once
// and then builds it every frame until it closes itself.
type modalState struct {
	errorText   string // an error to show; "" when none
	errorOpen   bool
	dismiss     bool // a key closed the open modal (Enter / Escape)
	confirm     *confirmation
	confirmOpen bool

	openShortcuts, openAbout, openLog, openStarted, openRecover bool
}

// confirmation is the question asked before discarding unsaved changes.
type confirmation struct {
	doing  string // "opening", "quitting", ...
	action func()
}

func (m *modalState) anyOpen() bool {
	return m.errorOpen || m.confirmOpen
}

// unsavedWork lists what the tools hold that no file keeps
// (panels.UnsavedWork).
func (a *App) unsavedWork() []string {
	var out []string
	for _, t := range a.tools {
		if u, ok := t.(panels.UnsavedWork); ok {
			if w := u.UnsavedWork(); w != "" {
				out = append(out, w)
			}
		}
	}
	return out
}

// dirty reports whether discarding the session now would lose work: the
// document's unsaved changes, or a tool's unsaved work.
func (a *App) dirty() bool { return a.history.Dirty() || len(a.unsavedWork()) > 0 }

// workMarks returns each tool's work mark (panels.UnsavedWork; 0 for the
// others), by tool.
func (a *App) workMarks() []uint64 {
	marks := make([]uint64, len(a.tools))
	for i, t := range a.tools {
		if u, ok := t.(panels.UnsavedWork); ok {
			marks[i] = u.WorkMark()
		}
	}
	return marks
}

// savedWork tells each tool that a project holding its work as of marks
// (workMarks) was saved.
func (a *App) savedWork(marks []uint64) {
	for i, t := range a.tools {
		if u, ok := t.(panels.UnsavedWork); ok && i < len(marks) {
			u.SavedWork(marks[i])
		}
	}
}

// confirmDiscard runs action now if the document has no unsaved changes,
// and otherwise asks first: Save (then act, if saving worked), Don't Save,
// or Cancel.
func (a *App) confirmDiscard(doing string, action func()) {
	if !a.dirty() {
		action()
		return
	}
	a.modal.confirm = &confirmation{doing: doing, action: action}
}

func (a *App) modals() giu.Widget {
	return giu.Custom(func() {
		m := &a.modal
		if m.errorText != "" && !m.errorOpen && !m.confirmOpen {
			giu.OpenPopup("Error")
			m.errorOpen = true
		}
		closeError := func() {
			m.errorText, m.errorOpen, m.dismiss = "", false, false
			giu.CloseCurrentPopup()
		}
		centreNext()
		giu.PopupModal("Error").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
			windowMark("popup Error"),
			giu.Style().SetColor(giu.StyleColorText, errorColor).To(giu.Label(m.errorText).Wrapped(true)),
			giu.Dummy(520, 0),
			giu.Button("OK").Size(80, 0).OnClick(closeError),
			giu.Custom(func() {
				if m.dismiss {
					closeError()
				}
			}),
		).Build()

		if m.confirm != nil && !m.confirmOpen && !m.errorOpen {
			giu.OpenPopup("Unsaved changes")
			m.confirmOpen = true
		}
		if c := m.confirm; c != nil {
			done := func(run bool) {
				m.confirm, m.confirmOpen, m.dismiss = nil, false, false
				giu.CloseCurrentPopup()
				if run {
					c.action()
				}
			}
			centreNext()
			giu.PopupModal("Unsaved changes").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
				giu.Label(discardQuestion(a.doc.DisplayName(), a.history.Dirty(), a.unsavedWork(), c.doing)),
				giu.Row(
					panels.Marked("confirm: Save", giu.Button("Save").Size(90, 0).OnClick(func() {
						done(false)
						a.save(a.doc.Path, c.action)
					})),
					panels.Marked("confirm: Don't Save", giu.Button("Don't Save").Size(90, 0).OnClick(func() { done(true) })),
					giu.Button("Cancel").Size(90, 0).OnClick(func() { done(false) }),
				),
				giu.Custom(func() {
					if m.dismiss {
						done(false)
					}
				}),
			).Build()
		}

		if m.openShortcuts {
			giu.OpenPopup("Shortcuts")
			m.openShortcuts = false
		}
		rows := []*giu.TableRowWidget{}
		for _, s := range a.shortcutRows() {
			rows = append(rows, giu.TableRow(giu.Label(s[0]), giu.Custom(func() {
				giu.Label(s[1]).Build()
				panels.Mark("shortcuts: " + s[0]).Build()
			})))
		}
		centreNext()
		giu.PopupModal("Shortcuts").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
			windowMark("popup Shortcuts"),
			giu.Table().Size(640, float32(18*(len(rows)+1)+8)).Columns(
				giu.TableColumn("Keys").Flags(giu.TableColumnFlagsWidthFixed).InnerWidthOrWeight(220),
				giu.TableColumn("Action").Flags(giu.TableColumnFlagsWidthStretch),
			).Rows(rows...),
			giu.Button("Close").OnClick(giu.CloseCurrentPopup),
			escapeCloses(),
		).Build()

		if m.openStarted {
			giu.OpenPopup("Getting started")
			m.openStarted = false
		}
		var pages giu.Layout
		for _, page := range gettingStarted {
			pages = append(pages, giu.Separator(), giu.Label(page.tool), panels.Mark("getting started: "+page.tool))
			for _, line := range page.lines {
				pages = append(pages, giu.Label("  "+line).Wrapped(true))
			}
		}
		centreNext()
		giu.PopupModal("Getting started").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
			windowMark("popup Getting started"),
			// The pages scroll: with every tool and the chain they are
			// taller than the window.
			giu.Child().Size(620, min(560, imgui.MainViewport().Size().Y-160)).Layout(pages),
			giu.Button("Close").OnClick(giu.CloseCurrentPopup),
			escapeCloses(),
		).Build()

		if m.openAbout {
			giu.OpenPopup("About Gallop")
			m.openAbout = false
		}
		centreNext()
		giu.PopupModal("About Gallop").Flags(giu.WindowFlagsAlwaysAutoResize).Layout(
			giu.Label("Gallop: an authoring tool for animating deformable meshes."),
			giu.Labelf("Project format version %d. Reads OBJ, OBJ sequences, glTF 2.0; writes OBJ, glTF 2.0 and .gallop projects.", assets.ProjectVersion),
			giu.Label("Built on Dear ImGui (giu), OpenGL 3.3, gonum, mathgl and qmuntal/gltf."),
			giu.Button("Close").OnClick(giu.CloseCurrentPopup),
			escapeCloses(),
		).Build()

		if m.openLog {
			giu.OpenPopup("Messages")
			m.openLog = false
		}
		lines := giu.Layout{}
		for i := len(a.msgs.list) - 1; i >= 0; i-- {
			msg := a.msgs.list[i]
			col := dimColor
			if msg.error {
				col = errorColor
			}
			lines = append(lines, giu.Style().SetColor(giu.StyleColorText, col).To(giu.Label(msg.at.Format("15:04:05  ")+msg.text).Wrapped(true)))
		}
		centreNext()
		giu.PopupModal("Messages").Layout(
			windowMark("popup Messages"),
			giu.Child().Size(640, 320).Layout(lines),
			giu.Button("Close").OnClick(giu.CloseCurrentPopup),
			escapeCloses(),
		).Build()
	})
}

// centreNext centres the next window (a modal) in the main window, every
// frame: Dear ImGui centres a modal only the first time it is ever shown
// and then keeps where it was, which for an auto-sized one is wherever its
// first, smaller size put it (the error message came once centred, once
// over the menu bar).
func centreNext() {
	imgui.SetNextWindowPosV(imgui.MainViewport().Center(), imgui.CondAlways, imgui.Vec2{X: 0.5, Y: 0.5})
}

// escapeCloses closes the popup it is laid out in when Escape is pressed,
// as the error message and the unsaved-changes question do.
func escapeCloses() giu.Widget {
	return giu.Custom(func() {
		if imgui.IsKeyPressedBool(imgui.KeyEscape) {
			imgui.CloseCurrentPopup()
		}
	})
}

// discardQuestion is the unsaved-changes question: the document's changes
// (when changed) and the tools' unsaved work, before doing.
func discardQuestion(doc string, changed bool, work []string, doing string) string {
	all := strings.Join(work, " and ")
	switch {
	case len(work) == 0:
		return fmt.Sprintf("%s has unsaved changes.\nSave them before %s?", doc, doing)
	case changed:
		return fmt.Sprintf("%s has unsaved changes, and %s is not saved.\nSave the project before %s?", doc, all, doing)
	}
	return fmt.Sprintf("%s%s is not saved in any file.\nSave the project (it keeps it) before %s?", strings.ToUpper(all[:1]), all[1:], doing)
}
