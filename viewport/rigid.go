package viewport

import (
	"math"

	"gallop/assets"
)

// RigidScene is a rigid-body animation ready to draw: its objects
// (assets.RigidAnimation.Objects), a colour per vertex of each (the
// animation's body and part colours) and the box around every frame.
// It is immutable once made.
type RigidScene struct {
	Objects []*assets.Object
	Lo, Hi  assets.Vec3
	View    assets.Vec3 // the animation's View
	// FocusLo and FocusHi are the animation's focus box, or Lo and Hi
	// when it has none.
	FocusLo, FocusHi assets.Vec3

	colors [][][3]float32 // per object, per vertex
}

// NewRigidScene evaluates a into a RigidScene; it fails when a does not
// validate.
func NewRigidScene(a *assets.RigidAnimation) (*RigidScene, error) {
	objs, err := a.Objects()
	if err != nil {
		return nil, err
	}
	s := &RigidScene{Objects: objs, View: a.View}
	for i, c := range a.Colors() {
		vc := make([][3]float32, objs[i].Mesh.NumVertices())
		for k := range vc {
			vc[k] = c
		}
		s.colors = append(s.colors, vc)
		lo, hi := assets.Bounds(objs[i].Mesh.Positions)
		if objs[i].Clip != nil {
			lo, hi = objs[i].Clip.Bounds()
		}
		if i == 0 {
			s.Lo, s.Hi = lo, hi
			continue
		}
		for k := range 3 {
			s.Lo[k], s.Hi[k] = min(s.Lo[k], lo[k]), max(s.Hi[k], hi[k])
		}
	}
	s.FocusLo, s.FocusHi = s.Lo, s.Hi
	if a.FocusLo != a.FocusHi {
		s.FocusLo, s.FocusHi = a.FocusLo, a.FocusHi
	}
	return s, nil
}

// NumFrames returns the number of frames of the animation.
func (s *RigidScene) NumFrames() int { return s.Objects[0].NumFrames() }

// Items returns what Render draws for frame f (clamped to the animation),
// keyed by the scene's objects.
func (s *RigidScene) Items(f int) []Item {
	items := make([]Item, len(s.Objects))
	for i, o := range s.Objects {
		items[i] = Item{Key: o, Triangles: o.Mesh.Triangles, Positions: o.PositionsAt(max(0, min(f, o.NumFrames()-1))), Colors: s.colors[i]}
	}
	return items
}

// strobeKey keys a body's copy at one frame of a Strobe picture.
type strobeKey struct {
	obj   *assets.Object
	frame int
}

// Strobe returns what Render draws for a multiple exposure of the
// animation: each body at n frames evenly spaced from the first to the
// last (n ≥ 2; fewer when the animation is shorter), the static parts
// once. It shows a whole motion in one still picture.
func (s *RigidScene) Strobe(n int) []Item {
	nf := s.NumFrames()
	n = max(2, min(n, nf))
	var items []Item
	for i, o := range s.Objects {
		if o.Clip == nil {
			items = append(items, Item{Key: o, Triangles: o.Mesh.Triangles, Positions: o.Mesh.Positions, Colors: s.colors[i]})
			continue
		}
		for k := range n {
			f := k * (nf - 1) / (n - 1)
			items = append(items, Item{Key: strobeKey{o, f}, Triangles: o.Mesh.Triangles, Positions: o.PositionsAt(f), Colors: s.colors[i]})
		}
	}
	return items
}

// FrontYaw and FrontPitch are the direction from which Camera shows a
// RigidScene: from +z, where the 2D scenarios play in the x-y plane, and
// a little above, so depth still shows.
const (
	FrontYaw   = 0
	FrontPitch = math.Pi / 12
)

// Camera returns a camera that frames the whole animation in a view of the
// given aspect ratio, seen from the animation's View direction, or from
// FrontYaw and FrontPitch when it has none.
func (s *RigidScene) Camera(aspect float64) Camera {
	c := s.viewCamera()
	c.Frame(s.Lo, s.Hi, aspect)
	return c
}

// ThumbnailCamera returns a camera for a small picture of the animation:
// seen as Camera sees it, with the focus box (what shows the outcome)
// made as large as the view allows (Camera.Fit), the rest of the scene
// within the clip planes.
func (s *RigidScene) ThumbnailCamera(aspect float64) Camera {
	c := s.viewCamera()
	c.Frame(s.Lo, s.Hi, aspect)
	c.Fit(s.FocusLo, s.FocusHi, aspect)
	return c
}

// viewCamera returns a camera looking from the animation's View.
func (s *RigidScene) viewCamera() Camera {
	c := Camera{Yaw: FrontYaw, Pitch: FrontPitch, FovY: DefaultFovY}
	if v := s.View; v.Len() > 0 {
		c.Yaw = math.Atan2(v[0], v[2])
		c.Pitch = math.Asin(math.Max(-1, math.Min(1, v[1]/v.Len())))
	}
	return c
}
