package ensemble

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"

	"gallop/assets"
	"gallop/internal/atomicfile"
	"gallop/internal/option"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
)

// GraphFormat names Gallop's motion graph files in their "format" field.
const GraphFormat = "gallop-ensemble-graph"

// GraphFile is a motion graph as Gallop saves it (JSON, see docs/formats.md):
// the data it was built from (absolute paths: the file does not hold the
// meshes), the options of the model and of the build, and the graph: per
// level the runs of frames of its component (and whether it cuts back: no
// loop was found), and the transitions with their offset vectors and
// blend lengths. States are [level, frame], both 0-based.
type GraphFile struct {
	Format      string             `json:"format"`
	Version     int                `json:"version"`
	Levels      []string           `json:"levels"`
	Groups      string             `json:"groups,omitempty"`
	Model       ModelSettings      `json:"model"`
	Build       BuildSettings      `json:"build"`
	Frames      []int              `json:"frames"`
	GroupCount  int                `json:"group_count"`
	Components  [][][2]int         `json:"components"`
	Cut         []bool             `json:"cut"`
	Transitions []TransitionRecord `json:"transitions"`
}

// GraphVersion is the version of the graph files Gallop writes and reads.
// Version 1 (before blend lengths per group and transitions taken where
// their blending begins) is refused: its graphs are rebuilt.
const GraphVersion = 2

// ModelSettings are the model options a graph file records.
type ModelSettings struct {
	TauMax    int     `json:"tau_max"`
	TauBlend  int     `json:"tau_blend"`
	Blends    int     `json:"blends"`
	Beta      float64 `json:"beta"`
	Threshold float64 `json:"threshold"`
}

// DefaultBudget is the build's default time cap, seconds (see
// ensemble.BuildOptions.Budget): none, so that a build is the same on
// every machine; the search effort bounds it instead.
const DefaultBudget = 0

// BuildSettings are the build options a graph file records.
type BuildSettings struct {
	Seed    uint64  `json:"seed"`
	Samples int     `json:"samples"`
	Eta     float64 `json:"eta"`
	Alpha   float64 `json:"alpha"`
	C       float64 `json:"c"`
	Tries   int     `json:"tries"`
	// Harder is how many times a task that found nothing searches harder
	// (0: the default, negative: never).
	Harder int `json:"harder,omitempty"`
	// StepTolerance scales the step bound (0: 1, the data's own steps).
	StepTolerance float64 `json:"step_tolerance,omitempty"`
	// Effort bounds the work of searching harder (0: the default, see
	// ensemble.BuildOptions.Effort; negative: none).
	Effort float64 `json:"effort,omitempty"`
	// Budget caps the build's seconds softly (0: none).
	Budget float64 `json:"budget_seconds,omitempty"`
	// ChangeWithin is how soon, in seconds, a transition between wind
	// levels completes its blends once it begins (0: the default,
	// DefaultChangeWithin): ensemble.BuildOptions.Reach is half of it. A
	// longer change is smoother (its offsets free to reach the cheapest
	// Φ), a shorter one answers the wind sooner.
	ChangeWithin float64 `json:"change_within_seconds,omitempty"`
	// Walk searches with the paper's LOCAL-SEARCH instead of propagation.
	Walk bool `json:"walk,omitempty"`
}

// DefaultChangeWithin is BuildSettings.ChangeWithin's default, seconds:
// the solver's default reach (two thirds of a second) on either side of a
// transition's centre.
const DefaultChangeWithin = 4.0 / 3

// The range of BuildSettings.ChangeWithin an artist may set, seconds:
// beyond a transition's whole window (2H + 1 frames, 2.7 s at τ_max 30)
// a longer setting changes nothing.
const (
	MinChangeWithin = 0.1
	MaxChangeWithin = 10.0
)

// Options returns the settings as the solver's build options for data at
// fps frames per second.
func (s BuildSettings) Options(fps float64) ensemble.BuildOptions {
	o := ensemble.BuildOptions{Seed: s.Seed, Tries: s.Tries, Harder: s.Harder, StepTolerance: s.StepTolerance,
		Effort: s.Effort, Budget: time.Duration(s.Budget * float64(time.Second)),
		CSP: csp.Options{Samples: s.Samples, Eta: s.Eta, Alpha: s.Alpha, C: s.C}}
	if s.ChangeWithin > 0 {
		o.Reach = max(1, int(math.Round(s.ChangeWithin*fps/2)))
	}
	if s.Walk {
		o.CSP.Search = csp.Walk
	}
	return o
}

// TransitionRecord is one transition of a graph file.
type TransitionRecord struct {
	From  [2]int  `json:"from"`
	To    [2]int  `json:"to"`
	Tau   []int   `json:"tau"`
	Blend []int   `json:"blend,omitempty"` // per group; absent: τ_blend for every group
	Phi   float64 `json:"phi"`
	Phi0  float64 `json:"phi0"`
}

// NewGraphFile records graph g of model m, built from the level folders
// levels (and groups, "" for the sidecar beside them) with settings s.
func NewGraphFile(levels []string, groups string, m *ensemble.Model, s BuildSettings, g *ensemble.Graph) (*GraphFile, error) {
	o := m.Options() // resolved: β and the threshold as used, 0 for none
	o.Beta, o.Threshold = option.Literal(o.Beta), option.Literal(o.Threshold)
	f := &GraphFile{Format: GraphFormat, Version: GraphVersion, Build: s, GroupCount: m.Groups(), Cut: slices.Clone(g.Cut),
		Model: ModelSettings{TauMax: o.TauMax, TauBlend: o.TauBlend, Blends: o.Blends, Beta: o.Beta, Threshold: o.Threshold}}
	for _, l := range levels {
		abs, err := filepath.Abs(l)
		if err != nil {
			return nil, err
		}
		f.Levels = append(f.Levels, abs)
	}
	if groups != "" {
		abs, err := filepath.Abs(groups)
		if err != nil {
			return nil, err
		}
		f.Groups = abs
	}
	for _, in := range g.In {
		f.Frames = append(f.Frames, len(in))
		var runs [][2]int
		for fr := 0; fr < len(in); fr++ {
			if !in[fr] {
				continue
			}
			start := fr
			for fr+1 < len(in) && in[fr+1] {
				fr++
			}
			runs = append(runs, [2]int{start, fr})
		}
		f.Components = append(f.Components, runs)
	}
	for _, t := range g.Transitions {
		f.Transitions = append(f.Transitions, TransitionRecord{
			From: [2]int{t.From.Level, t.From.Frame}, To: [2]int{t.To.Level, t.To.Frame},
			Tau: t.Tau, Blend: t.Blend, Phi: t.Phi, Phi0: t.Phi0,
		})
	}
	return f, nil
}

// SaveGraph writes f to path as JSON, atomically: on error the previous
// file at path is untouched.
func SaveGraph(path string, f *GraphFile) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(f)
	})
}

// LoadGraph reads the graph file at path. It checks the format and the
// shape of the records (one component list and frame count per level,
// every state within its level's frames, every offset vector of
// group_count offsets); whether the graph fits its data is checked by
// Open.
func LoadGraph(path string) (*GraphFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseGraph(path, data)
}

// parseGraph is LoadGraph of data, the contents of the file at path.
func parseGraph(path string, data []byte) (*GraphFile, error) {
	var f GraphFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: not a graph file: %w", path, err)
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...))
	}
	switch {
	case f.Format != GraphFormat:
		return nil, fail("format %q, want %q", f.Format, GraphFormat)
	case f.Version != GraphVersion:
		return nil, fail("version %d; this Gallop reads version %d (build the graph again)", f.Version, GraphVersion)
	case len(f.Levels) == 0:
		return nil, fail("no levels")
	case len(f.Frames) != len(f.Levels) || len(f.Components) != len(f.Levels) || len(f.Cut) != len(f.Levels):
		return nil, fail("%d levels, %d frame counts, %d component lists and %d cut flags", len(f.Levels), len(f.Frames), len(f.Components), len(f.Cut))
	case f.GroupCount < 1:
		return nil, fail("group_count %d", f.GroupCount)
	}
	for l, runs := range f.Components {
		for _, r := range runs {
			if r[0] < 0 || r[0] > r[1] || r[1] >= f.Frames[l] {
				return nil, fail("level %d: component run %v outside its %d frames", l+1, r, f.Frames[l])
			}
		}
	}
	state := func(s [2]int) bool { return s[0] >= 0 && s[0] < len(f.Levels) && s[1] >= 0 && s[1] < f.Frames[s[0]] }
	for x, t := range f.Transitions {
		if !state(t.From) || !state(t.To) || len(t.Tau) != f.GroupCount || t.Blend != nil && len(t.Blend) != f.GroupCount {
			return nil, fail("transition %d (%v → %v, %d offsets, %d blend lengths) does not fit %d levels of %v frames and %d groups", x+1, t.From, t.To, len(t.Tau), len(t.Blend), len(f.Levels), f.Frames, f.GroupCount)
		}
	}
	return &f, nil
}

// Open reads the data the graph was built from, builds the model with the
// recorded options, and returns it with the graph, checked against it
// (Graph.Validate): the same data give the same model, so the recorded
// transitions are the ones built.
func (f *GraphFile) Open(ctx context.Context, progress func(done, total int)) (*ensemble.Model, *ensemble.Graph, *assets.Ensemble, error) {
	d, e, err := Load(ctx, f.Levels, f.Groups, progress)
	if err != nil {
		return nil, nil, nil, err
	}
	if len(d.Groups) != f.GroupCount {
		return nil, nil, nil, fmt.Errorf("the graph has %d groups, its data now %d", f.GroupCount, len(d.Groups))
	}
	for l, lv := range d.Levels {
		if len(lv.Frames) != f.Frames[l] {
			return nil, nil, nil, fmt.Errorf("level %s: the graph has %d frames, the data now %d", f.Levels[l], f.Frames[l], len(lv.Frames))
		}
	}
	mo := ensemble.Options{TauMax: f.Model.TauMax, TauBlend: f.Model.TauBlend, Blends: f.Model.Blends, Beta: f.Model.Beta, Threshold: f.Model.Threshold}
	m, err := ensemble.NewModel(ctx, d, mo, nil)
	if err != nil {
		return nil, nil, nil, err
	}
	g := &ensemble.Graph{Cut: slices.Clone(f.Cut)}
	for l, runs := range f.Components {
		in := make([]bool, f.Frames[l])
		for _, r := range runs {
			for fr := r[0]; fr <= r[1]; fr++ {
				in[fr] = true
			}
		}
		g.In = append(g.In, in)
	}
	for _, t := range f.Transitions {
		g.Transitions = append(g.Transitions, ensemble.Transition{
			From: ensemble.State{Level: t.From[0], Frame: t.From[1]}, To: ensemble.State{Level: t.To[0], Frame: t.To[1]},
			Tau: t.Tau, Blend: t.Blend, Phi: t.Phi, Phi0: t.Phi0,
		})
	}
	if err := g.Validate(m); err != nil {
		return nil, nil, nil, err
	}
	return m, g, e, nil
}
