// Package ensemblepanel is the Ensemble tool's panel: it lays out the
// model of package tools/ensemble (opening a dataset, the motion graph's
// build with its progress, the solver's trace as in the paper's Fig. 10
// and Table I's figures; playing with the wind slider, the groups blending
// highlighted; Compare, a transition under τ = 0, the unconstrained
// minimum and the solver's τ with the groups of new interpenetrating pairs
// red; the export of the played stretch, its adding to the document, and
// the graph file).
package ensemblepanel

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"gallop/assets"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/ensemble"
	"gallop/viewport"
)

// Panel is the Ensemble tool in the window. Its zero value is ready to
// use.
type Panel struct {
	m    ensemble.Tool
	farm panels.FarmRun

	mostBlending int // the most groups seen blending at once, for the trace

	traceAt     time.Time
	traceStatus string
}

var (
	_ panels.Tool       = (*Panel)(nil)
	_ panels.ClipColors = (*Panel)(nil)
)

// Model returns the tool's model.
func (p *Panel) Model() *ensemble.Tool { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Ensemble" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "Mesh Ensemble Motion Graphs (James 2007): open an ensemble simulated at several wind levels, build its motion graph, play it forever moving the wind; export the played stretch or add it to the document."
}

// Close stops the model's jobs (the document is being replaced).
func (p *Panel) Close() { p.m.Close() }

// Update implements panels.Tool; with panels.Trace the tool's state goes
// to stderr once a second and when it changes, for the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Update(h)
	ps, playing := p.m.PlayState(h)
	blending := ensemble.Marked(ps.Blending)
	p.mostBlending = max(p.mostBlending, blending)
	if !panels.Trace {
		return
	}
	s := "ensemble: " + p.m.Summary()
	if pr := p.m.OpenProgress(); pr != nil && p.m.Opening() {
		s = "ensemble: opening, " + pr.Text
	}
	if pr := p.m.BuildProgress(); pr != nil && p.m.Building() {
		s += fmt.Sprintf("; building, %s (%.0f%%)", pr.Text, 100*pr.Fraction)
	}
	if playing {
		s += fmt.Sprintf("; playing level %d, wind %d, heading %d, %d transitions, %d groups blending, at most %d so far", ps.Level, ps.Wind, ps.Heading, ps.Transitions, blending, p.mostBlending)
	}
	if pr := p.m.CompareProgress(); pr != nil && p.m.Comparing() {
		s += fmt.Sprintf("; comparing, %s (%.0f%%)", pr.Text, 100*pr.Fraction)
	}
	if v, ok := p.m.CompareShown(h); ok {
		c := p.m.Comparison()
		f, _ := h.ShownFrame()
		red := 0
		if r := &c.Variants[v]; f >= 0 && f < len(r.Red) {
			red = ensemble.Marked(r.Red[f])
		}
		s += fmt.Sprintf("; comparing transition %d, showing %s at frame %d, %d groups red; new pairs %d (τ = 0), %d (unconstrained), %d (solver)",
			c.Index+1, v, f+1, red, len(c.Variants[ensemble.Synchronous].Pairs), len(c.Variants[ensemble.Unconstrained].Pairs), len(c.Variants[ensemble.Solved].Pairs))
	}
	if r := p.m.Report(); r != "" {
		s += "; " + r
	}
	if path, ends := p.m.FarmWaiting(); path != "" {
		s += "; a farm graph waits (using it ends " + ends + ")"
	}
	s += panels.FarmTrace(&p.m.Farm)
	if s != p.traceStatus || time.Since(p.traceAt) >= time.Second {
		p.traceStatus, p.traceAt = s, time.Now()
		fmt.Fprintln(os.Stderr, s)
	}
}

// ClipColors implements panels.ClipColors: the groups in their colours,
// those blending in yellow, in a comparison those in a new
// interpenetrating pair in red.
func (p *Panel) ClipColors(h tools.Host) [][3]float32 { return p.m.ClipColors(h) }

// Display implements panels.Tool: the document's object as it is.
func (p *Panel) Display(tools.Host) ([]assets.Vec3, [][3]float32) { return nil, nil }

// Markers implements panels.Tool: none.
func (p *Panel) Markers(tools.Host) []viewport.PointSet { return nil }

// Viewport implements panels.Tool: the viewport only navigates.
func (p *Panel) Viewport(tools.Host, *viewport.Input) {}

// Shortcut implements panels.Tool: none of its own.
func (p *Panel) Shortcut(tools.Host, panels.Key) bool { return false }

// State implements panels.Tool.
// UnsavedWork names the motion graph when no file keeps it.
func (p *Panel) UnsavedWork() string { return p.m.UnsavedWork() }

// WorkMark returns the mark of the tool's graph.
func (p *Panel) WorkMark() uint64 { return p.m.WorkMark() }

// SavedWork records that a project holding the graph as of mark was
// saved.
func (p *Panel) SavedWork(mark uint64) { p.m.SavedWork(mark) }

var _ panels.UnsavedWork = (*Panel)(nil)

func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error {
	p.mostBlending = 0
	return p.m.Restore(h, state)
}
