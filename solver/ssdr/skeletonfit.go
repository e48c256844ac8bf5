package ssdr

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/finite"
	"gallop/internal/parallel"
	"gallop/solver/bvh"
	"gallop/solver/rotation"
)

// jointPrior is ε of the joints' regularisation ε·N·T·‖cⱼ − c̄ⱼ‖² (see
// joints): it fixes the point along a hinge's axis, which the motion
// leaves free, and a joint whose bones barely turn, at the point the
// topology put it, and is too weak to move a joint the motion determines.
const jointPrior = 1e-6

// pairPrior is the same for the pairwise joint fits of the topology, per
// frame: μ = pairPrior·T.
const pairPrior = 1e-3

// rotations runs TransformIterations sweeps of the bones' rotations, each
// frame in parallel: bone by bone, parents first, the rotation Rⱼ that
// minimises the error with everything else held. With the joints and the
// root's path held, vertex i's residual is affine in Rⱼ, rᵢ = R·uᵢ + bᵢ
// (rotationSet), so the best R maximises tr(Rᵀ·Σᵢ(−bᵢ)uᵢᵀ): the rotation
// nearest H = R_old·Σuuᵀ − Σᵢ rᵢuᵢᵀ (Kabsch, rotation.Polar), plus a
// 10⁻⁸·tr(Σuuᵀ) pull toward R_old that picks, of equally good rotations
// (a bone whose vertices lie on a line), the one closest to the last.
// Each update is exact, so a sweep never raises the error.
//
// The sum needs no pass over the vertices: rᵢ = Σₖ wᵢₖ(Rₖpᵢ + Tₖ) − vᵢ
// gives Σᵢ rᵢuᵢᵀ = Σₖ (Rₖ·Σᵢwᵢₖpᵢuᵢᵀ + Tₖ·(Σᵢwᵢₖuᵢ)ᵀ) − Σᵢ vᵢuᵢᵀ, whose
// per-bone sums levers keeps and whose last term is summed once per frame.
func (s *solver) rotations() {
	sk, t := s.skel, s.t
	parallel.For(t, func(f int) {
		vu := make([]mgl64.Mat3, s.b) // Σᵢ vᵢuᵢᵀ per bone
		for j := range s.b {
			set := &sk.lists[j]
			var c mgl64.Mat3
			for a, i := range set.vert {
				v, u := s.vt[int(i)*t+f], set.u[a]
				for col := range 3 {
					c[3*col] += v[0] * u[col]
					c[3*col+1] += v[1] * u[col]
					c[3*col+2] += v[2] * u[col]
				}
			}
			vu[j] = c
		}
		for range s.opts.TransformIterations {
			for _, j := range sk.order {
				set := &sk.lists[j]
				if len(set.vert) == 0 {
					continue
				}
				old := sk.rot[j*t+f]
				h := old.Mul3(set.uu).Add(vu[j]).Add(old.Mul(1e-8 * set.uu.Trace()))
				for q, c := range set.bone {
					x := &s.m[int(c)*t+f]
					h = h.Sub(x.R.Mul3(set.pu[q])).Sub(x.T.OuterProd3(set.wu[q]))
				}
				var rot, sym mgl64.Mat3
				rotation.PolarTo(&rot, &sym, &h)
				sk.rot[j*t+f] = rot
				s.deriveFrame(f)
			}
		}
	})
}

// joints solves, with the rotations and weights held, the rest joints cₑ
// of every bone e but the root and the root's path Jᵗ exactly. With
// Dₑ = R_p(e) − Rₑ and sᵢₑ = Σ_{k at or below e} wᵢₖ, vertex i's residual
// is
//
//	rᵢᵗ = gᵢᵗ + Jᵗ + Σₑ sᵢₑ·Dₑᵗ·cₑ,  gᵢᵗ = Σₖ wᵢₖRₖᵗpᵢ − R_rootᵗc_root − vᵢᵗ,
//
// affine in the unknowns (Σₖ wᵢₖ = 1 makes Jᵗ enter every vertex once).
// Eliminating Jᵗ = −(Gᵗ + Σₑ σₑDₑᵗcₑ)/N (G = Σᵢgᵢ, σₑ = Σᵢsᵢₑ) leaves the
// normal equations of the joints alone,
//
//	Σ_f [Σₜ (S_ef − σₑσ_f/N)·DₑᵀD_f + μδₑf]·c_f = −Σₜ Dₑᵀ(Qₑ − σₑG/N) + μc̄ₑ,
//
// S_ef = Σᵢ sᵢₑsᵢf, Qₑ = Σᵢ sᵢₑgᵢ, μ = jointPrior·N·T: a dense system of
// 3(B−1) unknowns, solved with each joint kept in its region (the box of
// the rest vertices its bone or its parent weighs, regions.joint) by
// boxQP. Without the regions a joint between two bones whose relative
// motion is nearly a hinge slides along the hinge's axis out of the
// body, where its lever lets the child translate as free bones do (on
// horse-gallop 3 of 19 joints more than a tenth of the diagonal outside
// the mesh's box, for an RMSE 11% lower). With fixed joints (a given
// skeleton) only Jᵗ is solved.
func (s *solver) joints() {
	sk, b, t, n, k := s.skel, s.b, s.t, s.n, s.k
	root := sk.order[0]
	idx := make([]int, b) // bone → unknown, −1 for the root
	ne := 0
	for j := range b {
		idx[j] = -1
		if j != root {
			idx[j] = ne
			ne++
		}
	}
	// Per vertex its sᵢₑ, and the frame-independent sums.
	sigma := make([]float64, ne)
	ss := make([]float64, ne*ne)
	p0 := make([]mgl64.Vec3, b) // Σᵢ wᵢₖpᵢ
	start := make([]int32, n+1)
	var se []int32
	var sv []float64
	acc := make([]float64, ne)
	var touched []int32
	for i := range n {
		touched = touched[:0]
		p := s.rest[i]
		for q := range k {
			c, w := s.wb[i*k+q], s.ww[i*k+q]
			if c < 0 || w <= 0 {
				continue
			}
			p0[c] = p0[c].Add(p.Mul(w))
			for j := int(c); j != root; j = sk.k.Parent[j] {
				e := idx[j]
				if acc[e] == 0 {
					touched = append(touched, int32(e))
				}
				acc[e] += w
			}
		}
		slices.Sort(touched)
		for _, e := range touched {
			se = append(se, e)
			sv = append(sv, acc[e])
		}
		start[i+1] = int32(len(se))
		for a := start[i]; a < start[i+1]; a++ {
			ea, va := se[a], sv[a]
			sigma[ea] += va
			for c := start[i]; c < start[i+1]; c++ {
				ss[int(ea)*ne+int(se[c])] += va * sv[c]
			}
			acc[ea] = 0
		}
	}
	// Pₑₖ = Σᵢ sᵢₑwᵢₖpᵢ over every influence k of the vertices, for
	// Qₑ's skinned term Σᵢ sᵢₑ·Σₖ wᵢₖRₖpᵢ = Σₖ Rₖ·Pₑₖ.
	pAll := make([]mgl64.Vec3, ne*b) // Σᵢ sᵢₑwᵢₖpᵢ over every k
	for i := range n {
		p := s.rest[i]
		for a := start[i]; a < start[i+1]; a++ {
			e, v := int(se[a]), sv[a]
			for q := range k {
				c, w := s.wb[i*k+q], s.ww[i*k+q]
				if c >= 0 && w > 0 {
					pAll[e*b+int(c)] = pAll[e*b+int(c)].Add(p.Mul(v * w))
				}
			}
		}
	}
	// Per frame: Vₑ = Σᵢ sᵢₑvᵢ, V = Σᵢ vᵢ, then the frame's terms.
	nf := float64(n)
	cRoot := sk.k.Joint[root]
	type frameTerms struct {
		g mgl64.Vec3
		q []mgl64.Vec3
		d []mgl64.Mat3
	}
	terms := make([]frameTerms, t)
	parallel.For(t, func(f int) {
		ft := frameTerms{q: make([]mgl64.Vec3, ne), d: make([]mgl64.Mat3, ne)}
		var vsum mgl64.Vec3
		ve := make([]mgl64.Vec3, ne)
		for i := range n {
			v := s.vt[i*t+f]
			vsum = vsum.Add(v)
			for a := start[i]; a < start[i+1]; a++ {
				ve[se[a]] = ve[se[a]].Add(v.Mul(sv[a]))
			}
		}
		rr := sk.rot[root*t+f].Mul3x1(cRoot)
		for c := range b {
			ft.g = ft.g.Add(sk.rot[c*t+f].Mul3x1(p0[c]))
		}
		ft.g = ft.g.Sub(rr.Mul(nf)).Sub(vsum)
		for j := range b {
			e := idx[j]
			if e < 0 {
				continue
			}
			var q mgl64.Vec3
			for c := range b {
				q = q.Add(sk.rot[c*t+f].Mul3x1(pAll[e*b+c]))
			}
			ft.q[e] = q.Sub(rr.Mul(sigma[e])).Sub(ve[e])
			ft.d[e] = sk.rot[sk.k.Parent[j]*t+f].Sub(sk.rot[j*t+f])
		}
		terms[f] = ft
	})
	if !sk.fixed && ne > 0 {
		a := mat.NewSymDense(3*ne, nil)
		rhs := mat.NewVecDense(3*ne, nil)
		mu := jointPrior * nf * float64(t)
		for f := range t {
			ft := &terms[f]
			for e := range ne {
				de := ft.d[e]
				y := ft.q[e].Sub(ft.g.Mul(sigma[e] / nf))
				z := de.Transpose().Mul3x1(y)
				for r := range 3 {
					rhs.SetVec(3*e+r, rhs.AtVec(3*e+r)-z[r])
				}
				for g := e; g < ne; g++ {
					w := ss[e*ne+g] - sigma[e]*sigma[g]/nf
					if w == 0 {
						continue
					}
					m := de.Transpose().Mul3(ft.d[g])
					for r := range 3 {
						for c := range 3 {
							if e == g && c < r {
								continue
							}
							a.SetSym(3*e+r, 3*g+c, a.At(3*e+r, 3*g+c)+w*m[3*c+r])
						}
					}
				}
			}
		}
		for j := range b {
			e := idx[j]
			if e < 0 {
				continue
			}
			for r := range 3 {
				a.SetSym(3*e+r, 3*e+r, a.At(3*e+r, 3*e+r)+mu)
				rhs.SetVec(3*e+r, rhs.AtVec(3*e+r)+mu*sk.prior[j][r])
			}
		}
		lo, hi, x := make([]float64, 3*ne), make([]float64, 3*ne), make([]float64, 3*ne)
		for j := range b {
			if e := idx[j]; e >= 0 {
				c := sk.region[j].Clamp(sk.k.Joint[j])
				for r := range 3 {
					lo[3*e+r], hi[3*e+r], x[3*e+r] = sk.region[j].Min[r], sk.region[j].Max[r], c[r]
				}
			}
		}
		boxQP(a, rhs.RawVector().Data, lo, hi, x)
		for j := range b {
			if e := idx[j]; e >= 0 {
				if c := (mgl64.Vec3{x[3*e], x[3*e+1], x[3*e+2]}); finite.Vec3(c) {
					sk.k.Joint[j] = c
				}
			}
		}
	}
	for f := range t {
		ft := &terms[f]
		j := ft.g
		for c := range b {
			if e := idx[c]; e >= 0 {
				j = j.Add(ft.d[e].Mul3x1(sk.k.Joint[c]).Mul(sigma[e]))
			}
		}
		sk.pivot[f] = j.Mul(-1 / nf)
	}
	s.levers()
	s.derive()
}

// skeletonWeights runs the weight step on the skeleton's transforms,
// keeping the weights of the vertices a locked bone influences.
func (s *solver) skeletonWeights(ws *weightStep) {
	sk := s.skel
	var kb []int32
	var kw []float64
	if sk.keep != nil {
		kb, kw = slices.Clone(s.wb), slices.Clone(s.ww)
	}
	if s.b > 1 {
		ws.run(s)
	}
	if sk.keep != nil {
		for i, held := range sk.keep {
			if held {
				copy(s.wb[i*s.k:(i+1)*s.k], kb[i*s.k:(i+1)*s.k])
				copy(s.ww[i*s.k:(i+1)*s.k], kw[i*s.k:(i+1)*s.k])
			}
		}
	}
	if s.b == 1 || sk.keep != nil {
		s.evaluate()
	}
	s.levers()
}

// skeletonRound runs one round of the skeleton: rotations, joints and
// root path, weights; it reports the round and returns its RMSE.
func (a *alternation) skeletonRound() float64 {
	s := a.s
	s.rotations()
	s.joints()
	s.skeletonWeights(&a.ws)
	a.it++
	e := s.rmse()
	a.keep(e)
	if s.opts.Progress != nil {
		s.opts.Progress(a.it, e, StageSkeleton)
	}
	return e
}

// topology infers the hierarchy from the flat iterate (see the package
// comment): for every two bones the point that best moves with both, its
// RMS drift over the frames the cost of a joint there; the minimum
// spanning tree of the bones that share vertices (Kruskal), joined, where
// that leaves parts apart, by the cheapest joints between them; rooted
// at the bone chosen by o.
func (s *solver) topology(o *SkeletonOptions) *Skeleton {
	b, k, n := s.b, s.k, s.n
	reg := s.jointRegions()
	// Overlaps Σᵢwᵢⱼwᵢₖ with their centroids, and each bone's centroid.
	over := make([]float64, b*b)
	overAt := make([]mgl64.Vec3, b*b)
	mass := make([]float64, b)
	centre := make([]mgl64.Vec3, b)
	for i := range n {
		p := s.rest[i]
		for q := range k {
			j, w := s.wb[i*k+q], s.ww[i*k+q]
			if j < 0 || w <= 0 {
				continue
			}
			mass[j] += w
			centre[j] = centre[j].Add(p.Mul(w))
			for r := q + 1; r < k; r++ {
				c, v := s.wb[i*k+r], s.ww[i*k+r]
				if c < 0 || v <= 0 {
					continue
				}
				lo, hi := min(int(j), int(c)), max(int(j), int(c))
				over[lo*b+hi] += w * v
				overAt[lo*b+hi] = overAt[lo*b+hi].Add(p.Mul(w * v))
			}
		}
	}
	for j := range b {
		if mass[j] > 0 {
			centre[j] = centre[j].Mul(1 / mass[j])
		}
	}
	type edge struct {
		a, c   int
		shared bool
		cost   float64
		joint  mgl64.Vec3
	}
	edges := make([]edge, 0, b*(b-1)/2)
	for j := range b {
		for c := j + 1; c < b; c++ {
			e := edge{a: j, c: c, shared: over[j*b+c] > 0}
			prior := centre[j].Add(centre[c]).Mul(0.5)
			if e.shared {
				prior = overAt[j*b+c].Mul(1 / over[j*b+c])
			}
			e.joint, e.cost = s.pairJoint(j, c, prior, reg.joint(j, c))
			edges = append(edges, e)
		}
	}
	slices.SortStableFunc(edges, func(x, y edge) int {
		if x.shared != y.shared {
			if x.shared {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.cost, y.cost)
	})
	set := make([]int, b)
	for j := range set {
		set[j] = j
	}
	find := func(j int) int {
		for set[j] != j {
			set[j] = set[set[j]]
			j = set[j]
		}
		return j
	}
	adj := make([][]edge, b)
	for _, e := range edges {
		ra, rc := find(e.a), find(e.c)
		if ra == rc {
			continue
		}
		set[ra] = rc
		adj[e.a] = append(adj[e.a], e)
		adj[e.c] = append(adj[e.c], e)
	}
	root := s.chooseRoot(o)
	sk := &Skeleton{Parent: make([]int, b), Joint: make([]mgl64.Vec3, b)}
	for j := range sk.Parent {
		sk.Parent[j] = -2
	}
	sk.Parent[root], sk.Joint[root] = -1, centre[root]
	queue := []int{root}
	for q := 0; q < len(queue); q++ {
		j := queue[q]
		for _, e := range adj[j] {
			c := e.a
			if c == j {
				c = e.c
			}
			if sk.Parent[c] != -2 {
				continue
			}
			sk.Parent[c], sk.Joint[c] = j, e.joint
			queue = append(queue, c)
		}
	}
	return sk
}

// pairJoint returns the point c of the box in that best moves with bones
// j and k, minimising Σₜ‖(Rⱼᵗ − Rₖᵗ)c + Tⱼᵗ − Tₖᵗ‖² + pairPrior·T·‖c − prior‖²
// (boxQP; prior inside in), and its RMS drift √(Σₜ‖…‖²/T).
func (s *solver) pairJoint(j, k int, prior mgl64.Vec3, in bvh.AABB) (mgl64.Vec3, float64) {
	t := s.t
	mu := pairPrior * float64(t)
	a := mgl64.Ident3().Mul(mu)
	rhs := prior.Mul(mu)
	for f := range t {
		x, y := &s.m[j*t+f], &s.m[k*t+f]
		d := x.R.Sub(y.R)
		dt := x.T.Sub(y.T)
		a = a.Add(d.Transpose().Mul3(d))
		rhs = rhs.Sub(d.Transpose().Mul3x1(dt))
	}
	c := in.Clamp(prior)
	sym := mat.NewSymDense(3, nil)
	for r := range 3 {
		for q := r; q < 3; q++ {
			sym.SetSym(r, q, a.At(r, q))
		}
	}
	boxQP(sym, rhs[:], in.Min[:], in.Max[:], c[:])
	e := 0.0
	for f := range t {
		x, y := &s.m[j*t+f], &s.m[k*t+f]
		d := x.Apply(c).Sub(y.Apply(c))
		e += d.Dot(d)
	}
	return c, math.Sqrt(e / float64(t))
}

// chooseRoot returns the root bone o asks for: its Root, or the bone
// weighing RootVertex most, or the bone whose rigid motion alone best
// reproduces every vertex in every frame, argminⱼ Σₜ Σᵢ ‖Rⱼᵗpᵢ + Tⱼᵗ − vᵢᵗ‖²
// (Dem Bones' computeRoot), from sums over the vertices.
func (s *solver) chooseRoot(o *SkeletonOptions) int {
	if o.Root != AutoRoot {
		return o.Root
	}
	if i := o.RootVertex; i >= 0 {
		best, bw := 0, -1.0
		for q := range s.k {
			if j, w := s.wb[i*s.k+q], s.ww[i*s.k+q]; j >= 0 && w > bw {
				best, bw = int(j), w
			}
		}
		return best
	}
	n, t := s.n, s.t
	var psum mgl64.Vec3
	for _, p := range s.rest {
		psum = psum.Add(p)
	}
	cov := make([]mgl64.Mat3, t)
	vsum := make([]mgl64.Vec3, t)
	parallel.For(t, func(f int) {
		var c mgl64.Mat3
		var v mgl64.Vec3
		for i := range n {
			x, p := s.vt[i*t+f], s.rest[i]
			v = v.Add(x)
			for col := range 3 {
				for row := range 3 {
					c[3*col+row] += x[row] * p[col]
				}
			}
		}
		cov[f], vsum[f] = c, v
	})
	best, bestErr := 0, math.Inf(1)
	for j := range s.b {
		e := 0.0
		for f := range t {
			x := &s.m[j*t+f]
			// Σᵢ‖Rpᵢ + T − vᵢ‖² less the terms every bone shares.
			e += float64(n)*x.T.Dot(x.T) + 2*x.T.Dot(x.R.Mul3x1(psum)) - 2*x.T.Dot(vsum[f])
			for c := range 9 {
				e -= 2 * x.R[c] * cov[f][c]
			}
		}
		if e < bestErr {
			best, bestErr = j, e
		}
	}
	return best
}

// regions are where joints may lie, from the weights of the rest
// vertices: each bone's box of the vertices it weighs, and the mesh's box.
type regions struct {
	bone []bvh.AABB
	all  bvh.AABB
}

// jointRegions returns the regions of the current weights.
func (s *solver) jointRegions() *regions {
	g := &regions{bone: make([]bvh.AABB, s.b), all: bvh.EmptyAABB()}
	for j := range g.bone {
		g.bone[j] = bvh.EmptyAABB()
	}
	for i, p := range s.rest {
		g.all = g.all.Include(p)
		for q := range s.k {
			if j, w := s.wb[i*s.k+q], s.ww[i*s.k+q]; j >= 0 && w > 0 {
				g.bone[j] = g.bone[j].Include(p)
			}
		}
	}
	return g
}

// joint returns where the joint of bones j and k may lie: the box of the
// vertices either weighs (across a limb, its width: a hinge's joint cannot
// slide along the hinge's axis out of the body); the mesh's box when
// neither weighs any.
func (g *regions) joint(j, k int) bvh.AABB {
	if x := g.bone[j].Union(g.bone[k]); !x.Empty() {
		return x
	}
	return g.all
}
