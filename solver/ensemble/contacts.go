package ensemble

import (
	"context"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
	"gallop/solver/bvh"
	"gallop/solver/collide"
	"gallop/solver/ensemble/csp"
)

// intersect reports whether groups k and l, posed in the meshes mk and
// ml, interpenetrate: whether a triangle of one intersects a triangle of
// the other (collide's exact test; touching counts), except the pairs of
// a child's triangle holding a sewn vertex and a parent triangle holding
// the vertex it is sewn to, which touch by design.
func (m *Model) intersect(k, l int, mk, ml *collide.Mesh) bool {
	gk, gl := &m.groups[k], &m.groups[l]
	switch {
	case gk.TriSewn != nil && gk.Parent == l:
		return sewnIntersect(gk, gl.Triangles, mk, ml)
	case gl.TriSewn != nil && gl.Parent == k:
		return sewnIntersect(gl, gk.Triangles, ml, mk)
	}
	return collide.MeshesIntersect(mk, ml)
}

// sewnIntersect reports whether a triangle of child (mesh cm) intersects
// a triangle of its parent (mesh pm, triangles ptri), ignoring pairs that
// share a sewn vertex.
func sewnIntersect(child *groupModel, ptri [][3]int, cm, pm *collide.Mesh) bool {
	hit := false
	collide.MeshPairs(cm, pm, func(i, j int) bool {
		pt := ptri[j]
		for _, v := range child.TriSewn[i] {
			if v >= 0 && (int(v) == pt[0] || int(v) == pt[1] || int(v) == pt[2]) {
				return true // sewn: keep looking
			}
		}
		hit = true
		return false
	})
	return hit
}

// scene is scratch for testing a whole posed ensemble: a mesh per group
// and the broad phase.
type scene struct {
	poser  *Poser
	x      []mgl64.Vec3
	meshes []*collide.Mesh
	boxes  []bvh.AABB
	grid   collide.Grid
	cand   [][2]int
}

func (m *Model) newScene() *scene {
	sc := &scene{poser: m.NewPoser(), boxes: make([]bvh.AABB, len(m.groups))}
	sc.x = sc.poser.grow(nil)
	return sc
}

// contacts appends to dst every pair of groups that interpenetrate in the
// ensemble positions x (see intersect), by K then L.
func (m *Model) contacts(sc *scene, dst []csp.Pair, x []mgl64.Vec3) []csp.Pair {
	if sc.meshes == nil {
		sc.meshes = make([]*collide.Mesh, len(m.groups))
		for k := range m.groups {
			g := &m.groups[k]
			sc.meshes[k] = collide.NewMesh(x[g.First:g.First+g.Count], g.Triangles)
		}
	} else {
		for k := range m.groups {
			g := &m.groups[k]
			sc.meshes[k].Refit(x[g.First : g.First+g.Count])
		}
	}
	for k := range m.groups {
		sc.boxes[k] = sc.meshes[k].Bounds()
	}
	sc.cand = sc.grid.Pairs(sc.cand[:0], sc.boxes)
	for _, c := range sc.cand {
		if m.intersect(c[0], c[1], sc.meshes[c[0]], sc.meshes[c[1]]) {
			dst = append(dst, csp.Pair{K: c[0], L: c[1]})
		}
	}
	return dst
}

// sourceContacts holds the interpenetrating pairs of one reconstructed
// source frame, computed once on demand.
type sourceContacts struct {
	once  sync.Once
	pairs []csp.Pair
}

// SourceContacts returns the pairs of groups that interpenetrate in the
// model's reconstruction of source frame s (Pose), by K then L: the
// pre-existing interpenetrations that a transition through s is not
// blamed for. They are computed on first request and cached; safe for
// concurrent use. Do not modify the result.
func (m *Model) SourceContacts(s State) []csp.Pair {
	return m.sourcePairs(m.index(s))
}

func (m *Model) sourcePairs(i int) []csp.Pair {
	sc := &m.sources[i]
	sc.once.Do(func() {
		s, _ := m.scenes.Get().(*scene)
		if s == nil {
			s = m.newScene()
		}
		s.x = s.poser.Pose(s.x, m.state(i))
		sc.pairs = slices.Clip(m.contacts(s, nil, s.x))
		m.scenes.Put(s)
	})
	return sc.pairs
}

// hasPair reports whether the sorted pairs hold p.
func hasPair(pairs []csp.Pair, p csp.Pair) bool {
	_, ok := slices.BinarySearchFunc(pairs, p, func(a, b csp.Pair) int {
		if a.K != b.K {
			return a.K - b.K
		}
		return a.L - b.L
	})
	return ok
}

// SourceInterpenetrations counts the interpenetrating (source frame,
// group pair)s over every reconstructed source frame of every level, and
// the source frames with at least one, on every core; the source data
// themselves should have none (the banner's data README says so), so these
// come from PCA truncation, or from the data. It fills the SourceContacts
// cache. It returns ctx.Err() when cancelled.
func (m *Model) SourceInterpenetrations(ctx context.Context) (pairFrames, frames int, err error) {
	parallel.For(m.states(), func(i int) {
		if ctx.Err() == nil {
			m.sourcePairs(i)
		}
	})
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	for i := range m.sources {
		n := len(m.sources[i].pairs)
		pairFrames += n
		if n > 0 {
			frames++
		}
	}
	return pairFrames, frames, nil
}
