package viewport

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/bvh"
)

// View is the state of a viewport that does not need OpenGL: its camera,
// size, display style and what picking sees. Picking casts a ray from the
// camera against a bounding volume hierarchy over the shown mesh's triangles;
// the tree is built when the topology changes and refitted when only the
// positions change (a new frame of a clip), and only when a pick needs it.
type View struct {
	Camera Camera
	Style  Style
	// Width, Height are the viewport's size in pixels.
	Width, Height float64

	nav int // mouse button driving the current navigation drag, or -1

	tree      *bvh.Tree
	treeTris  [][3]int
	treePos   []assets.Vec3
	triangles [][3]int
	positions []assets.Vec3

	// nearMark[i] is the VerticesNear call that last reported vertex i
	// (nearCall counts them), so that a vertex of many triangles is
	// reported once without clearing a flag per vertex each call.
	nearMark []uint32
	nearCall uint32
}

// NewView returns a view with a default camera and style.
func NewView() *View {
	v := &View{Style: DefaultStyle(), nav: -1}
	v.Camera.Reset()
	return v
}

// Aspect returns width / height (1 for an empty viewport).
func (v *View) Aspect() float64 {
	if v.Width <= 0 || v.Height <= 0 {
		return 1
	}
	return v.Width / v.Height
}

// SetMesh sets the mesh that picking sees. Passing the same slices again
// costs nothing; the tree is updated lazily at the next pick.
func (v *View) SetMesh(positions []assets.Vec3, triangles [][3]int) {
	v.positions, v.triangles = positions, triangles
}

// PickPositions returns the positions picking sees, SetMesh's (nil
// without a mesh): PickVertex's index is into them.
func (v *View) PickPositions() []assets.Vec3 { return v.positions }

// VerticesNear calls fn, once each and in no set order, with every vertex
// of the mesh picking sees that is a corner of a triangle and lies within
// distance r of point c, with that distance. It visits only the triangles
// of the picking tree whose boxes overlap the cube around the ball, so
// its cost grows with what the ball holds, not with the mesh: a brush dab
// on a mesh of 135,000 vertices touches its few hundred, not all of them.
// A vertex of no triangle is never reported.
func (v *View) VerticesNear(c assets.Vec3, r float64, fn func(i int, d float64)) {
	t := v.ensureTree()
	if t == nil || !(r >= 0) {
		return
	}
	if len(v.nearMark) != len(v.positions) {
		v.nearMark, v.nearCall = make([]uint32, len(v.positions)), 0
	}
	v.nearCall++
	if v.nearCall == 0 { // wrapped: marks of old calls would match
		clear(v.nearMark)
		v.nearCall = 1
	}
	call := v.nearCall
	box := bvh.AABB{Min: c, Max: c}.Expand(r)
	t.Query(box, func(f int) bool {
		for _, i := range v.triangles[f] {
			if v.nearMark[i] == call {
				continue
			}
			v.nearMark[i] = call
			if d := v.positions[i].Sub(c).Len(); d <= r {
				fn(i, d)
			}
		}
		return true
	})
}

func (v *View) ensureTree() *bvh.Tree {
	if len(v.triangles) == 0 || len(v.positions) == 0 {
		return nil
	}
	if v.tree == nil || !assets.Same(v.triangles, v.treeTris) {
		v.tree = bvh.Build(v.positions, v.triangles)
		v.treeTris, v.treePos = v.triangles, v.positions
	} else if !assets.Same(v.positions, v.treePos) {
		v.tree.Refit(v.positions)
		v.treePos = v.positions
	}
	return v.tree
}

// ndc converts viewport pixels to normalised device coordinates.
func (v *View) ndc(x, y float64) (float64, float64) {
	return PixelToNDC(x, y, v.Width, v.Height)
}

// Ray returns the picking ray through pixel (x, y).
func (v *View) Ray(x, y float64) (origin, dir mgl64.Vec3) {
	nx, ny := v.ndc(x, y)
	return v.Camera.Ray(nx, ny, v.Aspect())
}

// ToScreen projects a point to viewport pixels; ok is false when the point
// is behind the camera or outside the depth range.
func (v *View) ToScreen(p mgl64.Vec3) (x, y float64, ok bool) {
	n, ok := v.Camera.Project(p, v.Aspect())
	if !ok {
		return 0, 0, false
	}
	return (n[0] + 1) / 2 * v.Width, (1 - n[1]) / 2 * v.Height, true
}

// PickVertex returns the vertex under pixel (x, y): the corner, nearest on
// screen to the cursor, of the first triangle the camera ray hits.
func (v *View) PickVertex(x, y float64) (int, bool) {
	t := v.ensureTree()
	if t == nil {
		return -1, false
	}
	o, d := v.Ray(x, y)
	hit, ok := t.Intersect(o, d, math.Inf(1))
	if !ok {
		return -1, false
	}
	best, bestD := -1, math.Inf(1)
	for _, vi := range v.triangles[hit.Triangle] {
		sx, sy, ok := v.ToScreen(v.positions[vi])
		if !ok {
			continue
		}
		if d := math.Hypot(sx-x, sy-y); d < bestD {
			best, bestD = vi, d
		}
	}
	return best, best >= 0
}

// VerticesInRect returns, in increasing order, the vertices that project
// inside the pixel rectangle with corners (x0, y0) and (x1, y1). With
// visibleOnly, a vertex hidden behind the surface (the ray from the camera
// to it hits a triangle clearly in front of it) is left out, as in
// Blender's solid mode.
func (v *View) VerticesInRect(x0, y0, x1, y1 float64, visibleOnly bool) []int {
	if x0 > x1 {
		x0, x1 = x1, x0
	}
	if y0 > y1 {
		y0, y1 = y1, y0
	}
	var t *bvh.Tree
	if visibleOnly {
		t = v.ensureTree()
	}
	var out []int
	for i, p := range v.positions {
		x, y, ok := v.ToScreen(p)
		if !ok || x < x0 || x > x1 || y < y0 || y > y1 {
			continue
		}
		if t != nil && v.occluded(t, p, x, y) {
			continue
		}
		out = append(out, i)
	}
	return out
}

// occluded reports whether something lies in front of point p, seen
// through its pixel (x, y): whether the segment from the ray's origin (on
// the near plane) to p crosses a triangle short of p. The tolerance is
// relative to the distance, so vertices on the visible surface count as
// visible.
func (v *View) occluded(t *bvh.Tree, p mgl64.Vec3, x, y float64) bool {
	o, _ := v.Ray(x, y)
	dist := p.Sub(o).Len()
	if dist == 0 {
		return false
	}
	return t.Occluded(o, p, dist*1e-4)
}

// Navigate applies camera navigation for this frame's input, the way
// Blender does it: middle drag orbits, Shift + middle drag pans, Ctrl +
// middle drag zooms, the wheel zooms toward the cursor; Alt + left drag
// orbits (and Alt + Shift + left drag pans) for touchpads. It returns true
// while a navigation drag owns the mouse, so tools ignore that input.
func (v *View) Navigate(in *Input) bool {
	if v.nav >= 0 && !in.Down[v.nav] {
		v.nav = -1
		return true
	}
	if v.nav < 0 && in.Hovered {
		switch {
		case in.Pressed[Middle]:
			v.nav = Middle
		case in.Pressed[Left] && in.Alt:
			v.nav = Left
		}
	}
	if in.Hovered && in.Wheel != 0 && v.nav < 0 {
		nx, ny := v.ndc(in.X, in.Y)
		v.Camera.ZoomToward(in.Wheel, nx, ny, v.Aspect())
	}
	if v.nav < 0 {
		return false
	}
	if in.DX != 0 || in.DY != 0 {
		switch {
		case in.Shift:
			v.Camera.Pan(in.DX, in.DY, v.Height)
		case in.Ctrl:
			nx, ny := v.ndc(v.Width/2, v.Height/2)
			v.Camera.ZoomToward(-in.DY/20, nx, ny, v.Aspect())
		default:
			// 0.5 degree per pixel; the scene turns with the drag, as in
			// Blender (dragging right moves the eye left round the target).
			const perPixel = 0.5 * math.Pi / 180
			v.Camera.Orbit(-in.DX*perPixel, in.DY*perPixel)
		}
	}
	return true
}

// FramePoints frames the camera on the bounding box of points, or does
// nothing for an empty set.
func (v *View) FramePoints(points []mgl64.Vec3) {
	if len(points) == 0 {
		return
	}
	lo, hi := assets.Bounds(points)
	v.FrameBox(lo, hi)
}

// FrameBox frames the camera on a box.
func (v *View) FrameBox(lo, hi mgl64.Vec3) {
	if hi.Sub(lo).Len() == 0 {
		// A single point has no size to frame: centre it, keep the zoom.
		v.Camera.Target = lo
		return
	}
	v.Camera.Frame(lo, hi, v.Aspect())
}
