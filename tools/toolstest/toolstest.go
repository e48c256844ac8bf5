// Package toolstest provides the one fake tools.Host that every tool
// model's tests use: a document of at most one object without a window, a
// real undo stack and job runner that the test polls, and file dialogs
// that answer with paths the test sets.
package toolstest

import (
	"fmt"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/undo"
	"gallop/tools"
	"gallop/viewport"
)

// Host is a tools.Host without a window. Its fields are the document and
// what the tool told it; set them directly. The zero value has no object.
type Host struct {
	Obj          *assets.Object // the object being edited, or nil
	Sel          []int          // the selection, sorted
	CurrentFrame int            // the timeline's frame
	Stack        undo.Stack     // every Do lands here
	Runner       jobs.Runner    // the tool's jobs; the test calls Runner.Wait or Poll
	Errs         []error        // what Error reported, oldest first
	Warns        []error        // what Warn reported, oldest first
	Infos        []string       // what Info reported, formatted
	OpenPath     string         // what OpenFile and OpenFolder answer ("": cancelled)
	SavePath     string         // what SaveFile answers ("": cancelled)
	Shown        *assets.RigidAnimation
	Playing      bool             // whether ShowAnimation or ShowClip was asked to play
	Clip         *assets.Object   // what ShowClip shows
	Marks        []int            // the frames ShowClip marks
	ShownAt      int              // the frame of what is shown (ShownFrame)
	Others       []*assets.Object // the document's objects besides Obj, AddObject's among them
	ViewState    *viewport.View
}

// New returns a Host editing obj (nil for none).
func New(obj *assets.Object) *Host { return &Host{Obj: obj} }

var _ tools.Host = (*Host)(nil)

// Object implements tools.Host.
func (h *Host) Object() *assets.Object { return h.Obj }

// Positions implements tools.Host: the object's positions at CurrentFrame.
func (h *Host) Positions() []assets.Vec3 {
	if h.Obj == nil {
		return nil
	}
	return h.Obj.PositionsAt(h.CurrentFrame)
}

// Selection implements tools.Host.
func (h *Host) Selection() []int { return h.Sel }

// SetSelection implements tools.Host (not undoable here).
func (h *Host) SetSelection(v []int) { h.Sel = v }

// Do implements tools.Host: the edit goes on Stack.
func (h *Host) Do(c undo.Command) { h.Stack.Do(c) }

// Jobs implements tools.Host.
func (h *Host) Jobs() *jobs.Runner { return &h.Runner }

// View implements tools.Host: one view, made on first use.
func (h *Host) View() *viewport.View {
	if h.ViewState == nil {
		h.ViewState = viewport.NewView()
	}
	return h.ViewState
}

// Error implements tools.Host.
func (h *Host) Error(err error) { h.Errs = append(h.Errs, err) }

// Warn implements tools.Host: the warning is kept in Warns.
func (h *Host) Warn(err error) { h.Warns = append(h.Warns, err) }

// Info implements tools.Host.
func (h *Host) Info(format string, args ...any) {
	h.Infos = append(h.Infos, fmt.Sprintf(format, args...))
}

// Frame implements tools.Host.
func (h *Host) Frame() int { return h.CurrentFrame }

// NumFrames implements tools.Host: the object's frames, 1 without one.
func (h *Host) NumFrames() int {
	if h.Obj == nil {
		return 1
	}
	return h.Obj.NumFrames()
}

// FPS implements tools.Host: the object's rate, 30 without one.
func (h *Host) FPS() float64 {
	if h.Obj == nil {
		return 30
	}
	return h.Obj.FPS()
}

// OpenFile implements tools.Host: done gets OpenPath unless it is empty.
func (h *Host) OpenFile(_ string, _ []string, done func(string)) { h.answer(h.OpenPath, done) }

// OpenFolder implements tools.Host like OpenFile.
func (h *Host) OpenFolder(_ string, done func(string)) { h.answer(h.OpenPath, done) }

// SaveFile implements tools.Host: done gets SavePath unless it is empty.
func (h *Host) SaveFile(_ string, _ []string, _ string, done func(string)) {
	h.answer(h.SavePath, done)
}

func (h *Host) answer(path string, done func(string)) {
	if path != "" {
		done(path)
	}
}

// ShowAnimation implements tools.Host: it validates anim as the window
// does and records it.
func (h *Host) ShowAnimation(anim *assets.RigidAnimation, play bool) error {
	if anim != nil {
		if err := anim.Validate(); err != nil {
			return err
		}
	}
	h.Shown, h.Playing = anim, play
	return nil
}

// ShownAnimation implements tools.Host.
func (h *Host) ShownAnimation() *assets.RigidAnimation { return h.Shown }

// ShowClip implements tools.Host: it validates o as the window does and
// records it.
func (h *Host) ShowClip(o *assets.Object, marks []int, play bool) error {
	if o != nil {
		if err := o.Validate(); err != nil {
			return err
		}
	}
	h.Clip, h.Marks, h.Playing, h.ShownAt = o, marks, play, 0
	return nil
}

// ShownFrame implements tools.Host: ShownAt while a clip or an animation
// is shown.
func (h *Host) ShownFrame() (int, bool) { return h.ShownAt, h.Clip != nil || h.Shown != nil }

// SetShownFrame implements tools.Host: ShownAt becomes frame, clamped to
// the shown clip's frames.
func (h *Host) SetShownFrame(frame int) {
	n := 1
	if h.Clip != nil {
		n = h.Clip.NumFrames()
	}
	h.ShownAt = max(0, min(frame, n-1))
}

// ShownClip implements tools.Host.
func (h *Host) ShownClip() *assets.Object { return h.Clip }

// Objects implements tools.Host: Obj, then Others.
func (h *Host) Objects() []*assets.Object {
	var out []*assets.Object
	if h.Obj != nil {
		out = append(out, h.Obj)
	}
	return append(out, h.Others...)
}

// AddObject implements tools.Host: o joins Others.
func (h *Host) AddObject(o *assets.Object) { h.Others = append(h.Others, o) }
