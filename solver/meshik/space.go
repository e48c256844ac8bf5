package meshik

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/hugepage"
	"gallop/internal/parallel"
	"gallop/solver/dense"
	"gallop/solver/rotation"
)

// parallelMin is the smallest number of triangles a space splits across
// workers; smaller meshes (the bar) are evaluated on the calling goroutine
// without allocating.
const parallelMin = 2048

// grain is the number of triangles per parallel work item: large enough
// to amortise the hand-out, small enough to balance two to a few dozen
// workers on the subdivided horse.
const grain = 1024

// Space is a feature space: a smooth map from NumWeights weights w to
// features M(w), one deformation gradient per triangle, with its Jacobian.
// The Gauss-Newton solver linearises M(w + δ) ≈ M(w) + (∂M/∂w)·δ (Eq. 9)
// through it. Implementations are immutable after construction, safe for
// concurrent use, and allocation-free per triangle with caller-provided
// storage; they panic on storage or weight vectors of the wrong length.
type Space interface {
	// NumTriangles returns m, the number of features.
	NumTriangles() int
	// NumWeights returns the length of w.
	NumWeights() int
	// Eval writes M(w) into dst (length m): dst[j] = T_j(w).
	Eval(w []float64, dst []mgl64.Mat3)
	// Jacobian writes ∂M/∂w into dst (length m·NumWeights):
	// dst[j·NumWeights + k] = ∂T_j/∂w_k at w.
	Jacobian(w []float64, dst []mgl64.Mat3)
	// EvalJacobian does both in one pass over the examples, for t and dt
	// sized as for Eval and Jacobian.
	EvalJacobian(w []float64, t, dt []mgl64.Mat3)
	// EvalRange is EvalJacobian for triangles [lo, hi) only, on the
	// calling goroutine, into storage for those triangles alone:
	// t[j − lo] = T_j(w) and dt[(j − lo)·NumWeights + k] = ∂T_j/∂w_k, each
	// skipped when nil, so that a caller can consume each block while it
	// is in cache without holding the whole Jacobian.
	EvalRange(w []float64, t, dt []mgl64.Mat3, lo, hi int)
	// LinSize is how many numbers per triangle LineariseRange keeps for
	// AdjointRange (0: none needed).
	LinSize() int
	// LineariseRange is EvalRange without the Jacobian (t[j − lo] =
	// T_j(w)) that also keeps in lin, LinSize numbers per triangle, what
	// the derivatives at w need of the triangle.
	LineariseRange(w []float64, t []mgl64.Mat3, lin []float64, lo, hi int)
	// AdjointRange adds, for a field v (a matrix per triangle, v[j −
	// lo]), (∂T/∂w)ᵀ·v = Σ_j ⟨∂T_j/∂w_k, v[j − lo]⟩ for each k over
	// triangles [lo, hi) into g (length NumWeights), at the w that
	// LineariseRange kept lin for (⟨·,·⟩ the Frobenius inner product):
	// gradients of functions of the features, without the Jacobian.
	AdjointRange(lin []float64, v []mgl64.Mat3, g []float64, lo, hi int)
}

var (
	_ Space = (*LinearSpace)(nil)
	_ Space = (*NonlinearSpace)(nil)
)

// checkExamples validates a list of example feature vectors: at least one
// example, all of the same length, all entries finite.
func checkExamples(examples [][]mgl64.Mat3) (m int, err error) {
	if len(examples) == 0 {
		return 0, fmt.Errorf("meshik: no example poses")
	}
	m = len(examples[0])
	for i, ex := range examples {
		if len(ex) != m {
			return 0, fmt.Errorf("meshik: example %d has %d features, example 0 has %d", i, len(ex), m)
		}
		for j, t := range ex {
			for _, x := range t {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return 0, fmt.Errorf("meshik: example %d, triangle %d: non-finite deformation gradient %v", i, j, t)
				}
			}
		}
	}
	return m, nil
}

// forTriangles runs fn over [0, m) in ranges, in parallel. Callers run
// meshes below parallelMin themselves, without making the closure: a
// closure handed to package parallel escapes to the heap.
func forTriangles(m int, fn func(lo, hi int)) {
	parallel.Chunks(m, grain, fn)
}

func checkLen(what string, got, want int) {
	if got != want {
		panic(fmt.Sprintf("meshik: %s has length %d, want %d", what, got, want))
	}
}

// LinearSpace is the linear feature space of Section 3.2: the affine span
// of the l example feature vectors d_1 … d_l, parameterised around their
// mean d̄ = (1/l)·Σ d_i by the first l − 1 mean-centred examples
// d̄_i = d_i − d̄:
//
//	M(w) = d̄ + Σ_{i=1}^{l−1} w_i·d̄_i,   ∂M/∂w_k = d̄_k.
//
// w = 0 gives the mean; w = e_k (k < l − 1) gives example k exactly; the
// last example is w = (−1, …, −1). (Centring makes the l vectors d̄_i
// linearly dependent, Σ d̄_i = 0, hence l − 1 weights.) With a single
// example, M is that example's features and there are no weights.
type LinearSpace struct {
	m, nw int
	// data holds, per triangle j, l matrices: d̄_j, then d̄_{1j} … d̄_{(l−1)j}.
	data []mgl64.Mat3
}

// NewLinearSpace builds the linear space of the example feature vectors,
// each the m deformation gradients of one example pose (deform.Features).
// It returns an error if there is no example, if the examples differ in
// length, or if an entry is not finite.
func NewLinearSpace(examples [][]mgl64.Mat3) (*LinearSpace, error) {
	m, err := checkExamples(examples)
	if err != nil {
		return nil, err
	}
	l := len(examples)
	s := &LinearSpace{m: m, nw: l - 1, data: hugepage.Make[mgl64.Mat3](m * l)}
	for j := 0; j < m; j++ {
		var mean mgl64.Mat3
		for _, ex := range examples {
			mean = mean.Add(ex[j])
		}
		mean = mean.Mul(1 / float64(l))
		rec := s.data[j*l : (j+1)*l]
		rec[0] = mean
		for i := 0; i < l-1; i++ {
			rec[1+i] = examples[i][j].Sub(mean)
		}
	}
	return s, nil
}

// NumTriangles returns m.
func (s *LinearSpace) NumTriangles() int { return s.m }

// NumWeights returns l − 1.
func (s *LinearSpace) NumWeights() int { return s.nw }

// Mean returns d̄_j, the mean of the examples' features at triangle j.
func (s *LinearSpace) Mean(j int) mgl64.Mat3 { return s.data[j*(s.nw+1)] }

// Eval writes M(w) = d̄ + Σ w_i·d̄_i into dst (length m).
func (s *LinearSpace) Eval(w []float64, dst []mgl64.Mat3) {
	checkLen("weights", len(w), s.nw)
	checkLen("Eval destination", len(dst), s.m)
	if s.m < parallelMin {
		s.eval(w, dst, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.eval(w, dst[lo:hi], lo, hi) })
}

// eval writes M_j(w) of triangles [lo, hi) into dst[j − lo].
func (s *LinearSpace) eval(w []float64, dst []mgl64.Mat3, lo, hi int) {
	l := s.nw + 1
	for j := lo; j < hi; j++ {
		rec := s.data[j*l : (j+1)*l]
		t := rec[0]
		for i, wi := range w {
			d := &rec[1+i]
			for k := range t {
				t[k] += wi * d[k]
			}
		}
		dst[j-lo] = t
	}
}

// Jacobian writes ∂M/∂w into dst (length m·(l − 1)): dst[j·(l−1) + k] =
// d̄_kj, whatever w.
func (s *LinearSpace) Jacobian(w []float64, dst []mgl64.Mat3) {
	checkLen("weights", len(w), s.nw)
	checkLen("Jacobian destination", len(dst), s.m*s.nw)
	if s.m < parallelMin {
		s.jacobian(dst, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.jacobian(dst[lo*s.nw:hi*s.nw], lo, hi) })
}

// jacobian writes ∂M_j/∂w of triangles [lo, hi) into dst[(j − lo)·nw:].
func (s *LinearSpace) jacobian(dst []mgl64.Mat3, lo, hi int) {
	l := s.nw + 1
	for j := lo; j < hi; j++ {
		copy(dst[(j-lo)*s.nw:(j-lo+1)*s.nw], s.data[j*l+1:(j+1)*l])
	}
}

// EvalJacobian writes M(w) into t and ∂M/∂w into dt.
func (s *LinearSpace) EvalJacobian(w []float64, t, dt []mgl64.Mat3) {
	checkLen("weights", len(w), s.nw)
	checkLen("Eval destination", len(t), s.m)
	checkLen("Jacobian destination", len(dt), s.m*s.nw)
	if s.m < parallelMin {
		s.EvalRange(w, t, dt, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.EvalRange(w, t[lo:hi], dt[lo*s.nw:hi*s.nw], lo, hi) })
}

// EvalRange implements Space.
func (s *LinearSpace) EvalRange(w []float64, t, dt []mgl64.Mat3, lo, hi int) {
	if t != nil {
		s.eval(w, t, lo, hi)
	}
	if dt != nil {
		s.jacobian(dt, lo, hi)
	}
}

// LinSize implements Space: the Jacobian is constant, nothing is kept.
func (s *LinearSpace) LinSize() int { return 0 }

// LineariseRange implements Space.
func (s *LinearSpace) LineariseRange(w []float64, t []mgl64.Mat3, _ []float64, lo, hi int) {
	s.eval(w, t, lo, hi)
}

// AdjointRange implements Space: g_k += Σ_j ⟨W_kj, v[j]⟩.
func (s *LinearSpace) AdjointRange(_ []float64, v []mgl64.Mat3, g []float64, lo, hi int) {
	l := s.nw + 1
	for j := lo; j < hi; j++ {
		rec := s.data[j*l : (j+1)*l]
		vj := &v[j-lo]
		for k := range g {
			g[k] += dot9(&rec[1+k], vj)
		}
	}
}

// dot9 is the Frobenius inner product ⟨a, b⟩ = Σ a_e·b_e, summed as a
// tree whose short dependency chains let the processor overlap the
// products.
func dot9(a, b *mgl64.Mat3) float64 {
	return ((a[0]*b[0] + a[1]*b[1]) + (a[2]*b[2] + a[3]*b[3])) +
		((a[4]*b[4] + a[5]*b[5]) + (a[6]*b[6] + a[7]*b[7])) + a[8]*b[8]
}

// NonlinearSpace is the nonlinear feature space of Section 3.3: each
// example's deformation gradient is split by polar decomposition,
// T_ij = R_ij·S_ij (rotation.Polar), rotations are blended in the Lie
// algebra and the symmetric factors linearly (Eq. 6):
//
//	T_j(w) = Exp(ω_j(w))·S_j(w),  ω_j(w) = Σ_i w_i·Log(R_ij),
//	S_j(w) = Σ_i w_i·S_ij,
//
// one weight per example. Log returns angles in [0, π] (footnote 1), so
// two examples whose rotations of a triangle differ by nearly π may blend
// the long way round; nothing here unwraps them.
//
// w = e_k reproduces example k (to rounding). The weights are not
// normalised: Σ w_i = 1 blends, other sums scale S (and extrapolate the
// rotations), and w = 0 gives T_j = 0. An example whose T_ij has det < 0
// (an inverted triangle) keeps its reflection in S_ij, as rotation.Polar
// documents.
//
// Derivative. Eq. 7 of the paper differentiates the rotation part as
// ∂/∂w_k Exp(ω_j) = Exp(ω_j)·[Log R_kj]×, which holds only when the
// rotations being blended commute (share one axis). Jacobian uses the exact
// derivative through the right Jacobian of Exp (rotation.RightJacobian):
//
//	∂T_j/∂w_k = Exp(ω_j)·([J_r(ω_j)·Log R_kj]×·S_j(w) + S_kj),
//
// which reduces to Eq. 7 when the Log R_ij are parallel (then
// J_r(ω_j)·Log R_kj = Log R_kj).
type NonlinearSpace struct {
	m, l int
	// fac holds, per triangle j, nine rows of l numbers (dense's nine-row
	// layout): fac[(9j + c)·l + i] is coordinate c of example i, Log R_ij
	// (x, y, z) for c < 3, then S_ij as (xx, yy, zz, xy, xz, yz), so that
	// the work over the examples of one triangle runs four at a time. The
	// factors are kept in single precision (about seven significant
	// digits: w = e_k reproduces example k's features to 1e-7, a pose
	// solved to an example's vertices reproduces it to 4e-10 of the
	// diagonal) to halve what every pass over the triangles streams from
	// memory, and widened to double a triangle at a time (factors): the
	// space is that of the rounded factors, the same for its evaluation,
	// derivatives and adjoint.
	fac []float32
}

// factorSize is the number of coordinates per (triangle, example) in fac.
const factorSize = 9

// smallWeights is the number of weights up to which the passes over the
// triangles widen a triangle's factors on the stack (factorBuffer): every
// compressed space (MaxComponents and the scale weight). The passes are
// called per block of evalBlock triangles, so a larger uncompressed space
// allocates its buffer once per block.
const smallWeights = MaxComponents + 1

// factorBuffer returns storage for one triangle's widened factors (9·l
// numbers): stack when it is long enough, else the heap, once per pass.
func factorBuffer(stack []float64, l int) []float64 {
	if factorSize*l <= len(stack) {
		return stack[:factorSize*l]
	}
	return make([]float64, factorSize*l)
}

// factors returns triangle j's factors widened to double precision in buf
// (9·l numbers, fac's layout).
func (s *NonlinearSpace) factors(j int, buf []float64) []float64 {
	l := s.l
	dense.Widen(buf, s.fac[j*l*factorSize:(j+1)*l*factorSize])
	return buf
}

// NewNonlinearSpace builds the nonlinear space of the example feature
// vectors, each the m deformation gradients of one example pose
// (deform.Features), precomputing the polar factors and rotation logarithms
// (in parallel). It returns an error if there is no example, if the
// examples differ in length, or if an entry is not finite. Collapsed
// triangles in an example (rank-deficient T_ij) are fine.
func NewNonlinearSpace(examples [][]mgl64.Mat3) (*NonlinearSpace, error) {
	m, err := checkExamples(examples)
	if err != nil {
		return nil, err
	}
	l := len(examples)
	s := &NonlinearSpace{m: m, l: l, fac: hugepage.Make[float32](m * l * factorSize)}
	forTriangles(m, func(lo, hi int) {
		var r, sym mgl64.Mat3
		for j := lo; j < hi; j++ {
			for i, ex := range examples {
				rotation.PolarTo(&r, &sym, &ex[j])
				w := rotation.Log(r)
				f := s.fac[j*l*factorSize:]
				for c, v := range [factorSize]float64{w[0], w[1], w[2], sym[0], sym[4], sym[8], sym[3], sym[6], sym[7]} {
					f[c*l+i] = float32(v)
				}
			}
		}
	})
	return s, nil
}

// NumTriangles returns m.
func (s *NonlinearSpace) NumTriangles() int { return s.m }

// NumWeights returns l, the number of examples.
func (s *NonlinearSpace) NumWeights() int { return s.l }

// Factors returns the precomputed Log R_ij (a rotation vector) and S_ij of
// example i at triangle j.
func (s *NonlinearSpace) Factors(i, j int) (logR mgl64.Vec3, sym mgl64.Mat3) {
	l := s.l
	var f [factorSize]float64
	for c := range f {
		f[c] = float64(s.fac[(j*factorSize+c)*l+i])
	}
	return mgl64.Vec3{f[0], f[1], f[2]}, mgl64.Mat3{f[3], f[6], f[7], f[6], f[4], f[8], f[7], f[8], f[5]}
}

// Eval writes T_j(w) = Exp(Σ w_i·Log R_ij)·Σ w_i·S_ij into dst (length m).
func (s *NonlinearSpace) Eval(w []float64, dst []mgl64.Mat3) {
	checkLen("weights", len(w), s.l)
	checkLen("Eval destination", len(dst), s.m)
	if s.m < parallelMin {
		s.run(w, dst, nil, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.run(w, dst[lo:hi], nil, lo, hi) })
}

// Jacobian writes ∂T_j/∂w_k (the exact derivative in the type's comment)
// into dst[j·l + k] (dst of length m·l).
func (s *NonlinearSpace) Jacobian(w []float64, dst []mgl64.Mat3) {
	checkLen("weights", len(w), s.l)
	checkLen("Jacobian destination", len(dst), s.m*s.l)
	if s.m < parallelMin {
		s.run(w, nil, dst, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.run(w, nil, dst[lo*s.l:hi*s.l], lo, hi) })
}

// EvalJacobian writes T_j(w) into t and ∂T_j/∂w_k into dt in one pass.
func (s *NonlinearSpace) EvalJacobian(w []float64, t, dt []mgl64.Mat3) {
	checkLen("weights", len(w), s.l)
	checkLen("Eval destination", len(t), s.m)
	checkLen("Jacobian destination", len(dt), s.m*s.l)
	if s.m < parallelMin {
		s.run(w, t, dt, 0, s.m)
		return
	}
	forTriangles(s.m, func(lo, hi int) { s.run(w, t[lo:hi], dt[lo*s.l:hi*s.l], lo, hi) })
}

// EvalRange implements Space.
func (s *NonlinearSpace) EvalRange(w []float64, t, dt []mgl64.Mat3, lo, hi int) {
	s.run(w, t, dt, lo, hi)
}

// linSize is what LineariseRange keeps per triangle: Exp(ω) and J_r(ω)
// (nine numbers each, column-major) and S(w) (six).
const linSize = 24

// LinSize implements Space.
func (s *NonlinearSpace) LinSize() int { return linSize }

// LineariseRange implements Space.
func (s *NonlinearSpace) LineariseRange(w []float64, t []mgl64.Mat3, lin []float64, lo, hi int) {
	l := s.l
	var stack [factorSize * smallWeights]float64
	buf := factorBuffer(stack[:], l)
	for j := lo; j < hi; j++ {
		fj := s.factors(j, buf)
		c := lin[(j-lo)*linSize : (j-lo+1)*linSize]
		rot, sym := (*mgl64.Mat3)(c[0:9]), (*[6]float64)(c[18:24])
		blend(rot, (*mgl64.Mat3)(c[9:18]), sym, w[:l], fj)
		mulSym(&t[j-lo], rot, sym)
	}
}

// AdjointRange implements Space. With A = Exp(ω_j)ᵀ·v_j and
// B = A·S_j(w),
//
//	⟨∂T_j/∂w_k, v_j⟩ = ⟨[J_r·Log R_kj]×·S_j(w), A⟩ + ⟨S_kj, A⟩
//	                 = Log R_kj · J_rᵀc + S_kj · a,
//
// c = (B₃₂ − B₂₃, B₁₃ − B₃₁, B₂₁ − B₁₂) (from ⟨[u]×S, A⟩ = u·c, S
// symmetric) and a = (A₁₁, A₂₂, A₃₃, A₁₂ + A₂₁, A₁₃ + A₃₁, A₂₃ + A₃₂)
// paired with S_kj's (xx, yy, zz, xy, xz, yz): nine products per weight.
func (s *NonlinearSpace) AdjointRange(lin []float64, v []mgl64.Mat3, g []float64, lo, hi int) {
	l := s.l
	var stack [factorSize * smallWeights]float64
	buf := factorBuffer(stack[:], l)
	g = g[:l]
	for j := lo; j < hi; j++ {
		c := lin[(j-lo)*linSize : (j-lo+1)*linSize]
		rot, jr := (*mgl64.Mat3)(c[0:9]), c[9:18]
		p, q, z, d, e, f := c[18], c[19], c[20], c[21], c[22], c[23]
		sm := mgl64.Mat3{p, d, e, d, q, f, e, f, z}
		vj := &v[j-lo]
		// A = Rᵀ·v (column-major: A[3c + r] = Σ_i R[3r + i]·v[3c + i]).
		var a, b mgl64.Mat3
		for cc := 0; cc < 3; cc++ {
			for r := 0; r < 3; r++ {
				a[3*cc+r] = rot[3*r]*vj[3*cc] + rot[3*r+1]*vj[3*cc+1] + rot[3*r+2]*vj[3*cc+2]
			}
		}
		// B = A·S.
		for cc := 0; cc < 3; cc++ {
			for r := 0; r < 3; r++ {
				b[3*cc+r] = a[r]*sm[3*cc] + a[3+r]*sm[3*cc+1] + a[6+r]*sm[3*cc+2]
			}
		}
		c0, c1, c2 := b[5]-b[7], b[6]-b[2], b[1]-b[3]
		pair := [factorSize]float64{
			jr[0]*c0 + jr[1]*c1 + jr[2]*c2,
			jr[3]*c0 + jr[4]*c1 + jr[5]*c2,
			jr[6]*c0 + jr[7]*c1 + jr[8]*c2,
			a[0], a[4], a[8], a[3] + a[1], a[6] + a[2], a[7] + a[5],
		}
		dense.Mul9(g, 0, pair[:], s.factors(j, buf), l, true)
	}
}

// blended is one triangle's blend at w: Exp(ω), J_r(ω) and S(w) as
// (a, b, c, d, e, f) for [[a d e] [d b f] [e f c]].
type blended struct {
	rot, jr mgl64.Mat3
	sym     [6]float64
}

// run evaluates triangles [lo, hi): T_j into t[j − lo] and the
// derivatives into dt[(j − lo)·l:], each skipped when nil.
func (s *NonlinearSpace) run(w []float64, t, dt []mgl64.Mat3, lo, hi int) {
	l := s.l
	var stack [factorSize * smallWeights]float64
	buf := factorBuffer(stack[:], l)
	var bl blended
	for j := lo; j < hi; j++ {
		fj := s.factors(j, buf)
		var jr *mgl64.Mat3
		if dt != nil {
			jr = &bl.jr
		}
		blend(&bl.rot, jr, &bl.sym, w[:l], fj)
		if t != nil {
			mulSym(&t[j-lo], &bl.rot, &bl.sym)
		}
		if dt != nil {
			derivatives(&bl, fj, dt[(j-lo)*l:(j-lo+1)*l])
		}
	}
}

// blend sets, from one triangle's factors fj at w, ω = Σ w_i·Log R_i,
// S(w) = Σ w_i·S_i, rot = Exp(ω), and jr = J_r(ω) unless jr is nil.
func blend(rot, jr *mgl64.Mat3, sym *[6]float64, w, fj []float64) {
	var sum [factorSize]float64
	dense.Dots9(&sum, w, fj)
	omega := mgl64.Vec3{sum[0], sum[1], sum[2]}
	if jr != nil {
		rotation.ExpAndRightJacobianTo(rot, jr, omega)
	} else {
		rotation.ExpTo(rot, omega)
	}
	*sym = [6]float64{sum[3], sum[4], sum[5], sum[6], sum[7], sum[8]}
}

// derivatives writes ∂T/∂w_k = Exp(ω)·([J_r·Log R_k]×·S(w) + S_k) of one
// triangle into out[k], from its blend and its factors fj.
func derivatives(bl *blended, fj []float64, out []mgl64.Mat3) {
	rot, jr := &bl.rot, &bl.jr
	a, b, c, d, e, f := bl.sym[0], bl.sym[1], bl.sym[2], bl.sym[3], bl.sym[4], bl.sym[5]
	l := len(out)
	for k := range out {
		var r [factorSize]float64
		for c := range r {
			r[c] = fj[c*l+k]
		}
		// u = J_r·Log R_k.
		ux := jr[0]*r[0] + jr[3]*r[1] + jr[6]*r[2]
		uy := jr[1]*r[0] + jr[4]*r[1] + jr[7]*r[2]
		uz := jr[2]*r[0] + jr[5]*r[1] + jr[8]*r[2]
		// M = [u]×·S(w) + S_k: column c of M is u × (column c of S) + S_k's.
		m00 := uy*e - uz*d + r[3]
		m10 := uz*a - ux*e + r[6]
		m20 := ux*d - uy*a + r[7]
		m01 := uy*f - uz*b + r[6]
		m11 := uz*d - ux*f + r[4]
		m21 := ux*b - uy*d + r[8]
		m02 := uy*c - uz*f + r[7]
		m12 := uz*e - ux*c + r[8]
		m22 := ux*f - uy*e + r[5]
		// ∂T/∂w_k = Exp(ω)·M.
		o := &out[k]
		o[0] = rot[0]*m00 + rot[3]*m10 + rot[6]*m20
		o[1] = rot[1]*m00 + rot[4]*m10 + rot[7]*m20
		o[2] = rot[2]*m00 + rot[5]*m10 + rot[8]*m20
		o[3] = rot[0]*m01 + rot[3]*m11 + rot[6]*m21
		o[4] = rot[1]*m01 + rot[4]*m11 + rot[7]*m21
		o[5] = rot[2]*m01 + rot[5]*m11 + rot[8]*m21
		o[6] = rot[0]*m02 + rot[3]*m12 + rot[6]*m22
		o[7] = rot[1]*m02 + rot[4]*m12 + rot[7]*m22
		o[8] = rot[2]*m02 + rot[5]*m12 + rot[8]*m22
	}
}

// mulSym stores q·S in *dst for S = [[a d e] [d b f] [e f c]],
// sym = (a, b, c, d, e, f).
func mulSym(dst, q *mgl64.Mat3, sym *[6]float64) {
	a, b, c, d, e, f := sym[0], sym[1], sym[2], sym[3], sym[4], sym[5]
	*dst = mgl64.Mat3{
		q[0]*a + q[3]*d + q[6]*e, q[1]*a + q[4]*d + q[7]*e, q[2]*a + q[5]*d + q[8]*e,
		q[0]*d + q[3]*b + q[6]*f, q[1]*d + q[4]*b + q[7]*f, q[2]*d + q[5]*b + q[8]*f,
		q[0]*e + q[3]*f + q[6]*c, q[1]*e + q[4]*f + q[7]*c, q[2]*e + q[5]*f + q[8]*c,
	}
}

// projectRange evaluates triangles [lo, hi) at w for the Gauss-Newton
// rows (Solver.prepare): T_j(w) into t[j − lo], and the projected
// derivatives D̃_j[2r + a][k] = Σ_c H_j[c][a]·∂T_j[r][c]/∂w_k = (∂T_j/∂w_k
// ·H_j)[r][a] into rows 6(j − lo) … 6(j − lo) + 5 of rows (stride apart,
// the first l numbers of each), for the projections hp[j] (H_j[c][a] at
// hp[j][2c + a]). It is EvalRange followed by the projection, computed
// without the 3×3 derivatives: D̃_j is linear in each weight's nine factor
// coordinates, D̃_j[i][k] = Σ_c A_j[i][c]·fac_j[c][k] (projectedMap), so
// a triangle costs one 6×9 by 9×l product (dense.Mul9) instead of l
// derivatives and their projections.
func (s *NonlinearSpace) projectRange(w []float64, hp [][6]float64, t []mgl64.Mat3, rows []float64, stride, lo, hi int) {
	l := s.l
	var stack [factorSize * smallWeights]float64
	buf := factorBuffer(stack[:], l)
	var bl blended
	var a [6 * factorSize]float64
	for j := lo; j < hi; j++ {
		fj := s.factors(j, buf)
		blend(&bl.rot, &bl.jr, &bl.sym, w[:l], fj)
		mulSym(&t[j-lo], &bl.rot, &bl.sym)
		projectedMap(&a, &bl, &hp[j])
		dense.Mul9(rows[6*(j-lo)*stride:], stride, a[:], fj, l, false)
	}
}

// projectedMap sets a (six rows of nine) to the map from a weight's
// factor coordinates (Log R_k, S_k) to its projected derivative rows at
// the blend bl, for the projection h (H[c][a] = h[2c + a]). With
// P = S(w)·H, column a of [u]×·P is u × P_a = −[P_a]×·u, so
//
//	(∂T/∂w_k·H)[r][a] = (R·([u]×·P + S_k·H))[r][a]
//	                  = (B_a·Log R_k)[r] + Σ_{c,d} R[r][c]·S_k[c][d]·H[d][a],
//
// with u = J_r·Log R_k and B_a = −R·[P_a]×·J_r: the first three
// coefficients of row 2r + a are row r of B_a, the other six pair R's row
// r with H's column a on S_k's (xx, yy, zz, xy, xz, yz).
func projectedMap(a *[6 * factorSize]float64, bl *blended, h *[6]float64) {
	rot, jr := &bl.rot, &bl.jr
	sxx, syy, szz, sxy, sxz, syz := bl.sym[0], bl.sym[1], bl.sym[2], bl.sym[3], bl.sym[4], bl.sym[5]
	for col := 0; col < 2; col++ {
		h0, h1, h2 := h[col], h[2+col], h[4+col]
		// P_a = S·H_a.
		px := sxx*h0 + sxy*h1 + sxz*h2
		py := sxy*h0 + syy*h1 + syz*h2
		pz := sxz*h0 + syz*h1 + szz*h2
		// C = P_a × (each column of J_r), then B_a = −R·C.
		var cm mgl64.Mat3
		for c := 0; c < 3; c++ {
			jx, jy, jz := jr[3*c], jr[3*c+1], jr[3*c+2]
			cm[3*c] = py*jz - pz*jy
			cm[3*c+1] = pz*jx - px*jz
			cm[3*c+2] = px*jy - py*jx
		}
		for r := 0; r < 3; r++ {
			r0, r1, r2 := rot[r], rot[3+r], rot[6+r]
			row := a[(2*r+col)*factorSize : (2*r+col+1)*factorSize]
			for c := 0; c < 3; c++ {
				row[c] = -(r0*cm[3*c] + r1*cm[3*c+1] + r2*cm[3*c+2])
			}
			row[3] = r0 * h0
			row[4] = r1 * h1
			row[5] = r2 * h2
			row[6] = r0*h1 + r1*h0
			row[7] = r0*h2 + r2*h0
			row[8] = r1*h2 + r2*h1
		}
	}
}
