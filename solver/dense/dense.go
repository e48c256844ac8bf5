// Package dense holds dense matrix kernels on column-major blocks:
// element (i, j) of a matrix with leading dimension ld is at [j*ld+i].
// They are written for the small and medium blocks of supernodes (a few to
// a few hundred columns; package sparse) and for the Gram sums of solvers
// that stack many small blocks (package meshik); the inner products are
// register-blocked, 8×4 and 4×4 tiles with AVX2 fused multiply-adds where
// the processor has them, which measured faster here than gonum's
// row-major blas64 kernels on these sizes (see BenchmarkKernels).
//
// Every kernel sums in a fixed order that does not depend on how work is
// split between cores, so results are bitwise reproducible.
package dense

import (
	"math"

	"gallop/internal/parallel"
	"gallop/internal/scratch"
)

// GemmNT computes C = Cin − A·Bᵀ for the m×n block C, with A m×k and B n×k.
// C and Cin may be the same storage (ldc = ldcin).
func GemmNT(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, cin []float64, ldcin int) {
	if m == 0 || n == 0 {
		return
	}
	if useFMA && k > 0 {
		gemmNTfma(m, n, k, a, lda, b, ldb, c, ldc, cin, ldcin)
		return
	}
	j := 0
	for ; j+4 <= n; j += 4 {
		i := 0
		for ; i+4 <= m; i += 4 {
			kern4x4(k, a[i:], lda, b[j:], ldb, c[j*ldc+i:], ldc, cin[j*ldcin+i:], ldcin)
		}
		for ; i < m; i++ {
			kern1x4(k, a[i:], lda, b[j:], ldb, c[j*ldc+i:], ldc, cin[j*ldcin+i:], ldcin)
		}
	}
	for ; j < n; j++ {
		i := 0
		for ; i+4 <= m; i += 4 {
			kern4x1(k, a[i:], lda, b[j:], ldb, c[j*ldc+i:], cin[j*ldcin+i:])
		}
		for ; i < m; i++ {
			var s float64
			for p := 0; p < k; p++ {
				s += a[p*lda+i] * b[p*ldb+j]
			}
			c[j*ldc+i] = cin[j*ldcin+i] - s
		}
	}
}

// gemmNTfma is GemmNT with the AVX2/FMA kernels on 8×4 and 4×4 tiles;
// the ragged edges (m or n not a multiple of 4) go through the 4×4 kernel
// too, on copies of A's last rows and B's last columns padded with zeros
// (element by element they cost several times as much, and the sparse
// solves' row-major updates, whose n is a supernode's row count and m a
// share of the right-hand sides, have such edges every time). Every
// element is cin − Σ_p a·b accumulated with one rounding per term in
// increasing p, whatever tile computes it: results do not depend on how
// a caller splits a matrix into blocks.
func gemmNTfma(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, cin []float64, ldcin int) {
	// One bounds check for all that the assembly reads and writes.
	_ = a[(k-1)*lda+m-1]
	_ = b[(k-1)*ldb+n-1]
	_ = c[(n-1)*ldc+m-1]
	_ = cin[(n-1)*ldcin+m-1]
	m4, n4 := m&^3, n&^3
	var ap, bp []float64
	if m4 < m {
		buf := padPool.Get(4 * k)
		defer padPool.Put(buf)
		ap = padEdge(*buf, a, lda, m4, m, k)
	}
	if n4 < n {
		buf := padPool.Get(4 * k)
		defer padPool.Put(buf)
		bp = padEdge(*buf, b, ldb, n4, n, k)
	}
	for j := 0; j < n4; j += 4 {
		i := 0
		for ; i+8 <= m; i += 8 {
			kern8x4fma(k, &a[i], lda, &b[j], ldb, &c[j*ldc+i], ldc, &cin[j*ldcin+i], ldcin)
		}
		if i < m4 {
			kern4x4fma(k, &a[i], lda, &b[j], ldb, &c[j*ldc+i], ldc, &cin[j*ldcin+i], ldcin)
			i += 4
		}
		if i < m {
			edgeTile(k, ap, 4, b[j:], ldb, c[j*ldc+i:], ldc, cin[j*ldcin+i:], ldcin, m-i, 4)
		}
	}
	if n4 < n {
		for i := 0; i < m4; i += 4 {
			edgeTile(k, a[i:], lda, bp, 4, c[n4*ldc+i:], ldc, cin[n4*ldcin+i:], ldcin, 4, n-n4)
		}
		if m4 < m {
			edgeTile(k, ap, 4, bp, 4, c[n4*ldc+m4:], ldc, cin[n4*ldcin+m4:], ldcin, m-m4, n-n4)
		}
	}
}

// padEdge copies rows lo..hi (fewer than 4) of the k columns of x
// (leading dimension ldx) into dst as a 4×k block, zeros below them.
func padEdge(dst, x []float64, ldx, lo, hi, k int) []float64 {
	dst = dst[:4*k]
	for p := 0; p < k; p++ {
		copy(dst[4*p:4*p+hi-lo], x[p*ldx+lo:p*ldx+hi])
		clear(dst[4*p+hi-lo : 4*p+4])
	}
	return dst
}

// edgeTile computes the mr×nr block (mr, nr ≤ 4) C = Cin − A·Bᵀ by the
// 4×4 kernel, through a 4×4 copy of C; a and b hold at least 4 rows (the
// padded copies where mr or nr is short).
func edgeTile(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, cin []float64, ldcin int, mr, nr int) {
	var t [16]float64
	for jj := 0; jj < nr; jj++ {
		copy(t[4*jj:4*jj+mr], cin[jj*ldcin:jj*ldcin+mr])
	}
	kern4x4fma(k, &a[0], lda, &b[0], ldb, &t[0], 4, &t[0], 4)
	for jj := 0; jj < nr; jj++ {
		copy(c[jj*ldc:jj*ldc+mr], t[4*jj:4*jj+mr])
	}
}

// padPool holds gemmNTfma's padded copies of its edges.
var padPool scratch.Floats

// SyrkLN computes the lower triangle of C = Cin − A·Aᵀ for the n×n block C,
// A n×k. Entries strictly above the diagonal within the 4×4 tiles that
// straddle it may be written too (callers never read them).
func SyrkLN(n, k int, a []float64, lda int, c []float64, ldc int, cin []float64, ldcin int) {
	if n <= 6 {
		// Small blocks (the many leaves of mesh matrices, the Gram sums
		// of a few columns over many rows): every element's sum kept in
		// its own accumulator, all updated per p, so that the sums do
		// not wait on one another; each is summed in increasing p as the
		// tiled kernels sum.
		var acc [21]float64
		for p := 0; p < k; p++ {
			col := a[p*lda : p*lda+n]
			e := 0
			for j := 0; j < n; j++ {
				aj := col[j]
				for i := j; i < n; i++ {
					if useFMA {
						acc[e] = math.FMA(col[i], aj, acc[e])
					} else {
						acc[e] += col[i] * aj
					}
					e++
				}
			}
		}
		e := 0
		for j := 0; j < n; j++ {
			for i := j; i < n; i++ {
				c[j*ldc+i] = cin[j*ldcin+i] - acc[e]
				e++
			}
		}
		return
	}
	for j := 0; j < n; j += 4 {
		nb := min(4, n-j)
		// Rows j.. of columns j..j+nb: the diagonal tile and below.
		GemmNT(n-j, nb, k, a[j:], lda, a[j:], lda, c[j*ldc+j:], ldc, cin[j*ldcin+j:], ldcin)
	}
}

// SyrkLNPar is SyrkLN with the columns split into blocks run in parallel;
// each block is computed exactly as SyrkLN would, so the result is the
// same bit for bit.
func SyrkLNPar(n, k int, a []float64, lda int, c []float64, ldc int, cin []float64, ldcin int) {
	if n < 96 || float64(n)*float64(n)*float64(k) < 4e5 || parallel.Workers() == 1 {
		SyrkLN(n, k, a, lda, c, ldc, cin, ldcin)
		return
	}
	// Blocks of 4-aligned columns with about equal areas of the lower
	// triangle.
	nblk := 8 * parallel.Workers()
	bounds := triBounds(n, nblk)
	parallel.For(len(bounds)-1, func(t int) {
		j0, j1 := bounds[t], bounds[t+1]
		for j := j0; j < j1; j += 4 {
			nb := min(4, n-j)
			GemmNT(n-j, nb, k, a[j:], lda, a[j:], lda, c[j*ldc+j:], ldc, cin[j*ldcin+j:], ldcin)
		}
	})
}

// triBounds splits the columns of an n×n lower triangle into about nblk
// ranges of similar area, with boundaries at multiples of 4.
func triBounds(n, nblk int) []int {
	total := float64(n) * float64(n+1) / 2
	bounds := []int{0}
	acc := 0.0
	for j := 0; j < n; j += 4 {
		acc += float64(min(4, n-j)) * float64(n-j)
		if acc >= total*float64(len(bounds))/float64(nblk) && j+4 < n {
			bounds = append(bounds, j+4)
		}
	}
	return append(bounds, n)
}

// kern4x4 computes the 4×4 tile C = Cin − A[0:4,:]·B[0:4,:]ᵀ.
func kern4x4(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, cin []float64, ldcin int) {
	var c00, c10, c20, c30, c01, c11, c21, c31, c02, c12, c22, c32, c03, c13, c23, c33 float64
	for p := 0; p < k; p++ {
		ap := a[p*lda : p*lda+4 : p*lda+4]
		bp := b[p*ldb : p*ldb+4 : p*ldb+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0 := bp[0]
		c00 += a0 * b0
		c10 += a1 * b0
		c20 += a2 * b0
		c30 += a3 * b0
		b1 := bp[1]
		c01 += a0 * b1
		c11 += a1 * b1
		c21 += a2 * b1
		c31 += a3 * b1
		b2 := bp[2]
		c02 += a0 * b2
		c12 += a1 * b2
		c22 += a2 * b2
		c32 += a3 * b2
		b3 := bp[3]
		c03 += a0 * b3
		c13 += a1 * b3
		c23 += a2 * b3
		c33 += a3 * b3
	}
	o := c[0:4:4]
	in := cin[0:4:4]
	o[0], o[1], o[2], o[3] = in[0]-c00, in[1]-c10, in[2]-c20, in[3]-c30
	o = c[ldc : ldc+4 : ldc+4]
	in = cin[ldcin : ldcin+4 : ldcin+4]
	o[0], o[1], o[2], o[3] = in[0]-c01, in[1]-c11, in[2]-c21, in[3]-c31
	o = c[2*ldc : 2*ldc+4 : 2*ldc+4]
	in = cin[2*ldcin : 2*ldcin+4 : 2*ldcin+4]
	o[0], o[1], o[2], o[3] = in[0]-c02, in[1]-c12, in[2]-c22, in[3]-c32
	o = c[3*ldc : 3*ldc+4 : 3*ldc+4]
	in = cin[3*ldcin : 3*ldcin+4 : 3*ldcin+4]
	o[0], o[1], o[2], o[3] = in[0]-c03, in[1]-c13, in[2]-c23, in[3]-c33
}

// kern1x4 computes the 1×4 tile C = Cin − A[0,:]·B[0:4,:]ᵀ.
func kern1x4(k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, cin []float64, ldcin int) {
	var c0, c1, c2, c3 float64
	for p := 0; p < k; p++ {
		bp := b[p*ldb : p*ldb+4 : p*ldb+4]
		ap := a[p*lda]
		c0 += ap * bp[0]
		c1 += ap * bp[1]
		c2 += ap * bp[2]
		c3 += ap * bp[3]
	}
	c[0] = cin[0] - c0
	c[ldc] = cin[ldcin] - c1
	c[2*ldc] = cin[2*ldcin] - c2
	c[3*ldc] = cin[3*ldcin] - c3
}

// kern4x1 computes the 4×1 tile C = Cin − A[0:4,:]·B[0,:]ᵀ.
func kern4x1(k int, a []float64, lda int, b []float64, ldb int, c []float64, cin []float64) {
	var c0, c1, c2, c3 float64
	for p := 0; p < k; p++ {
		ap := a[p*lda : p*lda+4 : p*lda+4]
		bp := b[p*ldb]
		c0 += ap[0] * bp
		c1 += ap[1] * bp
		c2 += ap[2] * bp
		c3 += ap[3] * bp
	}
	in := cin[0:4:4]
	o := c[0:4:4]
	o[0], o[1], o[2], o[3] = in[0]-c0, in[1]-c1, in[2]-c2, in[3]-c3
}

// potf2 factors the n×n lower triangle of A in place (A = L·Lᵀ,
// right-looking, unblocked). It returns −1, or the column whose pivot is not
// positive (or not finite); columns before it are factored.
func potf2(n int, a []float64, lda int) int {
	for j := 0; j < n; j++ {
		cj := a[j*lda : j*lda+n]
		d := cj[j]
		if !(d > 0) || math.IsInf(d, 1) {
			return j
		}
		d = math.Sqrt(d)
		cj[j] = d
		r := 1 / d
		col := cj[j+1 : n]
		for i := range col {
			col[i] *= r
		}
		for c := j + 1; c < n; c++ {
			l := cj[c]
			if l == 0 {
				continue
			}
			dst := a[c*lda+c : c*lda+n]
			src := cj[c:n]
			for i := range dst {
				dst[i] -= l * src[i]
			}
		}
	}
	return -1
}

// Potrf factors the n×n lower triangle of A in place, blocked left-looking
// with the gemm kernel; par splits the block updates across cores. It
// returns −1, or the first column whose pivot is not positive.
func Potrf(n int, a []float64, lda int, par bool) int {
	const nb = 32
	if n <= nb {
		return potf2(n, a, lda)
	}
	for j0 := 0; j0 < n; j0 += nb {
		j1 := min(n, j0+nb)
		w := j1 - j0
		if j0 > 0 {
			// A[j0:n, j0:j1] −= A[j0:n, 0:j0]·A[j0:j1, 0:j0]ᵀ
			rowsUpdate(n-j0, w, j0, a[j0:], lda, a[j0:], lda, a[j0*lda+j0:], lda, par)
		}
		if info := potf2(w, a[j0*lda+j0:], lda); info >= 0 {
			return j0 + info
		}
		if j1 < n {
			TrsmRLT(n-j1, w, a[j0*lda+j0:], lda, a[j0*lda+j1:], lda, par)
		}
	}
	return -1
}

// rowsUpdate computes C −= A·Bᵀ (C m×n, A m×k, B n×k) with the rows split
// into parallel blocks when par and the block is large.
func rowsUpdate(m, n, k int, a []float64, lda int, b []float64, ldb int, c []float64, ldc int, par bool) {
	if !par || float64(m)*float64(n)*float64(k) < 2e5 || m < 64 || parallel.Workers() == 1 {
		GemmNT(m, n, k, a, lda, b, ldb, c, ldc, c, ldc)
		return
	}
	nblk := 4 * parallel.Workers()
	step := max(8, (m/nblk+7)&^7) // tiles are 8 rows: splits keep them
	parallel.Chunks(m, step, func(lo, hi int) {
		GemmNT(hi-lo, n, k, a[lo:], lda, b, ldb, c[lo:], ldc, c[lo:], ldc)
	})
}

// TrsmRLT solves X·Lᵀ = B in place (B := B·L⁻ᵀ) for the m×n block B, L
// n×n lower triangular. Rows are independent; with par, blocks of rows run
// in parallel.
func TrsmRLT(m, n int, l []float64, ldl int, b []float64, ldb int, par bool) {
	if m == 0 || n == 0 {
		return
	}
	if n == 1 {
		r := 1 / l[0]
		for i := range b[:m] {
			b[i] *= r
		}
		return
	}
	if par && m >= 128 && float64(m)*float64(n)*float64(n) > 2e5 && parallel.Workers() > 1 {
		nblk := 4 * parallel.Workers()
		step := max(32, (m/nblk+7)&^7)
		parallel.Chunks(m, step, func(lo, hi int) {
			TrsmRLT(hi-lo, n, l, ldl, b[lo:], ldb, false)
		})
		return
	}
	const nb = 16
	for j0 := 0; j0 < n; j0 += nb {
		j1 := min(n, j0+nb)
		if j0 > 0 {
			// B[:, j0:j1] −= B[:, 0:j0]·L[j0:j1, 0:j0]ᵀ
			GemmNT(m, j1-j0, j0, b, ldb, l[j0:], ldl, b[j0*ldb:], ldb, b[j0*ldb:], ldb)
		}
		// Unblocked on the panel, right-looking over its columns.
		for j := j0; j < j1; j++ {
			cj := b[j*ldb : j*ldb+m]
			r := 1 / l[j*ldl+j]
			for i := range cj {
				cj[i] *= r
			}
			for c := j + 1; c < j1; c++ {
				v := l[j*ldl+c]
				if v == 0 {
					continue
				}
				dst := b[c*ldb : c*ldb+m]
				for i := range dst {
					dst[i] -= v * cj[i]
				}
			}
		}
	}
}

// SubScaled computes y[i] −= a·x[i] for i < len(y) (x at least as long),
// the product rounded before the subtraction, never fused, so that the
// result is the same bit for bit on every platform and with or without
// the AVX2 kernel that computes it where the processor has one.
func SubScaled(y []float64, a float64, x []float64) {
	if len(y) == 0 {
		return
	}
	x = x[:len(y)]
	if useFMA { // AVX2 is there too
		subScaledAVX(&y[0], a, &x[0], len(y))
		return
	}
	for i, v := range x {
		y[i] -= float64(a * v)
	}
}

// GatherDots4 computes Aᵀ·X for the m×ns column-major block A (a,
// leading dimension lda) and the m×4 matrix X whose row q is
// x[idx[q]·ldx:][:4]:
//
//	out[4j + c] = Σ_q A[q, j]·X[q, c],  j < ns, c < 4,
//
// the update of a supernode's rows by the rows below it in a backward
// solve with four right-hand sides. Each sum takes the even q and the odd
// q apart, in order, and adds the two.
func GatherDots4(m, ns int, a []float64, lda int, idx []int32, x []float64, ldx int, out []float64) {
	if ns == 0 {
		return
	}
	out = out[:4*ns]
	if m == 0 {
		clear(out)
		return
	}
	_ = a[(ns-1)*lda+m-1]
	idx = idx[:m]
	_ = x[lastRow(idx, "GatherDots4")*ldx+3]
	if useFMA {
		j := 0
		for ; j+4 <= ns; j += 4 {
			gdots4AVX(m, &a[j*lda], lda, &idx[0], &x[0], ldx, &out[4*j])
		}
		for ; j < ns; j++ {
			gdots1AVX(m, &a[j*lda], &idx[0], &x[0], ldx, &out[4*j])
		}
		return
	}
	for j := 0; j < ns; j++ {
		col := a[j*lda : j*lda+m]
		var e, o [4]float64
		for q, r := range idx {
			xr := x[int(r)*ldx : int(r)*ldx+4]
			s := &e
			if q%2 == 1 {
				s = &o
			}
			for c := range s {
				s[c] += col[q] * xr[c]
			}
		}
		for c := range 4 {
			out[4*j+c] = e[c] + o[c]
		}
	}
}

// SubRows subtracts L·X from gathered rows of D: for q < m,
//
//	D[idx[q]] −= Σ_{j<ns} L[q, j]·X[j]
//
// over kc columns, with D's rows ld apart in d, X's ns rows ld apart in
// x, and L m×ns column-major (leading dimension ldl): a supernode's update
// of the rows below it in a forward solve (X its own solved rows),
// without gathering them into a block and scattering them back. Each row
// is read and written once; its sum runs over j in order, with fused
// multiply-adds where the AVX2 kernels run. X's rows must not be among
// the rows updated.
func SubRows(m, ns, kc int, l []float64, ldl int, idx []int32, d []float64, x []float64, ld int) {
	if m == 0 || ns == 0 || kc == 0 {
		return
	}
	idx = idx[:m]
	_ = l[(ns-1)*ldl+m-1]
	_ = x[(ns-1)*ld+kc-1]
	_ = d[lastRow(idx, "SubRows")*ld+kc-1]
	if useFMA && kc%4 == 0 {
		subRowsAVX(m, ns, &l[0], ldl, &idx[0], &d[0], &x[0], ld, kc)
		return
	}
	for q, r := range idx {
		row := d[int(r)*ld : int(r)*ld+kc]
		for j := 0; j < ns; j++ {
			a := l[j*ldl+q]
			for c, v := range x[j*ld : j*ld+kc] {
				row[c] -= a * v
			}
		}
	}
}

// lastRow returns the largest of the row indices idx (at least one),
// panicking on a negative one: the gathering kernels check their rows'
// bounds with it before the assembly reads them.
func lastRow(idx []int32, kernel string) int {
	top := int32(0)
	for _, r := range idx {
		if r < 0 {
			panic("dense: " + kernel + ": a negative row index")
		}
		top = max(top, r)
	}
	return int(top)
}
