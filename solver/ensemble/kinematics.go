package ensemble

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/solver/rotation"
)

// groupModel is the reduced model of one group.
type groupModel struct {
	// GroupParts are the group's persistent parts (what Model.Parts
	// keeps); its Frames is nil here: a group with its own frame holds it
	// per state in frames.
	GroupParts
	frames []frameState
}

// frameState is an own frame at one source frame with the quantities the
// transition cost compares: the image O of the rest centroid, and the
// velocities of O and of the rotation (ω, the rotation vector of
// R(t)·R(t−1)ᵀ, in the parent's axes), per second.
type frameState struct {
	Rigid
	O, ODot, Omega mgl64.Vec3
}

// buildHierarchy fills in each group's path, rest shape, attachment
// patch and sewn vertices, and the parents-first order.
func (m *Model) buildHierarchy() error {
	d := m.data
	m.groups = make([]groupModel, len(d.Groups))
	for k, g := range d.Groups {
		gm := &m.groups[k]
		gm.First, gm.Count, gm.Parent = g.First, g.Count, g.Parent
		gm.Triangles = g.Triangles
		for a := k; a >= 0; a = d.Groups[a].Parent {
			gm.Path = append([]int{a}, gm.Path...)
		}
		gm.Rest = d.Rest[g.First : g.First+g.Count]
		for _, p := range gm.Rest {
			gm.Centroid = gm.Centroid.Add(p)
		}
		gm.Centroid = gm.Centroid.Mul(1 / float64(g.Count))
		ss := 0.0
		for _, p := range gm.Rest {
			ss += p.Sub(gm.Centroid).LenSqr()
		}
		gm.Radius = math.Sqrt(ss / float64(g.Count))
		gm.Own = len(g.Attach) == 0
		if gm.Own {
			continue
		}
		parent := d.Groups[g.Parent]
		patch, err := attachmentPatch(g, parent)
		if err != nil {
			return err
		}
		gm.Patch = patch
		for _, v := range patch {
			gm.PatchRest = append(gm.PatchRest, d.Rest[parent.First+v])
		}
		gm.SewnTo = make([]int32, g.Count)
		for v := range gm.SewnTo {
			gm.SewnTo[v] = -1
		}
		for _, at := range g.Attach {
			gm.SewnTo[at.Vertex] = int32(at.ParentVertex)
			gm.SewVertex = append(gm.SewVertex, at.Vertex)
			gm.SewParent = append(gm.SewParent, at.ParentVertex)
		}
		if gm.Sew, err = newSewing(g.Count, g.Triangles, g.Attach); err != nil {
			return fmt.Errorf("ensemble: group %q: %w", g.Name, err)
		}
		gm.TriSewn = make([][3]int32, len(g.Triangles))
		for t, tri := range g.Triangles {
			for c, v := range tri {
				gm.TriSewn[t][c] = gm.SewnTo[v]
			}
		}
	}
	for _, layer := range m.layers() {
		m.order = append(m.order, layer...)
	}
	return nil
}

// layers returns the groups by depth in the hierarchy: roots first, then
// their children, and so on; within a depth by index.
func (m *Model) layers() [][]int {
	var out [][]int
	for k := range m.groups {
		d := len(m.groups[k].Path) - 1
		for len(out) <= d {
			out = append(out, nil)
		}
		out[d] = append(out[d], k)
	}
	return out
}

// roundingFloor sets the singular values that are rounding noise: below
// roundingFloor·√(F·Σ_v|p_v|²), about what rounding the coordinates to
// float64 adds to a displacement matrix. They are dropped whatever the
// threshold (unless it is 0), so that a group that does not deform has
// rank 0 rather than a basis of noise (its σ₁ would be noise too).
const roundingFloor = 1e-12

// truncation returns the rank kept of a group's PCA with singular values
// sigma (decreasing), of F frames and rest shape rest: the smallest r
// whose dropped singular values hold at most threshold of the matrix's
// squared Frobenius norm, Σ_{i≥r} σᵢ² ≤ threshold·Σᵢ σᵢ² (a relative RMS
// reconstruction error of at most √threshold), and no singular value at
// the rounding floor. With threshold 0 every σ > 0 is kept.
func truncation(sigma []float64, threshold float64, rest []mgl64.Vec3, F int) int {
	if threshold == 0 {
		r := 0
		for r < len(sigma) && sigma[r] > 0 {
			r++
		}
		return r
	}
	ss := 0.0
	for _, p := range rest {
		ss += p.LenSqr()
	}
	floor := roundingFloor * math.Sqrt(float64(F)*ss)
	total := 0.0
	for _, x := range sigma {
		total += x * x
	}
	dropped := total
	r := 0
	for r < len(sigma) && sigma[r] > floor && dropped > threshold*total {
		dropped -= sigma[r] * sigma[r]
		r++
	}
	return r
}

// fitGroup fits group k's frames, PCA basis and coordinates. Its parent
// must be fitted already.
//
// World frames W_k(t): a group with a frame of its own is fitted to its
// data, W_k(t) = the rigid fit of p_k onto x_k(t); its stored local frame
// is L_k(t) = W_parent(t)⁻¹ ∘ W_k(t) (W_k itself for a root). An attached
// group's frame is the rigid fit of its parent's patch from rest onto the
// parent's reconstructed positions at t (from the parent's PCA
// coordinates, not the data), so that reconstruction and transitions
// compute it in exactly the same way and a source frame is reproduced to
// this group's own truncation error.
//
// The local displacements u_k(t) = W_k(t)⁻¹ x_k(t) − p_k of all states of
// all levels form the columns of a 3v_k × F matrix A; its thin SVD
// A = U Σ Vᵀ (uncentred, as u = U q in Eq. 2) gives the basis: the columns
// of U that truncation keeps, and q_k(t) = U_kᵀ u_k(t). The velocity is
// the backward difference q̇(t) = (q(t) − q(t−1))·FPS within a level, the
// forward difference at a level's first frame.
//
// It returns the group's world frames at every state as its
// reconstruction poses them (for an own frame of a child,
// W_parent ∘ L_k, equal to the fit up to rounding), when world is true.
func (m *Model) fitGroup(k int, parentWorld []Rigid, world bool) ([]Rigid, error) {
	d := m.data
	g := &m.groups[k]
	F := m.states()
	frames := make([]Rigid, F)
	A := mat.NewDense(3*g.Count, F, nil)
	if g.Own {
		g.frames = make([]frameState, F)
	}
	for i := range F {
		s := m.state(i)
		x := d.Levels[s.Level].Frames[s.Frame][g.First : g.First+g.Count]
		if g.Own {
			var sums rotation.RigidSums
			for v, p := range g.Rest {
				sums.Add(1, x[v], p)
			}
			frames[i].R, frames[i].T, _ = sums.Fit()
			local := frames[i]
			if parentWorld != nil {
				local = parentWorld[i].Inverse().Compose(frames[i])
			}
			g.frames[i].Rigid = local
		} else {
			frames[i] = m.patchFrame(g, m.reconstructPatch(g, i, parentWorld[i]))
		}
		inv := frames[i].Inverse()
		for v, p := range x {
			u := inv.Apply(p).Sub(g.Rest[v])
			A.Set(3*v, i, u[0])
			A.Set(3*v+1, i, u[1])
			A.Set(3*v+2, i, u[2])
		}
	}
	if g.Own {
		m.frameVelocities(g)
	}

	var svd mat.SVD
	if !svd.Factorize(A, mat.SVDThin) {
		return nil, fmt.Errorf("ensemble: group %q: the SVD of its displacements did not converge", d.Groups[k].Name)
	}
	g.Sigma = svd.Values(nil)
	var U, V mat.Dense
	svd.UTo(&U)
	svd.VTo(&V)
	g.Rank = m.stepRank(g, truncation(g.Sigma, m.opts.Threshold, g.Rest, F), &U, &V, frames)
	r := g.Rank
	g.Basis = make([]float64, 3*g.Count*r)
	for v := range g.Count {
		for c := range r {
			for dim := range 3 {
				g.Basis[(v*r+c)*3+dim] = U.At(3*v+dim, c)
			}
		}
	}
	// q(t) = Uᵀ u(t) = σ_c V[t, c].
	g.Q = make([]float64, F*r)
	for i := range F {
		for c := range r {
			g.Q[i*r+c] = g.Sigma[c] * V.At(i, c)
		}
	}
	g.QDot = make([]float64, F*r)
	for l := range len(m.levels) - 1 {
		lo, hi := m.levels[l], m.levels[l+1]
		for i := lo; i < hi; i++ {
			a, b := i-1, i
			if i == lo {
				a, b = lo, lo+1
			}
			for c := range r {
				g.QDot[i*r+c] = (g.Q[b*r+c] - g.Q[a*r+c]) * d.FPS
			}
		}
	}
	if !world {
		return nil, nil
	}
	if g.Own && parentWorld != nil {
		for i := range frames {
			frames[i] = parentWorld[i].Compose(g.frames[i].Rigid)
		}
	}
	return frames, nil
}

// stepRank returns the least rank r ≥ r0 at which group g's
// reconstruction of its source frames (before the sewing correction) steps
// no further than its data: for every pair of consecutive frames of a
// level, maxᵥ‖x̃ᵥ(t+1) − x̃ᵥ(t)‖ ≤ S_k, the data's own largest step of the
// group over all levels, where x̃ᵥ(t) = W(t)(pᵥ + Σ_{c<r} U[v,c] σ_c V[t,c]).
// Truncation at the threshold alone (§2.1) lets a frame of the
// reconstruction move up to 2% further than the data ever does, and a
// player whose steps the model bounds would then jump further than the
// data. At full rank the reconstruction is the data to rounding, so some
// r qualifies (up to the rounding slack stepSlack). The search adds one
// singular vector at a time to the reconstruction: O(F·n) per rank.
func (m *Model) stepRank(g *groupModel, r0 int, U, V *mat.Dense, frames []Rigid) int {
	d := m.data
	F := len(frames)
	full := len(g.Sigma)
	limit := 0.0
	for l := range len(m.levels) - 1 {
		lv := d.Levels[l].Frames
		for f := 1; f < len(lv); f++ {
			limit = max(limit, groupStep(g, lv[f-1], lv[f]))
		}
	}
	limit *= 1 + stepSlack
	// local[i·n + v]: the reconstruction in the group's frame at rank r.
	n := g.Count
	local := make([]mgl64.Vec3, F*n)
	for i := range F {
		copy(local[i*n:(i+1)*n], g.Rest)
	}
	add := func(c int) {
		for i := range F {
			w := g.Sigma[c] * V.At(i, c)
			for v := range n {
				local[i*n+v] = local[i*n+v].Add(mgl64.Vec3{U.At(3*v, c), U.At(3*v+1, c), U.At(3*v+2, c)}.Mul(w))
			}
		}
	}
	steps := func() bool {
		for l := range len(m.levels) - 1 {
			for i := m.levels[l] + 1; i < m.levels[l+1]; i++ {
				a, b := &frames[i-1], &frames[i]
				for v := range n {
					if b.Apply(local[i*n+v]).Sub(a.Apply(local[(i-1)*n+v])).Len() > limit {
						return false
					}
				}
			}
		}
		return true
	}
	for c := range r0 {
		add(c)
	}
	r := r0
	for r < full && g.Sigma[r] > 0 && !steps() {
		add(r)
		r++
	}
	return r
}

// stepSlack is the relative rounding allowance of stepRank's comparison.
const stepSlack = 1e-9

// frameVelocities fills in O, Ȯ and ω of an own frame at every state.
func (m *Model) frameVelocities(g *groupModel) {
	for i := range g.frames {
		g.frames[i].O = g.frames[i].Apply(g.Centroid)
	}
	for l := range len(m.levels) - 1 {
		lo, hi := m.levels[l], m.levels[l+1]
		for i := lo; i < hi; i++ {
			a, b := i-1, i
			if i == lo {
				a, b = lo, lo+1
			}
			fa, fb := &g.frames[a], &g.frames[b]
			g.frames[i].ODot = fb.O.Sub(fa.O).Mul(m.data.FPS)
			g.frames[i].Omega = rotation.Log(fb.R.Mul3(fa.R.Transpose())).Mul(m.data.FPS)
		}
	}
}

// reconstructPatch returns the reconstructed world positions of attached
// group g's parent patch at state i, the parent's world frame being pw.
func (m *Model) reconstructPatch(g *groupModel, i int, pw Rigid) []mgl64.Vec3 {
	p := &m.groups[g.Parent]
	out := make([]mgl64.Vec3, len(g.Patch))
	q := p.Q[i*p.Rank : (i+1)*p.Rank]
	for n, v := range g.Patch {
		out[n] = pw.Apply(p.local(v, q))
	}
	return out
}

// patchFrame returns the rigid fit of g's parent patch from rest onto
// the positions x (one per patch vertex).
func (m *Model) patchFrame(g *groupModel, x []mgl64.Vec3) Rigid {
	var sums rotation.RigidSums
	for n, p := range g.PatchRest {
		sums.Add(1, x[n], p)
	}
	var r Rigid
	r.R, r.T, _ = sums.Fit()
	return r
}
