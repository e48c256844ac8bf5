package meshik

import (
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rotation"
)

// group is a set of constrained vertices that turns as one rigid piece
// (SetRotating), with what SetRotating captured of it.
type group struct {
	verts []int        // sorted
	tris  []int        // the triangles (solver order) that turn with it
	t0    []mgl64.Mat3 // their deformation gradients T_j(x₀) at the capture
	r0    mgl64.Mat3   // the group's rotation at the capture (currentRotation)
	f0t   mgl64.Mat3   // F(w₀)ᵀ, the capture's feature rotation, transposed
}

// SetRotating lets groups of the constrained vertices turn: each group is
// a handle of several vertices that moves rigidly, its centroid at the
// centroid of its targets (SetTargets) and its vertices keeping the shape
// of their targets, while its rotation is chosen by the solve instead of
// being fixed by the targets. The paper drags single vertices (Figure 5:
// "manipulates one vertex on the right cap"), which turn freely; a handle
// of a whole ring held at a fixed orientation kinks the bent bar at the
// tip. A rotating group gives the ring that freedom back.
//
// The group turns with the example blend. SetRotating captures the pose
// and weights it is called at (x₀, w₀): the deformation gradients T_j(x₀)
// of the group's triangles (those with all three vertices in it, which
// move rigidly with it; without such, those with the most), its rotation R₀
// relative to its targets, and the features' rotation there,
//
//	F(w) = argmax_{R ∈ SO(3)} tr(Rᵀ·Σ_j M_j(w)·T_j(x₀)ᵀ) = polar(Σ_j M_j(w)·T_j(x₀)ᵀ)
//
// (the absolute-orientation problem: the rotation that best takes the
// captured triangles onto their features at w). Before each Gauss-Newton
// iteration the group is placed at its targets turned by
//
//	R(w) = F(w)·F(w₀)ᵀ·R₀
//
// about their centroid: at the captured weights it keeps the orientation
// it has, so making a handle or holding a pose moves nothing, and as the
// weights change it turns as the blend turns its triangles. The iteration
// has converged only when no group turned by more than 1e-6 rad
// (Stats.Rotation). The rotation is a function of w, not a state that
// lags behind it: the alternative of turning by the mismatch between the
// triangles and their features each iteration converged linearly at a
// rate of 0.84 on the bent bar (60 iterations for 1e-8).
//
// The Gauss-Newton step differentiates the turn too (turnJacobian): the
// groups' vertices are functions of w, so the objective with them at R(w)
// is one function of (x, w), whose step and gain ratio Levenberg-Marquardt
// judges like any other. Turning the groups between steps that held them
// fixed, as before, converged linearly (rate 0.89-0.99 on the horse, 1,044
// iterations for a ten-step drag of a hoof and the muzzle where this takes
// 75) and stopped where the turn per iteration fell under 1e-6 rad, short
// of the minimum (TestTurningDrag).
//
// Call it after the pose, the handles (SetHandles clears the groups), the
// targets and the weights it should turn from are set. Every vertex of a
// group must be constrained and in one group only; a group of one vertex
// has nothing to turn. nil makes every constrained vertex fixed again.
func (s *Solver) SetRotating(groups [][]int) error {
	owner := map[int]int{}
	var gs []group
	for gi, vs := range groups {
		g := group{verts: slices.Clone(vs)}
		slices.Sort(g.verts)
		for _, v := range g.verts {
			if v < 0 || v >= s.n || !s.isHandle(v) {
				return fmt.Errorf("meshik: rotating group %d: vertex %d is not a constrained vertex", gi, v)
			}
			if o, dup := owner[v]; dup {
				return fmt.Errorf("meshik: vertex %d is in rotating groups %d and %d", v, o, gi)
			}
			owner[v] = gi
		}
		if len(g.verts) < 2 {
			continue
		}
		// The triangles that turn with the group: those inside it (all
		// three vertices in it) move rigidly with it; a group with none
		// (a ring without its cap) uses those with two, then one.
		count := make([]int8, s.m)
		most := int8(0)
		for j := 0; j < s.m; j++ {
			for _, v := range s.grad.Triangle(j) {
				if _, in := slices.BinarySearch(g.verts, v); in {
					count[j]++
				}
			}
			most = max(most, count[j])
		}
		for j, c := range count {
			if c == most {
				g.tris = append(g.tris, j)
			}
		}
		g.t0 = make([]mgl64.Mat3, len(g.tris))
		for k, j := range g.tris {
			g.t0[k] = s.gradientAt(j)
		}
		g.r0 = s.currentRotation(g)
		g.f0t = s.featureRotation(g).Transpose()
		gs = append(gs, g)
	}
	s.groups = gs
	s.gslot, s.gtri = nil, nil
	if len(gs) > 0 {
		s.gtri = make([]bool, s.m)
		s.gslot = make([]int32, s.n)
		for v := range s.gslot {
			s.gslot[v] = -1
		}
		k := int32(0)
		for _, g := range gs {
			for _, v := range g.verts {
				s.gslot[v] = k
				k++
			}
		}
		for j := 0; j < s.m; j++ {
			for _, v := range s.grad.Triangle(j) {
				if s.gslot[v] >= 0 {
					s.gtri[j] = true
					break
				}
			}
		}
	}
	s.place()
	s.resetConvergence()
	return nil
}

// isHandle reports whether v is one of the constrained vertices.
func (s *Solver) isHandle(v int) bool {
	_, ok := slices.BinarySearch(s.handle, v)
	return ok
}

// place sets the constrained vertices' positions from their targets: a
// fixed vertex at its target, a rotating group at its targets turned by
// the rotation its vertices show now (see SetRotating).
func (s *Solver) place() {
	for _, v := range s.handle {
		s.target[v] = s.goal[v]
	}
	for _, g := range s.groups {
		s.turnGroup(g, s.currentRotation(g))
	}
}

// turn places every rotating group at the rotation R(w) of SetRotating
// for the current weights and returns the largest angle a group turned
// (radians).
func (s *Solver) turn() float64 {
	largest := 0.0
	for _, g := range s.groups {
		r := s.featureRotation(g).Mul3(g.f0t).Mul3(g.r0)
		d := r.Mul3(s.currentRotation(g).Transpose())
		angle := math.Acos(math.Max(-1, math.Min(1, (d[0]+d[4]+d[8]-1)/2)))
		if angle < 1e-12 {
			continue
		}
		largest = math.Max(largest, angle)
		s.turnGroup(g, r)
	}
	return largest
}

// featureRotation returns F(w) of SetRotating for the current weights.
func (s *Solver) featureRotation(g group) mgl64.Mat3 {
	f, _, _ := s.featureBlend(g, false)
	return f
}

// featureBlend returns F(w) = polar(A), A = Σ_j M_j(w)·T_j(x₀)ᵀ, the
// symmetric factor Fᵀ·A and, with deriv, ∂A/∂w_k for the main space's l
// weights.
func (s *Solver) featureBlend(g group, deriv bool) (f, sym mgl64.Mat3, da []mgl64.Mat3) {
	bl := s.main
	var a mgl64.Mat3
	var feat [1]mgl64.Mat3
	var dt []mgl64.Mat3
	if deriv {
		da = make([]mgl64.Mat3, bl.l)
		dt = make([]mgl64.Mat3, bl.l)
	}
	// acc += m·tᵀ (column-major: element (r, c) at 3c + r).
	acc := func(acc, m, t *mgl64.Mat3) {
		for c := 0; c < 3; c++ {
			for r := 0; r < 3; r++ {
				acc[3*c+r] += m[r]*t[c] + m[3+r]*t[3+c] + m[6+r]*t[6+c]
			}
		}
	}
	for k, j := range g.tris {
		bl.evalRange(s.frozen, s.fgrad, feat[:], dt, j, j+1)
		acc(&a, &feat[0], &g.t0[k])
		for i := range dt {
			acc(&da[i], &dt[i], &g.t0[k])
		}
	}
	f, sym = rotation.Polar(a)
	return f, sym, da
}

// turnJacobian sets s.gdx to ∂x_v/∂w_k of every rotating group's vertex v
// (at gslot[v]·l + k) for the main space's weights: the group's vertices
// sit at c_t + R(w)·(t_v − c_t), R(w) = F(w)·F(w₀)ᵀ·R₀ (SetRotating), so
//
//	∂x_v/∂w_k = ∂F/∂w_k·F(w₀)ᵀ·R₀·(t_v − c_t).
//
// The polar factor's derivative: with A = F·S, F's change is F·[ω]×,
// where (tr S·I − S)·ω = axial(Y − Yᵀ), Y = Fᵀ·∂A/∂w_k (differentiate
// A = F·S; the skew part of Fᵀ·dA is [ω]×S + S[ω]×, whose axial vector
// is (tr S·I − S)·ω). tr S·I − S has the eigenvalues σ_i + σ_j of pairs
// of A's singular values, so it is invertible whenever A has rank 2 or
// more; a group whose blend collapsed gets no derivative.
//
// The Gauss-Newton step then sees the handles turn with the weights (the
// constrained corners' share of b̃ depends on w through R): the objective
// with the groups placed at R(w) is one function of (x, w) whose
// derivative the step uses, so the gain ratio and Levenberg-Marquardt
// judge its steps as they judge any other.
func (s *Solver) turnJacobian() {
	l := s.main.l
	nv := 0
	for _, g := range s.groups {
		nv += len(g.verts)
	}
	s.gdx = slices.Grow(s.gdx[:0], nv*l)[:nv*l]
	clear(s.gdx)
	base := 0
	for _, g := range s.groups {
		at := base
		base += len(g.verts) * l
		f, sym, da := s.featureBlend(g, true)
		tr := sym[0] + sym[4] + sym[8]
		m := mgl64.Ident3().Mul(tr).Sub(sym)
		if math.Abs(m.Det()) < 1e-12*tr*tr*tr || tr <= 0 {
			continue
		}
		inv := m.Inv()
		ct, _ := s.centroids(g)
		after := g.f0t.Mul3(g.r0)
		for k := 0; k < l; k++ {
			y := f.Transpose().Mul3(da[k])
			// axial(Y − Yᵀ): element (r, c) of Y at 3c + r.
			x := mgl64.Vec3{y[5] - y[7], y[6] - y[2], y[1] - y[3]}
			w := inv.Mul3x1(x)
			skew := mgl64.Mat3{0, w[2], -w[1], -w[2], 0, w[0], w[1], -w[0], 0}
			dr := f.Mul3(skew).Mul3(after)
			for i, v := range g.verts {
				s.gdx[at+i*l+k] = dr.Mul3x1(s.goal[v].Sub(ct))
			}
		}
	}
}

// currentRotation is the rotation that takes the group's targets, about
// their centroid, onto its vertices' current positions about theirs.
func (s *Solver) currentRotation(g group) mgl64.Mat3 {
	ct, cx := s.centroids(g)
	var a mgl64.Mat3
	for _, v := range g.verts {
		p, q := s.x[v].Sub(cx), s.goal[v].Sub(ct)
		for c := 0; c < 3; c++ {
			for r := 0; r < 3; r++ {
				a[3*c+r] += p[r] * q[c]
			}
		}
	}
	r, _ := rotation.Polar(a)
	return r
}

// turnGroup puts the group's vertices at its targets turned by r about
// their centroid.
func (s *Solver) turnGroup(g group, r mgl64.Mat3) {
	ct, _ := s.centroids(g)
	for _, v := range g.verts {
		s.target[v] = ct.Add(r.Mul3x1(s.goal[v].Sub(ct)))
	}
}

// centroids returns the centroid of the group's targets and of its
// vertices' current positions.
func (s *Solver) centroids(g group) (ct, cx mgl64.Vec3) {
	for _, v := range g.verts {
		ct = ct.Add(s.goal[v])
		cx = cx.Add(s.x[v])
	}
	k := 1 / float64(len(g.verts))
	return ct.Mul(k), cx.Mul(k)
}

// gradientAt returns T_j, the deformation gradient of triangle j (solver
// order) in the current pose, its fourth vertex that of the pose
// (deform.FourthVertex).
func (s *Solver) gradientAt(j int) mgl64.Mat3 {
	var t [1]mgl64.Mat3
	s.grad.FeaturesRange(t[:], s.x, j, j+1)
	return t[0]
}
