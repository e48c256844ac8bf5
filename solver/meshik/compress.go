package meshik

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"gonum.org/v1/gonum/mat"

	"gallop/internal/hugepage"
	"gallop/internal/parallel"
	"gallop/internal/scratch"
	"gallop/solver/deform"
	"gallop/solver/dense"
	"gallop/solver/rotation"
)

// Compression of the examples by their principal components, and the
// weights' prior from the variance the compression drops (Sumner et al.,
// Section 3.2 after Eq. 5, citing Tipping and Bishop 1999).
//
// Each example i is a feature vector f_i of D = 9m numbers: per triangle j
// nine coordinates, the deformation gradient T_ij for the linear space,
// the polar factors (Log R_ij, S_ij) for the nonlinear one (linearFeature,
// logFeature). With f̄ the mean and X = [f_1 − f̄ … f_l − f̄] (D × l), the
// sample covariance C = (1/l)·X·Xᵀ has at most l − 1 nonzero eigenvalues
// λ_1 ≥ λ_2 ≥ …, found from the l × l Gram matrix Γ = XᵀX: Γ·v_k = μ_k·v_k,
// λ_k = μ_k / l, and C's unit eigenvector is u_k = X·v_k / √μ_k.
//
// Probabilistic PCA with q components (Tipping and Bishop) models a
// feature vector as f = f̄ + W·z + ε with z ~ N(0, I_q) and
// ε ~ N(0, σ²·I_D); its maximum-likelihood fit is
//
//	σ² = Σ_{k>q} λ_k / (D − q),   W = [u_1 … u_q]·diag(√(λ_k − σ²)):
//
// the variance the q components leave, spread over the dimensions they
// leave. The most probable z for features f (the mode of p(z | f)) is
//
//	argmin_z ‖f − f̄ − W·z‖² + σ²·‖z‖²,
//
// which is Eq. 5 with M = W, the weights w = z and k = σ. So a compressed
// space's weights are the z of its components, each with unit variance
// over the examples, and its default prior is k = σ. Directions with too
// little variance to tell from noise are dropped, which is what makes any
// number of examples (a whole capture: repeated and nearly repeated poses)
// a well-posed weight system, and the cost of an iteration grows with the
// components kept rather than with the examples.
//
// The compression is exact at q = rank: the space is the examples' span,
// only in other coordinates.

// pcaChunk is the number of triangles per work item of the compression
// passes (fixed, so that sums do not depend on the number of cores).
const pcaChunk = 256

// basis is a compressed example set: how a space's weights relate to the
// examples, and the variances behind its prior.
type basis struct {
	l      int       // examples
	q      int       // components kept
	lambda []float64 // λ_1 ≥ … ≥ λ_{l−1}: the variance along each component
	noise  float64   // σ²
	// a is l × q, row-major: component k (W-scaled) is
	// W_k = Σ_i a[i·q + k]·(f_i − f̄), of length √(λ_k − σ²).
	a []float64
	// gram is Γ (l × l, row-major), for projecting example coefficients
	// onto the components.
	gram []float64
}

// Kept returns the fraction of the examples' variance the components keep.
func (b *basis) kept() float64 {
	total, kept := 0.0, 0.0
	for k, v := range b.lambda {
		total += v
		if k < b.q {
			kept += v
		}
	}
	if total == 0 {
		return 1
	}
	return kept / total
}

// scale2 returns ‖W_k‖² = λ_k − σ².
func (b *basis) scale2(k int) float64 { return b.lambda[k] - b.noise }

// project returns the component coordinates z of the features
// Σ_i c_i·(f_i − f̄): z_k = ⟨Σ_i c_i(f_i − f̄), W_k⟩ / ‖W_k‖² = cᵀ·Γ·a_k /
// ‖W_k‖², the orthogonal projection onto the components (exact when the
// features lie in their span).
func (b *basis) project(c []float64) []float64 {
	l, q := b.l, b.q
	gc := make([]float64, l) // Γ·c
	for i := 0; i < l; i++ {
		for i2 := 0; i2 < l; i2++ {
			gc[i] += b.gram[i*l+i2] * c[i2]
		}
	}
	z := make([]float64, q)
	for k := 0; k < q; k++ {
		s := 0.0
		for i := 0; i < l; i++ {
			s += gc[i] * b.a[i*q+k]
		}
		z[k] = s / b.scale2(k)
	}
	return z
}

// combination returns the example coefficients of the features
// Σ_k z_k·W_k: d_i = Σ_k a[i·q + k]·z_k. They sum to zero: each W_k is a
// combination of the centred examples, whose coefficients v_k ⊥ 1.
func (b *basis) combination(z []float64) []float64 {
	d := make([]float64, b.l)
	for i := range d {
		for k, zk := range z {
			d[i] += b.a[i*b.q+k] * zk
		}
	}
	return d
}

// Compression selects the components a compressed space keeps.
type Compression struct {
	// Components is the number of principal components kept: 0 chooses
	// it from the examples (ChooseComponents), a positive number keeps
	// that many (at most the examples' rank), and a negative one does not
	// compress: the examples themselves are the basis, as in the paper's
	// Eq. 4 and 6 (the blend of Figure 3 needs a weight per example).
	Components int
}

// rankTol is the relative size, against the largest, of a Gram eigenvalue
// that counts as zero: rounding of the centred features (repeated
// examples, or examples that are exact blends of others).
const rankTol = 1e-12

// pca computes the principal components of l example feature vectors
// given per triangle: fill(lo, hi, buf) writes the l examples' nine
// coordinates at triangles [lo, hi) into buf, row-major with a row per
// (triangle, coordinate) and a column per example,
// buf[((j − lo)·9 + c)·l + i]. The coordinates must be those of the space's
// metric (see logFeature). choose picks q from the eigenvalues (decreasing,
// the variances of the components; never more than the rank given).
// store(lo, hi, mean, dirs) receives, per triangle in [lo, hi), the mean
// (9 per triangle) and the q W-scaled components (9 rows per triangle, q
// columns, row-major) in the same coordinates, after alloc(q) was told q.
// Both fill and store run in parallel on disjoint triangles.
func pca(ctx context.Context, m, l int, fill func(lo, hi int, buf []float64), choose func(lambda []float64, rank int) int,
	alloc func(q int), store func(lo, hi int, mean, dirs []float64)) (*basis, error) {
	if l < 1 {
		return nil, errors.New("meshik: no example poses")
	}
	mean := hugepage.Make[float64](9 * m)
	chunks := (m + pcaChunk - 1) / pcaChunk
	var bufs scratch.Floats
	bufLen := pcaChunk * 9 * l

	// Pass 1: means and the centred Gram matrix, Γ = Σ_chunks BᵀB.
	gram := gram(m, pcaChunk, 9, l, nil, func(lo, hi int, sum func([]float64, int)) {
		if ctx.Err() != nil {
			return // given up: the sum is not used
		}
		rows := 9 * (hi - lo)
		buf := bufs.Get(bufLen)
		defer bufs.Put(buf)
		b := (*buf)[:rows*l]
		fill(lo, hi, b)
		centre(b, rows, l, mean[9*lo:9*hi])
		sum(b, l)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, v := range gram {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("meshik: the examples' features are not finite")
		}
	}

	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(l, slices.Clone(gram)), true) {
		return nil, errors.New("meshik: the principal components of the examples did not converge")
	}
	mu := eig.Values(nil) // increasing
	var vec mat.Dense
	eig.VectorsTo(&vec)
	slices.Reverse(mu)
	order := func(k int) int { return l - 1 - k } // column of vec of the k-th largest
	// The centred examples span at most l − 1 dimensions.
	nv := max(l-1, 0)
	lambda := make([]float64, nv)
	rank := 0
	for k := 0; k < nv; k++ {
		lambda[k] = max(mu[k], 0) / float64(l)
		if mu[k] > rankTol*mu[0] && mu[k] > 0 {
			rank = k + 1
		}
	}
	q := 0
	if rank > 0 {
		q = min(max(choose(lambda, rank), 0), rank)
	}
	b := &basis{l: l, q: q, lambda: lambda, gram: gram, a: make([]float64, l*q)}
	if dims := 9*m - q; dims > 0 {
		for _, v := range lambda[q:] {
			b.noise += v
		}
		b.noise /= float64(dims)
	}
	for k := 0; k < q; k++ {
		s := math.Sqrt(b.scale2(k)) / math.Sqrt(mu[k])
		for i := 0; i < l; i++ {
			b.a[i*q+k] = vec.At(i, order(k)) * s
		}
	}

	// Pass 2: the components, per triangle: dirs = B·a.
	alloc(q)
	negA := make([]float64, len(b.a))
	for i, v := range b.a {
		negA[i] = -v
	}
	parallel.For(chunks, func(c int) {
		if ctx.Err() != nil {
			return
		}
		lo, hi := c*pcaChunk, min(m, (c+1)*pcaChunk)
		rows := 9 * (hi - lo)
		buf := bufs.Get(bufLen)
		defer bufs.Put(buf)
		bm := (*buf)[:rows*l]
		fill(lo, hi, bm)
		mc := mean[9*lo : 9*hi]
		for r := 0; r < rows; r++ {
			row := bm[r*l : (r+1)*l]
			for i := range row {
				row[i] -= mc[r]
			}
		}
		dirs := make([]float64, rows*q)
		if q > 0 {
			// Column-major, dirs (q × rows, the components of a row
			// together) = 0 − (−a)ᵀ·Bᵀ: GemmNT with A = −aᵀ (q × l, a's
			// rows as its columns) and B the rows (rows × l, made
			// column-major by the transposition into bt).
			tb := bufs.Get(bufLen)
			defer bufs.Put(tb)
			bt := (*tb)[:rows*l]
			for r := 0; r < rows; r++ {
				for i := 0; i < l; i++ {
					bt[i*rows+r] = bm[r*l+i]
				}
			}
			dense.GemmNT(q, rows, l, negA, q, bt, rows, dirs, q, dirs, q)
		}
		store(lo, hi, mc, dirs)
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return b, nil
}

// centre subtracts from each of the rows of b (rows × l, row-major) its
// mean, which it writes into mean.
func centre(b []float64, rows, l int, mean []float64) {
	for r := 0; r < rows; r++ {
		row := b[r*l : (r+1)*l]
		s := 0.0
		for _, v := range row {
			s += v
		}
		s /= float64(l)
		mean[r] = s
		for i := range row {
			row[i] -= s
		}
	}
}

// NoiseFloor is the variance, relative to the largest component's, below
// which a component is taken for noise and dropped: what rounding the
// positions of a mesh to the six or seven significant digits of an OBJ
// or float32 file leaves in the features (about 1e-8 of the largest on
// horse-gallop, whose 48 frames are 24 poses twice over).
const NoiseFloor = 1e-6

// MaxComponents caps the components kept automatically: the cost of an
// iteration grows with their square (see Solver). Examples with more
// components above the noise floor are truncated to the largest
// MaxComponents, and the variance dropped then sets the prior.
const MaxComponents = 64

// ChooseComponents returns the number of principal components kept of
// examples whose components have the variances lambda (decreasing) and
// the given rank: every component above the noise floor (NoiseFloor),
// at most MaxComponents. Dropping real variation to save time costs
// accuracy: holding out each of frames 3, 9, … 45 of pcow and posing it
// from the other 47 at 10 handles, all 46 components give 0.87 of the
// error of the 4 frames around it (summed over the eight), the 41 that
// keep 99.9% of the variance 1.0.
func ChooseComponents(lambda []float64, rank int) int {
	q := 0
	for q < rank && q < MaxComponents && lambda[q] > NoiseFloor*lambda[0] {
		q++
	}
	return q
}

// compressionError wraps a failure to compress with what was compressed.
func compressionError(space string, err error) error {
	return fmt.Errorf("the examples' %s features: %w", space, err)
}

// exampleRange writes into buf (see pca) one coordinate set per example
// at triangles [lo, hi): coords(i, j, &T_ij, dst) turns example i's
// deformation gradient at triangle j into nine numbers.
func exampleRange(grad *deform.Gradients, examples [][]mgl64.Vec3, lo, hi int, buf []float64,
	coords func(t *mgl64.Mat3, dst *[9]float64)) {
	l := len(examples)
	t := make([]mgl64.Mat3, hi-lo)
	var c [9]float64
	for i, ex := range examples {
		grad.FeaturesRange(t, ex, lo, hi)
		for j := range t {
			coords(&t[j], &c)
			for r, v := range c {
				buf[(9*j+r)*l+i] = v
			}
		}
	}
}

// NewCompressedLinearSpace builds the linear space of the example poses
// (full sets of positions for the reference of grad) compressed to their
// principal components:
//
//	M(z) = f̄ + Σ_{k=1}^{q} z_k·W_k,   ∂M/∂z_k = W_k,
//
// with f̄ the examples' mean features and W_k the W-scaled components of
// their deformation gradients (see pca); z = 0 is the mean, and each z_k
// has unit variance over the examples. It returns the space and its
// basis, whose noise variance σ² gives the default prior.
func newCompressedLinear(ctx context.Context, grad *deform.Gradients, examples [][]mgl64.Vec3, c Compression) (*LinearSpace, *basis, error) {
	m := grad.NumTriangles()
	var s *LinearSpace
	fill := func(lo, hi int, buf []float64) {
		exampleRange(grad, examples, lo, hi, buf, func(t *mgl64.Mat3, dst *[9]float64) { *dst = *t })
	}
	alloc := func(q int) { s = &LinearSpace{m: m, nw: q, data: hugepage.Make[mgl64.Mat3](m * (q + 1))} }
	b, err := pca(ctx, m, len(examples), fill, c.choose, alloc, func(lo, hi int, mean, dirs []float64) {
		q := s.nw
		for j := lo; j < hi; j++ {
			rec := s.data[j*(q+1) : (j+1)*(q+1)]
			for r := 0; r < 9; r++ {
				row := 9*(j-lo) + r
				rec[0][r] = mean[row]
				for k := 0; k < q; k++ {
					rec[1+k][r] = dirs[row*q+k]
				}
			}
		}
	})
	if err != nil {
		return nil, nil, compressionError("linear", err)
	}
	return s, b, nil
}

// logMetric weighs the nine coordinates of logFeature, (Log R, then S's
// xx, yy, zz, xy, xz, yz), so that their Euclidean distance is the
// Frobenius distance of deformation gradients near the identity:
// Exp(ω)·S ≈ I + [ω]× + (S − I), ‖[ω]×‖² = 2‖ω‖², and S's off-diagonal
// entries count twice.
var logMetric = [9]float64{math.Sqrt2, math.Sqrt2, math.Sqrt2, 1, 1, 1, math.Sqrt2, math.Sqrt2, math.Sqrt2}

// logFeature writes the nonlinear space's coordinates of a deformation
// gradient T = R·S (rotation.Polar) in the metric of logMetric: Log R,
// then S as (xx, yy, zz, xy, xz, yz), each weighted.
func logFeature(t *mgl64.Mat3, dst *[9]float64) {
	var r, sym mgl64.Mat3
	rotation.PolarTo(&r, &sym, t)
	w := rotation.Log(r)
	*dst = [9]float64{w[0], w[1], w[2], sym[0], sym[4], sym[8], sym[3], sym[6], sym[7]}
	for c := range dst {
		dst[c] *= logMetric[c]
	}
}

// newCompressedNonlinear builds the nonlinear space of the example poses
// compressed to the principal components of their polar factors, in the
// metric of logMetric: with (ω̄_j, S̄_j) the examples' mean factors and
// (ω_kj, S_kj) the W-scaled components (see pca), the weights
// w = (β, z_1 … z_q) give
//
//	T_j(w) = Exp(β·ω̄_j + Σ_k z_k·ω_kj)·(β·S̄_j + Σ_k z_k·S_kj),
//
// Eq. 6 with the mean and the components in place of the examples: the
// same span when q is the examples' rank (the centred examples and the
// mean span what the examples span), and NonlinearSpace's evaluation and
// derivatives unchanged. β scales the whole blend as the sum of the
// example weights does in Eq. 6; w = (1, 0, …, 0) is the mean.
func newCompressedNonlinear(ctx context.Context, grad *deform.Gradients, examples [][]mgl64.Vec3, c Compression) (*NonlinearSpace, *basis, error) {
	m := grad.NumTriangles()
	var s *NonlinearSpace
	fill := func(lo, hi int, buf []float64) {
		exampleRange(grad, examples, lo, hi, buf, logFeature)
	}
	alloc := func(q int) {
		s = &NonlinearSpace{m: m, l: q + 1, fac: hugepage.Make[float32](m * (q + 1) * factorSize)}
	}
	b, err := pca(ctx, m, len(examples), fill, c.choose, alloc, func(lo, hi int, mean, dirs []float64) {
		q := s.l - 1
		for j := lo; j < hi; j++ {
			f := s.fac[j*(q+1)*factorSize : (j+1)*(q+1)*factorSize]
			for r := 0; r < 9; r++ {
				row := 9*(j-lo) + r
				fr := f[r*(q+1) : (r+1)*(q+1)]
				fr[0] = float32(mean[row] / logMetric[r])
				for k := 0; k < q; k++ {
					fr[1+k] = float32(dirs[row*q+k] / logMetric[r])
				}
			}
		}
	})
	if err != nil {
		return nil, nil, compressionError("nonlinear", err)
	}
	return s, b, nil
}

// choose returns the number of components to keep of eigenvalues lambda
// and the given rank.
func (c Compression) choose(lambda []float64, rank int) int {
	if c.Components > 0 {
		return min(c.Components, rank)
	}
	return ChooseComponents(lambda, rank)
}
