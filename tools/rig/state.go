package rig

import (
	"encoding/json"
	"fmt"
	"math"

	"gallop/tools"
)

// stateJSON is the tool's state in a project file: the settings and how
// the result is shown (the result itself is not saved; Start recomputes
// it).
type stateJSON struct {
	Settings Settings `json:"settings"`
	Show     string   `json:"show"`
	Heat     string   `json:"heat"`
	Bone     int32    `json:"bone"`
	NoBones  bool     `json:"hide_bones,omitempty"`
}

var (
	showNames = []string{ShowOriginal: "original", ShowSkinned: "skinned", ShowBoth: "side-by-side"}
	heatNames = []string{HeatNone: "none", HeatWeights: "weights", HeatError: "error"}
)

// index returns the position of name in names, or -1.
func index(names []string, name string) int {
	for i, n := range names {
		if n == name {
			return i
		}
	}
	return -1
}

// State returns the tool's state for the project file.
func (t *Rig) State() (json.RawMessage, error) {
	t.defaults()
	return json.Marshal(stateJSON{Settings: t.Settings, Show: showNames[t.Show], Heat: heatNames[t.Heat], Bone: t.Bone, NoBones: t.HideBones})
}

// Restore sets the tool's state from a project file: settings out of
// range or unknown names are errors that say which.
func (t *Rig) Restore(h tools.Host, raw json.RawMessage) error {
	s := stateJSON{Settings: DefaultSettings()}
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("rig tool state: %w", err)
	}
	show, heat := index(showNames, s.Show), index(heatNames, s.Heat)
	switch {
	case show < 0:
		return fmt.Errorf("rig tool state: unknown display %q", s.Show)
	case heat < 0:
		return fmt.Errorf("rig tool state: unknown heat map %q", s.Heat)
	case s.Bone < 0 || s.Bone >= max(1, s.Settings.Bones):
		return fmt.Errorf("rig tool state: bone %d out of range (%d bones)", s.Bone, s.Settings.Bones)
	}
	// The bones are checked against the mesh's vertices at Start.
	if err := s.Settings.Check(math.MaxInt32); err != nil {
		return fmt.Errorf("rig tool state: %w", err)
	}
	t.Close()
	*t = Rig{Settings: s.Settings, Show: Show(show), Heat: Heat(heat), Bone: s.Bone, HideBones: s.NoBones}
	t.Sync(h)
	return nil
}
