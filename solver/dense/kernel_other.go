//go:build !amd64 || purego

package dense

// Without the assembly kernels, the portable Go kernels run.

const useFMA = false

func kern8x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int) {
	panic("dense: no FMA kernel on this platform")
}

func kern4x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int) {
	panic("dense: no FMA kernel on this platform")
}

func subScaledAVX(y *float64, a float64, x *float64, n int) {
	panic("dense: no AVX kernel on this platform")
}

func mul9AVX(dst *float64, stride int, rows int, a *float64, f *float64, l int, add int) {
	panic("dense: no AVX kernel on this platform")
}

func dots9AVX(dst *float64, w *float64, f *float64, l int) {
	panic("dense: no AVX kernel on this platform")
}

func scatter3AVX(d0, d1, d2 *float64, ds int, rows *float64, rs int, coef *float64, n int) {
	panic("dense: no AVX kernel on this platform")
}

func widenAVX(dst *float64, src *float32, n int) {
	panic("dense: no AVX kernel on this platform")
}

func gdots4AVX(m int, a *float64, lda int, idx *int32, x *float64, ldx int, out *float64) {
	panic("dense: no AVX kernel on this platform")
}

func gdots1AVX(m int, a *float64, idx *int32, x *float64, ldx int, out *float64) {
	panic("dense: no AVX kernel on this platform")
}

func subRowsAVX(m, ns int, l *float64, ldl int, idx *int32, d *float64, x *float64, ld int, kc int) {
	panic("dense: no AVX kernel on this platform")
}
