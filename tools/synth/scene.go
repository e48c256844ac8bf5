package synth

import (
	"encoding/json"
	"fmt"
	"math"

	"gallop/assets"
	"gallop/internal/finite"
	"gallop/solver/synth"
	"gallop/tools"
	"gallop/viewport"
)

// ObstacleKind is what an obstacle is.
type ObstacleKind string

const (
	// ObstacleSphere is a ball of Radius at Center.
	ObstacleSphere ObstacleKind = "sphere"
	// ObstaclePlane is the ground: everything below the horizontal plane
	// at height Height (y up).
	ObstaclePlane ObstacleKind = "plane"
	// ObstacleObject is the object of the document named Object, at its
	// first frame.
	ObstacleObject ObstacleKind = "object"
)

// Obstacle is a scene object the variations keep out of, as the artist
// set it up.
type Obstacle struct {
	Kind   ObstacleKind `json:"kind"`
	Center assets.Vec3  `json:"center,omitempty"`
	Radius float64      `json:"radius,omitempty"`
	Height float64      `json:"height,omitempty"`
	Object string       `json:"object,omitempty"`
}

// solver returns the solver's obstacle.
func (o Obstacle) solver(h tools.Host) (synth.Obstacle, error) {
	switch o.Kind {
	case ObstacleSphere:
		if !finite.Vec3(o.Center) || !(o.Radius > 0) || math.IsInf(o.Radius, 0) {
			return nil, fmt.Errorf("a sphere needs a finite centre and a positive radius (centre %v, radius %g)", o.Center, o.Radius)
		}
		return synth.Sphere{Center: o.Center, Radius: o.Radius}, nil
	case ObstaclePlane:
		if !finite.Float(o.Height) {
			return nil, fmt.Errorf("the plane's height %g is not a number", o.Height)
		}
		return synth.Plane{Point: assets.Vec3{0, o.Height, 0}, Normal: assets.Vec3{0, 1, 0}}, nil
	case ObstacleObject:
		for _, d := range h.Objects() {
			if d.Name == o.Object && d != h.Object() {
				return synth.NewMeshObstacle(d.PositionsAt(0), d.Mesh.Triangles)
			}
		}
		return nil, fmt.Errorf("the document has no other object named %q", o.Object)
	}
	return nil, fmt.Errorf("unknown obstacle kind %q", o.Kind)
}

// Label says what o is, for the panel.
func (o Obstacle) Label() string {
	switch o.Kind {
	case ObstacleSphere:
		return fmt.Sprintf("sphere of radius %.3g at (%.3g, %.3g, %.3g)", o.Radius, o.Center[0], o.Center[1], o.Center[2])
	case ObstaclePlane:
		return fmt.Sprintf("ground plane at height %.3g", o.Height)
	}
	return "object " + o.Object
}

// inputBounds returns the box of the active object's clip over all its
// frames, ok false without one.
func inputBounds(o *assets.Object) (lo, hi assets.Vec3, ok bool) {
	if o == nil || o.Clip == nil {
		return lo, hi, false
	}
	lo = assets.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = lo.Mul(-1)
	for _, f := range o.Clip.Frames {
		for _, p := range f {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
	}
	return lo, hi, true
}

// AddSphere adds a ball where the active object is at the current frame:
// at the centre of its box, with a radius of a tenth of the clip's
// bounding-box diagonal.
func (t *Synth) AddSphere(h tools.Host) {
	lo, hi, ok := inputBounds(h.Object())
	if !ok {
		return
	}
	var c assets.Vec3
	pos := h.Positions()
	for _, p := range pos {
		c = c.Add(p)
	}
	c = c.Mul(1 / float64(max(1, len(pos))))
	t.Obstacles = append(t.Obstacles, Obstacle{Kind: ObstacleSphere, Center: c, Radius: 0.1 * hi.Sub(lo).Len()})
}

// AddPlane adds the ground just below the lowest point of the clip (1% of
// its diagonal below it).
func (t *Synth) AddPlane(h tools.Host) {
	lo, hi, ok := inputBounds(h.Object())
	if !ok {
		return
	}
	t.Obstacles = append(t.Obstacles, Obstacle{Kind: ObstaclePlane, Height: lo[1] - 0.01*hi.Sub(lo).Len()})
}

// AddObject adds the document's object named name as an obstacle.
func (t *Synth) AddObject(name string) {
	t.Obstacles = append(t.Obstacles, Obstacle{Kind: ObstacleObject, Object: name})
}

// RemoveObstacle removes obstacle i.
func (t *Synth) RemoveObstacle(i int) {
	if i >= 0 && i < len(t.Obstacles) {
		t.Obstacles = append(t.Obstacles[:i], t.Obstacles[i+1:]...)
	}
}

// AddTarget asks for input frame input (the document's frame when the
// artist picked it) at output frame output.
func (t *Synth) AddTarget(input, output int) {
	t.Targets = append(t.Targets, synth.Target{Input: input, Output: output})
}

// RemoveTarget removes target i.
func (t *Synth) RemoveTarget(i int) {
	if i >= 0 && i < len(t.Targets) {
		t.Targets = append(t.Targets[:i], t.Targets[i+1:]...)
	}
}

// obstacleColour is the colour of obstacles in the viewport.
var obstacleColour = [3]float32{0.85, 0.35, 0.3}

// ExtraItems returns the spheres and planes to draw (objects are in the
// scene already).
func (t *Synth) ExtraItems(h tools.Host) []viewport.Item {
	var items []viewport.Item
	lo, hi, ok := inputBounds(h.Object())
	for i := range t.Obstacles {
		o := &t.Obstacles[i]
		switch {
		case o.Kind == ObstacleSphere && o.Radius > 0 && finite.Vec3(o.Center):
			m := assets.SphereMesh(o.Radius, 32)
			pos := make([]assets.Vec3, len(m.Positions))
			for k, p := range m.Positions {
				pos[k] = p.Add(o.Center)
			}
			items = append(items, viewport.Item{Key: o, Triangles: m.Triangles, Positions: pos, Colors: uniform(len(pos))})
		case o.Kind == ObstaclePlane && ok && finite.Float(o.Height):
			// A square twice the clip's extent, centred under it.
			c, r := lo.Add(hi).Mul(0.5), hi.Sub(lo).Len()
			y := o.Height
			pos := []assets.Vec3{{c[0] - r, y, c[2] - r}, {c[0] + r, y, c[2] - r}, {c[0] + r, y, c[2] + r}, {c[0] - r, y, c[2] + r}}
			items = append(items, viewport.Item{Key: o, Triangles: [][3]int{{0, 2, 1}, {0, 3, 2}}, Positions: pos, Colors: uniform(4)})
		}
	}
	return items
}

func uniform(n int) [][3]float32 {
	c := make([][3]float32, n)
	for i := range c {
		c[i] = obstacleColour
	}
	return c
}

// componentColours are the colours of the components; the reference
// bone's vertices are grey.
var componentColours = [][3]float32{
	{0.90, 0.45, 0.20}, {0.25, 0.60, 0.90}, {0.40, 0.80, 0.35}, {0.85, 0.75, 0.25},
	{0.70, 0.40, 0.85}, {0.30, 0.80, 0.80}, {0.90, 0.45, 0.65}, {0.60, 0.60, 0.40},
}

// Display returns the components' colours on the mesh when they are
// shown (nil otherwise); positions are the document's.
func (t *Synth) Display(h tools.Host) ([]assets.Vec3, [][3]float32) {
	r := t.Analysis(h)
	if r == nil || !t.ShowComponents {
		return nil, nil
	}
	cols := make([][3]float32, len(r.Analysis.Vertex))
	for i, k := range r.Analysis.Vertex {
		cols[i] = ComponentColour(k)
	}
	return nil, cols
}

// ComponentColour returns component k's colour (grey for −1, the
// reference bone's vertices).
func ComponentColour(k int) [3]float32 {
	if k < 0 {
		return [3]float32{0.6, 0.6, 0.6}
	}
	return componentColours[k%len(componentColours)]
}

// state is what the project file keeps of the tool: its settings,
// targets, obstacles and display choice (the analysis and variations are
// made again).
type state struct {
	Settings       Settings       `json:"settings"`
	Targets        []synth.Target `json:"targets,omitempty"`
	Obstacles      []Obstacle     `json:"obstacles,omitempty"`
	ShowComponents bool           `json:"show_components,omitempty"`
}

// State returns the tool's state for the project file.
func (t *Synth) State() (json.RawMessage, error) {
	t.defaults()
	return json.Marshal(state{Settings: t.Settings, Targets: t.Targets, Obstacles: t.Obstacles, ShowComponents: t.ShowComponents})
}

// Restore sets the tool's state from a project file.
func (t *Synth) Restore(h tools.Host, raw json.RawMessage) error {
	st := state{Settings: DefaultSettings()}
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("synthesize tool state: %w", err)
	}
	if err := st.Settings.Check(math.MaxInt32); err != nil {
		return fmt.Errorf("synthesize tool state: %w", err)
	}
	for i, o := range st.Obstacles {
		if o.Kind != ObstacleSphere && o.Kind != ObstaclePlane && o.Kind != ObstacleObject {
			return fmt.Errorf("synthesize tool state: obstacle %d: unknown kind %q", i+1, o.Kind)
		}
	}
	t.Sync(h)
	t.Settings, t.Targets, t.Obstacles, t.ShowComponents = st.Settings, st.Targets, st.Obstacles, st.ShowComponents
	return nil
}
