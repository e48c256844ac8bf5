package meshik

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/parallel"
	"gallop/internal/scratch"
	"gallop/solver/dense"
	"gallop/solver/sparse"
)

// One Gauss-Newton iteration's linear algebra (see Solver): the projected
// rows of every triangle and their Gram sums (prepare), the half solves
// and theirs (halfSolve), the l×l weight system (step) and the backward
// solve (backward).

// sums are the Gram sums of one linearisation at the current iterate,
// over the stacked projected rows [D̃ | b̃ | ẽ] (see Solver), for l
// weights: the objective ẽᵀẽ (without the regularisers), its gradient in
// w, −2·D̃ᵀẽ, and the blocks D̃ᵀD̃ (l×l, row-major, full), D̃ᵀb̃ and b̃ᵀb̃
// of the normal equations.
type sums struct {
	f    float64
	grad []float64
	jj   []float64
	jb   []float64
	bb   float64
}

// evalBlock is the number of triangles whose features and derivatives
// prepare evaluates at a time, to use them while they are in cache.
const evalBlock = 32

// itemChunk is the number of items (triangles, vertices) whose rows the
// Gram sums take at a time: fixed, so that sums do not depend on the
// number of cores, and small enough that the rows stay in cache between
// being written and being summed.
const itemChunk = 256

// scatterChunk is the number of triangles per work item of prepare: the
// patch whose vertex rows one worker accumulates (see scatter), four of
// itemChunk. On the 135k horse patches of 256 and 512 triangles measured
// 1-3 ms slower a pass than patches of 1,024 (the least of 15 passes,
// alternating runs).
const scatterChunk = 4 * itemChunk

// blockScratch is one worker's storage for a block of features and
// derivatives.
type blockScratch struct {
	t  [evalBlock]mgl64.Mat3
	dt []mgl64.Mat3
}

var scratchPool sync.Pool

func getScratch(l int) *blockScratch {
	sc, _ := scratchPool.Get().(*blockScratch)
	if sc == nil {
		sc = &blockScratch{}
	}
	if cap(sc.dt) < evalBlock*l {
		sc.dt = make([]mgl64.Mat3, evalBlock*l)
	}
	sc.dt = sc.dt[:evalBlock*l]
	return sc
}

// padded is the width to which rows are laid out (prepare) or copied
// (gram) for the Gram sums: at least 8 and a multiple of 4, so that
// dense.SyrkLN works in whole 8×4 and 4×4 tiles of its AVX2 kernels (on
// the Pose tool's widths, 6 to 30 columns, padding made it 2 to 4 times as
// fast as the tiles' ragged edges, which are summed one element at a
// time).
func padded(w int) int { return max(8, (w+3)&^3) }

// gramPool holds the chunks' row buffers of gram and prepare.
var gramPool scratch.Floats

// gram returns Σ rᵀr over rows r of width w: n items of per rows each,
// summed in chunks of size items in parallel and then in chunk order (so
// the result does not depend on the scheduling), as a full symmetric w×w
// matrix (row-major). For each chunk of items [lo, hi), chunk(lo, hi,
// sum) makes the chunk's (hi − lo)·per rows, stride apart, and hands them
// to sum, on the same goroutine, before it returns: all at once, or in
// parts of at most itemChunk items, in order. Rows whose stride is not
// padded(w) are copied to rows that are. With a plan (not nil) the chunks
// run in its waves, one wave after another (see scatter); without, all at
// once.
func gram(n, size, per, w int, plan *scatter, chunk func(lo, hi int, sum func(rows []float64, stride int))) []float64 {
	pw := padded(w)
	nc := (n + size - 1) / size
	part := make([]float64, nc*pw*pw)
	run := func(c int) {
		lo, hi := c*size, min(n, (c+1)*size)
		chunk(lo, hi, func(src []float64, stride int) {
			k := len(src) / stride
			if stride != pw {
				buf := gramPool.Get(k * pw)
				defer gramPool.Put(buf)
				dst := (*buf)[:k*pw]
				clear(dst)
				for r := 0; r < k; r++ {
					copy(dst[r*pw:r*pw+w], src[r*stride:r*stride+w])
				}
				src = dst
			}
			acc := part[c*pw*pw : (c+1)*pw*pw]
			// Column-major, the rows are the columns of a pw × k matrix
			// A: acc = 0 − A·Aᵀ, its lower triangle at acc[j·pw + i],
			// i ≥ j.
			dense.SyrkLN(pw, k, src, pw, acc, pw, acc, pw)
		})
	}
	if plan == nil {
		parallel.For(nc, run)
	} else {
		for i := 0; i+1 < len(plan.wavePtr); i++ {
			wave := plan.waves[plan.wavePtr[i]:plan.wavePtr[i+1]]
			parallel.For(len(wave), func(k int) { run(int(wave[k])) })
		}
	}
	sum := make([]float64, w*w)
	for c := 0; c < nc; c++ {
		acc := part[c*pw*pw : (c+1)*pw*pw]
		for j := 0; j < w; j++ {
			for i := j; i < w; i++ {
				sum[j*w+i] -= acc[j*pw+i]
			}
		}
	}
	for j := 0; j < w; j++ {
		for i := j + 1; i < w; i++ {
			sum[i*w+j] = sum[j*w+i]
		}
	}
	return sum
}

// prepare evaluates, in one parallel pass over the triangles, M(w) and
// ∂M/∂w of bl, makes each triangle's six projected rows [D̃ | b̃ | ẽ] and
// sums their Gram matrix chunk by chunk as it goes. With vertexRows it
// also applies Ǧᵀ to the rows' first l + 1 columns as it goes (see
// scatter), leaving in s.half the vertex rows Ǧᵀ·[D̃ | b̃] that halfSolve
// solves (per vertex 3(l + 1) numbers, coordinate r's block at r(l + 1):
// the l derivative columns, then b̃; zero for the constrained vertices,
// whose rows the Dirichlet system decouples). With moveFixed the
// constrained vertices go to their targets first (an iteration); without,
// the pose is taken as it is (FitWeights).
func (s *Solver) prepare(bl *spaceState, moveFixed, vertexRows bool) sums {
	if moveFixed {
		for _, v := range s.fixedList {
			s.x[v] = s.target[v]
		}
	}
	l := bl.l
	w := l + 2
	pw := padded(w)
	hs := halfStride(l)
	// Rotating groups turn with the main space's weights (turnJacobian).
	turning := moveFixed && bl == s.main && len(s.groups) > 0 && l > 0
	if turning {
		s.turnJacobian()
	}
	var plan *scatter
	if vertexRows {
		plan = s.scatter
	}
	gr := gram(s.m, scatterChunk, 6, w, plan, func(lo, hi int, sum func([]float64, int)) {
		sc := getScratch(l)
		defer scratchPool.Put(sc)
		buf := gramPool.Get(itemChunk * 6 * pw)
		defer gramPool.Put(buf)
		c := lo / scatterChunk
		cx := cornerPool.Get().(*chunkCorners)
		defer cornerPool.Put(cx)
		s.gatherCorners(c, cx)
		var rowsOf []int // the chunk's entries' rows in s.half
		if vertexRows {
			rb := entryPool.Get().(*[]int)
			defer entryPool.Put(rb)
			rowsOf = s.entryRows(c, hs, (*rb)[:0])
			*rb = rowsOf
		}
		// The rows of itemChunk triangles at a time, summed while in cache.
		for part := lo; part < hi; part += itemChunk {
			end := min(hi, part+itemChunk)
			chunk := (*buf)[:6*(end-part)*pw]
			for j := part; j < end; j += evalBlock {
				je := min(end, j+evalBlock)
				s.derivativeRows(bl, sc, chunk[6*(j-part)*pw:], pw, j, je)
				for jj := j; jj < je; jj++ {
					out := chunk[6*(jj-part)*pw : 6*(jj-part+1)*pw]
					var cr corners
					cx.of(s.scatter.corner[3*jj:3*jj+3], &cr)
					s.triangleRows(jj, &sc.t[jj-j], &cr, l, out, pw, turning)
					if vertexRows {
						s.scatterRows(jj, out, pw, l, rowsOf)
					}
				}
			}
			sum(chunk, pw)
		}
	})
	if vertexRows {
		s.finishRows(hs)
	}
	sm := sums{f: gr[(l+1)*w+l+1], bb: gr[l*w+l], grad: make([]float64, l), jj: make([]float64, l*l), jb: make([]float64, l)}
	for a := 0; a < l; a++ {
		sm.grad[a] = -2 * gr[a*w+l+1]
		sm.jb[a] = gr[a*w+l]
		copy(sm.jj[a*l:(a+1)*l], gr[a*w:a*w+l])
	}
	return sm
}

var entryPool = sync.Pool{New: func() any { return new([]int) }}

// corners are a triangle's corner positions and which of them are
// constrained.
type corners struct {
	x     [3]mgl64.Vec3
	fixed [3]bool
}

// cornersOf reads triangle j's corners from the solver's vertices.
func (s *Solver) cornersOf(j int, cr *corners) {
	for q, v := range s.grad.Triangle(j) {
		cr.x[q], cr.fixed[q] = s.x[v], s.fixed[v]
	}
}

// chunkCorners are the positions and constraint flags of one chunk's
// entries (see scatter), gathered once per chunk so that its triangles
// read their corners from a few kilobytes in cache rather than from
// wherever the mesh numbers them.
type chunkCorners struct {
	x     []mgl64.Vec3
	fixed []bool
}

var cornerPool = sync.Pool{New: func() any { return new(chunkCorners) }}

// gatherCorners fills cx with chunk c's entries.
func (s *Solver) gatherCorners(c int, cx *chunkCorners) {
	sp := s.scatter
	cx.x, cx.fixed = cx.x[:0], cx.fixed[:0]
	for _, v := range sp.entVert[sp.entPtr[c]:sp.entPtr[c+1]] {
		cx.x = append(cx.x, s.x[v])
		cx.fixed = append(cx.fixed, s.fixed[v])
	}
}

// of sets cr to the corners whose entries in the chunk are ent.
func (cx *chunkCorners) of(ent []int32, cr *corners) {
	for q, e := range ent[:3] {
		cr.x[q], cr.fixed[q] = cx.x[e], cx.fixed[e]
	}
}

// halfStride is the length of a vertex row in s.half for l weights: its
// 3(l + 1) numbers padded as the sparse solves want them.
func halfStride(l int) int { return sparse.RowStride(3 * (l + 1)) }

// entryRows returns, appended to buf, where in s.half each entry of chunk
// c accumulates its vertex row (cols numbers, rows hs apart): the
// vertex's own row, at its pivot position. The entry that comes first for
// its vertex (see scatter) zeroes the row, its padding too (other solves
// use s.half as scratch).
func (s *Solver) entryRows(c, hs int, buf []int) []int {
	sp := s.scatter
	for e := sp.entPtr[c]; e < sp.entPtr[c+1]; e++ {
		r := s.sym.PivotOf(int(sp.entVert[e]))
		if sp.first[e] {
			clear(s.half[r*hs : (r+1)*hs])
		}
		buf = append(buf, r*hs)
	}
	return buf
}

// scatterRows adds triangle j's contribution Ǧ_jᵀ·[D̃ | b̃] (its rows out,
// stride apart, first l + 1 columns) to the rows of s.half where its
// corners' entries accumulate (rowsOf, from entryRows).
func (s *Solver) scatterRows(j int, out []float64, stride, l int, rowsOf []int) {
	cols := 3 * (l + 1)
	var d [3][]float64
	for q := range d {
		off := rowsOf[s.scatter.corner[3*j+q]]
		d[q] = s.half[off : off+cols]
	}
	dense.Scatter3(&d, l+1, out, stride, &s.gp[j], l+1)
}

// finishRows zeroes the rows of the constrained vertices, which the
// Dirichlet system decouples, and of the vertices no triangle uses (rows
// hs apart).
func (s *Solver) finishRows(hs int) {
	for _, u := range s.fixedList {
		r := s.sym.PivotOf(u)
		clear(s.half[r*hs : (r+1)*hs])
	}
	for _, u := range s.scatter.lone {
		r := s.sym.PivotOf(int(u))
		clear(s.half[r*hs : (r+1)*hs])
	}
}

// derivativeRows evaluates bl at triangles [lo, hi): their features into
// sc.t and their projected derivatives D̃ (the first l numbers of each
// triangle's six rows, see triangleRows) into rows, six rows of stride
// per triangle. The nonlinear space makes the projected rows directly
// (NonlinearSpace.projectRange); other spaces' 3×3 derivatives are
// projected here. Frozen triangles take their frozen features and no
// derivatives.
func (s *Solver) derivativeRows(bl *spaceState, sc *blockScratch, rows []float64, stride, lo, hi int) {
	l := bl.l
	t := sc.t[:hi-lo]
	if ns, ok := bl.space.(*NonlinearSpace); ok {
		ns.projectRange(bl.w, s.hp, t, rows, stride, lo, hi)
		for j := lo; j < hi; j++ {
			if s.frozen[j] {
				t[j-lo] = s.fgrad[j]
				for i := 0; i < 6; i++ {
					clear(rows[(6*(j-lo)+i)*stride : (6*(j-lo)+i)*stride+l])
				}
			}
		}
		return
	}
	dt := sc.dt[:(hi-lo)*l]
	bl.evalRange(s.frozen, s.fgrad, t, dt, lo, hi)
	for j := lo; j < hi; j++ {
		projectRows(&s.hp[j], dt[(j-lo)*l:(j-lo+1)*l], rows[6*(j-lo)*stride:], stride)
	}
}

// projectRows writes the projected derivatives D̃[2r + a][k] =
// Σ_c H[c][a]·d[k][r][c] of one triangle's 3×3 derivatives d into the
// first len(d) numbers of its six rows out (stride apart), for its
// projection h (H[c][a] = h[2c + a]).
func projectRows(h *[6]float64, d []mgl64.Mat3, out []float64, stride int) {
	h0, h1, h2, h3, h4, h5 := h[0], h[1], h[2], h[3], h[4], h[5]
	for k := range d {
		dk := &d[k]
		for r := 0; r < 3; r++ {
			u0, u1, u2 := dk[r], dk[3+r], dk[6+r]
			out[(2*r)*stride+k] = h0*u0 + h2*u1 + h4*u2
			out[(2*r+1)*stride+k] = h1*u0 + h3*u1 + h5*u2
		}
	}
}

// triangleRows completes triangle j's six projected rows in out (6 rows,
// stride apart), whose first l numbers hold D̃ (derivativeRows): for
// coordinate r and plane direction a, row 2r + a gets
// b̃ = Σ_c H[c][a]·T[r][c] − (Ǧ·x̂)[a] and ẽ = (Ǧ·x)[a] − Σ_c H[c][a]·T[r][c]
// after D̃, then zeros up to the stride; with turning, D̃ gains the share
// of the corners in rotating groups (turnColumns).
func (s *Solver) triangleRows(j int, t *mgl64.Mat3, cr *corners, l int, out []float64, stride int, turning bool) {
	w := stride
	g := &s.gp[j]
	var b [6]float64
	s.target6(j, t, cr, b[:])
	// ẽ = Ǧ·x − τ = (the free corners' share) − b̃, with the constrained
	// corners at 0.
	xf := cr.x
	for c := range xf {
		if cr.fixed[c] {
			xf[c] = mgl64.Vec3{}
		}
	}
	free := gradCorners(g, &xf)
	for i := range 6 {
		row := out[i*w : (i+1)*w]
		row[l], row[l+1] = b[i], free[i]-b[i]
		clear(row[l+2:])
	}
	if turning && s.gtri[j] {
		s.turnColumns(s.grad.Triangle(j), g, out, w, l)
	}
}

// gradCorners applies a triangle's gradient operator Ǧ_j (coefficients g,
// g[3a + c] for plane direction a and corner c) to its corner positions x:
// element 2r + a is Σ_c g[3a + c]·x_c[r], summed in corner order.
func gradCorners(g *[6]float64, x *[3]mgl64.Vec3) (out [6]float64) {
	for r := 0; r < 3; r++ {
		out[2*r] = g[0]*x[0][r] + g[1]*x[1][r] + g[2]*x[2][r]
		out[2*r+1] = g[3]*x[0][r] + g[4]*x[1][r] + g[5]*x[2][r]
	}
	return out
}

// turnColumns adds to a triangle's derivative columns the share of its
// corners in rotating groups, which move with the weights: b̃ holds
// −Ǧ_c·x_c for each constrained corner c, so ∂b̃/∂w_k gains
// −Ǧ_c·∂x_c/∂w_k (turnJacobian).
func (s *Solver) turnColumns(tri [3]int, g *[6]float64, out []float64, w, l int) {
	for c := 0; c < 3; c++ {
		gs := s.gslot[tri[c]]
		if gs < 0 {
			continue
		}
		dx := s.gdx[int(gs)*l : int(gs+1)*l]
		for r := 0; r < 3; r++ {
			for a := 0; a < 2; a++ {
				row := out[(2*r+a)*w : (2*r+a)*w+l]
				for k := range row {
					row[k] -= g[3*a+c] * dx[k][r]
				}
			}
		}
	}
}

// turnAdjoint adds to grad (D̃ᵀ·r so far) the share of turnColumns'
// columns for a triangle's six residuals r: −Σ r·Ǧ_c·∂x_c/∂w_k over its
// corners c in rotating groups.
func (s *Solver) turnAdjoint(tri [3]int, g *[6]float64, r, grad []float64) {
	l := len(grad)
	for c := 0; c < 3; c++ {
		gs := s.gslot[tri[c]]
		if gs < 0 {
			continue
		}
		dx := s.gdx[int(gs)*l : int(gs+1)*l]
		for rr := 0; rr < 3; rr++ {
			for a := 0; a < 2; a++ {
				e := r[2*rr+a] * g[3*a+c]
				for k := range grad {
					grad[k] -= e * dx[k][rr]
				}
			}
		}
	}
}

// startPrior returns the per-weight k² of the linear start: the space's
// own, at least 1e-6, which keeps the problem well posed when examples are
// nearly dependent and hardly moves the optimum.
func (bl *spaceState) startPrior() []float64 {
	kk := slices.Clone(bl.prior)
	for i := range kk {
		kk[i] = max(kk[i], 1e-6)
	}
	return kk
}

// halfSolve applies the forward solve L⁻¹·P to all columns of the vertex
// rows Ǧᵀ·[D̃ | b̃] of bl that prepare left in s.half, at once. It returns
// the Gram sums of the solved rows, Σ over the rows (vertex, coordinate)
// of [Y | z]ᵀ[Y | z]: YᵀY, Yᵀz and zᵀz, as a full (l+1)×(l+1) matrix.
func (s *Solver) halfSolve(bl *spaceState) []float64 {
	l := bl.l
	v, hs := l+1, halfStride(l)
	half := s.half[:s.n*hs]
	s.ws.SolveLowerPivoted(half, hs)
	pv := padded(v)
	return gram(s.n, itemChunk, 3, v, nil, func(lo, hi int, sum func([]float64, int)) {
		// Each vertex row's three blocks of l + 1, as rows pv apart.
		buf := gramPool.Get(3 * itemChunk * pv)
		defer gramPool.Put(buf)
		rows := (*buf)[:3*(hi-lo)*pv]
		for u := lo; u < hi; u++ {
			for r := 0; r < 3; r++ {
				dst := rows[(3*(u-lo)+r)*pv : (3*(u-lo)+r+1)*pv]
				copy(dst, half[u*hs+r*v:u*hs+(r+1)*v])
				clear(dst[v:])
			}
		}
		sum(rows, pv)
	})
}

// step solves the linearised problem at bl's current (x, w), prepared in
// sm, with the per-weight regularisers kk (k² of the prior) and pp (p² of
// the temporal term) and Marquardt damping mu, and applies the step to x
// and bl.w. It returns δ and the value of the linearised objective at the
// new (x, w) (what the model predicts f will be).
func (s *Solver) step(bl *spaceState, sm sums, kk, pp []float64, mu float64) ([]float64, float64, error) {
	l := bl.l
	gy := s.halfSolve(bl)
	v := l + 1
	// The l×l system for δ: S = D̃ᵀD̃ − YᵀY, r = Yᵀz − D̃ᵀb̃ − k²w − p²(w − w₀).
	delta := make([]float64, l)
	if l > 0 {
		reg, rhs := make([]float64, l), make([]float64, l)
		for a := range rhs {
			reg[a] = kk[a] + pp[a]
			rhs[a] = gy[a*v+l] - sm.jb[a] - kk[a]*bl.w[a] - pp[a]*(bl.w[a]-bl.w0[a])
		}
		data := func(a, c int) float64 { return sm.jj[a*l+c] - gy[a*v+c] }
		if !solveWeights(l, data, reg, mu, rhs, delta) {
			return nil, 0, fmt.Errorf("%w (the weight system is not positive definite)", ErrIllPosed)
		}
	}
	if bl == s.main {
		s.keepSystem(l, sm, gy) // for the iterations that reuse it (reuse.go)
	}
	s.backward(bl, delta)

	// The model's value at the new iterate, from sums already at hand:
	// min_x ‖Ǧx − (b̃ + D̃δ)‖² = ‖b̃ + D̃δ‖² − ‖z + Yδ‖² (the free rows).
	model := sm.bb - gy[l*v+l]
	for a := 0; a < l; a++ {
		model += 2 * delta[a] * (sm.jb[a] - gy[a*v+l])
		for c := 0; c < l; c++ {
			model += delta[a] * delta[c] * (sm.jj[a*l+c] - gy[a*v+c])
		}
	}
	model = max(model, 0)
	for a := range delta {
		bl.w[a] += delta[a]
		dw := bl.w[a] - bl.w0[a]
		model += kk[a]*bl.w[a]*bl.w[a] + pp[a]*dw*dw
	}
	return delta, model, nil
}

// backward applies δ: the positions from K's backward solve of z + Y·δ,
// the constrained vertices at their targets.
func (s *Solver) backward(bl *spaceState, delta []float64) {
	l := bl.l
	hs := halfStride(l)
	half := s.half[:s.n*hs]
	xd := s.xs.RawMatrix()
	parallel.Chunks(s.n, 8192, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			row := half[u*hs:]
			for r := 0; r < 3; r++ {
				v := row[r*(l+1)+l]
				for a := 0; a < l; a++ {
					v += row[r*(l+1)+a] * delta[a]
				}
				xd.Data[u*xd.Stride+r] = v
			}
		}
	})
	s.ws.SolveUpper(s.xs, s.xs)
	for u := 0; u < s.n; u++ {
		if s.fixed[u] {
			s.x[u] = s.target[u]
			continue
		}
		s.x[u] = mgl64.Vec3{xd.Data[u*xd.Stride], xd.Data[u*xd.Stride+1], xd.Data[u*xd.Stride+2]}
	}
}

// solveWeights solves the l×l weight system (A + R)·δ = rhs by Cholesky,
// every step's (the exact, the reusing and the weight fit's): A is the
// data's part, data(a, c) for a ≤ c (symmetric), R the diagonal of the
// regularisers reg (k² of the prior plus p² of the temporal term), and
// Marquardt's damping mu scales the whole diagonal, (A_aa + reg_a)(1 + μ).
// The system is solved scaled so that its diagonal is the data's again,
// base_a = A_aa(1 + μ): with d_a = √(base_a / sys_aa),
// (D·sys·D)·y = D·rhs and δ = D·y, which changes nothing in exact
// arithmetic and nothing at all where there are no regularisers. A strong
// prior puts k² on the diagonal of every weight it holds and not on the
// nonlinear space's scale weight; unscaled, the system then looks
// ill-conditioned (k = 10¹⁰ already gives a condition number of 10²⁰) and
// was raised as if undetermined, which froze the scale weight. The system
// is positive semi-definite in exact arithmetic (D̃ᵀD̃ − YᵀY is a Schur
// complement), but where the handles and the prior leave a direction of
// the weights undetermined to rounding, its pivot can come out zero or
// slightly negative, or the factor too ill-conditioned to trust. Then the
// scaled diagonal is raised by rounding-level amounts, 10⁻¹², 10⁻¹⁰ and at
// most 10⁻⁸ of its largest entry, which leaves every direction the data
// determine as it is and keeps the others where they are. It reports
// false if even that fails.
func solveWeights(l int, data func(a, c int) float64, reg []float64, mu float64, rhs, delta []float64) bool {
	d := make([]float64, l)
	for a := range d {
		base := data(a, a) * (1 + mu)
		d[a] = 1
		if v := base + reg[a]*(1+mu); base > 0 && v > base {
			d[a] = math.Sqrt(base / v)
		}
	}
	scaled := mat.NewSymDense(l, nil)
	b := mat.NewVecDense(l, nil)
	top := 0.0
	for a := 0; a < l; a++ {
		for c := a; c < l; c++ {
			e := data(a, c)
			if a == c {
				e = (e + reg[a]) * (1 + mu)
			}
			scaled.SetSym(a, c, e*d[a]*d[c])
		}
		b.SetVec(a, rhs[a]*d[a])
		top = max(top, math.Abs(scaled.At(a, a)))
	}
	y := mat.NewVecDense(l, nil)
	solved := func(m *mat.SymDense) bool {
		var ch mat.Cholesky
		if !ch.Factorize(m) || ch.SolveVecTo(y, b) != nil {
			return false
		}
		for a := range delta {
			delta[a] = d[a] * y.AtVec(a)
		}
		return true
	}
	if solved(scaled) {
		return true
	}
	for _, eps := range []float64{1e-12, 1e-10, 1e-8} {
		raised := mat.NewSymDense(l, nil)
		raised.CopySym(scaled)
		for a := 0; a < l; a++ {
			raised.SetSym(a, a, scaled.At(a, a)+eps*top)
		}
		if solved(raised) {
			return true
		}
	}
	return false
}
