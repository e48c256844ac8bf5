package dense

// Nine rows of l numbers: per-triangle data laid out as nine coordinates,
// each a row over l weights (meshik's basis factors: f[c·l + k] is
// coordinate c of weight k), so that the work over the weights runs four
// lanes at a time. Unlike the other kernels these sum with fused
// multiply-adds where the processor has them, so their last bits differ
// between machines with and without AVX2.

// Dots9 sets dst[c] = Σ_k w[k]·f[c·l + k] for c < 9, l = len(w); f holds
// at least 9·l numbers.
func Dots9(dst *[9]float64, w, f []float64) {
	l := len(w)
	if l == 0 {
		*dst = [9]float64{}
		return
	}
	f = f[:9*l]
	if useFMA {
		dots9AVX(&dst[0], &w[0], &f[0], l)
		return
	}
	var s [9]float64
	for c := range s {
		row := f[c*l : (c+1)*l]
		for k, wk := range w {
			s[c] += wk * row[k]
		}
	}
	*dst = s
}

// Mul9 sets dst[i·stride + k] = Σ_c a[9i + c]·f[c·l + k] for the rows
// i < len(a)/9 and k < l: each row of dst is a combination of f's nine
// rows. With add, the combinations are added to dst instead.
func Mul9(dst []float64, stride int, a, f []float64, l int, add bool) {
	rows := len(a) / 9
	if rows == 0 || l == 0 {
		return
	}
	f = f[:9*l]
	_ = dst[(rows-1)*stride+l-1]
	if useFMA {
		ad := 0
		if add {
			ad = 1
		}
		mul9AVX(&dst[0], stride, rows, &a[0], &f[0], l, ad)
		return
	}
	for i := 0; i < rows; i++ {
		ai := (*[9]float64)(a[9*i:])
		out := dst[i*stride : i*stride+l]
		if !add {
			clear(out)
		}
		for c, v := range ai {
			row := f[c*l : (c+1)*l]
			for k := range out {
				out[k] += v * row[k]
			}
		}
	}
}

// Scatter3 adds a triangle's six rows to its three corners' rows: for
// corner q (the rows of d[q], ds apart) and coordinate r,
//
//	d[q][r·ds + k] += g[q]·rows[2r·rs + k] + g[3 + q]·rows[(2r + 1)·rs + k]
//
// for k < n: Ǧᵀ applied to the rows of one triangle, whose gradient
// operator has the coefficients g (g[3a + q] for plane direction a and
// corner q). The corners' rows must not overlap unless they are the same.
func Scatter3(d *[3][]float64, ds int, rows []float64, rs int, g *[6]float64, n int) {
	if n == 0 {
		return
	}
	for q := range d {
		_ = d[q][2*ds+n-1]
	}
	_ = rows[5*rs+n-1]
	if useFMA {
		scatter3AVX(&d[0][0], &d[1][0], &d[2][0], ds, &rows[0], rs, &g[0], n)
		return
	}
	for q := range d {
		c0, c1 := g[q], g[3+q]
		for r := 0; r < 3; r++ {
			dst := d[q][r*ds : r*ds+n]
			a0, a1 := rows[2*r*rs:2*r*rs+n], rows[(2*r+1)*rs:(2*r+1)*rs+n]
			for k := range dst {
				dst[k] += c0*a0[k] + c1*a1[k]
			}
		}
	}
}

// Widen sets dst[i] = float64(src[i]) for i < len(src) (dst at least as
// long): data kept in single precision to halve the memory a pass
// streams, widened a block at a time into storage that stays in cache.
func Widen(dst []float64, src []float32) {
	n := len(src)
	if n == 0 {
		return
	}
	dst = dst[:n]
	if useFMA {
		widenAVX(&dst[0], &src[0], n)
		return
	}
	for i, v := range src {
		dst[i] = float64(v)
	}
}
