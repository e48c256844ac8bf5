package ssdr

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
	"gallop/internal/parallel"
	"gallop/solver/bvh"
)

// Skeleton is a hierarchy over a decomposition's bones: one root, and for
// every other bone a parent and a joint, the rest-pose point about which
// the bone turns relative to its parent.
//
// Invariants (Validate): exactly one bone has Parent −1; following
// parents from any bone reaches it; every joint is finite. A Result with
// a Skeleton has transforms that keep every joint together: for a bone j
// with parent p, Rⱼᵗcⱼ + Tⱼᵗ = Rₚᵗcⱼ + Tₚᵗ in every frame, so the
// distance between a bone's joint and its children's joints, Rⱼᵗ(c_k − cⱼ),
// is the same in every frame: a bone keeps its length.
type Skeleton struct {
	Parent []int        // per bone, its parent bone; −1 for the root
	Joint  []mgl64.Vec3 // per bone, its joint in the rest pose (the root's: the point its motion turns about)
}

// Root returns the root bone (−1 if there is none).
func (k *Skeleton) Root() int { return slices.Index(k.Parent, -1) }

// Order returns the bones parents first, the root first, children in
// bone order.
func (k *Skeleton) Order() []int {
	children := k.children()
	order := []int{k.Root()}
	for q := 0; q < len(order); q++ {
		order = append(order, children[order[q]]...)
	}
	return order
}

// children lists each bone's children in bone order.
func (k *Skeleton) children() [][]int {
	c := make([][]int, len(k.Parent))
	for j, p := range k.Parent {
		if p >= 0 {
			c[p] = append(c[p], j)
		}
	}
	return c
}

// Clone returns a deep copy.
func (k *Skeleton) Clone() *Skeleton {
	return &Skeleton{Parent: slices.Clone(k.Parent), Joint: slices.Clone(k.Joint)}
}

// ErrSkeleton is wrapped by the errors of Skeleton.Validate.
var ErrSkeleton = errors.New("ssdr: bad skeleton")

// Validate checks the invariants for a decomposition of bones bones.
func (k *Skeleton) Validate(bones int) error {
	if len(k.Parent) != bones || len(k.Joint) != bones {
		return fmt.Errorf("%w: %d parents and %d joints for %d bones", ErrSkeleton, len(k.Parent), len(k.Joint), bones)
	}
	roots := 0
	for j, p := range k.Parent {
		if p == -1 {
			roots++
		} else if p < 0 || p >= bones || p == j {
			return fmt.Errorf("%w: bone %d has parent %d", ErrSkeleton, j, p)
		}
		if !finite.Vec3(k.Joint[j]) {
			return fmt.Errorf("%w: bone %d's joint is %v", ErrSkeleton, j, k.Joint[j])
		}
	}
	if roots != 1 {
		return fmt.Errorf("%w: %d roots, want 1", ErrSkeleton, roots)
	}
	if n := len(k.Order()); n != bones {
		return fmt.Errorf("%w: %d of %d bones hang from the root (a cycle)", ErrSkeleton, n, bones)
	}
	return nil
}

// AutoRoot asks SkeletonOptions for the root chosen by the fit.
const AutoRoot = -1

// SkeletonOptions asks Decompose for a skeleton (Options.Skeleton); see
// the package comment's "Skeleton" for the method.
type SkeletonOptions struct {
	// Root is the root bone; AutoRoot chooses the bone whose motion alone
	// best reproduces the whole animation (Dem Bones' computeRoot), or,
	// with RootVertex ≥ 0, the bone weighing that vertex most.
	Root       int
	RootVertex int
	// Locked bones keep their weights: a vertex any of them influences
	// keeps its influences through the skeleton rounds.
	Locked []int
	// Given, if not nil, is the skeleton to fit (a user's): its hierarchy
	// and joints are kept, and only the bones' rotations, the root's path
	// and the weights are solved; Options.Bones must be its bone count.
	// Weights, with Given, start the fit (a user's skin weights); nil
	// starts each vertex on the bone whose segment (joint to children's
	// joints) is nearest.
	Given   *Skeleton
	Weights [][]Influence
	// Rounds is the most skeleton rounds; default 100. They stop early,
	// with Options.Patience, when a round lowers the RMSE by less than
	// Tolerance (relative); default 1e-4, a tenth of the alternation's:
	// the rounds are block descent on coupled rotations, joints and
	// weights and creep (on horse-gallop at 1e-3 they stopped at round 51
	// still falling 0.09% a round, 1.215× the free bones' RMSE; at 1e-4
	// they run the 100 rounds, 1.194×).
	Rounds    int
	Tolerance float64
}

// DefaultSkeleton returns the options of an inferred skeleton with the
// root chosen automatically.
func DefaultSkeleton() *SkeletonOptions {
	return &SkeletonOptions{Root: AutoRoot, RootVertex: -1}
}

// tolerance returns Tolerance with its default.
func (o *SkeletonOptions) tolerance() float64 {
	if !(o.Tolerance > 0) {
		return 1e-4
	}
	return o.Tolerance
}

// rounds returns Rounds with its default.
func (o *SkeletonOptions) rounds() int {
	if o.Rounds <= 0 {
		return 100
	}
	return o.Rounds
}

// check validates the options against a problem of n vertices and b
// bones.
func (o *SkeletonOptions) check(n, b int) error {
	switch {
	case o.Root != AutoRoot && (o.Root < 0 || o.Root >= b):
		return fmt.Errorf("%w: root bone %d (want 0 to %d)", ErrSkeleton, o.Root, b-1)
	case o.RootVertex < -1 || o.RootVertex >= n:
		return fmt.Errorf("%w: root vertex %d (want 0 to %d)", ErrSkeleton, o.RootVertex, n-1)
	}
	for _, j := range o.Locked {
		if j < 0 || j >= b {
			return fmt.Errorf("%w: locked bone %d (want 0 to %d)", ErrSkeleton, j, b-1)
		}
	}
	if o.Given != nil {
		if err := o.Given.Validate(b); err != nil {
			return err
		}
	}
	if o.Weights != nil {
		if o.Given == nil {
			return fmt.Errorf("%w: starting weights without a given skeleton", ErrSkeleton)
		}
		if len(o.Weights) != n {
			return fmt.Errorf("%w: starting weights for %d vertices, the mesh has %d", ErrSkeleton, len(o.Weights), n)
		}
		for i, l := range o.Weights {
			sum := 0.0
			for _, in := range l {
				if in.Bone < 0 || in.Bone >= b || !(in.Weight >= 0) || math.IsInf(in.Weight, 0) {
					return fmt.Errorf("%w: vertex %d's starting weight %v", ErrSkeleton, i, in)
				}
				sum += in.Weight
			}
			if !(sum > 0) {
				return fmt.Errorf("%w: vertex %d has no starting weight", ErrSkeleton, i)
			}
		}
	}
	return nil
}

// skeletal is the state of the skeleton rounds: the hierarchy and the
// parameters the bones' transforms are made of.
//
// Parameters: each bone's rotation Rⱼᵗ (in the model's frame, not its
// parent's), the root joint's path Jᵗ, and the rest joints cⱼ. The
// transforms follow (derive): the root's Tᵗ = Jᵗ − Rᵗc_root, and a child's
// Tⱼ = Tₚ + (Rₚ − Rⱼ)cⱼ, which is the joint constraint Rⱼcⱼ + Tⱼ = Rₚcⱼ + Tₚ.
type skeletal struct {
	k      *Skeleton
	order  []int
	fixed  bool          // the joints are given: never moved
	prior  []mgl64.Vec3  // per bone, the joint's regularisation target
	region []bvh.AABB    // per bone, where its joint may lie (regions.joint of it and its parent)
	rot    []mgl64.Mat3  // rot[j*t+f]
	pivot  []mgl64.Vec3  // per frame, the root joint's position Jᵗ
	keep   []bool        // per vertex, weights held (a locked bone's)
	locked []int         // the locked bones
	via    []int32       // via[j*b+k]: the child of j whose subtree holds k; j for k = j; −1 when k is not below j
	lists  []rotationSet // per bone, what its rotation moves
}

// rotationSet is what bone j's rotation moves, the vertices with weight
// on j or below it, and for each its lever: the residual of vertex i
// changes by (R − R_old)·uᵢ when Rⱼ changes from R_old to R with the
// other rotations, the joints and the root's path held, where
// uᵢ = Σ_{k below or at j} wᵢₖ·(k = j ? pᵢ − cⱼ : c_{via(j,k)} − cⱼ);
// and the sums over those vertices that make the rotation's fit cost
// O(B) per frame instead of O(vertices) (see rotations).
type rotationSet struct {
	vert []int32
	u    []mgl64.Vec3
	uu   mgl64.Mat3 // Σᵢ uᵢuᵢᵀ
	// Per bone k weighing some of the vertices: Σᵢ wᵢₖ·pᵢuᵢᵀ and
	// Σᵢ wᵢₖ·uᵢ (k = bone[q]).
	bone []int32
	pu   []mgl64.Mat3
	wu   []mgl64.Vec3
}

// skeletonStart makes the skeleton state from the flat iterate: the
// hierarchy and joints inferred (topology), then adopted.
func (s *solver) skeletonStart(o *SkeletonOptions) {
	s.adoptSkeleton(s.topology(o), o)
}

// adoptSkeleton makes the skeleton state of k (kept as the hierarchy,
// and, with o.Given, its joints never moved) from the iterate: its
// rotations the transforms', the root's path its joint's motion under the
// root's transform. The transforms are then derived, which moves every
// bone but the root to hang from its parent's joint.
func (s *solver) adoptSkeleton(k *Skeleton, o *SkeletonOptions) {
	k = k.Clone()
	sk := &skeletal{k: k, order: k.Order(), fixed: o.Given != nil, prior: slices.Clone(k.Joint), locked: o.Locked}
	b, t := s.b, s.t
	sk.rot = make([]mgl64.Mat3, b*t)
	for q, x := range s.m {
		sk.rot[q] = x.R
	}
	root := k.Root()
	if !sk.fixed {
		reg := s.jointRegions()
		sk.region = make([]bvh.AABB, b)
		for j, p := range k.Parent {
			if p >= 0 {
				sk.region[j] = reg.joint(j, p)
				sk.prior[j] = sk.region[j].Clamp(sk.prior[j])
			}
		}
	}
	sk.pivot = make([]mgl64.Vec3, t)
	for f := range t {
		sk.pivot[f] = s.m[root*t+f].Apply(k.Joint[root])
	}
	sk.via = make([]int32, b*b)
	for j := range b {
		for c := range b {
			sk.via[j*b+c] = -1
		}
		sk.via[j*b+j] = int32(j)
	}
	for c := range b {
		prev := c
		for j := k.Parent[c]; j >= 0; j = k.Parent[j] {
			sk.via[j*b+c] = int32(prev)
			prev = j
		}
	}
	s.skel = sk
	s.lockVertices()
	s.levers()
	s.derive()
}

// startGiven starts the fit of a given skeleton: the weights o.Weights,
// or each vertex bound to the bone whose segment is nearest (nearestBone),
// each bone's rigid motion fitted to the vertices it weighs most, two
// sweeps of SSDR's transform step on those weights, then the skeleton
// adopted.
func (s *solver) startGiven(o *SkeletonOptions) {
	k := o.Given
	label := make([]int32, s.n)
	if o.Weights != nil {
		s.wb, s.ww = make([]int32, s.n*s.k), make([]float64, s.n*s.k)
		s.setWeights(o.Weights)
		for i := range s.n {
			label[i] = s.wb[i*s.k]
		}
	} else {
		segs := k.segments()
		parallel.Chunks(s.n, 0, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				label[i] = int32(nearestBone(segs, s.rest[i]))
			}
		})
		s.setLabels(label)
	}
	s.m = make([]Transform, s.b*s.t)
	for f := range s.t {
		for j := range s.b {
			s.m[j*s.t+f] = Transform{R: identity3}
		}
	}
	s.fitClusters(label, s.b)
	var tr transformStep
	for range 2 {
		tr.run(s, 0)
	}
	s.adoptSkeleton(k, o)
}

// bone is a skeleton bone as a set of segments in the rest pose: from its
// joint to each child's joint (a leaf: its joint alone).
type bone struct {
	from mgl64.Vec3
	to   []mgl64.Vec3
}

// segments returns each bone's segments.
func (k *Skeleton) segments() []bone {
	segs := make([]bone, len(k.Parent))
	for j := range segs {
		segs[j].from = k.Joint[j]
	}
	for j, p := range k.Parent {
		if p >= 0 {
			segs[p].to = append(segs[p].to, k.Joint[j])
		}
	}
	return segs
}

// nearestBone returns the bone with a segment nearest p.
func nearestBone(segs []bone, p mgl64.Vec3) int {
	best, bd := 0, math.Inf(1)
	for j, g := range segs {
		d := p.Sub(g.from).Len()
		for _, to := range g.to {
			d = min(d, pointSegment(p, g.from, to))
		}
		if d < bd {
			best, bd = j, d
		}
	}
	return best
}

// pointSegment returns the distance from p to the segment [a, b].
func pointSegment(p, a, b mgl64.Vec3) float64 {
	ab := b.Sub(a)
	l := ab.Dot(ab)
	if l == 0 {
		return p.Sub(a).Len()
	}
	u := max(0, min(1, p.Sub(a).Dot(ab)/l))
	return p.Sub(a.Add(ab.Mul(u))).Len()
}

// lockVertices marks the vertices a locked bone influences.
func (s *solver) lockVertices() {
	sk := s.skel
	sk.keep = nil
	if len(sk.locked) == 0 {
		return
	}
	sk.keep = make([]bool, s.n)
	for q, j := range s.wb {
		if j >= 0 && s.ww[q] > 0 && slices.Contains(sk.locked, int(j)) {
			sk.keep[q/s.k] = true
		}
	}
}

// derive sets the transforms s.m from the skeleton's parameters.
func (s *solver) derive() {
	for f := range s.t {
		s.deriveFrame(f)
	}
}

// deriveFrame sets frame f's transforms from the skeleton's parameters.
func (s *solver) deriveFrame(f int) {
	sk, t := s.skel, s.t
	root := sk.order[0]
	r := sk.rot[root*t+f]
	s.m[root*t+f] = Transform{R: r, T: sk.pivot[f].Sub(r.Mul3x1(sk.k.Joint[root]))}
	for _, j := range sk.order[1:] {
		p := sk.k.Parent[j]
		c := sk.k.Joint[j]
		tp := s.m[p*t+f].T
		s.m[j*t+f] = Transform{R: sk.rot[j*t+f], T: tp.Add(sk.rot[p*t+f].Mul3x1(c)).Sub(sk.rot[j*t+f].Mul3x1(c))}
	}
}

// levers builds each bone's rotationSet from the weights and joints, in
// vertex order.
func (s *solver) levers() {
	sk, b, k := s.skel, s.b, s.k
	sk.lists = make([]rotationSet, b)
	acc := make([]mgl64.Vec3, b)
	slot := make([]int32, b*b) // slot[j*b+c]: c's index in lists[j].bone, plus one
	var touched []int32
	for i := range s.n {
		touched = touched[:0]
		p := s.rest[i]
		for q := range k {
			c := s.wb[i*k+q]
			w := s.ww[i*k+q]
			if c < 0 || w <= 0 {
				continue
			}
			for j := int(c); j >= 0; j = sk.k.Parent[j] {
				var lever mgl64.Vec3
				if v := int(sk.via[j*b+int(c)]); v == j {
					lever = p.Sub(sk.k.Joint[j])
				} else {
					lever = sk.k.Joint[v].Sub(sk.k.Joint[j])
				}
				if !slices.Contains(touched, int32(j)) {
					touched = append(touched, int32(j))
				}
				acc[j] = acc[j].Add(lever.Mul(w))
			}
		}
		for _, j := range touched {
			u := acc[j]
			set := &sk.lists[j]
			set.vert = append(set.vert, int32(i))
			set.u = append(set.u, u)
			set.uu = set.uu.Add(u.OuterProd3(u))
			for q := range k {
				c, w := s.wb[i*k+q], s.ww[i*k+q]
				if c < 0 || w <= 0 {
					continue
				}
				x := &slot[int(j)*b+int(c)]
				if *x == 0 {
					set.bone = append(set.bone, c)
					set.pu = append(set.pu, mgl64.Mat3{})
					set.wu = append(set.wu, mgl64.Vec3{})
					*x = int32(len(set.bone))
				}
				set.pu[*x-1] = set.pu[*x-1].Add(p.Mul(w).OuterProd3(u))
				set.wu[*x-1] = set.wu[*x-1].Add(u.Mul(w))
			}
			acc[j] = mgl64.Vec3{}
		}
	}
}
