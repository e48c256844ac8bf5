// Package gallerypanel is the Gallery tool's panel: it lays out the model
// of package tools/gallery (the scenario picker and each scenario's
// constraint editor, chain settings, Start / Stop and progress, the
// gallery of thumbnails rendered offscreen, the chains' plots and the
// favourites) and lets the artist drag a scenario's target in the
// viewport while it shows the scenario.
package gallerypanel

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"gallop/assets"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/gallery"
	"gallop/viewport"
)

// Panel is the Gallery tool in the window. Its zero value is ready to use.
type Panel struct {
	m       gallery.Gallery
	editors editors
	thumbs  panels.Thumbnails[*gallery.Sample]
	farm    panels.FarmRun
	traced  string // the farm's trace last printed

	traceAt     time.Time
	tracedFinal *gallery.Snapshot // the final snapshot last traced
	tracedPlay  *gallery.Sample   // the sample last traced as played
}

var _ panels.Tool = (*Panel)(nil)

// Model returns the tool's model.
func (p *Panel) Model() *gallery.Gallery { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Gallery" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "Plausible animations by MCMC: set the constraints (drag the target), Start, then click a thumbnail to play it."
}

// Close stops the model's run and frees the thumbnails (the document is
// being replaced).
func (p *Panel) Close() {
	p.m.Close()
	p.thumbs.Release()
}

// Update implements panels.Tool: the model takes its run's latest
// snapshot; with panels.Trace the progress, a finished run, the sample
// played and the marked widgets go to stderr for the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Update(h)
	if !panels.Trace {
		return
	}
	snap := p.m.Snapshot()
	if snap != nil && snap.Final && snap != p.tracedFinal {
		p.tracedFinal = snap
		fmt.Fprintf(os.Stderr, "gallery: finished, %d samples\n", len(snap.Samples))
	}
	if s := p.m.Chosen(); s != nil && s != p.tracedPlay {
		p.tracedPlay = s
		fmt.Fprintf(os.Stderr, "gallery: playing chain %d iteration %d (%d frames)\n", s.Chain+1, s.Iteration, s.Anim.NumFrames())
	}
	if f := panels.FarmTrace(&p.m.Farm); f != p.traced {
		p.traced = f
		fmt.Fprintf(os.Stderr, "gallery: farm%s\n", f)
	}
	if time.Since(p.traceAt) >= time.Second {
		p.traceAt = time.Now()
		if snap != nil {
			fmt.Fprintf(os.Stderr, "gallery: %d of %d iterations, %d samples, %d thumbnails\n", snap.Done, snap.Total, len(snap.Samples), p.thumbs.Ready())
		}
	}
}

// Viewport implements panels.Tool: while the viewport shows the tool's
// scenario, the scenario's editor draws its markers and takes their drags
// (the 2D ball's and the die's targets).
func (p *Panel) Viewport(h tools.Host, in *viewport.Input) {
	if !p.m.EditsInViewport(h) {
		return
	}
	if p.editors.viewport(p.m.Settings(), h.View(), in) {
		p.m.Edited(h)
	}
}

// Markers implements panels.Tool: none.
func (p *Panel) Markers(tools.Host) []viewport.PointSet { return nil }

// Display implements panels.Tool: the document's objects as they are.
func (p *Panel) Display(tools.Host) ([]assets.Vec3, [][3]float32) { return nil, nil }

// Shortcut implements panels.Tool: the tool has no keys of its own.
func (p *Panel) Shortcut(tools.Host, panels.Key) bool { return false }

// State implements panels.Tool.
func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error { return p.m.Restore(h, state) }
