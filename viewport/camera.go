package viewport

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Defaults of a Camera after Reset.
const (
	DefaultYaw   = math.Pi / 6        // eye 30° round from the +Z axis towards +X
	DefaultPitch = math.Pi / 9        // eye 20° above the horizontal
	DefaultFovY  = 40 * math.Pi / 180 // vertical field of view, about a 50 mm lens
)

// MaxPitch bounds Pitch: the eye goes at most straight above or below
// Target, never over the pole, so the view never turns upside down.
const MaxPitch = math.Pi / 2

// ZoomFactor is the factor by which one zoom step (a wheel notch) divides
// Distance.
const ZoomFactor = 1.2

const (
	frameMargin = 1.05 // Frame leaves 5% around the bounding sphere
	minZoom     = 1e-4 // Distance ≥ minZoom·SceneRadius
	maxZoom     = 1e4  // Distance ≤ maxZoom·SceneRadius
	depthRange  = 1e4  // far/near at most, where the view allows
	clipPad     = 0.01 // clip planes sit 0.01·SceneRadius outside the scene
)

// Camera is an orbit camera in the manner of Blender's turntable view: the
// eye sits at Distance from Target, in the direction given by Yaw about the
// world up axis +Y and Pitch above the horizontal plane through Target, and
// looks at Target with +Y up on screen. All fields are exported, plain and
// JSON-friendly so that project files can save the view.
//
// With b = (cos Pitch·sin Yaw, sin Pitch, cos Pitch·cos Yaw) the unit vector
// from Target to the eye, the camera's frame is
//
//	right = (cos Yaw, 0, −sin Yaw),  up = b × right,  back = b,
//
// which stays orthonormal at Pitch = ±π/2 (looking straight down or up), so
// the view never degenerates or flips. View space is right-handed with the
// camera looking along −Z, and clip space follows OpenGL (NDC z in [−1, 1]).
//
// The orthographic view shows the same region of the plane through Target
// as the perspective one, 2·Distance·tan(FovY/2) high, so toggling Ortho
// keeps the object at Target the same size. Zooming changes Distance in
// both modes.
//
// The near and far planes are not stored: they follow from the eye position
// and the bounding sphere of the scene (SceneCenter, SceneRadius), set by
// Frame or SetScene, so that depth precision suits meshes of any scale.
type Camera struct {
	Target   mgl64.Vec3 // the point orbited around, at the centre of the view
	Distance float64    // from the eye to Target, > 0
	Yaw      float64    // radians about +Y; 0 puts the eye on the +Z side of Target
	Pitch    float64    // radians above the horizontal plane through Target, in [−MaxPitch, MaxPitch]
	FovY     float64    // vertical field of view in radians, in (0, π)
	Ortho    bool       // orthographic rather than perspective projection

	SceneCenter mgl64.Vec3 // centre of the scene's bounding sphere
	SceneRadius float64    // radius of the scene's bounding sphere; 0 if unknown
}

// NewCamera returns a camera in its Reset state, framing the box [−1, 1]³.
func NewCamera() *Camera {
	c := &Camera{}
	c.SetScene(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	c.Reset()
	return c
}

// Validate checks that the fields describe a usable view: all finite,
// Distance > 0, FovY in (0, π), |Pitch| ≤ MaxPitch and SceneRadius ≥ 0. A
// project file's camera is validated when loaded.
func (c *Camera) Validate() error {
	for _, f := range []struct {
		name string
		x    float64
	}{
		{"target x", c.Target[0]}, {"target y", c.Target[1]}, {"target z", c.Target[2]},
		{"distance", c.Distance}, {"yaw", c.Yaw}, {"pitch", c.Pitch}, {"field of view", c.FovY},
		{"scene centre x", c.SceneCenter[0]}, {"scene centre y", c.SceneCenter[1]},
		{"scene centre z", c.SceneCenter[2]}, {"scene radius", c.SceneRadius},
	} {
		if math.IsNaN(f.x) || math.IsInf(f.x, 0) {
			return fmt.Errorf("camera: %s is %v", f.name, f.x)
		}
	}
	switch {
	case !(c.Distance > 0):
		return fmt.Errorf("camera: distance %g is not positive", c.Distance)
	case !(c.FovY > 0 && c.FovY < math.Pi):
		return fmt.Errorf("camera: field of view %g rad is outside (0, π)", c.FovY)
	case math.Abs(c.Pitch) > MaxPitch:
		return fmt.Errorf("camera: pitch %g rad is outside [−π/2, π/2]", c.Pitch)
	case c.SceneRadius < 0:
		return fmt.Errorf("camera: scene radius %g is negative", c.SceneRadius)
	}
	return nil
}

// Reset restores the default direction and field of view (DefaultYaw,
// DefaultPitch, DefaultFovY) and frames the scene's bounding sphere (or, if
// none is set, looks at the origin from distance 5). It keeps Ortho and the
// scene sphere.
func (c *Camera) Reset() {
	c.Yaw, c.Pitch, c.FovY = DefaultYaw, DefaultPitch, DefaultFovY
	if !(c.SceneRadius > 0) {
		c.Target, c.Distance = mgl64.Vec3{}, 5
		return
	}
	c.frameSphere(c.SceneCenter, c.SceneRadius, 1)
}

// SetScene sets the scene's bounding sphere to the one circumscribing the
// box [lo, hi], which the clip planes and zoom limits follow, without moving
// the camera. An empty or non-finite box leaves the sphere unknown (radius
// 0); a box of zero size gets a radius of 10⁻³ of its distance from the
// origin, or 10⁻³ at the origin.
func (c *Camera) SetScene(lo, hi mgl64.Vec3) {
	center, radius, ok := boxSphere(lo, hi)
	if !ok {
		c.SceneCenter, c.SceneRadius = mgl64.Vec3{}, 0
		return
	}
	c.SceneCenter, c.SceneRadius = center, radius
}

// Frame sets the scene to the box [lo, hi] (see SetScene) and moves the
// camera, keeping its direction, so the box fills the view: Target goes to
// the box's centre and Distance becomes 1.05·R/sin α for the box's
// circumscribed sphere of radius R and α the smaller of the vertical and
// horizontal half-angles of view, so the sphere, hence the box, lies inside
// the view in perspective and in orthographic projection alike. aspect is
// width/height. An empty or non-finite box frames [−1, 1]³.
func (c *Camera) Frame(lo, hi mgl64.Vec3, aspect float64) {
	center, radius, ok := boxSphere(lo, hi)
	if !ok {
		center, radius, _ = boxSphere(mgl64.Vec3{-1, -1, -1}, mgl64.Vec3{1, 1, 1})
	}
	c.SceneCenter, c.SceneRadius = center, radius
	c.frameSphere(center, radius, aspect)
}

// fitMargin is the part of the view Fit lets the box's projection take,
// in each direction.
const fitMargin = 0.95

// Fit moves the camera, keeping its direction, so that the box [lo, hi]
// is as large as the view allows: Target goes to the box's centre and
// Distance is the smallest at which every corner projects within 95% of
// the view's half-width and half-height. For a corner at (x, y, z) in the
// camera's (right, up, back) frame about Target, perspective needs
// Distance ≥ z + max(|x|/(m·t·aspect), |y|/(m·t)) with t = tan(FovY/2)
// and m = 0.95; orthographic needs Distance·t ≥ max(|x|/(m·aspect), |y|/m).
// A flat box seen from above fills the view where Frame's bounding sphere
// would leave it a third. The scene sphere (clip planes) is not changed.
// An empty or non-finite box leaves the camera as it is.
func (c *Camera) Fit(lo, hi mgl64.Vec3, aspect float64) {
	center, _, ok := boxSphere(lo, hi)
	if !ok {
		return
	}
	aspect = sanitizeAspect(aspect)
	t := math.Tan(c.FovY / 2)
	right, up, back := c.frame()
	d := 0.0
	for i := range 8 {
		corner := mgl64.Vec3{lo[0], lo[1], lo[2]}
		for k := range 3 {
			if i&(1<<k) != 0 {
				corner[k] = hi[k]
			}
		}
		p := corner.Sub(center)
		x, y, z := math.Abs(p.Dot(right)), math.Abs(p.Dot(up)), p.Dot(back)
		need := max(x/(fitMargin*aspect), y/fitMargin) / t
		if !c.Ortho {
			need += z
		}
		d = max(d, need)
	}
	if d > 0 {
		c.Target, c.Distance = center, d
	}
}

// boxSphere returns the sphere circumscribing [lo, hi], with the radius of a
// point box set as documented on SetScene, or ok = false for an empty or
// non-finite box.
func boxSphere(lo, hi mgl64.Vec3) (center mgl64.Vec3, radius float64, ok bool) {
	for k := range 3 {
		if !(lo[k] <= hi[k]) || math.IsInf(lo[k], 0) || math.IsInf(hi[k], 0) {
			return mgl64.Vec3{}, 0, false
		}
	}
	center = lo.Add(hi).Mul(0.5)
	radius = hi.Sub(lo).Len() / 2
	if !(radius > 0) {
		radius = 1e-3 * max(center.Len(), 1)
	}
	return center, radius, true
}

// frameSphere points the camera at center from the distance at which a
// sphere of the given radius fills the view (see Frame).
func (c *Camera) frameSphere(center mgl64.Vec3, radius, aspect float64) {
	aspect = sanitizeAspect(aspect)
	half := c.FovY / 2
	alpha := min(half, math.Atan(aspect*math.Tan(half)))
	c.Target = center
	c.Distance = frameMargin * radius / math.Sin(alpha)
}

// sanitizeAspect returns aspect, or 1 for a non-positive or non-finite one
// (a collapsed viewport), so that no NaN reaches the screen.
func sanitizeAspect(aspect float64) float64 {
	if aspect > 0 && !math.IsInf(aspect, 1) {
		return aspect
	}
	return 1
}

// frame returns the camera's orthonormal frame: right and up span the image
// plane and back points from Target to the eye (see Camera).
func (c *Camera) frame() (right, up, back mgl64.Vec3) {
	sy, cy := math.Sincos(c.Yaw)
	sp, cp := math.Sincos(c.Pitch)
	right = mgl64.Vec3{cy, 0, -sy}
	up = mgl64.Vec3{-sp * sy, cp, -sp * cy}
	back = mgl64.Vec3{cp * sy, sp, cp * cy}
	return
}

// Forward returns the unit viewing direction, from the eye towards Target.
func (c *Camera) Forward() mgl64.Vec3 {
	_, _, back := c.frame()
	return back.Mul(-1)
}

// Right returns the unit direction to the right of the image, horizontal.
func (c *Camera) Right() mgl64.Vec3 {
	right, _, _ := c.frame()
	return right
}

// Eye returns the position of the eye, Target + Distance·back.
func (c *Camera) Eye() mgl64.Vec3 {
	_, _, back := c.frame()
	return c.Target.Add(back.Mul(c.Distance))
}

// View returns the world-to-view matrix: the rotation taking (right, up,
// back) to the axes (x, y, z), after translating the eye to the origin.
func (c *Camera) View() mgl64.Mat4 {
	r, u, b := c.frame()
	e := c.Target.Add(b.Mul(c.Distance))
	return mgl64.Mat4{
		r[0], u[0], b[0], 0,
		r[1], u[1], b[1], 0,
		r[2], u[2], b[2], 0,
		-r.Dot(e), -u.Dot(e), -b.Dot(e), 1,
	}
}

// halfHeight returns half the height of the view at Target's depth,
// Distance·tan(FovY/2): the half-height of the orthographic view volume.
func (c *Camera) halfHeight() float64 {
	return c.Distance * math.Tan(c.FovY/2)
}

// ClipPlanes returns the distances of the near and far clip planes along the
// viewing direction. For a scene sphere of radius R whose centre lies at
// depth z in front of the eye, they bound [z − R, z + R] with a margin of
// 0.01·R, and always include Target. In perspective the near plane is kept
// above min(far·10⁻⁴, Distance/10), so that far/near, which sets the depth
// buffer's precision, stays at most 10⁴ unless the camera is zoomed in to
// less than 10⁻³ of the scene's depth; near is then Distance/10, keeping
// detail around Target precise. In orthographic projection depth is linear
// and near may be negative (geometry behind the eye stays visible). Without
// a scene sphere, a sphere of radius Distance about Target stands in.
func (c *Camera) ClipPlanes() (near, far float64) {
	center, radius := c.SceneCenter, c.SceneRadius
	if !(radius > 0) {
		center, radius = c.Target, c.Distance
	}
	_, _, back := c.frame()
	eye := c.Target.Add(back.Mul(c.Distance))
	z := -center.Sub(eye).Dot(back)
	pad := clipPad * radius
	near, far = z-radius-pad, z+radius+pad
	if c.Ortho {
		return min(near, c.Distance-pad), max(far, c.Distance+pad)
	}
	far = max(far, c.Distance*(1+clipPad))
	near = max(near, min(far/depthRange, c.Distance/10))
	return near, far
}

// Projection returns the view-to-clip matrix for a viewport of the given
// aspect ratio (width/height): OpenGL's perspective projection with the
// vertical field of view FovY, or the orthographic one of half-height
// Distance·tan(FovY/2), with the near and far planes of ClipPlanes.
func (c *Camera) Projection(aspect float64) mgl64.Mat4 {
	aspect = sanitizeAspect(aspect)
	near, far := c.ClipPlanes()
	if c.Ortho {
		h := c.halfHeight()
		return mgl64.Ortho(-h*aspect, h*aspect, -h, h, near, far)
	}
	return mgl64.Perspective(c.FovY, aspect, near, far)
}

// Orbit turns the eye about Target, turntable style: yaw by dYaw radians
// about the world's +Y axis (positive moves the eye counter-clockwise seen
// from above) and pitch by dPitch radians (positive raises the eye), with
// Pitch clamped to [−MaxPitch, MaxPitch]. Distance and Target are unchanged.
// The caller scales mouse motion to radians.
func (c *Camera) Orbit(dYaw, dPitch float64) {
	c.Yaw = math.Remainder(c.Yaw+dYaw, 2*math.Pi)
	c.Pitch = max(-MaxPitch, min(c.Pitch+dPitch, MaxPitch))
}

// Pan moves Target (and with it the eye) in the image plane so that the
// scene follows a mouse drag of (dx, dy) pixels, x to the right and y down,
// in a viewport viewportHeight pixels high: a point at Target's depth moves
// exactly with the cursor (in orthographic projection every point does).
// The world size of a pixel at that depth is 2·Distance·tan(FovY/2)
// divided by the viewport height. A non-positive height does nothing.
func (c *Camera) Pan(dx, dy, viewportHeight float64) {
	if !(viewportHeight > 0) {
		return
	}
	r, u, _ := c.frame()
	k := 2 * c.halfHeight() / viewportHeight
	c.Target = c.Target.Add(r.Mul(-dx * k)).Add(u.Mul(dy * k))
}

// ZoomToward zooms by steps wheel notches (positive zooms in) toward the
// point under the cursor at NDC (ndcX, ndcY) in a viewport of the given
// aspect ratio. Distance is divided by ZoomFactor per step, clamped to
// [10⁻⁴, 10⁴] times the scene radius, and the camera is scaled about the
// point Q of the plane through Target under the cursor: with f the ratio of
// new to old distance, Target ← Q + f·(Target − Q) and Distance ← f·Distance.
// This homothety fixes Q, so Q stays under the cursor, in perspective and
// orthographic projection alike; in perspective the eye moves along the
// cursor's ray, so every point under the cursor stays there.
func (c *Camera) ZoomToward(steps, ndcX, ndcY, aspect float64) {
	aspect = sanitizeAspect(aspect)
	d := c.Distance * math.Pow(ZoomFactor, -steps)
	if radius := c.SceneRadius; radius > 0 {
		d = max(minZoom*radius, min(d, maxZoom*radius))
	}
	if !(d > 0) || math.IsInf(d, 1) {
		return
	}
	f := d / c.Distance
	r, u, _ := c.frame()
	h := c.halfHeight()
	q := c.Target.Add(r.Mul(ndcX * aspect * h)).Add(u.Mul(ndcY * h))
	c.Target = q.Add(c.Target.Sub(q).Mul(f))
	c.Distance = d
}

// Ray returns the picking ray through the point at NDC (ndcX, ndcY) of a
// viewport of the given aspect ratio: origin is that point on the near
// plane, dir the unit direction along which it sees. In perspective the
// ray passes through the eye; in orthographic projection all rays are
// parallel to Forward(). Every point origin + t·dir, t ≥ 0, projects to
// (ndcX, ndcY).
func (c *Camera) Ray(ndcX, ndcY, aspect float64) (origin, dir mgl64.Vec3) {
	aspect = sanitizeAspect(aspect)
	r, u, b := c.frame()
	eye := c.Target.Add(b.Mul(c.Distance))
	near, _ := c.ClipPlanes()
	if c.Ortho {
		h := c.halfHeight()
		origin = eye.Add(r.Mul(ndcX * aspect * h)).Add(u.Mul(ndcY * h)).Sub(b.Mul(near))
		return origin, b.Mul(-1)
	}
	t := math.Tan(c.FovY / 2)
	v := r.Mul(ndcX * aspect * t).Add(u.Mul(ndcY * t)).Sub(b) // the point at depth 1
	return eye.Add(v.Mul(near)), v.Normalize()
}

// Project returns the normalized device coordinates of the world point p in
// a viewport of the given aspect ratio, and whether p is inside the view
// volume (all three coordinates in [−1, 1]). For a point at or behind the
// eye in perspective, which has no image, it returns the zero vector and
// false; for other points outside the view the NDC are still meaningful
// (for drawing handles that leave the screen).
func (c *Camera) Project(p mgl64.Vec3, aspect float64) (ndc mgl64.Vec3, visible bool) {
	clip := c.Projection(aspect).Mul4(c.View()).Mul4x1(p.Vec4(1))
	if !(clip[3] > 0) {
		return mgl64.Vec3{}, false
	}
	ndc = clip.Vec3().Mul(1 / clip[3])
	visible = math.Abs(ndc[0]) <= 1 && math.Abs(ndc[1]) <= 1 && math.Abs(ndc[2]) <= 1
	return ndc, visible
}

// PixelToNDC converts the position (x, y) in a viewport width×height pixels
// large, origin at the top-left corner and y down (as mouse positions come),
// to normalized device coordinates, origin at the centre and y up: the
// viewport's corners map to ±1.
func PixelToNDC(x, y, width, height float64) (ndcX, ndcY float64) {
	return 2*x/width - 1, 1 - 2*y/height
}

// NDCToPixel is the inverse of PixelToNDC.
func NDCToPixel(ndcX, ndcY, width, height float64) (x, y float64) {
	return (ndcX + 1) * width / 2, (1 - ndcY) * height / 2
}

// SideOffset returns where a copy of the box lo–hi goes to be seen beside
// it (a result compared with the original): along the camera's horizontal
// right direction, by the width of the box seen along it plus a quarter,
// so that the two boxes do not overlap on screen (they would along a
// fixed axis: horse-gallop runs along z, and the default camera looks
// from 30° off z).
func (c *Camera) SideOffset(lo, hi mgl64.Vec3) mgl64.Vec3 {
	right := c.Right()
	width := 0.0
	for k := range 3 {
		width += math.Abs(right[k]) * (hi[k] - lo[k])
	}
	return right.Mul(1.25 * width)
}
