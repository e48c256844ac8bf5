package app

import (
	"slices"

	"gallop/app/jobs"
	"gallop/app/undo"
	"gallop/assets"
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
