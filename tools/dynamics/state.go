package dynamics

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/tools"
)

// stateJSON is the tool's state in a project file: the settings, the
// display, the brush, and every object's materials by object name (α, β,
// γ, λ, κ per vertex, in vertex order, encoded as assets.EncodeFloat64s).
type stateJSON struct {
	Settings Settings    `json:"settings"`
	Show     string      `json:"show"`
	Heat     string      `json:"heat"`
	Brush    Brush       `json:"brush"`
	Objects  []layerJSON `json:"objects,omitempty"`
}

type layerJSON struct {
	Name   string `json:"name"`
	Params string `json:"params"`
}

var (
	showNames = []string{ShowDynamic: "dynamic", ShowSkinned: "skinned", ShowBoth: "side-by-side", ShowOverlay: "overlay"}
	heatNames = []string{HeatParam: "parameter", HeatDistance: "distance", HeatNone: "none"}
)

// State returns the tool's state for the project file.
func (t *Dynamics) State() (json.RawMessage, error) {
	t.init()
	s := stateJSON{Settings: t.Settings, Show: showNames[t.Show], Heat: heatNames[t.Heat], Brush: t.Brush}
	add := func(name string, p []dynskin.Material) {
		v := make([]float64, 0, len(dynskin.ParamNames)*len(p))
		for _, m := range p {
			for k := range dynskin.ParamNames {
				v = append(v, m.Get(k))
			}
		}
		s.Objects = append(s.Objects, layerJSON{Name: name, Params: assets.EncodeFloat64s(v)})
	}
	for o, l := range t.layers {
		add(o.Name, l.params)
	}
	for name, p := range t.saved {
		add(name, p)
	}
	slices.SortFunc(s.Objects, func(a, b layerJSON) int { return strings.Compare(a.Name, b.Name) })
	return json.Marshal(s)
}

// Restore sets the tool's state from a project file; each object's
// materials go to the object of its name when it is active and has as
// many vertices. Unknown names, settings out of range and parameters out
// of theirs are errors that say which.
func (t *Dynamics) Restore(h tools.Host, raw json.RawMessage) error {
	s := stateJSON{Settings: DefaultSettings(), Brush: DefaultBrush()}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("dynamics tool state: %w", err)
	}
	show, heat := slices.Index(showNames, s.Show), slices.Index(heatNames, s.Heat)
	switch {
	case show < 0:
		return fmt.Errorf("dynamics tool state: unknown display %q", s.Show)
	case heat < 0:
		return fmt.Errorf("dynamics tool state: unknown heat map %q", s.Heat)
	}
	if err := s.Settings.Check(); err != nil {
		return fmt.Errorf("dynamics tool state: %w", err)
	}
	if err := s.Brush.Check(); err != nil {
		return fmt.Errorf("dynamics tool state: %w", err)
	}
	saved := map[string][]dynskin.Material{}
	np := len(dynskin.ParamNames)
	for _, oj := range s.Objects {
		v, err := assets.DecodeFloat64s(oj.Params, "materials of "+oj.Name)
		if err != nil {
			return fmt.Errorf("dynamics tool state: %w", err)
		}
		if len(v)%np != 0 {
			return fmt.Errorf("dynamics tool state: materials of %s: %d values, not groups of %d", oj.Name, len(v), np)
		}
		p := make([]dynskin.Material, len(v)/np)
		for i := range p {
			for k := range np {
				p[i].Set(k, v[np*i+k])
			}
		}
		if err := dynskin.CheckParams(p, len(p)); err != nil {
			return fmt.Errorf("dynamics tool state: materials of %s: %w", oj.Name, err)
		}
		saved[oj.Name] = p
	}
	t.Close()
	*t = Dynamics{Settings: s.Settings, Show: Show(show), Heat: Heat(heat), Brush: s.Brush, saved: saved}
	t.Sync(h)
	return nil
}
