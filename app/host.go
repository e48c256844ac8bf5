package app

import (
	"fmt"
	"os"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/undo"
	"gallop/viewport"
)

// The App is the tools' Host.

// Object implements tools.Host.
func (a *App) Object() *assets.Object { return a.doc.Object() }

// Positions implements tools.Host.
func (a *App) Positions() []assets.Vec3 {
	if o := a.doc.Object(); o != nil {
		return o.PositionsAt(a.doc.Frame)
	}
	return nil
}

// Selection implements tools.Host.
func (a *App) Selection() []int { return a.doc.Selection }

// SetSelection implements tools.Host.
func (a *App) SetSelection(vertices []int) {
	if a.doc.Object() == nil {
		return
	}
	vertices = slices.Clone(vertices)
	slices.Sort(vertices)
	vertices = slices.Compact(vertices)
	if slices.Equal(vertices, a.doc.Selection) {
		return
	}
	a.history.Do(&selectCmd{doc: a.doc, before: a.doc.Selection, after: vertices})
}

// Do implements tools.Host.
func (a *App) Do(cmd undo.Command) { a.history.Do(cmd) }

// Jobs implements tools.Host.
func (a *App) Jobs() *jobs.Runner { return &a.jobs }

// View implements tools.Host.
func (a *App) View() *viewport.View { return a.view }

// Error implements tools.Host.
func (a *App) Error(err error) { a.fail(err) }

// Warn implements tools.Host.
func (a *App) Warn(err error) {
	if err == nil {
		return
	}
	a.msgs.add(true, err.Error())
	fmt.Fprintln(os.Stderr, "gallop:", err)
}

// Info implements tools.Host.
func (a *App) Info(format string, args ...any) { a.info(format, args...) }

// Frame implements tools.Host.
func (a *App) Frame() int { return a.doc.Frame }

// NumFrames implements tools.Host.
func (a *App) NumFrames() int { return a.doc.NumFrames() }

// FPS implements tools.Host.
func (a *App) FPS() float64 { return a.doc.FPS() }

// OpenFile implements tools.Host.
func (a *App) OpenFile(title string, exts []string, done func(path string)) {
	a.dialogs.load(title, fileFilter{title, exts}, done)
}

// OpenFolder implements tools.Host.
func (a *App) OpenFolder(title string, done func(path string)) {
	a.dialogs.folder(title, done)
}

// SaveFile implements tools.Host.
func (a *App) SaveFile(title string, exts []string, suggested string, done func(path string)) {
	a.dialogs.save(title, fileFilter{title, exts}, suggested, done)
}

// Objects implements tools.Host.
func (a *App) Objects() []*assets.Object { return a.doc.Scene.Objects }

// AddObject implements tools.Host.
func (a *App) AddObject(o *assets.Object) {
	a.history.Do(&addObjectsCmd{doc: a.doc, objs: []*assets.Object{o}, keepActive: true, label: "Add " + o.Name})
}
