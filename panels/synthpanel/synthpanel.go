// Package synthpanel is the Synthesize tool's panel: it lays out the model
// of package tools/synth (the analysis with its progress, the transition
// cost heat map and the threshold; targets, obstacles and components; the
// gallery of variations, playing one with its splices on the timeline,
// remixing its components; export and adding to the document).
package synthpanel

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"gallop/assets"
	"gallop/panels"
	"gallop/tools"
	"gallop/tools/synth"
	"gallop/viewport"
)

// Panel is the Synthesize tool in the window. Its zero value is ready to
// use.
type Panel struct {
	m      synth.Synth
	thumbs panels.Thumbnails[*synth.Variation]

	farm           panels.FarmRun
	morph          bool  // export morph targets instead of a skin
	input, output  int32 // the target being entered
	objectObstacle int32 // the document object picked as an obstacle

	logOf        *synth.Analysed // the analysis logCost belongs to
	logCost      []float64       // log₁₀ of its cost matrix
	logLo, logHi float64         // their range

	traceAt     time.Time
	traceStatus string
}

var (
	_ panels.Tool    = (*Panel)(nil)
	_ panels.Extras  = (*Panel)(nil)
	_ panels.KeyHelp = (*Panel)(nil)
)

// Model returns the tool's model.
func (p *Panel) Model() *synth.Synth { return &p.m }

// Name implements panels.Tool.
func (p *Panel) Name() string { return "Synthesize" }

// Help implements panels.Tool.
func (p *Panel) Help() string {
	return "One-to-Many (Zheng 2013): analyse the clip, set the threshold, targets and obstacles, generate variations; hover to preview, click to play, export or add one to the document."
}

// Close stops the model's jobs and frees the thumbnails (the document is
// being replaced).
func (p *Panel) Close() {
	p.m.Close()
	p.thumbs.Release()
}

// Update implements panels.Tool; with panels.Trace the analysis's and the
// generation's state go to stderr once a second and when they change, for
// the GUI tests.
func (p *Panel) Update(h tools.Host) {
	p.m.Update(h)
	if !panels.Trace {
		return
	}
	s := "synth: " + p.m.GraphSummary()
	if pr := p.m.AnalysisProgress(); pr != nil && p.m.Analysing() {
		s = "synth: analysing, " + pr.Text
	}
	if g := p.m.Gallery(); g != nil {
		splices := 0
		for _, v := range g.Variations {
			if v != nil {
				splices += len(v.SpliceFrames())
			}
		}
		s += fmt.Sprintf("; %d of %d variations, %d thumbnails, %d splices in all", g.Made(), len(g.Variations), p.thumbs.Ready(), splices)
	}
	if v := p.m.Chosen(); v != nil && h.ShownClip() != nil {
		s += fmt.Sprintf("; playing %q, %d frames, %d splices, mean strain %.4f", h.ShownClip().Name, len(v.Clip.Bones), len(v.SpliceFrames()), v.Quality.MeanStrain)
	}
	if r := p.m.Report(); r != "" {
		s += "; " + r
	}
	s += panels.FarmTrace(&p.m.Farm)
	if s != p.traceStatus || time.Since(p.traceAt) >= time.Second {
		p.traceStatus, p.traceAt = s, time.Now()
		fmt.Fprintln(os.Stderr, s)
	}
}

// Display implements panels.Tool: the components' colours when shown.
func (p *Panel) Display(h tools.Host) ([]assets.Vec3, [][3]float32) { return p.m.Display(h) }

// ExtraItems implements panels.Extras: the spheres and ground planes.
func (p *Panel) ExtraItems(h tools.Host) []viewport.Item { return p.m.ExtraItems(h) }

// Markers implements panels.Tool: none.
func (p *Panel) Markers(tools.Host) []viewport.PointSet { return nil }

// Viewport implements panels.Tool: the viewport only navigates.
func (p *Panel) Viewport(tools.Host, *viewport.Input) {}

// Shortcut implements panels.Tool: none of its own.
func (p *Panel) Shortcut(tools.Host, panels.Key) bool { return false }

// KeyHelp implements panels.KeyHelp.
func (p *Panel) KeyHelp() [][2]string {
	return [][2]string{{"hover / click a variation", "Synthesize: preview it / play it with its splices on the timeline"}}
}

// State implements panels.Tool.
func (p *Panel) State() (json.RawMessage, error) { return p.m.State() }

// Restore implements panels.Tool.
func (p *Panel) Restore(h tools.Host, state json.RawMessage) error { return p.m.Restore(h, state) }
