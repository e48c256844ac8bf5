package viewport

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

const aspect = 16.0 / 9

// cameras returns cameras framing boxes at the scales 10⁻³, 1 and 10³, off
// the origin, in both projections, from several directions including the
// pitch limits.
func cameras() []struct {
	name   string
	cam    *Camera
	lo, hi mgl64.Vec3
} {
	var out []struct {
		name   string
		cam    *Camera
		lo, hi mgl64.Vec3
	}
	for _, s := range []float64{1e-3, 1, 1e3} {
		for _, ortho := range []bool{false, true} {
			for _, pitch := range []float64{-MaxPitch, -0.4, 0, 0.3, MaxPitch} {
				c := NewCamera()
				c.Ortho = ortho
				c.Yaw, c.Pitch = 2.5, pitch
				lo := mgl64.Vec3{3, -1, 0.5}.Mul(s)
				hi := mgl64.Vec3{4, 1.5, 1.2}.Mul(s)
				c.Frame(lo, hi, aspect)
				out = append(out, struct {
					name   string
					cam    *Camera
					lo, hi mgl64.Vec3
				}{fmt.Sprintf("scale=%g ortho=%v pitch=%.2f", s, ortho, pitch), c, lo, hi})
			}
		}
	}
	return out
}

// planePoint returns the point of the plane through Target facing the
// camera that lies under the NDC position (x, y).
func planePoint(c *Camera, x, y float64) mgl64.Vec3 {
	o, d := c.Ray(x, y, aspect)
	f := c.Forward()
	t := c.Target.Sub(o).Dot(f) / d.Dot(f)
	return o.Add(d.Mul(t))
}

func TestRayProjectInverse(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range cameras() {
		c := tc.cam
		near, far := c.ClipPlanes()
		for range 200 {
			x, y := 2*rng.Float64()-1, 2*rng.Float64()-1
			o, d := c.Ray(x, y, aspect)
			if !finite.Floats(o[0], o[1], o[2], d[0], d[1], d[2]) || math.Abs(d.Len()-1) > 1e-12 {
				t.Fatalf("%s: Ray(%g, %g) = %v, %v", tc.name, x, y, o, d)
			}
			// Points along the ray, from the near plane to the far one.
			depth := far - near
			for _, frac := range []float64{0, 0.3, 0.9} {
				p := o.Add(d.Mul(frac * depth / d.Dot(c.Forward())))
				ndc, _ := c.Project(p, aspect)
				if math.Abs(ndc[0]-x) > 1e-9 || math.Abs(ndc[1]-y) > 1e-9 || !(math.Abs(ndc[2]) <= 1+1e-9) {
					t.Fatalf("%s: Project(Ray(%g, %g) at %g) = %v", tc.name, x, y, frac, ndc)
				}
				if frac == 0 && math.Abs(ndc[2]+1) > 1e-6 {
					t.Fatalf("%s: the ray's origin has depth %g, want -1 (the near plane)", tc.name, ndc[2])
				}
			}
		}
		// And the other way round: a point in view lies on the ray through its image.
		for range 200 {
			var p mgl64.Vec3
			for k := range 3 {
				p[k] = tc.lo[k] + (tc.hi[k]-tc.lo[k])*rng.Float64()
			}
			ndc, vis := c.Project(p, aspect)
			if !vis {
				continue
			}
			o, d := c.Ray(ndc[0], ndc[1], aspect)
			off := p.Sub(o)
			miss := off.Sub(d.Mul(off.Dot(d))).Len()
			if miss > 1e-9*c.SceneRadius {
				t.Fatalf("%s: %v projects to %v, whose ray misses it by %g", tc.name, p, ndc, miss)
			}
		}
	}
}

func TestZoomTowardKeepsCursorPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range cameras() {
		c := *tc.cam
		for i := range 100 {
			if i%10 == 0 {
				c = *tc.cam // keep the zooms around the scene
			}
			x, y := 2*rng.Float64()-1, 2*rng.Float64()-1
			q := planePoint(&c, x, y)
			// In perspective a point farther along the cursor ray stays too.
			o, d := c.Ray(x, y, aspect)
			beyond := o.Add(d.Mul(q.Sub(o).Len() * 1.1))
			steps := 4 * (rng.Float64() - 0.4)
			if i%10 == 9 {
				steps = 200 * math.Copysign(1, steps) // into the zoom limits
			}
			before := c.Distance
			c.ZoomToward(steps, x, y, aspect)
			if r := c.Distance / c.SceneRadius; !(r >= minZoom*(1-1e-12) && r <= maxZoom*(1+1e-12)) {
				t.Fatalf("%s: distance %g is %g scene radii", tc.name, c.Distance, r)
			}
			if i%10 != 9 {
				want := before * math.Pow(ZoomFactor, -steps)
				want = max(minZoom*c.SceneRadius, min(want, maxZoom*c.SceneRadius))
				if math.Abs(c.Distance-want) > 1e-12*want {
					t.Fatalf("%s: distance %g after %g steps from %g, want %g", tc.name, c.Distance, steps, before, want)
				}
			}
			for _, p := range []mgl64.Vec3{q, beyond} {
				ndc, _ := c.Project(p, aspect)
				if math.Abs(ndc[0]-x) > 1e-8 || math.Abs(ndc[1]-y) > 1e-8 {
					t.Fatalf("%s: zoom by %g steps at (%g, %g) moved %v to %v", tc.name, steps, x, y, p, ndc)
				}
			}
		}
	}
}

func TestPanFollowsCursor(t *testing.T) {
	const w, h = 1280.0, 720.0
	rng := rand.New(rand.NewPCG(5, 6))
	for _, tc := range cameras() {
		c := *tc.cam
		for range 100 {
			px, py := rng.Float64()*w, rng.Float64()*h
			x, y := PixelToNDC(px, py, w, h)
			grabbed := []mgl64.Vec3{planePoint(&c, x, y)}
			if c.Ortho {
				// Every point under the cursor follows it, whatever its depth.
				o, d := c.Ray(x, y, aspect)
				grabbed = append(grabbed, o.Add(d.Mul(c.Distance*0.7)))
			}
			dx, dy := 200*(rng.Float64()-0.5), 200*(rng.Float64()-0.5)
			dist := c.Distance
			c.Pan(dx, dy, h)
			if c.Distance != dist {
				t.Fatalf("%s: Pan changed the distance", tc.name)
			}
			for _, p := range grabbed {
				ndc, _ := c.Project(p, aspect)
				qx, qy := NDCToPixel(ndc[0], ndc[1], w, h)
				if math.Abs(qx-(px+dx)) > 1e-6 || math.Abs(qy-(py+dy)) > 1e-6 {
					t.Fatalf("%s: drag by (%g, %g) from (%g, %g) moved the grabbed point to (%g, %g)",
						tc.name, dx, dy, px, py, qx, qy)
				}
			}
		}
	}
	c := NewCamera()
	before := *c
	c.Pan(10, 10, 0)
	if *c != before {
		t.Error("Pan in a viewport of height 0 moved the camera")
	}
}

func TestOrbit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	c := NewCamera()
	c.Frame(mgl64.Vec3{-2, 0, -1}, mgl64.Vec3{1, 3, 2}, aspect)
	target, dist := c.Target, c.Distance
	for i := range 2000 {
		dy, dp := 3*rng.NormFloat64(), 2*rng.NormFloat64()
		if i%50 == 0 {
			dp = 100 * math.Copysign(1, dp) // hard against a pitch limit
		}
		c.Orbit(dy, dp)
		if c.Target != target || c.Distance != dist {
			t.Fatalf("Orbit moved the target or changed the distance")
		}
		if math.Abs(c.Pitch) > MaxPitch || math.Abs(c.Yaw) > math.Pi {
			t.Fatalf("yaw %g, pitch %g out of range", c.Yaw, c.Pitch)
		}
		if d := c.Eye().Sub(c.Target).Len(); math.Abs(d-dist) > 1e-12*dist {
			t.Fatalf("eye at %g from the target, want %g", d, dist)
		}
		checkView(t, c)
	}
}

// checkView checks that the view matrix is a rigid motion taking the eye to
// the origin and Target onto the −Z axis, with no NaN anywhere.
func checkView(t *testing.T, c *Camera) {
	t.Helper()
	v := c.View()
	p := c.Projection(aspect)
	for i := range 16 {
		if !finite.Floats(v[i], p[i]) {
			t.Fatalf("yaw %g pitch %g: non-finite matrices\n%v\n%v", c.Yaw, c.Pitch, v, p)
		}
	}
	r := v.Mat3()
	if d := r.Mul3(r.Transpose()).Sub(mgl64.Ident3()); math.Abs(d.Det()) > 1e-12 || maxAbs(d[:]) > 1e-12 {
		t.Fatalf("yaw %g pitch %g: view rotation is not orthonormal: %v", c.Yaw, c.Pitch, r)
	}
	if det := r.Det(); math.Abs(det-1) > 1e-12 {
		t.Fatalf("yaw %g pitch %g: view rotation has determinant %g", c.Yaw, c.Pitch, det)
	}
	e := v.Mul4x1(c.Eye().Vec4(1))
	g := v.Mul4x1(c.Target.Vec4(1))
	tol := 1e-12 * (c.Distance + c.Target.Len())
	if e.Vec3().Len() > tol || math.Abs(g[0]) > tol || math.Abs(g[1]) > tol || math.Abs(g[2]+c.Distance) > tol {
		t.Fatalf("yaw %g pitch %g: view maps eye to %v and target to %v", c.Yaw, c.Pitch, e, g)
	}
	// Screen up is world +Y unless looking straight down or up.
	if math.Abs(c.Pitch) < MaxPitch-1e-6 {
		up := mgl64.Vec3{v[1], v[5], v[9]} // second row: the camera's up in world space
		if up[1] <= 0 {
			t.Fatalf("yaw %g pitch %g: the view is upside down (up = %v)", c.Yaw, c.Pitch, up)
		}
	}
}

func maxAbs(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

func TestPitchLimits(t *testing.T) {
	for _, pitch := range []float64{MaxPitch, -MaxPitch} {
		for _, ortho := range []bool{false, true} {
			c := NewCamera()
			c.Ortho = ortho
			c.Orbit(0.3, pitch*3)
			if c.Pitch != pitch {
				t.Fatalf("pitch %g, want the limit %g", c.Pitch, pitch)
			}
			checkView(t, c)
			o, d := c.Ray(0.3, -0.2, aspect)
			ndc, vis := c.Project(c.Target.Add(mgl64.Vec3{0.1, 0.2, 0.3}), aspect)
			if !finite.Floats(o[0], o[1], o[2], d[0], d[1], d[2], ndc[0], ndc[1], ndc[2]) || !vis {
				t.Fatalf("pitch %g ortho %v: ray %v %v, projection %v %v", pitch, ortho, o, d, ndc, vis)
			}
			if f := c.Forward(); math.Abs(f[1]+math.Copysign(1, pitch)) > 1e-15 {
				t.Fatalf("pitch %g: forward %v, want straight down or up", pitch, f)
			}
		}
	}
}

func TestFrame(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, s := range []float64{1e-3, 1, 1e3} {
		for _, a := range []float64{0.4, 1, aspect, 3} {
			for _, ortho := range []bool{false, true} {
				for range 20 {
					c := NewCamera()
					c.Ortho = ortho
					c.Orbit(6*rng.Float64(), 3*rng.Float64()-1.5)
					// Boxes of any size and place, sides within a factor 2.
					var lo, hi mgl64.Vec3
					size := math.Pow(10, 2*rng.Float64()-1) * s
					for k := range 3 {
						x := (rng.Float64() - 0.5) * 10 * s
						lo[k], hi[k] = x, x+size*(0.5+0.5*rng.Float64())
					}
					c.Frame(lo, hi, a)
					if err := c.Validate(); err != nil {
						t.Fatal(err)
					}
					extent := 0.0
					for i := range 8 {
						p := mgl64.Vec3{lo[0], lo[1], lo[2]}
						for k := range 3 {
							if i>>k&1 == 1 {
								p[k] = hi[k]
							}
						}
						ndc, vis := c.Project(p, a)
						if !vis {
							t.Fatalf("scale %g aspect %g ortho %v: corner %v of [%v, %v] projects to %v, outside the view",
								s, a, ortho, p, lo, hi, ndc)
						}
						extent = max(extent, math.Abs(ndc[0]), math.Abs(ndc[1]))
					}
					// The box fills the view: it reaches a good way to its edge.
					if extent < 0.3 {
						t.Fatalf("scale %g aspect %g ortho %v: the box reaches only %g of the view", s, a, ortho, extent)
					}
				}
			}
		}
	}
	// Empty and non-finite boxes frame the unit cube.
	for _, box := range [][2]mgl64.Vec3{
		{{1, 1, 1}, {-1, -1, -1}},
		{{math.Inf(-1), 0, 0}, {1, 1, 1}},
		{{math.NaN(), 0, 0}, {1, 1, 1}},
	} {
		c := NewCamera()
		c.Frame(box[0], box[1], aspect)
		if c.Target != (mgl64.Vec3{}) || c.SceneRadius != math.Sqrt(3) || c.Validate() != nil {
			t.Errorf("Frame(%v): %+v", box, c)
		}
	}
	// A single point still gets a usable view.
	c := NewCamera()
	p := mgl64.Vec3{1e3, 0, 0}
	c.Frame(p, p, aspect)
	if err := c.Validate(); err != nil || c.Distance <= 0 {
		t.Errorf("Frame of a point: %v, %+v", err, c)
	}
	if _, vis := c.Project(p, aspect); !vis {
		t.Error("Frame of a point: the point is not in view")
	}
}

// TestDepthPrecision checks the clip planes at the scales 10⁻³ and 10³:
// points 10⁻⁴ of the scene radius apart in depth around Target stay apart in
// a 24-bit depth buffer, framed and zoomed in to the limit, and the far
// plane never clips the scene.
func TestDepthPrecision(t *testing.T) {
	const levels = 1<<24 - 1
	depth := func(c *Camera, p mgl64.Vec3) float64 {
		ndc, _ := c.Project(p, aspect)
		return math.Floor((ndc[2] + 1) / 2 * levels)
	}
	for _, s := range []float64{1e-3, 1e3} {
		for _, ortho := range []bool{false, true} {
			c := NewCamera()
			c.Ortho = ortho
			lo, hi := mgl64.Vec3{-1, -0.5, -2}.Mul(s), mgl64.Vec3{2, 1.5, 0}.Mul(s)
			c.Frame(lo, hi, aspect)
			for zoom := range 3 {
				near, far := c.ClipPlanes()
				if !ortho && !(near > 0 && far/near <= depthRange*(1+1e-9)) && zoom == 0 {
					t.Fatalf("scale %g: near %g, far %g", s, near, far)
				}
				if !(far > near) {
					t.Fatalf("scale %g ortho %v: near %g, far %g", s, ortho, near, far)
				}
				f := c.Forward()
				step := 1e-4 * c.SceneRadius
				if zoom == 2 {
					step = 1e-2 * c.Distance // zoomed in to 10⁻⁴ of the scene: resolve 1% of the distance
				}
				a := c.Target.Sub(f.Mul(step / 2))
				b := c.Target.Add(f.Mul(step / 2))
				if da, db := depth(c, a), depth(c, b); !(db > da) {
					t.Fatalf("scale %g ortho %v zoom %d: points %g apart at the target share depth %g (near %g, far %g)",
						s, ortho, zoom, step, da, near, far)
				}
				// The whole scene is between the planes.
				for _, p := range []mgl64.Vec3{lo, hi, c.SceneCenter.Add(f.Mul(c.SceneRadius)), c.SceneCenter.Sub(f.Mul(c.SceneRadius))} {
					d := p.Sub(c.Eye()).Dot(f)
					if zoom == 0 && (d < near || d > far) {
						t.Fatalf("scale %g ortho %v: scene point at depth %g outside [%g, %g]", s, ortho, d, near, far)
					}
					if d > far {
						t.Fatalf("scale %g ortho %v zoom %d: far plane %g clips the scene at %g", s, ortho, zoom, far, d)
					}
				}
				c.ZoomToward(30, 0, 0, aspect) // 1.2³⁰ ≈ 237, then the limit
				if zoom == 1 {
					c.ZoomToward(1000, 0, 0, aspect)
				}
			}
		}
	}
}

func TestOrthoToggleKeepsSize(t *testing.T) {
	c := NewCamera()
	c.Frame(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{2, 1, 1}, aspect)
	r := mgl64.Vec3{math.Cos(c.Yaw), 0, -math.Sin(c.Yaw)}
	p := c.Target.Add(r.Mul(0.37))
	persp, _ := c.Project(p, aspect)
	c.Ortho = true
	ortho, _ := c.Project(p, aspect)
	if math.Abs(persp[0]-ortho[0]) > 1e-12 || math.Abs(persp[1]-ortho[1]) > 1e-12 {
		t.Errorf("a point beside the target projects to %v in perspective, %v in ortho", persp, ortho)
	}
}

func TestProjectBehindEye(t *testing.T) {
	c := NewCamera()
	behind := c.Eye().Add(c.Eye().Sub(c.Target))
	if ndc, vis := c.Project(behind, aspect); vis || ndc != (mgl64.Vec3{}) {
		t.Errorf("a point behind the eye projects to %v, %v", ndc, vis)
	}
	if _, vis := c.Project(c.Target, aspect); !vis {
		t.Error("the target is not visible")
	}
}

func TestDegenerateAspect(t *testing.T) {
	c := NewCamera()
	for _, a := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		p := c.Projection(a)
		o, d := c.Ray(0.5, 0.5, a)
		ndc, _ := c.Project(c.Target, a)
		if !finite.Floats(append(p[:], o[0], d[0], ndc[0])...) {
			t.Errorf("aspect %g gives NaN or Inf", a)
		}
		c.ZoomToward(1, 0.5, 0.5, a)
		c.Frame(mgl64.Vec3{}, mgl64.Vec3{1, 1, 1}, a)
		if err := c.Validate(); err != nil {
			t.Errorf("aspect %g: %v", a, err)
		}
	}
}

func TestPixelNDC(t *testing.T) {
	const w, h = 800.0, 600.0
	for _, tc := range []struct{ px, py, x, y float64 }{
		{0, 0, -1, 1}, {w, h, 1, -1}, {w / 2, h / 2, 0, 0}, {w, 0, 1, 1}, {0, h, -1, -1},
	} {
		x, y := PixelToNDC(tc.px, tc.py, w, h)
		if x != tc.x || y != tc.y {
			t.Errorf("PixelToNDC(%g, %g) = %g, %g, want %g, %g", tc.px, tc.py, x, y, tc.x, tc.y)
		}
		px, py := NDCToPixel(x, y, w, h)
		if px != tc.px || py != tc.py {
			t.Errorf("NDCToPixel(%g, %g) = %g, %g, want %g, %g", x, y, px, py, tc.px, tc.py)
		}
	}
}

func TestValidateAndJSON(t *testing.T) {
	c := NewCamera()
	c.Frame(mgl64.Vec3{-3, 0, 1}, mgl64.Vec3{2, 5, 4}, aspect)
	c.Orbit(1, 0.2)
	c.Ortho = true
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Camera
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != *c {
		t.Errorf("JSON round trip: %+v, want %+v", back, *c)
	}
	for name, breakIt := range map[string]func(*Camera){
		"zero distance":  func(c *Camera) { c.Distance = 0 },
		"NaN target":     func(c *Camera) { c.Target[1] = math.NaN() },
		"flat fov":       func(c *Camera) { c.FovY = 0 },
		"wide fov":       func(c *Camera) { c.FovY = math.Pi },
		"over the pole":  func(c *Camera) { c.Pitch = 2 },
		"inf yaw":        func(c *Camera) { c.Yaw = math.Inf(1) },
		"negative scene": func(c *Camera) { c.SceneRadius = -1 },
	} {
		bad := *c
		breakIt(&bad)
		if err := bad.Validate(); err == nil {
			t.Errorf("%s: Validate accepted %+v", name, bad)
		}
	}
}

func TestReset(t *testing.T) {
	c := NewCamera()
	c.Frame(mgl64.Vec3{10, 10, 10}, mgl64.Vec3{12, 11, 10.5}, aspect)
	c.Orbit(1, 1)
	c.Pan(50, 20, 600)
	c.ZoomToward(5, 0.3, 0.3, aspect)
	c.FovY = 1
	c.Ortho = true
	c.Reset()
	want := NewCamera()
	want.Ortho = true
	want.SceneCenter, want.SceneRadius = c.SceneCenter, c.SceneRadius
	want.frameSphere(c.SceneCenter, c.SceneRadius, 1)
	if *c != *want {
		t.Errorf("after Reset: %+v, want %+v", *c, *want)
	}
	if c.Target != (mgl64.Vec3{11, 10.5, 10.25}) {
		t.Errorf("Reset looks at %v, want the scene's centre", c.Target)
	}
	var z Camera
	z.Reset()
	if err := z.Validate(); err != nil {
		t.Errorf("Reset of the zero camera: %v", err)
	}
}

func TestSetScene(t *testing.T) {
	c := NewCamera()
	c.Frame(mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 1, 1}, aspect)
	view := *c
	c.SetScene(mgl64.Vec3{-10, 0, 0}, mgl64.Vec3{10, 0, 0})
	if c.Target != view.Target || c.Distance != view.Distance || c.SceneRadius != 10 || c.SceneCenter != (mgl64.Vec3{}) {
		t.Errorf("SetScene moved the camera or set the wrong sphere: %+v", c)
	}
	// The clip planes follow the larger scene.
	near, far := c.ClipPlanes()
	for _, p := range []mgl64.Vec3{{-10, 0, 0}, {10, 0, 0}} {
		if d := p.Sub(c.Eye()).Dot(c.Forward()); d > far || d < near && near > 0 && d > 0 {
			t.Errorf("scene point %v at depth %g outside [%g, %g]", p, d, near, far)
		}
	}
	// Without a scene sphere a sphere of radius Distance about Target stands in.
	c.SetScene(mgl64.Vec3{1, 1, 1}, mgl64.Vec3{0, 0, 0})
	if c.SceneRadius != 0 {
		t.Errorf("an empty box gave scene radius %g", c.SceneRadius)
	}
	for _, ortho := range []bool{false, true} {
		c.Ortho = ortho
		near, far := c.ClipPlanes()
		if want := (2 + clipPad) * c.Distance; math.Abs(far-want) > 1e-12*want || !(near < c.Distance) || !ortho && !(near > 0) {
			t.Errorf("ortho %v without a scene: near %g, far %g for distance %g", ortho, near, far, c.Distance)
		}
	}
	// Zoom is unlimited without a scene, and NaN steps change nothing.
	c.ZoomToward(100, 0, 0, aspect)
	if want := view.Distance * math.Pow(ZoomFactor, -100); math.Abs(c.Distance-want) > 1e-9*want {
		t.Errorf("distance %g after 100 steps, want %g", c.Distance, want)
	}
	before := *c
	c.ZoomToward(math.NaN(), 0.5, 0.5, aspect)
	if *c != before {
		t.Error("ZoomToward(NaN) moved the camera")
	}
}
