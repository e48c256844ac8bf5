package synth

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/solver/meshgraph"
	"gallop/solver/rotation"
)

const (
	perKey = 12 // coordinates per key: rotation 3, stretch 6, position 3
	eqs    = 4  // equations per key and row: 3 gradient columns and the position
)

// positionScale sets the weight of the key positions against their
// gradients: a position error of positionScale times the diagonal counts
// as much as a gradient error of 1.
const positionScale = 0.05

// gradientRadius is the radius, a fraction of the bounding-box diagonal,
// of the neighbourhood over which the weight gradients at a key vertex are
// averaged (gradientsAt): the vertices within that graph distance along
// the mesh's edges, and the one-ring however far. A radius rather than a
// count of rings makes the neighbourhood the same patch of surface on a
// mesh and on the same mesh subdivided; 0.03 is about two rings of pcow
// and three of horse-gallop.
const gradientRadius = 0.03

// keyBone is one bone's weight at a key vertex and the weight's gradient
// there.
type keyBone struct {
	bone int     // index into the model's bones
	col  int     // index into Part.Bones, -1 for the part's reference bone
	w    float64 // wᵦ at the key vertex
	g    mgl64.Vec3
}

// key is one key vertex: its rest position and the bones whose weight or
// weight gradient is non-zero there.
type key struct {
	vertex int
	p      mgl64.Vec3
	bones  []keyBone
}

// keys holds a part's key vertices, the rotation-strain coordinates of
// their deformation gradients at every input frame, and the least-squares
// operator that turns deformation gradients back into bone positions
// (Eq. 9).
//
// The operator is stored for the per-frame solve, which runs the three
// rows r of the bones' (F, t) side by side (see bones). M is stored by
// blocks: its 4 rows of key k (gradient columns c = 0, 1, 2 and the
// position) meet the 4 unknowns of bone column b (Fᵦ[r, 0..2], tᵦ[r]) in
// a 4×4 block, non-zero only where b weighs on k; key k's blocks are
// blocks[first[k]:first[k+1]], bones increasing, each 16 values c-major.
// The Cholesky factor L of MᵀM + μI is stored twice, its lower triangle
// by rows for the forward substitution and its transpose's upper triangle
// by rows for the backward one, so that both read memory in order.
type keys struct {
	list   []key
	coords [][]float64 // per input frame, perKey per key: the rotation's axis-angle vector, S₀₀ S₀₁ S₀₂ S₁₁ S₁₂ S₂₂, the position
	weight float64     // of the position equations: 1 / positionScale·diagonal
	first  []int32     // K+1 starts into blocks
	blocks []block     // M's non-zero 4×4 blocks
	lower  []float64   // L's rows i = 0 … n−1, entries j = 0 … i
	upper  []float64   // Lᵀ's rows i = 0 … n−1, entries j = i … n−1
	mu     float64
	fixed  []float64 // 3 per row of M: the reference bone's part of that row, for r = 0, 1, 2
}

// newKeys selects the key vertices of part p (Section 3.3): for each of its
// bones and its reference bone the vertex of largest weight, and for each
// pair of them the vertex that maximises wᵢ·wⱼ where both are non-zero. In
// a part of a split mesh, a key vertex whose neighbourhood another part's
// bone weighs at least Options.Coupling on is left out, and smaller
// weights of other parts' bones are ignored, so that the part's gradients
// depend on its own bones alone.
func newKeys(a *Analysis, adj *meshgraph.Adjacency, p *Part) (*keys, error) {
	m := a.Model
	in := map[int]int{p.Reference: -1} // bone -> column
	for c, b := range p.Bones {
		in[b] = c
	}
	nb := m.NumBones()
	bestV := make([]int, nb)
	bestW := make([]float64, nb)
	pairV := map[[2]int]int{}
	pairW := map[[2]int]float64{}
	for i, l := range m.Weights {
		for x, u := range l {
			if _, ok := in[u.Bone]; !ok {
				continue
			}
			if u.Weight > bestW[u.Bone] {
				bestW[u.Bone], bestV[u.Bone] = u.Weight, i
			}
			for _, v := range l[x+1:] {
				if _, ok := in[v.Bone]; !ok || u.Weight*v.Weight <= 0 {
					continue
				}
				e := [2]int{min(u.Bone, v.Bone), max(u.Bone, v.Bone)}
				if w := u.Weight * v.Weight; w > pairW[e] {
					pairW[e], pairV[e] = w, i
				}
			}
		}
	}
	var verts []int
	for b := range in {
		if bestW[b] > 0 {
			verts = append(verts, bestV[b])
		}
	}
	for _, v := range pairV {
		verts = append(verts, v)
	}
	slices.Sort(verts)
	verts = slices.Compact(verts)

	ks := &keys{weight: 1 / (positionScale * a.Diagonal)}
	dist := make([]float64, len(m.Rest))
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	inBall := make([]bool, len(m.Rest))
	var ball []int32
	for _, v := range verts {
		ball = adj.Ball(ball, dist, m.Rest, v, gradientRadius*a.Diagonal)
		kv, ok := gradientsAt(m, a.incidence, ball, inBall, v, in, a.Opts.Coupling)
		if !ok {
			continue // weighted by another part's bones
		}
		ks.list = append(ks.list, kv)
	}
	if len(ks.list) == 0 && len(p.Bones) > 0 {
		return nil, fmt.Errorf("synth: part of bone %d has no key vertex", p.Reference)
	}
	ks.coordinates(p, m.NumFrames())
	if err := ks.operator(p); err != nil {
		return nil, err
	}
	return ks, nil
}

// gradientsAt returns key vertex v with its bones' weights and weight
// gradients ∇wᵦ, each the mean over the triangles of ball (v's
// neighbourhood, v first) of the gradient of the weight on the triangle,
// weighted by area. The paper's Appendix A, which derives them, is
// missing; this is the derivation used.
//
// Skinning weights are linear on each triangle, so each triangle has one
// gradient per bone: for corners p₀, p₁, p₂ with weights w₀, w₁, w₂,
// e₁ = p₁ − p₀, e₂ = p₂ − p₀ and n = e₁ × e₂,
//
//	∇w = ((w₁ − w₀)(e₂ × n) + (w₂ − w₀)(n × e₁)) / ‖n‖²,
//
// the vector in the triangle's plane with ∇w·e₁ = w₁ − w₀ and
// ∇w·e₂ = w₂ − w₀. The mean Σ_T A_T ∇w_T / Σ_T A_T over the triangles
// with every corner in the ball is the mean gradient over that patch of
// the surface: a mesh subdivided by midpoints (whose triangles split into
// four of the same gradient) gives the same mean over the same patch.
// Weights that sum to 1 at every vertex give gradients that sum to 0 on
// every triangle; Σᵦ gᵦ = 0 is made exact by subtracting the mean over
// the bones weighted in the ball, so that a deformation gradient (Eq. 8)
// is F wherever the whole mesh undergoes an affine map (F, t):
// Σᵦ wᵦ F + (F v + t) Σᵦ gᵦᵀ = F. A vertex without triangles has zero
// gradients.
//
// It returns false if a bone outside in weighs at least coupling on the
// ball; smaller weights of such bones are left out.
func gradientsAt(m *Model, tris *meshgraph.Incidence, ball []int32, inBall []bool, v int, in map[int]int, coupling float64) (key, bool) {
	kv := key{vertex: v, p: m.Rest[v]}
	var bones []int
	for _, u := range ball {
		for _, x := range m.Weights[u] {
			if x.Weight <= 0 {
				continue
			}
			if _, ok := in[x.Bone]; !ok {
				if x.Weight >= coupling {
					return kv, false
				}
				continue
			}
			bones = append(bones, x.Bone)
		}
	}
	slices.Sort(bones)
	bones = slices.Compact(bones)
	weight := func(u, b int) float64 { // 0 for a bone left out
		for _, x := range m.Weights[u] {
			if x.Bone == b {
				return x.Weight
			}
		}
		return 0
	}
	for _, u := range ball {
		inBall[u] = true
	}
	grads := make([]mgl64.Vec3, len(bones))
	area := 0.0
	for _, u := range ball {
		for _, f := range tris.Of(int(u)) {
			t := m.Triangles[f]
			// Each triangle once: at its first corner in the ball.
			if !inBall[t[0]] || !inBall[t[1]] || !inBall[t[2]] || int(u) != min(t[0], t[1], t[2]) {
				continue
			}
			p0 := m.Rest[t[0]]
			e1, e2 := m.Rest[t[1]].Sub(p0), m.Rest[t[2]].Sub(p0)
			n := e1.Cross(e2)
			nn := n.Dot(n)
			if !(nn > 0) {
				continue
			}
			a := math.Sqrt(nn) / 2
			area += a
			d1, d2 := e2.Cross(n).Mul(a/nn), n.Cross(e1).Mul(a/nn)
			for x, b := range bones {
				w0 := weight(t[0], b)
				grads[x] = grads[x].Add(d1.Mul(weight(t[1], b) - w0)).Add(d2.Mul(weight(t[2], b) - w0))
			}
		}
	}
	for _, u := range ball {
		inBall[u] = false
	}
	var sum mgl64.Vec3
	for x, b := range bones {
		g := mgl64.Vec3{}
		if area > 0 {
			g = grads[x].Mul(1 / area)
		}
		sum = sum.Add(g)
		kv.bones = append(kv.bones, keyBone{bone: b, col: in[b], w: weight(v, b), g: g})
	}
	corr := sum.Mul(1 / float64(max(len(bones), 1)))
	for x := range kv.bones {
		kv.bones[x].g = kv.bones[x].g.Sub(corr)
	}
	return kv, true
}

// position returns the key vertex's position Σᵦ wᵦ (Fᵦ p + tᵦ) for the
// part's local-frame bone positions local.
func (kv *key) position(local []Affine) mgl64.Vec3 {
	var v mgl64.Vec3
	for _, kb := range kv.bones {
		if kb.col < 0 {
			v = v.Add(kv.p.Mul(kb.w))
		} else {
			v = v.Add(local[kb.col].Apply(kv.p).Mul(kb.w))
		}
	}
	return v
}

// gradient returns the deformation gradient at key kv for the part's
// local-frame bone positions local (the reference bone the identity),
// Eq. 8:
//
//	D = Σᵦ wᵦ Fᵦ + (Fᵦ p + tᵦ) ∇wᵦᵀ
func (kv *key) gradient(local []Affine) mgl64.Mat3 {
	var d mgl64.Mat3
	for _, kb := range kv.bones {
		f, t := mgl64.Ident3(), mgl64.Vec3{}
		if kb.col >= 0 {
			f, t = local[kb.col].R, local[kb.col].T
		}
		d = d.Add(f.Mul(kb.w)).Add(f.Mul3x1(kv.p).Add(t).OuterProd3(kb.g))
	}
	return d
}

// coordinates computes the rotation-strain coordinates of every key's
// deformation gradient at every input frame: D = U·S by the polar
// decomposition, the axis-angle vector of U (unwrapped along time) and the
// upper triangle of the symmetric S.
func (ks *keys) coordinates(p *Part, n int) {
	ks.coords = make([][]float64, n)
	for x := range n {
		c := make([]float64, perKey*len(ks.list))
		for k := range ks.list {
			u, s := rotation.Polar(ks.list[k].gradient(p.local[x]))
			w := rotation.Log(u)
			if x > 0 {
				prev := ks.coords[x-1][perKey*k:]
				w = unwrap(mgl64.Vec3{prev[0], prev[1], prev[2]}, w)
			}
			v := ks.list[k].position(p.local[x])
			copy(c[perKey*k:], []float64{w[0], w[1], w[2], s[0], s[3], s[6], s[4], s[7], s[8], v[0], v[1], v[2]})
		}
		ks.coords[x] = c
	}
}

// fromCoordinates writes to *g the deformation gradient U·S of the 9
// rotation-strain coordinates c: U = Exp of c's first three, S the
// symmetric matrix of the other six (upper triangle by rows).
func fromCoordinates(g *mgl64.Mat3, c []float64) {
	c = c[:9]
	var u mgl64.Mat3
	rotation.ExpTo(&u, mgl64.Vec3{c[0], c[1], c[2]})
	cols := [3][3]float64{{c[3], c[4], c[5]}, {c[4], c[6], c[7]}, {c[5], c[7], c[8]}} // S's columns
	for j, sj := range cols {
		for r := range 3 {
			g[3*j+r] = u[r]*sj[0] + u[3+r]*sj[1] + u[6+r]*sj[2]
		}
	}
}

// operator builds the least-squares solve of Eq. 9. Eq. 8 is linear in
// the bone positions and, row by row, separable: row r of D at key k,
// column c, is
//
//	Dᵣ꜀ = Σᵦ Σₘ Fᵦ[r,m] (wᵦ δₘ꜀ + pₘ ∇wᵦ[c]) + tᵦ[r] ∇wᵦ[c]
//
// so the three rows of every bone's (F, t) solve three systems with one
// matrix M of 3·K rows (key k, column c) and 4 unknowns per bone
// (Fᵦ[r,0..2], tᵦ[r]). The reference bone is the identity in its own
// frame; its terms move to the right-hand side. The normal equations are
// regularised towards a prior p₀ (the input's own bone positions at the
// frame being played), min ‖Mz − d‖² + μ‖z − z₀‖² with μ = 10⁻⁹ tr(MᵀM)/n:
// too weak to move a determined solution, it fixes the bones the key
// vertices do not determine (a bone with no neighbour in its part).
func (ks *keys) operator(p *Part) error {
	nb := len(p.Bones)
	if nb == 0 {
		return nil
	}
	nk := len(ks.list)
	M := mat.NewDense(eqs*nk, 4*nb, nil)
	ks.fixed = make([]float64, eqs*nk*3)
	add := func(row, col int, v float64) { M.Set(row, col, M.At(row, col)+v) }
	for k, kv := range ks.list {
		for _, kb := range kv.bones {
			// Gradient columns c = 0, 1, 2, then the position (c = 3),
			// scaled by PositionWeight.
			for c := range eqs {
				row := eqs*k + c
				coef := func(m int) float64 { // of Fᵦ[r, m]
					if c == 3 {
						return ks.weight * kb.w * kv.p[m]
					}
					v := kv.p[m] * kb.g[c]
					if m == c {
						v += kb.w
					}
					return v
				}
				ct := kb.g[min(c, 2)] // of tᵦ[r]
				if c == 3 {
					ct = ks.weight * kb.w
				}
				if kb.col < 0 { // the reference bone: F = I, t = 0
					for r := range 3 {
						ks.fixed[3*row+r] += coef(r)
					}
					continue
				}
				for m := range 3 {
					add(row, 4*kb.col+m, coef(m))
				}
				add(row, 4*kb.col+3, ct)
			}
		}
	}
	var mtm mat.SymDense
	mtm.SymOuterK(1, M.T())
	tr := 0.0
	for i := range 4 * nb {
		tr += mtm.At(i, i)
	}
	mu := 1e-9 * tr / float64(4*nb)
	if mu == 0 {
		mu = 1
	}
	for i := range 4 * nb {
		mtm.SetSym(i, i, mtm.At(i, i)+mu)
	}
	var ch mat.Cholesky
	if !ch.Factorize(&mtm) {
		return fmt.Errorf("synth: the blending system of the part of bone %d is not positive definite", p.Reference)
	}
	nz := 4 * nb
	ks.mu = mu
	var l mat.TriDense
	ch.LTo(&l)
	ks.lower = make([]float64, 0, nz*(nz+1)/2)
	ks.upper = make([]float64, 0, nz*(nz+1)/2)
	for i := range nz {
		for j := 0; j <= i; j++ {
			ks.lower = append(ks.lower, l.At(i, j))
		}
		for j := i; j < nz; j++ {
			ks.upper = append(ks.upper, l.At(j, i))
		}
	}
	ks.first = make([]int32, 1, nk+1)
	for k := range nk {
		for b := range nb {
			var bl block
			for c := range eqs {
				for m := range 4 {
					bl.v[4*c+m] = M.At(eqs*k+c, 4*b+m)
				}
			}
			if bl.v != ([16]float64{}) {
				bl.col = b
				ks.blocks = append(ks.blocks, bl)
			}
		}
		ks.first = append(ks.first, int32(len(ks.blocks)))
	}
	return nil
}

// block is one non-zero 4×4 block of M: the rows of one key, the unknowns
// of bone column col; v[4c+m] is the coefficient of unknown m in row c.
type block struct {
	col int
	v   [16]float64
}

// solveScratch is the working memory of keys.bones, reused across the
// frames of a walk.
type solveScratch struct {
	d, z []float64
}

// bones solves Eq. 9 for the part's bones in the reference frame from the
// deformation gradients given by coordinates c (perKey per key), with
// prior positions prior; it writes them to dst.
//
// The three rows r of the bones' (F, t) share M, so they are solved
// together, their values interleaved (d[3i+r], z[3j+r]): each of M's and
// L's entries is read once for all three. Each row's arithmetic is the
// same, in the same order, as a solve of its own.
func (ks *keys) bones(dst []Affine, c []float64, prior []Affine, sc *solveScratch) {
	nb, nk := len(dst), len(ks.list)
	n := 4 * nb
	if len(sc.d) != 3*eqs*nk || len(sc.z) != 3*n {
		*sc = solveScratch{d: make([]float64, 3*eqs*nk), z: make([]float64, 3*n)}
	}
	d, z := sc.d, sc.z
	var g mgl64.Mat3
	for k := range nk {
		ck := c[perKey*k:]
		fromCoordinates(&g, ck)
		dk, fk := d[3*eqs*k:3*eqs*(k+1)], ks.fixed[3*eqs*k:3*eqs*(k+1)]
		for col := range 3 {
			for r := range 3 {
				dk[3*col+r] = g[3*col+r] - fk[3*col+r]
			}
		}
		for r := range 3 {
			dk[9+r] = ks.weight*ck[9+r] - fk[9+r]
		}
	}
	// z = (MᵀM + μI)⁻¹ (Mᵀd + μz₀), z₀ the prior: Mᵀd from M's sparse
	// rows, then the two triangular solves with L.
	for b, p := range prior[:nb] {
		zb := z[12*b : 12*b+12]
		for m := range 3 {
			for r := range 3 {
				zb[3*m+r] = ks.mu * p.R[3*m+r]
			}
		}
		for r := range 3 {
			zb[9+r] = ks.mu * p.T[r]
		}
	}
	// Mᵀd by blocks: every z entry sums its terms in M's row order, key
	// by key and c = 0 … 3 within a key, as a sparse product by rows
	// would (the blocks' zeros add exact zeros).
	for k := range nk {
		dk := (*[3 * eqs]float64)(d[3*eqs*k:])
		for e := ks.first[k]; e < ks.first[k+1]; e++ {
			bl := &ks.blocks[e]
			zb, v := (*[12]float64)(z[12*bl.col:]), &bl.v
			for r := range 3 {
				d0, d1, d2, d3 := dk[r], dk[3+r], dk[6+r], dk[9+r]
				for m := range 4 {
					zb[3*m+r] = zb[3*m+r] + v[m]*d0 + v[4+m]*d1 + v[8+m]*d2 + v[12+m]*d3
				}
			}
		}
	}
	off := 0
	for i := range n {
		row := ks.lower[off : off+i+1]
		off += i + 1
		v0, v1, v2 := z[3*i], z[3*i+1], z[3*i+2]
		for j, x := range row[:i] {
			zj := z[3*j : 3*j+3]
			v0 -= x * zj[0]
			v1 -= x * zj[1]
			v2 -= x * zj[2]
		}
		dia := row[i]
		z[3*i], z[3*i+1], z[3*i+2] = v0/dia, v1/dia, v2/dia
	}
	off = len(ks.upper)
	for i := n - 1; i >= 0; i-- {
		off -= n - i
		row := ks.upper[off : off+n-i]
		v0, v1, v2 := z[3*i], z[3*i+1], z[3*i+2]
		for j, x := range row[1:] {
			zj := z[3*(i+1+j) : 3*(i+1+j)+3]
			v0 -= x * zj[0]
			v1 -= x * zj[1]
			v2 -= x * zj[2]
		}
		dia := row[0]
		z[3*i], z[3*i+1], z[3*i+2] = v0/dia, v1/dia, v2/dia
	}
	for b := range dst[:nb] {
		zb := z[12*b : 12*b+12]
		copy(dst[b].R[:], zb[:9])
		copy(dst[b].T[:], zb[9:])
	}
}
