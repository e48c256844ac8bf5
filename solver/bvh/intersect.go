package bvh

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Hit is a ray–triangle intersection. The hit point is origin + T·dir for
// the ray's origin and (not necessarily unit) direction, and equally
// (1−U−V)·p0 + U·p1 + V·p2 for the corners p0, p1, p2 of Triangle in the
// order given to Build: U and V are the barycentric coordinates of corners 1
// and 2.
type Hit struct {
	Triangle int // index into the triangles given to Build
	T        float64
	U, V     float64
}

// baryTol is the relative tolerance of the ray–triangle test: a triangle is
// hit where each barycentric weight is at least −baryTol, so triangles are
// enlarged by about 10⁻⁹ of their size. It keeps a ray aimed exactly at a
// vertex or edge of the surface, whose own construction from rounded points
// misses the target by about 10⁻¹⁶ of its distance, from slipping past a
// silhouette.
const baryTol = 1e-9

// slabSlack widens the far end of each slab interval by 2γ₃ (Pharr, Jakob
// and Humphreys, Physically Based Rendering, 3rd ed., §3.9.2) so that
// rounding never culls a box whose triangle the exact test hits.
const slabSlack = 1 + 2*(3*0x1p-53)/(1-3*0x1p-53)

// ray is a ray with the per-query quantities traversal reuses.
type ray struct {
	org, dir   mgl64.Vec3
	inv        mgl64.Vec3 // 1/dir per component, ±Inf for a zero component
	kx, ky, kz int        // axes permuted so that |dir[kz]| is largest
	sx, sy, sz float64    // shear taking dir to the kz axis (see triangle)
}

func newRay(origin, dir mgl64.Vec3) ray {
	kz := 0
	if math.Abs(dir[1]) > math.Abs(dir[kz]) {
		kz = 1
	}
	if math.Abs(dir[2]) > math.Abs(dir[kz]) {
		kz = 2
	}
	kx, ky := (kz+1)%3, (kz+2)%3
	if dir[kz] < 0 {
		kx, ky = ky, kx // keep the winding of triangles
	}
	return ray{
		org: origin,
		dir: dir,
		inv: mgl64.Vec3{1 / dir[0], 1 / dir[1], 1 / dir[2]},
		kx:  kx, ky: ky, kz: kz,
		sx: dir[kx] / dir[kz], sy: dir[ky] / dir[kz], sz: 1 / dir[kz],
	}
}

// slab returns the parameter at which the ray enters b and whether it meets
// b within [0, tMax]. A NaN from a zero direction component with the origin
// on a face (0·∞) is ignored, which keeps the test conservative. tMax must be
// finite: an infinite one would accept boxes that a ray parallel to an axis
// misses.
func (r *ray) slab(b *AABB, tMax float64) (float64, bool) {
	t0, t1 := 0.0, tMax
	for k := range 3 {
		near := (b.Min[k] - r.org[k]) * r.inv[k]
		far := (b.Max[k] - r.org[k]) * r.inv[k]
		if near > far {
			near, far = far, near
		}
		far *= slabSlack
		if near > t0 {
			t0 = near
		}
		if far < t1 {
			t1 = far
		}
	}
	return t0, t0 <= t1
}

// triangle intersects the ray with the triangle of corners v by the
// watertight algorithm of Woop, Benthin and Wald ("Watertight ray/triangle
// intersection", JCGT 2(1), 2013). The corners are translated to the ray's
// origin and sheared so that the ray becomes the kz axis; the signed edge
// functions
//
//	U = c_x·b_y − c_y·b_x,  V = a_x·c_y − a_y·c_x,  W = b_x·a_y − b_y·a_x
//
// of the projected corners a, b, c are the barycentric weights of corners 0,
// 1, 2 times det = U+V+W (twice the projected area), and the ray hits where
// they share det's sign, up to baryTol. A shared edge's function is computed
// from the same rounded numbers in both of its triangles and comes out
// exactly negated, so no ray slips between the triangles of a closed mesh
// through an edge or a vertex, as rays do with Möller–Trumbore's independent
// rounding. Both faces are hit, and edges and corners belong to every
// triangle sharing them.
//
// A triangle of zero area, or one seen exactly edge-on, has det = 0 up to
// rounding and is hit, if at all, only where the ray passes through it
// within rounding; non-finite values give no hit. The t of a hit, the
// average of the corners' depths with weights in [−baryTol, 1+2·baryTol],
// is finite. The hit must have 0 ≤ t < tMax.
func (r *ray) triangle(v *[3]mgl64.Vec3, tMax float64) (t, u, w float64, ok bool) {
	// Written out in scalars: Go keeps mgl64.Vec3 temporaries in memory,
	// which makes the vector form several times slower.
	kx, ky, kz := r.kx, r.ky, r.kz
	ox, oy, oz := r.org[kx], r.org[ky], r.org[kz]
	az, bz, cz := v[0][kz]-oz, v[1][kz]-oz, v[2][kz]-oz
	ax, ay := v[0][kx]-ox-r.sx*az, v[0][ky]-oy-r.sy*az
	bx, by := v[1][kx]-ox-r.sx*bz, v[1][ky]-oy-r.sy*bz
	cx, cy := v[2][kx]-ox-r.sx*cz, v[2][ky]-oy-r.sy*cz
	eu := cx*by - cy*bx
	ev := ax*cy - ay*cx
	ew := bx*ay - by*ax
	det := eu + ev + ew
	switch tol := -baryTol * det; {
	case det > 0:
		if !(eu >= tol && ev >= tol && ew >= tol) {
			return 0, 0, 0, false
		}
	case det < 0:
		if !(eu <= tol && ev <= tol && ew <= tol) {
			return 0, 0, 0, false
		}
	default: // zero or NaN
		return 0, 0, 0, false
	}
	inv := 1 / det
	t = (eu*az + ev*bz + ew*cz) * r.sz * inv
	if !(t >= 0 && t < tMax) {
		return 0, 0, 0, false
	}
	return t, ev * inv, ew * inv, true
}

// finiteMax clamps tMax to the largest finite float64 (see ray.slab).
func finiteMax(tMax float64) float64 {
	return min(tMax, math.MaxFloat64)
}

// Intersect returns the closest hit of the ray origin + t·dir, 0 ≤ t < tMax,
// with the triangles of t, and whether there is one (if not, the Hit has
// Triangle −1). dir need not be a unit vector: T is measured in units of
// |dir|. Pass tMax = math.Inf(1) for an unbounded ray. A zero dir or a NaN
// tMax hits nothing.
//
// The ray–triangle test is watertight: a ray aimed at a vertex or an edge of
// a closed surface hits it, never slips through (see ray.triangle). Both
// faces of a triangle are hit. For equidistant hits (a ray through a shared
// edge) which triangle is reported is unspecified.
//
// Traversal visits the nearer child first and skips subtrees that begin
// beyond the closest hit so far; it does not allocate.
func (t *Tree) Intersect(origin, dir mgl64.Vec3, tMax float64) (Hit, bool) {
	best := Hit{Triangle: -1}
	if len(t.nodes) == 0 {
		return best, false
	}
	r := newRay(origin, dir)
	tMax = finiteMax(tMax)
	if _, ok := r.slab(&t.nodes[0].box, tMax); !ok {
		return best, false
	}
	type entry struct {
		node int32
		t    float64 // where the ray enters the node's box
	}
	var stack [stackSize]entry
	sp := 0
	ni := int32(0)
	for {
		n := &t.nodes[ni]
		if n.count > 0 {
			for s := n.start; s < n.start+n.count; s++ {
				if th, u, w, ok := r.triangle(&t.verts[s], tMax); ok {
					tMax = th // later hits must be strictly closer
					best = Hit{Triangle: int(t.ids[s]), T: th, U: u, V: w}
				}
			}
		} else {
			a, b := n.start, n.start+1
			ta, hitA := r.slab(&t.nodes[a].box, tMax)
			tb, hitB := r.slab(&t.nodes[b].box, tMax)
			if hitA && hitB {
				if tb < ta { // visit the nearer child first
					a, b, tb = b, a, ta
				}
				stack[sp] = entry{b, tb}
				sp++
				ni = a
				continue
			}
			if hitA {
				ni = a
				continue
			}
			if hitB {
				ni = b
				continue
			}
		}
		for {
			if sp == 0 {
				return best, best.Triangle >= 0
			}
			sp--
			if stack[sp].t <= tMax {
				ni = stack[sp].node
				break
			}
		}
	}
}

// IntersectAny reports whether the ray origin + t·dir, 0 ≤ t < tMax, hits
// any triangle of t. It stops at the first hit found, so it is faster than
// Intersect when only visibility matters. It does not allocate.
func (t *Tree) IntersectAny(origin, dir mgl64.Vec3, tMax float64) bool {
	if len(t.nodes) == 0 {
		return false
	}
	r := newRay(origin, dir)
	tMax = finiteMax(tMax)
	var stack [stackSize]int32
	sp := 0
	stack[sp] = 0
	sp++
	for sp > 0 {
		sp--
		n := &t.nodes[stack[sp]]
		if _, ok := r.slab(&n.box, tMax); !ok {
			continue
		}
		if n.count == 0 {
			stack[sp] = n.start + 1
			stack[sp+1] = n.start
			sp += 2
			continue
		}
		for s := n.start; s < n.start+n.count; s++ {
			if _, _, _, ok := r.triangle(&t.verts[s], tMax); ok {
				return true
			}
		}
	}
	return false
}

// Occluded reports whether a triangle of t crosses the segment from → to
// closer to from than |to − from| − eps: whether a point to is hidden from
// an eye at from. For box selection, from is the camera's eye (or, for an
// orthographic view, the vertex moved back along the view direction) and
// eps, a small fraction of the scene size, keeps the vertex's own triangles
// from hiding it. It returns false when |to − from| ≤ eps.
func (t *Tree) Occluded(from, to mgl64.Vec3, eps float64) bool {
	d := to.Sub(from)
	l := d.Len()
	if !(l > eps) {
		return false
	}
	return t.IntersectAny(from, d, 1-eps/l)
}
