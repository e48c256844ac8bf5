package gallery

import (
	"encoding/json"
	"fmt"

	"gallop/assets"
	"gallop/solver/plausible"
)

// Scenario is one entry of the tool's scenario picker. Adding a scenario
// to the tool is adding an entry to scenarios with a Settings type of its
// own.
type Scenario struct {
	// Name is shown in the picker and keys the scenario's settings in the
	// project file.
	Name string
	// New returns the scenario's settings with the paper's defaults.
	New func() Settings
}

// scenarios are the picker's entries, in order (ScenarioNames).
var scenarios = []Scenario{
	{Name: "2D ball", New: func() Settings { return &Ball2DSettings{Ball2D: *plausible.NewBall2D()} }},
	{Name: "Bowling", New: newBowling},
	{Name: "Spell", New: newSpell},
	{Name: "Dice", New: newDice},
}

// Settings are a scenario's constraints and parameters as the artist
// edits them: one exported type per scenario (*Ball2DSettings,
// *BowlingSettings, *SpellSettings, *DiceSettings), which the panel edits
// in place and then reports with Gallery.Edited. They are saved in the
// project as JSON (encoding/json of the value New returns), so their
// fields must be exported.
type Settings interface {
	// LogLambda returns the scenario's log λ of the Gibbs term λ^k for the
	// chain settings to edit, or nil when the scenario has none.
	LogLambda() *float64
	// Model checks the settings and returns the scenario they describe.
	Model() (*Model, error)
	// Flags returns the scenario's options of `gallop sample` (its
	// --scenario among them) for these settings.
	Flags() []string
}

// Model is a scenario without its types: what the tool runs, shows and
// replays.
type Model struct {
	// Kernels names the proposal kernels; Weights are their default
	// weights.
	Kernels []string
	Weights []float64
	// Gallery returns a gallery of the scenario with the given proposal
	// weights (one per kernel).
	Gallery func(weights []float64, seeds []uint64, iterations int) (*plausible.Gallery, error)
	// Setup returns the scene before sampling, for the viewport: the
	// scenario's fixed parts and its bodies as they start.
	Setup func(fps float64) (*assets.RigidAnimation, error)
	// Replay records a state saved by Gallery.State.
	Replay func(state json.RawMessage, fps float64) (*assets.RigidAnimation, error)
}

// modelOf makes the Model of sc; setup is the state Setup records.
func modelOf[S, O any](sc plausible.Scenario[S, O], setup S) *Model {
	m := &Model{
		Gallery: func(weights []float64, seeds []uint64, iterations int) (*plausible.Gallery, error) {
			w, err := plausible.Reweight(sc, weights)
			if err != nil {
				return nil, err
			}
			return plausible.NewGallery(w, seeds, iterations)
		},
		Setup: func(fps float64) (*assets.RigidAnimation, error) {
			rec, err := sc.Record(setup, fps)
			if err != nil {
				return nil, err
			}
			return Animation(rec)
		},
		Replay: func(raw json.RawMessage, fps float64) (*assets.RigidAnimation, error) {
			var s S
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("sample state: %w", err)
			}
			rec, err := sc.Record(s, fps)
			if err != nil {
				return nil, err
			}
			return Animation(rec)
		},
	}
	for _, k := range sc.Kernels() {
		m.Kernels = append(m.Kernels, k.Name)
		m.Weights = append(m.Weights, k.Weight)
	}
	return m
}

// Ball2DSettings is the 2D ball of Section 5.1: the target's x (dragged
// in the viewport), σ_d and the tolerance, in units of the ball's
// diameter D.
type Ball2DSettings struct {
	plausible.Ball2D
}

// LogLambda implements Settings: the 2D ball's constraint is a Gaussian,
// without λ.
func (b *Ball2DSettings) LogLambda() *float64 { return nil }

// Model implements Settings.
func (b *Ball2DSettings) Model() (*Model, error) {
	sc := b.Ball2D // the chains get a copy that later edits do not change
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(&sc, plausible.Ball2DState{}), nil
}

// ScenarioNames returns the scenarios' names in the picker's order.
func ScenarioNames() []string {
	names := make([]string, len(scenarios))
	for i, sc := range scenarios {
		names[i] = sc.Name
	}
	return names
}
