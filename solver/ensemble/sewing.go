package ensemble

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/solver/meshgraph"
)

// SewRings is how many edges from its sewn vertices a group's sewing
// correction fades out over: vertices SewRings or more edges away from
// every sewn vertex never move.
const SewRings = 3

// SewWeight says that group-local vertex V moves by W times the sewing
// correction of the group's attachment A.
type SewWeight struct {
	V, A int32
	W    float64
}

// newSewing returns the falloff of a group's sewing correction (see
// Poser): for each attachment a, the harmonic function φ_a on the group's
// mesh graph (uniform Laplacian) that is 1 at a's vertex, 0 at every other
// sewn vertex and 0 at every vertex SewRings or more edges from all sewn
// vertices. The entries with φ_a(v) > 0 are returned, sewn vertices
// included (φ_a(a) = 1). Σ_a φ_a ≤ 1 everywhere (maximum principle), and
// a correction that is the same vector c at every sewn vertex moves the
// band by at most c.
func newSewing(count int, triangles [][3]int, attach []Attachment) ([]SewWeight, error) {
	adj, err := meshgraph.New(count, triangles)
	if err != nil {
		return nil, err
	}
	// Breadth-first distance from the sewn vertices.
	dist := make([]int, count)
	for v := range dist {
		dist[v] = -1
	}
	queue := make([]int, 0, count)
	sewn := make([]int, count) // attachment index + 1, 0 for none
	for a, at := range attach {
		dist[at.Vertex] = 0
		sewn[at.Vertex] = a + 1
		queue = append(queue, at.Vertex)
	}
	for h := 0; h < len(queue); h++ {
		v := queue[h]
		if dist[v] == SewRings {
			continue
		}
		for _, u := range adj.Neighbours(v) {
			if dist[u] < 0 {
				dist[u] = dist[v] + 1
				queue = append(queue, int(u))
			}
		}
	}
	// Free vertices: 0 < distance < SewRings.
	index := make([]int, count)
	var free []int
	for v := range index {
		index[v] = -1
		if dist[v] > 0 && dist[v] < SewRings {
			index[v] = len(free)
			free = append(free, v)
		}
	}
	out := make([]SewWeight, 0, len(attach)*(1+len(free)))
	for a, at := range attach {
		out = append(out, SewWeight{V: int32(at.Vertex), A: int32(a), W: 1})
	}
	if len(free) == 0 {
		return out, nil
	}
	// L_ff φ_f = −L_fb φ_b for every attachment at once: row i of the
	// uniform Laplacian at free vertex v is deg(v) on the diagonal and −1
	// per neighbour; a sewn neighbour moves its value to the right-hand
	// side, a neighbour at distance SewRings contributes 0.
	n, na := len(free), len(attach)
	L := mat.NewDense(n, n, nil)
	rhs := mat.NewDense(n, na, nil)
	for i, v := range free {
		nb := adj.Neighbours(v)
		L.Set(i, i, float64(len(nb)))
		for _, u := range nb {
			switch {
			case index[u] >= 0:
				L.Set(i, index[u], L.At(i, index[u])-1)
			case sewn[u] > 0:
				rhs.Set(i, sewn[u]-1, rhs.At(i, sewn[u]-1)+1)
			}
		}
	}
	var phi mat.Dense
	if err := phi.Solve(L, rhs); err != nil {
		return nil, fmt.Errorf("the sewing falloff's Laplace system: %w", err)
	}
	for i, v := range free {
		for a := range na {
			if w := phi.At(i, a); w > 1e-12 {
				out = append(out, SewWeight{V: int32(v), A: int32(a), W: w})
			}
		}
	}
	return out, nil
}

// SewingBasis returns group k's sewing correction as displacement fields
// in the group's frame, three per attachment (the x, y and z components of
// its correction, in the order of the group's attachments): field 3a+e
// moves vertex v by φ_a(v) along axis e. Poser.Sewing gives the weights of
// the last pose. Nil for a group without attachments.
func (m *Model) SewingBasis(k int) [][]mgl64.Vec3 {
	g := &m.groups[k]
	if len(g.Sew) == 0 {
		return nil
	}
	fields := make([][]mgl64.Vec3, 3*len(m.data.Groups[k].Attach))
	for i := range fields {
		fields[i] = make([]mgl64.Vec3, g.Count)
	}
	for _, s := range g.Sew {
		for e := range 3 {
			fields[3*int(s.A)+e][s.V][e] = s.W
		}
	}
	return fields
}

// sewTo moves group g's local positions x (in its frame, world the frame)
// so that each sewn vertex lands on its parent vertex in px (posed world
// positions of the parent), spreading each sewn vertex's correction
// c_a = world⁻¹(x_parent) − x_a over the band by the falloff. The
// corrections are written to c, one per attachment.
func (g *groupModel) sewTo(x []mgl64.Vec3, world *Rigid, px []mgl64.Vec3, c []mgl64.Vec3) {
	inv := world.Inverse()
	for a, pv := range g.SewParent {
		c[a] = inv.Apply(px[pv]).Sub(x[g.SewVertex[a]])
	}
	for _, s := range g.Sew {
		x[s.V] = x[s.V].Add(c[s.A].Mul(s.W))
	}
}
