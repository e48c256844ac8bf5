package dense

// Rows of nine numbers: a 3×3 matrix or a factor of nine per row, the
// layout of packages whose per-triangle data is one such row per weight
// (meshik's basis factors). Unlike the other kernels these sum with fused
// multiply-adds where the processor has them, so their last bits differ
// between machines with and without AVX2.

// Combine9 sets dst to Σ_k w[k]·f[9k : 9k+9] over k < len(w); f holds at
// least 9·len(w) numbers.
func Combine9(dst *[9]float64, w, f []float64) {
	n := len(w)
	if n == 0 {
		*dst = [9]float64{}
		return
	}
	f = f[:9*n]
	if useFMA {
		combine9AVX(&dst[0], &w[0], &f[0], n)
		return
	}
	var s [9]float64
	for k, wk := range w {
		r := (*[9]float64)(f[9*k:])
		for e := range s {
			s[e] += wk * r[e]
		}
	}
	*dst = s
}

// AddDots9 adds f[9k : 9k+9]·p to g[k] for every k < len(g); f holds at
// least 9·len(g) numbers.
func AddDots9(g, f []float64, p *[9]float64) {
	n := len(g)
	f = f[:9*n]
	k := 0
	if useFMA && n >= 4 {
		k = n &^ 3
		addDots9AVX(&g[0], &f[0], &p[0], k)
	}
	for ; k < n; k++ {
		r := (*[9]float64)(f[9*k:])
		g[k] += ((r[0]*p[0] + r[1]*p[1]) + (r[2]*p[2] + r[3]*p[3])) +
			((r[4]*p[4] + r[5]*p[5]) + (r[6]*p[6] + r[7]*p[7])) + r[8]*p[8]
	}
}
