package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

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
	t.addObstacle(h, "Add sphere", Obstacle{Kind: ObstacleSphere, Center: c, Radius: 0.1 * hi.Sub(lo).Len()})
}

// AddPlane adds the ground just below the lowest point of the clip (1% of
// its diagonal below it).
func (t *Synth) AddPlane(h tools.Host) {
	lo, hi, ok := inputBounds(h.Object())
	if !ok {
		return
	}
	t.addObstacle(h, "Add ground", Obstacle{Kind: ObstaclePlane, Height: lo[1] - 0.01*hi.Sub(lo).Len()})
}

// AddObject adds the document's object named name as an obstacle.
func (t *Synth) AddObject(h tools.Host, name string) {
	t.addObstacle(h, "Add obstacle "+name, Obstacle{Kind: ObstacleObject, Object: name})
}

func (t *Synth) addObstacle(h tools.Host, label string, o Obstacle) {
	t.editScene(h, label, func(s *sceneState) { s.obstacles = append(s.obstacles, o) })
}

// RemoveObstacle removes obstacle i.
func (t *Synth) RemoveObstacle(h tools.Host, i int) {
	if i >= 0 && i < len(t.Obstacles) {
		t.editScene(h, "Remove obstacle", func(s *sceneState) { s.obstacles = slices.Delete(s.obstacles, i, i+1) })
	}
}

// AddTarget asks for input frame input (counted from 0; the document's
// frame when the artist picked it) at output frame output. A frame
// outside the clip or outside the variations' length is an error, said
// at once in the frame numbers the artist sees (from 1), and adds
// nothing.
func (t *Synth) AddTarget(h tools.Host, input, output int) {
	tg := synth.Target{Input: input, Output: output}
	if err := t.checkTarget(h, tg); err != nil {
		h.Error(err)
		return
	}
	t.editScene(h, fmt.Sprintf("Add target %d at %d", input+1, output+1), func(s *sceneState) { s.targets = append(s.targets, tg) })
}

// checkTarget checks a target against the active object's clip and the
// output's length of the settings of now.
func (t *Synth) checkTarget(h tools.Host, tg synth.Target) error {
	o := h.Object()
	if o == nil || o.Clip == nil {
		return errors.New("synthesize: no clip to target a frame of")
	}
	n, out := o.Clip.NumFrames(), int(math.Round(t.Settings.Seconds*o.Clip.FPS))
	if tg.Input < 0 || tg.Input >= n || tg.Output < 0 || tg.Output >= out {
		return fmt.Errorf("synthesize: target input frame %d at output frame %d: the clip has frames 1 to %d, the variations (%g s at %g fps) frames 1 to %d", tg.Input+1, tg.Output+1, n, t.Settings.Seconds, o.Clip.FPS, out)
	}
	return nil
}

// checkTargets checks every target as AddTarget does (the settings may
// have changed since), before a generation or a farm run starts.
func (t *Synth) checkTargets(h tools.Host) error {
	for _, tg := range t.Targets {
		if err := t.checkTarget(h, tg); err != nil {
			return err
		}
	}
	return nil
}

// RemoveTarget removes target i.
func (t *Synth) RemoveTarget(h tools.Host, i int) {
	if i >= 0 && i < len(t.Targets) {
		t.editScene(h, "Remove target", func(s *sceneState) { s.targets = slices.Delete(s.targets, i, i+1) })
	}
}

// sceneState is the targets and obstacles, as an undo step keeps them.
type sceneState struct {
	targets   []synth.Target
	obstacles []Obstacle
}

// scene returns a copy of the targets and obstacles of now.
func (t *Synth) scene() sceneState {
	return sceneState{targets: slices.Clone(t.Targets), obstacles: slices.Clone(t.Obstacles)}
}

// editScene changes a copy of the targets and obstacles and makes it
// theirs as one undoable step named label.
func (t *Synth) editScene(h tools.Host, label string, change func(s *sceneState)) {
	after := t.scene()
	change(&after)
	h.Do(&sceneCmd{t: t, label: label, before: t.scene(), after: after})
}

// BeginSceneDrag remembers the targets and obstacles as a field that
// edits an obstacle in place (a drag of its centre) becomes active;
// EndSceneDrag makes the change since one undoable step.
func (t *Synth) BeginSceneDrag() {
	s := t.scene()
	t.dragFrom = &s
}

// EndSceneDrag: see BeginSceneDrag.
func (t *Synth) EndSceneDrag(h tools.Host, label string) {
	if t.dragFrom == nil {
		return
	}
	before, after := *t.dragFrom, t.scene()
	t.dragFrom = nil
	if slices.Equal(before.targets, after.targets) && slices.Equal(before.obstacles, after.obstacles) {
		return // clicked, not changed
	}
	h.Do(&sceneCmd{t: t, label: label, before: before, after: after})
}

// sceneCmd is the undoable edit of the targets and obstacles.
type sceneCmd struct {
	t             *Synth
	label         string
	before, after sceneState
}

func (c *sceneCmd) Name() string { return c.label }
func (c *sceneCmd) Do()          { c.set(c.after) }
func (c *sceneCmd) Undo()        { c.set(c.before) }
func (c *sceneCmd) set(s sceneState) {
	c.t.Targets, c.t.Obstacles = slices.Clone(s.targets), slices.Clone(s.obstacles)
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
