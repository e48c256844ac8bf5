package dynskin

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/parallel"
	"gallop/internal/words"
	"gallop/solver/meshgraph"
	"gallop/solver/ssdr"
)

// Segment is a bone as the spokes see it: the segment from A to B.
type Segment struct{ A, B mgl64.Vec3 }

// Transform returns the segment moved by the affine matrix m (a bone's
// skinning matrix, rest model space to posed model space).
func (s Segment) Transform(m *mgl64.Mat4) Segment {
	return Segment{A: m.Mul4x1(s.A.Vec4(1)).Vec3(), B: m.Mul4x1(s.B.Vec4(1)).Vec3()}
}

// Distance returns the distance from p to the segment.
func (s Segment) Distance(p mgl64.Vec3) float64 { return s.project(p).Len() }

// project returns p minus its closest point on s.
func (s Segment) project(p mgl64.Vec3) mgl64.Vec3 {
	ps := s.prepare()
	x, y, z := ps.offset(p[0], p[1], p[2])
	return mgl64.Vec3{x, y, z}
}

// preparedSegment is a segment ready for projections: its start a, its
// direction d = B − A and d/|d|² (0 when A = B).
type preparedSegment struct {
	a, d, dn [3]float64
}

// prepare returns s ready for projections.
func (s Segment) prepare() preparedSegment {
	p := preparedSegment{a: s.A, d: s.B.Sub(s.A)}
	if dd := p.d[0]*p.d[0] + p.d[1]*p.d[1] + p.d[2]*p.d[2]; dd > 0 {
		p.dn = [3]float64{p.d[0] / dd, p.d[1] / dd, p.d[2] / dd}
	}
	return p
}

// offset returns (x, y, z) minus its closest point on the segment,
// p − a − t·d with t = (p − a)·d / |d|² clamped to [0, 1] (t = 0 when
// the segment is a point).
func (s *preparedSegment) offset(x, y, z float64) (float64, float64, float64) {
	x, y, z = x-s.a[0], y-s.a[1], z-s.a[2]
	t := x*s.dn[0] + y*s.dn[1] + z*s.dn[2]
	t = max(0, min(1, t))
	return x - t*s.d[0], y - t*s.d[1], z - t*s.d[2]
}

// Material holds one vertex's parameters: the strengths of the goal,
// surface, spoke, damping and goal-damping forces. α, β, γ, κ ∈ [0, 1],
// λ ∈ [0, 0.5].
type Material struct {
	Alpha, Beta, Gamma, Lambda, Kappa float64
}

// Upper bounds of the parameters, in the order α, β, γ, λ, κ.
var upper = [nParams]float64{1, 1, 1, 0.5, 1}

// Upper returns parameter k's upper bound (Get's order; the lower is 0).
func Upper(k int) float64 { return upper[k] }

// nParams is the number of per-vertex parameters.
const nParams = 5

// Names of the parameters, in the order of Material's fields.
var ParamNames = [nParams]string{"alpha", "beta", "gamma", "lambda", "kappa"}

// Get returns parameter k (0 α, 1 β, 2 γ, 3 λ, 4 κ).
func (m Material) Get(k int) float64 {
	switch k {
	case 0:
		return m.Alpha
	case 1:
		return m.Beta
	case 2:
		return m.Gamma
	case 3:
		return m.Lambda
	}
	return m.Kappa
}

// Set sets parameter k (as Get).
func (m *Material) Set(k int, x float64) {
	switch k {
	case 0:
		m.Alpha = x
	case 1:
		m.Beta = x
	case 2:
		m.Gamma = x
	case 3:
		m.Lambda = x
	default:
		m.Kappa = x
	}
}

// StabilityLimit bounds Material.Stability: parameters beyond it are
// scaled back onto it by Effective.
const StabilityLimit = 3.5

// stabilityWeights are the coefficients of Material.Stability.
var stabilityWeights = [nParams]float64{1, 2, 1, 4, 2}

// Stability returns s = α + 2β + γ + 4λ + 2κ, the bound the parameters put
// on one step's stiffness and damping. Per vertex and per mode, symplectic
// Euler with stiffness a = k·h² and damping b = c·h is stable when
// a + 2b < 4 (the roots of z² − (2 − a − b)z + 1 − b lie inside the unit
// circle). The goal and spoke forces contribute at most α and γ to a, the
// surface force β times an eigenvalue of the graph Laplacian I − W, which
// is below 2, the damping λ times the same (below 2λ) and κ to b. So the
// paper's box alone does not make a vertex stable: α = β = γ = 1 with
// λ = ½ blows up within a few steps. Gallop keeps s ≤ StabilityLimit,
// 3.5, an eighth below the bound for the worst mode.
func (m Material) Stability() float64 {
	s := 0.0
	for k := range nParams {
		s += stabilityWeights[k] * m.Get(k)
	}
	return s
}

// Effective returns the parameters the simulation uses: m itself when
// m.Stability() ≤ StabilityLimit, else m scaled by StabilityLimit /
// m.Stability() (every force in proportion). Fitted parameters always
// satisfy the bound; painted ones may not, and are shown as what they
// do.
func (m Material) Effective() Material {
	s := m.Stability()
	if s <= StabilityLimit {
		return m
	}
	f := StabilityLimit / s
	return Material{m.Alpha * f, m.Beta * f, m.Gamma * f, m.Lambda * f, m.Kappa * f}
}

// Clamp returns m with every parameter clamped to its range.
func (m Material) Clamp() Material {
	for k := range nParams {
		m.Set(k, max(0, min(upper[k], m.Get(k))))
	}
	return m
}

// materialOf returns the Material with parameters x (α, β, γ, λ, κ).
func materialOf(x *[nParams]float64) Material {
	return Material{x[0], x[1], x[2], x[3], x[4]}
}

// Uniform returns n vertices of material m.
func Uniform(n int, m Material) []Material {
	p := make([]Material, n)
	for i := range p {
		p[i] = m
	}
	return p
}

// Puppet is the fit's starting point, the paper's "educated guess": α = 1
// and the rest 0.
var Puppet = Material{Alpha: 1}

// CheckParams reports the first parameter out of its range, naming the
// vertex, or a count that does not match n vertices.
func CheckParams(p []Material, n int) error {
	if len(p) != n {
		return fmt.Errorf("parameters for %s, the mesh has %d", words.Count(len(p), "vertex", "vertices"), n)
	}
	for i, m := range p {
		for k := range nParams {
			if x := m.Get(k); !(x >= 0 && x <= upper[k]) {
				return fmt.Errorf("vertex %d: %s = %v is outside [0, %v]", i, ParamNames[k], x, upper[k])
			}
		}
	}
	return nil
}

// Model is the fixed part of a dynamic skin: the rest mesh's 1-rings, the
// skin weights and the spokes' rest lengths. It is immutable and safe for
// concurrent use.
//
// It keeps its vertices in an order of its own, the mesh's Cuthill–McKee
// order (meshgraph), in which a vertex's ring lies near it: the step
// reads every vertex's ring, and on a mesh whose own order scatters them
// (a subdivided mesh's edge midpoints come after all its corners) the
// reads miss the cache. Its fields below are in that order, indexed by
// slot; perm and at translate, and every method that takes or returns
// vertices (and Sim's) uses the mesh's order. Each ring keeps the mesh's
// order of its neighbours, so sums over a ring, and every result, are
// bitwise those of the mesh's own order.
type Model struct {
	n     int
	diag  float64      // the rest bounding box's diagonal
	perm  []int32      // the vertex in slot k: perm[k]
	at    []int32      // the slot of vertex i: at[i]
	start []int32      // ring of slot k: ring[start[k]:start[k+1]]
	ring  []int32      // neighbours' slots, in increasing vertex number (meshgraph.Adjacency's rows)
	rest  []mgl64.Vec3 // rest positions xᵢ⁰
	mean0 []mgl64.Vec3 // mean of the rest edges xⱼ⁰ − xᵢ⁰ over the ring
	inv   []float64    // 1/|nbr(i)|, 0 for an isolated vertex

	rstart []int32    // spoke rows of slot group g (slots 4g to 4g+3): rows[rstart[g]:rstart[g+1]]
	rows   []spokeRow // the spokes of every slot group
	bones  int
	segs0  []Segment
}

// spokeRow holds the s-th spoke of each of a group of four slots, lane j
// for slot 4g+j (the layout spokes4 reads without shuffling): its bone,
// the skin weight w and w·|d⁰|, the weight times the rest spoke length.
// A group has as many rows as its slot with the most spokes; a slot with
// fewer (or a lane past the last slot) has w = w·|d⁰| = 0 and bone 0 in
// the rest, a spoke whose force, 0·d, adds nothing.
type spokeRow struct {
	bone   [4]int32
	w, wl0 [4]float64
}

// NewModel checks and prepares a dynamic skin: rest positions, triangles
// (their edges make the 1-rings), per vertex the bones' skin weights
// (non-negative, summing to 1; the Influence of SSDR, whose rigs and
// glTF skins alike drive the model) and each bone's segment in the rest
// pose.
func NewModel(rest []mgl64.Vec3, triangles [][3]int, weights [][]ssdr.Influence, segments []Segment) (*Model, error) {
	n := len(rest)
	if n == 0 {
		return nil, fmt.Errorf("no vertices")
	}
	if len(weights) != n {
		return nil, fmt.Errorf("skin weights for %d vertices, the mesh has %d", len(weights), n)
	}
	for i, p := range rest {
		if !finite.Vec3(p) {
			return nil, fmt.Errorf("vertex %d: non-finite rest position %v", i, p)
		}
	}
	for b, s := range segments {
		if !finite.Vec3(s.A) || !finite.Vec3(s.B) {
			return nil, fmt.Errorf("bone %d: non-finite segment %v", b, s)
		}
	}
	m := &Model{n: n, bones: len(segments), segs0: segments}
	adj, err := meshgraph.New(n, triangles)
	if err != nil {
		return nil, err
	}
	m.perm = adj.CuthillMcKee()
	m.at = make([]int32, n)
	for k, i := range m.perm {
		m.at[i] = int32(k)
	}
	m.start = make([]int32, n+1)
	m.ring = make([]int32, 0, len(adj.Nbr))
	m.inv = make([]float64, n)
	m.mean0 = make([]mgl64.Vec3, n)
	m.rest = make([]mgl64.Vec3, n)
	for k, i := range m.perm {
		m.rest[k] = rest[i]
		l := adj.Neighbours(int(i))
		var sum mgl64.Vec3
		for _, j := range l {
			e := rest[j].Sub(rest[i])
			m.ring = append(m.ring, m.at[j])
			sum = sum.Add(e)
		}
		m.start[k+1] = int32(len(m.ring))
		if len(l) > 0 {
			m.inv[k] = 1 / float64(len(l))
			m.mean0[k] = sum.Mul(m.inv[k])
		}
	}
	for i, l := range weights {
		for _, in := range l {
			if in.Bone < 0 || in.Bone >= len(segments) {
				return nil, fmt.Errorf("vertex %d: bone %d out of range [0, %d)", i, in.Bone, len(segments))
			}
			if !(in.Weight >= 0) || math.IsInf(in.Weight, 0) {
				return nil, fmt.Errorf("vertex %d: invalid weight %v", i, in.Weight)
			}
		}
		if sum := weightSum(l); math.Abs(sum-1) > 1e-3 {
			return nil, fmt.Errorf("vertex %d: skin weights sum to %v, want 1", i, sum)
		}
	}
	groups := (n + 3) / 4
	m.rstart = make([]int32, groups+1)
	for g := range groups {
		for j := range min(4, n-4*g) {
			i := m.perm[4*g+j]
			s := 0
			for _, in := range weights[i] {
				if in.Weight <= 0 {
					continue
				}
				if int(m.rstart[g])+s == len(m.rows) {
					m.rows = append(m.rows, spokeRow{})
				}
				row := &m.rows[int(m.rstart[g])+s]
				len0 := segments[in.Bone].project(rest[i]).Len()
				row.bone[j], row.w[j], row.wl0[j] = int32(in.Bone), in.Weight, in.Weight*len0
				s++
			}
		}
		m.rstart[g+1] = int32(len(m.rows))
	}
	lo, hi := rest[0], rest[0]
	for _, p := range rest {
		for k := 0; k < 3; k++ {
			lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
		}
	}
	m.diag = hi.Sub(lo).Len()
	return m, nil
}

// weightSum returns the sum of the weights of l.
func weightSum(l []ssdr.Influence) float64 {
	sum := 0.0
	for _, in := range l {
		sum += in.Weight
	}
	return sum
}

// toSlots returns x, one position per vertex in the mesh's order, in
// the model's slots.
func (m *Model) toSlots(x []mgl64.Vec3) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, m.n)
	parallel.For((m.n+chunk-1)/chunk, func(c int) {
		for k := c * chunk; k < min(m.n, (c+1)*chunk); k++ {
			out[k] = x[m.perm[k]]
		}
	})
	return out
}

// NumVertices returns the number of vertices.
func (m *Model) NumVertices() int { return m.n }

// RestSegments returns the bones' rest segments (shared; do not modify).
func (m *Model) RestSegments() []Segment { return m.segs0 }

// Diagonal returns the rest bounding box's diagonal.
func (m *Model) Diagonal() float64 { return m.diag }
