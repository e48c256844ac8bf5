package gallery

import (
	"encoding/json"
	"fmt"

	"gallop/tools"
)

// stateJSON is the tool's state in a project file.
type stateJSON struct {
	Scenario string `json:"scenario"`
	// Settings holds each scenario's settings that were used, by name.
	Settings   map[string]json.RawMessage `json:"settings,omitempty"`
	Weights    []float64                  `json:"weights,omitempty"`
	Chains     int32                      `json:"chains"`
	Iterations int32                      `json:"iterations"`
	Seed       int32                      `json:"seed"`
	Favourites []Favourite                `json:"favourites,omitempty"`
}

// State returns the tool's state for the project file: the scenario, its settings, the chain
// settings and the favourites (the samples themselves are not saved).
func (t *Gallery) State() (json.RawMessage, error) {
	t.defaults()
	t.Settings()
	s := stateJSON{Scenario: scenarios[t.scenario].Name, Settings: map[string]json.RawMessage{},
		Weights: t.Weights, Chains: t.Chains, Iterations: t.Iterations, Seed: t.Seed, Favourites: t.favourites}
	for i, st := range t.settings {
		if st == nil {
			continue
		}
		raw, err := json.Marshal(st)
		if err != nil {
			return nil, fmt.Errorf("gallery tool state: %s: %w", scenarios[i].Name, err)
		}
		s.Settings[scenarios[i].Name] = raw
	}
	return json.Marshal(s)
}

// Restore sets the tool's state from a project file. A scenario it does not know, settings
// that do not parse or a favourite of an unknown scenario are errors that
// say which.
func (t *Gallery) Restore(_ tools.Host, raw json.RawMessage) error {
	var s stateJSON
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("gallery tool state: %w", err)
	}
	k := scenarioIndex(s.Scenario)
	if k < 0 {
		return fmt.Errorf("gallery tool state: unknown scenario %q", s.Scenario)
	}
	settings := make([]Settings, len(scenarios))
	for name, r := range s.Settings {
		i := scenarioIndex(name)
		if i < 0 {
			return fmt.Errorf("gallery tool state: settings of unknown scenario %q", name)
		}
		settings[i] = scenarios[i].New()
		if err := json.Unmarshal(r, settings[i]); err != nil {
			return fmt.Errorf("gallery tool state: %s settings: %w", name, err)
		}
	}
	for _, f := range s.Favourites {
		if scenarioIndex(f.Scenario) < 0 {
			return fmt.Errorf("gallery tool state: favourite %s: unknown scenario %q", f.Label(), f.Scenario)
		}
	}
	t.Close()
	*t = Gallery{scenario: k, settings: settings, Weights: s.Weights,
		Chains: s.Chains, Iterations: s.Iterations, Seed: s.Seed, favourites: s.Favourites, record: t.record}
	return nil
}
