// Package decimate simplifies a triangle mesh to a subset of its own
// vertices: half-edge collapses (a vertex u merged into a neighbour v that
// stays where it is) in the order of Garland and Heckbert's quadric error
// (1997). Keeping a subset rather than moving vertices to optimal places
// is what the coarse level of a two-level solve needs: any per-vertex data
// of the full mesh (an example pose, a handle's target) is the coarse
// mesh's by restriction, with no resampling.
//
// The error quadric of a vertex is the sum, over the triangles around it
// in the rest pose, of area·(nᵀp + d)², the squared distances to their
// planes; boundary edges add a plane through the edge perpendicular to the
// surface, weighted by the edge's squared length times boundaryWeight, so
// that outlines keep their shape; and every vertex adds ε·‖p − p_u‖², its
// distance to its own place, ε being pointWeight times the mean triangle
// area, so that flat regions, where the planes cost nothing, still merge
// near vertices first and each kept vertex stands for a compact patch
// (on the horse subdivided once, 8,000 of 33,705 vertices kept: every
// vertex within 2.1% of the diagonal from its owner without the term,
// 0.9% with it). Collapsing u into v costs (Q_u + Q_v)(p_v) and gives v
// the sum Q_u + Q_v.
//
// A collapse is refused when it would change the surface's topology or
// spoil its triangles:
//   - the link condition (Dey et al. 1999): the vertices adjacent to both
//     u and v are exactly the apexes of the triangles on the edge uv;
//   - a boundary vertex moves only along a boundary edge, and a vertex on
//     an edge of more than two triangles (a non-manifold edge) never;
//   - no moved triangle turns by more than about 78° (its normal's cosine
//     with the old one below minCosine), and none gets a shape quality
//     4√3·area / Σ edge² below minQuality unless it was already worse, nor
//     repeats a triangle already there.
package decimate

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

// Result is a simplified mesh: its vertices are the full mesh's Kept
// (ascending), its triangles index them (0 ≤ index < len(Kept)), and
// Owner[u] is the coarse vertex that stands for full vertex u (the one u
// was merged into, through every later merge; a kept vertex stands for
// itself; vertices no triangle uses stand for −1).
type Result struct {
	Kept      []int
	Triangles [][3]int
	Owner     []int
}

const (
	boundaryWeight = 100
	minCosine      = 0.2
	minQuality     = 0.1
	pointWeight    = 1
)

// quadric is a symmetric 4×4 error quadric, upper triangle row by row.
type quadric [10]float64

func planeQuadric(n mgl64.Vec3, d, w float64) quadric {
	a, b, c := n[0], n[1], n[2]
	return quadric{w * a * a, w * a * b, w * a * c, w * a * d, w * b * b, w * b * c, w * b * d, w * c * c, w * c * d, w * d * d}
}

func (q *quadric) add(o *quadric) {
	for i := range q {
		q[i] += o[i]
	}
}

// at evaluates pᵀQp for p = (x, y, z, 1).
func (q *quadric) at(p mgl64.Vec3) float64 {
	x, y, z := p[0], p[1], p[2]
	return q[0]*x*x + 2*q[1]*x*y + 2*q[2]*x*z + 2*q[3]*x + q[4]*y*y + 2*q[5]*y*z + 2*q[6]*y + q[7]*z*z + 2*q[8]*z + q[9]
}

// Simplify collapses the mesh (positions pos, triangles tris) towards
// target vertices and returns the result. It stops earlier when no
// collapse is allowed. It returns an error for an index out of range, a
// position that is not a finite number or a target below 4.
func Simplify(pos []mgl64.Vec3, tris [][3]int, target int) (*Result, error) {
	n := len(pos)
	if target < 4 {
		return nil, fmt.Errorf("decimate: target of %d vertices, at least 4 are needed", target)
	}
	for i, p := range pos {
		if !finite.Vec3(p) {
			return nil, fmt.Errorf("decimate: vertex %d is not a finite position", i)
		}
	}
	for f, t := range tris {
		for _, v := range t {
			if v < 0 || v >= n {
				return nil, fmt.Errorf("decimate: triangle %d: vertex index %d out of range [0, %d)", f, v, n)
			}
		}
		if t[0] == t[1] || t[1] == t[2] || t[0] == t[2] {
			return nil, fmt.Errorf("decimate: triangle %d repeats a vertex", f)
		}
	}
	m := newMesh(pos, tris)
	m.simplify(target)
	return m.result(), nil
}

// mesh is the working state: live triangles and each vertex's live
// triangles.
type mesh struct {
	pos   []mgl64.Vec3
	tri   [][3]int32
	alive []bool
	inc   [][]int32 // live triangles around each vertex
	q     []quadric
	merge []int32 // the vertex each removed vertex was merged into, −1 while it lives
	stamp []uint32
	best  []int32 // each vertex's cheapest allowed collapse target, −1 for none
	heap  candidates
	live  int // vertices with triangles
	// scratch
	nu, nv []int32
	cand   []candidate
}

func newMesh(pos []mgl64.Vec3, tris [][3]int) *mesh {
	n := len(pos)
	m := &mesh{pos: pos, tri: make([][3]int32, len(tris)), alive: make([]bool, len(tris)),
		inc: make([][]int32, n), q: make([]quadric, n), merge: make([]int32, n), stamp: make([]uint32, n), best: make([]int32, n)}
	deg := make([]int32, n)
	for f, t := range tris {
		m.tri[f] = [3]int32{int32(t[0]), int32(t[1]), int32(t[2])}
		m.alive[f] = true
		for _, v := range t {
			deg[v]++
		}
	}
	for v := range n {
		m.inc[v] = make([]int32, 0, deg[v])
		m.merge[v] = -1
		if deg[v] > 0 {
			m.live++
		}
	}
	totalArea := 0.0
	for f, t := range m.tri {
		for _, v := range t {
			m.inc[v] = append(m.inc[v], int32(f))
		}
		a, b, c := pos[t[0]], pos[t[1]], pos[t[2]]
		nrm := b.Sub(a).Cross(c.Sub(a))
		area := nrm.Len() / 2
		totalArea += area
		if area == 0 {
			continue
		}
		nrm = nrm.Normalize()
		pq := planeQuadric(nrm, -nrm.Dot(a), area)
		for _, v := range t {
			m.q[v].add(&pq)
		}
	}
	// Each vertex's own point: ε·‖p − p_u‖², with ε = pointWeight × the
	// mean triangle area.
	eps := pointWeight * totalArea / float64(max(1, len(tris)))
	for u, p := range pos {
		x, y, z := p[0], p[1], p[2]
		pq := quadric{eps, 0, 0, -eps * x, eps, 0, -eps * y, eps, -eps * z, eps * p.Dot(p)}
		m.q[u].add(&pq)
	}
	// Boundary edges: a plane through the edge, perpendicular to its
	// triangle.
	for _, t := range m.tri {
		for c := range 3 {
			u, v := t[c], t[(c+1)%3]
			if m.edgeTriangles(u, v) != 1 {
				continue
			}
			a, b, o := pos[u], pos[v], pos[t[(c+2)%3]]
			e := b.Sub(a)
			fn := e.Cross(o.Sub(a))
			pn := e.Cross(fn)
			if pn.Len() == 0 {
				continue
			}
			pn = pn.Normalize()
			pq := planeQuadric(pn, -pn.Dot(a), boundaryWeight*e.Dot(e))
			m.q[u].add(&pq)
			m.q[v].add(&pq)
		}
	}
	return m
}

// edgeTriangles counts the live triangles on the edge uv.
func (m *mesh) edgeTriangles(u, v int32) int {
	k := 0
	for _, f := range m.inc[u] {
		if has(m.tri[f], v) {
			k++
		}
	}
	return k
}

func has(t [3]int32, v int32) bool { return t[0] == v || t[1] == v || t[2] == v }

// neighbours appends the vertices sharing a live triangle with u.
func (m *mesh) neighbours(dst []int32, u int32) []int32 {
	dst = dst[:0]
	for _, f := range m.inc[u] {
		for _, w := range m.tri[f] {
			if w != u && !slices.Contains(dst, w) {
				dst = append(dst, w)
			}
		}
	}
	return dst
}

// onBoundary reports whether u lies on an edge with other than two
// triangles, and whether one of them has more than two (non-manifold).
func (m *mesh) onBoundary(u int32, nbr []int32) (boundary, nonManifold bool) {
	for _, w := range nbr {
		switch k := m.edgeTriangles(u, w); {
		case k > 2:
			return true, true
		case k == 1:
			boundary = true
		}
	}
	return boundary, false
}

// quality is 4√3·area / Σ edge², 1 for an equilateral triangle, 0 for a
// degenerate one.
func quality(a, b, c mgl64.Vec3) (float64, mgl64.Vec3) {
	n := b.Sub(a).Cross(c.Sub(a))
	s := b.Sub(a).LenSqr() + c.Sub(b).LenSqr() + a.Sub(c).LenSqr()
	if s == 0 {
		return 0, n
	}
	return 2 * math.Sqrt(3) * n.Len() / s, n
}

// allowed reports whether u may be merged into its neighbour v.
func (m *mesh) allowed(u, v int32, nu []int32, uBoundary bool) bool {
	onEdge := m.edgeTriangles(u, v)
	if onEdge == 0 || onEdge > 2 {
		return false
	}
	if uBoundary && onEdge != 1 {
		return false
	}
	// Every vertex keeps a triangle: the apexes of the triangles on uv
	// lose those, and v loses them and gains u's others.
	for _, f := range m.inc[u] {
		if t := m.tri[f]; has(t, v) {
			for _, w := range t {
				if w == u || w == v {
					continue
				}
				lost := 0
				for _, g := range m.inc[w] {
					if tg := m.tri[g]; has(tg, u) && has(tg, v) {
						lost++
					}
				}
				if lost >= len(m.inc[w]) {
					return false
				}
			}
		}
	}
	if len(m.inc[v])+len(m.inc[u])-2*onEdge <= 0 {
		return false
	}
	// Link condition.
	m.nv = m.neighbours(m.nv, v)
	common := 0
	for _, w := range nu {
		if w != v && slices.Contains(m.nv, w) {
			common++
		}
	}
	if common != onEdge {
		return false
	}
	for _, f := range m.inc[u] {
		t := m.tri[f]
		if has(t, v) {
			continue
		}
		moved := t
		for c := range 3 {
			if moved[c] == u {
				moved[c] = v
			}
		}
		q0, n0 := quality(m.pos[t[0]], m.pos[t[1]], m.pos[t[2]])
		q1, n1 := quality(m.pos[moved[0]], m.pos[moved[1]], m.pos[moved[2]])
		if (q1 < minQuality && q1 < q0) || n1.Dot(n0) < minCosine*n1.Len()*n0.Len() {
			return false
		}
		// A triangle on the same three vertices already there.
		for _, g := range m.inc[v] {
			if tg := m.tri[g]; !has(tg, u) && sameCorners(tg, moved) {
				return false
			}
		}
	}
	return true
}

func sameCorners(a, b [3]int32) bool {
	return has(a, b[0]) && has(a, b[1]) && has(a, b[2])
}

// evaluate finds u's cheapest allowed collapse and queues it.
func (m *mesh) evaluate(u int32) {
	m.stamp[u]++
	m.best[u] = -1
	if m.merge[u] >= 0 || len(m.inc[u]) == 0 {
		return
	}
	m.nu = m.neighbours(m.nu, u)
	boundary, nonManifold := m.onBoundary(u, m.nu)
	if nonManifold {
		return
	}
	// The neighbours by cost (a candidate's u holds the neighbour here);
	// the first allowed one is the collapse.
	m.cand = m.cand[:0]
	for _, v := range m.nu {
		q := m.q[u]
		q.add(&m.q[v])
		m.cand = append(m.cand, candidate{cost: q.at(m.pos[v]), u: v})
	}
	slices.SortFunc(m.cand, func(a, b candidate) int {
		if a.cost != b.cost {
			return cmp.Compare(a.cost, b.cost)
		}
		return cmp.Compare(a.u, b.u)
	})
	bestCost := 0.0
	for _, c := range m.cand {
		if m.allowed(u, c.u, m.nu, boundary) {
			bestCost, m.best[u] = c.cost, c.u
			break
		}
	}
	if m.best[u] >= 0 {
		heap.Push(&m.heap, candidate{cost: bestCost, u: u, stamp: m.stamp[u]})
	}
}

// collapse merges u into v.
func (m *mesh) collapse(u, v int32) {
	for _, f := range m.inc[u] {
		t := m.tri[f]
		if has(t, v) {
			m.alive[f] = false
			for _, w := range t {
				if w != u {
					m.inc[w] = slices.DeleteFunc(m.inc[w], func(g int32) bool { return g == f })
				}
			}
			continue
		}
		for c := range 3 {
			if t[c] == u {
				m.tri[f][c] = v
			}
		}
		m.inc[v] = append(m.inc[v], f)
	}
	m.inc[u] = nil
	m.merge[u] = v
	m.q[v].add(&m.q[u])
	m.live--
}

func (m *mesh) simplify(target int) {
	for u := range m.pos {
		m.evaluate(int32(u))
	}
	var ring []int32
	for m.live > target && m.heap.Len() > 0 {
		c := heap.Pop(&m.heap).(candidate)
		u := c.u
		if c.stamp != m.stamp[u] || m.best[u] < 0 {
			continue
		}
		v := m.best[u]
		// The neighbourhood may have changed since u was queued.
		m.nu = m.neighbours(m.nu, u)
		boundary, _ := m.onBoundary(u, m.nu)
		if !slices.Contains(m.nu, v) || !m.allowed(u, v, m.nu, boundary) {
			m.evaluate(u)
			continue
		}
		ring = append(ring[:0], m.nu...)
		m.collapse(u, v)
		for _, w := range ring {
			m.evaluate(w)
		}
		// The vertices around v's neighbours see v's new quadric and
		// triangles too.
		for _, w := range m.neighbours(nil, v) {
			if !slices.Contains(ring, w) {
				m.evaluate(w)
			}
		}
	}
}

func (m *mesh) result() *Result {
	n := len(m.pos)
	index := make([]int, n)
	r := &Result{Owner: make([]int, n)}
	for u := range n {
		index[u] = -1
		if m.merge[u] < 0 && len(m.inc[u]) > 0 {
			index[u] = len(r.Kept)
			r.Kept = append(r.Kept, u)
		}
	}
	for u := range n {
		w := int32(u)
		for m.merge[w] >= 0 {
			w = m.merge[w]
		}
		r.Owner[u] = index[w]
	}
	for f, t := range m.tri {
		if m.alive[f] {
			r.Triangles = append(r.Triangles, [3]int{index[t[0]], index[t[1]], index[t[2]]})
		}
	}
	return r
}

type candidate struct {
	cost  float64
	u     int32
	stamp uint32
}

type candidates []candidate

func (h candidates) Len() int { return len(h) }
func (h candidates) Less(i, j int) bool {
	if h[i].cost != h[j].cost {
		return h[i].cost < h[j].cost
	}
	return h[i].u < h[j].u
}
func (h candidates) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candidates) Push(x any)   { *h = append(*h, x.(candidate)) }
func (h *candidates) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
