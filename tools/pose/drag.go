package pose

import (
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/tools"
	"gallop/viewport"
)

// GrabRadius is the radius, in pixels, of a handle's ring: a press inside
// it grabs the handle.
const GrabRadius = 11

// dragState is a handle being dragged.
type dragState struct {
	active  bool
	handle  int
	axis    int // -1: free in the view plane; 0, 1, 2: along x, y, z
	before  edits
	shown   poseView   // the pose when grabbed: undo brings it back
	start   mgl64.Vec3 // the handle's offset when grabbed
	origin  mgl64.Vec3 // its centre when grabbed
	normal  mgl64.Vec3 // the view plane's normal (toward the camera)
	grabbed mgl64.Vec3 // where the mouse ray met the view plane at the grab
}

// Drag turns viewport input into grabbing, dragging and releasing a
// handle (a press within GrabRadius pixels of a handle's centre grabs it;
// the whole drag is one undo step); it returns true when it used the
// input.
func (p *Pose) Drag(h tools.Host, in *viewport.Input) bool {
	v := h.View()
	if !p.drag.active {
		if !in.Pressed[viewport.Left] || !in.Hovered || in.Alt || p.ed.Mode != IK {
			return false
		}
		best, bestD := -1, float64(GrabRadius+3)
		for i := range p.ed.Handles {
			x, y, ok := v.ToScreen(p.handleCentre(h, i))
			if d := math.Hypot(x-in.X, y-in.Y); ok && d < bestD {
				best, bestD = i, d
			}
		}
		if best < 0 {
			return false
		}
		o := p.handleCentre(h, best)
		n := v.Camera.Eye().Sub(v.Camera.Target).Normalize()
		if v.Camera.Ortho || n.Len() == 0 {
			n = v.Camera.Forward().Mul(-1)
		}
		ro, rd := v.Ray(in.X, in.Y)
		hit, ok := planeHit(ro, rd, o, n)
		if !ok {
			return false
		}
		p.hint = ""
		p.drag = dragState{active: true, handle: best, axis: -1, before: p.ed, shown: p.view(), start: p.ed.Handles[best].Offset, origin: o, normal: n, grabbed: hit}
		return true
	}
	if in.Down[viewport.Left] {
		ro, rd := v.Ray(in.X, in.Y)
		var d mgl64.Vec3
		if p.drag.axis >= 0 {
			e := mgl64.Vec3{}
			e[p.drag.axis] = 1
			// The drag's reference is the origin's own ray, so the handle
			// moves from where it was grabbed.
			ox, oy := p.screenOf(h, p.drag.origin)
			o0, d0 := v.Ray(ox, oy)
			s0, ok0 := closestOnLine(p.drag.origin, e, o0, d0)
			s, ok := closestOnLine(p.drag.origin, e, ro, rd)
			if !ok || !ok0 {
				return true
			}
			d = e.Mul(s - s0)
		} else {
			hit, ok := planeHit(ro, rd, p.drag.origin, p.drag.normal)
			if !ok {
				return true
			}
			d = hit.Sub(p.drag.grabbed)
		}
		off := p.drag.start.Add(d)
		if off != p.ed.Handles[p.drag.handle].Offset {
			p.ed.Handles = slices.Clone(p.ed.Handles)
			p.ed.Handles[p.drag.handle].Offset = off
			p.post(h, solve)
		}
		return true
	}
	// Released: the whole drag is one undo step.
	after := p.ed
	p.ed = p.drag.before
	p.drag.active = false
	if after.Handles[p.drag.handle].Offset != p.drag.start {
		h.Do(&editCmd{p: p, h: h, name: "Move " + after.Handles[p.drag.handle].Name, before: p.ed, after: after, shown: p.drag.shown, kind: solve})
	} else {
		p.ed = after
	}
	return true
}

// screenOf projects a point to viewport pixels (for the axis drag's
// reference ray).
func (p *Pose) screenOf(h tools.Host, q mgl64.Vec3) (float64, float64) {
	x, y, _ := h.View().ToScreen(q)
	return x, y
}

// planeHit intersects the ray o + t·d with the plane through c with normal
// n.
func planeHit(o, d, c, n mgl64.Vec3) (mgl64.Vec3, bool) {
	den := d.Dot(n)
	if math.Abs(den) < 1e-12 {
		return mgl64.Vec3{}, false
	}
	t := c.Sub(o).Dot(n) / den
	return o.Add(d.Mul(t)), true
}

// closestOnLine returns s such that c + s·e is the point of the line
// closest to the ray o + t·d.
func closestOnLine(c, e, o, d mgl64.Vec3) (float64, bool) {
	w := c.Sub(o)
	a, b, cc := e.Dot(e), e.Dot(d), d.Dot(d)
	den := a*cc - b*b
	if math.Abs(den) < 1e-12*a*cc {
		return 0, false // the axis points along the ray
	}
	return (b*d.Dot(w) - cc*e.Dot(w)) / den, true
}

// Dragging reports whether a handle is being dragged, and which.
func (p *Pose) Dragging() (handle int, ok bool) { return p.drag.handle, p.drag.active }

// LockAxis restricts the drag in progress to world axis 0, 1 or 2 (x, y,
// z); locking the axis already locked frees the drag again, as in
// Blender. It returns false when no handle is being dragged.
func (p *Pose) LockAxis(axis int) bool {
	if !p.drag.active {
		return false
	}
	if p.drag.axis == axis {
		p.drag.axis = -1
	} else {
		p.drag.axis = axis
	}
	return true
}
