package pose

import (
	"encoding/json"
	"fmt"
	"math"

	"gallop/assets"
	"gallop/solver/meshik"
	"gallop/tools"
)

// stateJSON is the tool's state in a project file. Positions are encoded
// as the project embeds them (assets.EncodeVec3s).
type stateJSON struct {
	Examples []exampleJSON `json:"examples,omitempty"`
	// Reference is the example used as the reference pose, -1 for the
	// object's rest pose.
	Reference int          `json:"reference"`
	Space     string       `json:"space"`
	Handles   []handleJSON `json:"handles,omitempty"`
	Frozen    []int        `json:"frozen_triangles,omitempty"`
	Mode      string       `json:"mode"`
	Blend     []float64    `json:"blend,omitempty"`
	Keys      []keyJSON    `json:"keys,omitempty"`
	Posed     string       `json:"posed,omitempty"`   // the pose shown when saved
	Weights   []float64    `json:"weights,omitempty"` // one per example
	XRay      bool         `json:"xray,omitempty"`
	// Components and Prior: the artist's settings of the compression
	// (absent: automatic).
	Components int     `json:"components,omitempty"`
	Prior      float64 `json:"prior,omitempty"`
}

type exampleJSON struct {
	Name      string `json:"name"`
	Positions string `json:"positions"`
}

type handleJSON struct {
	Name     string     `json:"name"`
	Vertices []int      `json:"vertices"`
	Base     string     `json:"base"`
	Offset   [3]float64 `json:"offset"`
	// Fixed holds the handle's orientation; absent, it turns with the
	// pose.
	Fixed bool `json:"fixed_orientation,omitempty"`
}

type keyJSON struct {
	Frame   int          `json:"frame"`
	Offsets [][3]float64 `json:"offsets"`
}

var modeNames = map[Mode]string{IK: "ik", Blend: "blend"}

// State returns the tool's state for the project file (nil without an
// object).
func (p *Pose) State() (json.RawMessage, error) {
	if p.obj == nil {
		return nil, nil
	}
	s := stateJSON{Reference: p.ed.Reference, Space: p.ed.Space.String(), Frozen: p.ed.Frozen,
		Mode: modeNames[p.ed.Mode], Blend: p.ed.Blend, Weights: p.weights, XRay: p.XRay,
		Components: p.ed.Components, Prior: p.ed.Prior}
	for _, ex := range p.ed.Examples {
		s.Examples = append(s.Examples, exampleJSON{Name: ex.Name, Positions: assets.EncodeVec3s(ex.Positions)})
	}
	for _, hd := range p.ed.Handles {
		s.Handles = append(s.Handles, handleJSON{Name: hd.Name, Vertices: hd.Vertices, Base: assets.EncodeVec3s(hd.Base), Offset: hd.Offset, Fixed: hd.Fixed})
	}
	for _, k := range p.ed.Keys {
		kj := keyJSON{Frame: k.Frame}
		for _, o := range k.Offsets {
			kj.Offsets = append(kj.Offsets, o)
		}
		s.Keys = append(s.Keys, kj)
	}
	if p.posed != nil {
		s.Posed = assets.EncodeVec3s(p.posed)
	}
	return json.Marshal(s)
}

// Restore sets the tool's state from a project file: it checks every index and size against
// the active object and names what does not fit.
func (p *Pose) Restore(h tools.Host, raw json.RawMessage) error {
	p.reset(h)
	if p.obj == nil {
		return nil
	}
	s := stateJSON{Reference: -1} // absent: the rest pose
	if err := json.Unmarshal(raw, &s); err != nil {
		return fmt.Errorf("pose tool state: %w", err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("pose tool state: "+format, args...)
	}
	nv, nt := p.obj.Mesh.NumVertices(), p.obj.Mesh.NumTriangles()
	ed := edits{Reference: s.Reference}
	switch s.Space {
	case "nonlinear", "":
		ed.Space = meshik.Nonlinear
	case "linear":
		ed.Space = meshik.Linear
	default:
		return bad("unknown feature space %q", s.Space)
	}
	switch s.Mode {
	case "ik", "":
		ed.Mode = IK
	case "blend":
		ed.Mode = Blend
	default:
		return bad("unknown mode %q", s.Mode)
	}
	for i, ej := range s.Examples {
		pos, err := assets.DecodeVec3s(ej.Positions, fmt.Sprintf("example %d", i))
		if err != nil {
			return bad("%v", err)
		}
		if len(pos) != nv {
			return bad("example %q has %d vertices, %s has %d", ej.Name, len(pos), p.obj.Name, nv)
		}
		ed.Examples = append(ed.Examples, example{Name: ej.Name, Positions: pos})
	}
	if ed.Reference < -1 || ed.Reference >= len(ed.Examples) {
		return bad("reference example %d out of range", ed.Reference)
	}
	for i, hj := range s.Handles {
		base, err := assets.DecodeVec3s(hj.Base, fmt.Sprintf("handle %d", i))
		if err != nil {
			return bad("%v", err)
		}
		if len(base) != len(hj.Vertices) || len(base) == 0 {
			return bad("handle %q has %d vertices and %d base positions", hj.Name, len(hj.Vertices), len(base))
		}
		for _, v := range hj.Vertices {
			if v < 0 || v >= nv {
				return bad("handle %q: vertex %d does not exist (%d vertices)", hj.Name, v, nv)
			}
		}
		ed.Handles = append(ed.Handles, handle{Name: hj.Name, Vertices: hj.Vertices, Base: base, Offset: hj.Offset, Fixed: hj.Fixed})
	}
	for _, j := range s.Frozen {
		if j < 0 || j >= nt {
			return bad("frozen triangle %d does not exist (%d triangles)", j, nt)
		}
	}
	ed.Frozen = s.Frozen
	ed.Blend = s.Blend
	if s.Components < 0 {
		return bad("components %d: want 0 (automatic) or more", s.Components)
	}
	if math.IsNaN(s.Prior) || math.IsInf(s.Prior, 0) || math.Abs(s.Prior) > meshik.MaxStrength {
		return bad("prior %v: want a number of size at most %g", s.Prior, meshik.MaxStrength)
	}
	ed.Components, ed.Prior = s.Components, s.Prior
	for _, kj := range s.Keys {
		if len(kj.Offsets) != len(ed.Handles) {
			return bad("key at frame %d has %d offsets for %d handles", kj.Frame, len(kj.Offsets), len(ed.Handles))
		}
		k := key{Frame: kj.Frame}
		for _, o := range kj.Offsets {
			k.Offsets = append(k.Offsets, o)
		}
		ed.Keys = append(ed.Keys, k)
	}
	if s.Posed != "" {
		posed, err := assets.DecodeVec3s(s.Posed, "posed positions")
		if err != nil {
			return bad("%v", err)
		}
		if len(posed) != nv {
			return bad("the saved pose has %d vertices, %s has %d", len(posed), p.obj.Name, nv)
		}
		p.posed = posed
	}
	p.ed = ed
	p.weights = nil
	if len(s.Weights) == len(ed.Examples) { // older files held the linear space's own weights
		p.weights = s.Weights
	}
	p.XRay = s.XRay
	if len(ed.Handles) > 0 || ed.Mode == Blend {
		p.post(h, hold)
	}
	return nil
}
