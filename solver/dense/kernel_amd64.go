//go:build !purego

package dense

// AVX2 and FMA micro-kernels (kernel_amd64.s), used when the CPU and the
// operating system support them.

//go:noescape
func kern8x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int)

//go:noescape
func kern4x4fma(k int, a *float64, lda int, b *float64, ldb int, c *float64, ldc int, cin *float64, ldcin int)

//go:noescape
func subScaledAVX(y *float64, a float64, x *float64, n int)

//go:noescape
func mul9AVX(dst *float64, stride int, rows int, a *float64, f *float64, l int, add int)

//go:noescape
func dots9AVX(dst *float64, w *float64, f *float64, l int)

//go:noescape
func widenAVX(dst *float64, src *float32, n int)

//go:noescape
func scatter3AVX(d0, d1, d2 *float64, ds int, rows *float64, rs int, coef *float64, n int)

func cpuid(eax, ecx uint32) (a, b, c, d uint32)

func xgetbv() (eax uint32)

// useFMA reports whether the AVX2/FMA kernels run on this machine: CPUID
// reports AVX, FMA, OSXSAVE and AVX2, and the OS saves the YMM state.
var useFMA = func() bool {
	maxID, _, _, _ := cpuid(0, 0)
	if maxID < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if c1&fma == 0 || c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xgetbv()&6 != 6 { // XMM and YMM state enabled
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0 // AVX2
}()

//go:noescape
func gdots4AVX(m int, a *float64, lda int, idx *int32, x *float64, ldx int, out *float64)

//go:noescape
func gdots1AVX(m int, a *float64, idx *int32, x *float64, ldx int, out *float64)

//go:noescape
func subRowsAVX(m, ns int, l *float64, ldl int, idx *int32, d *float64, x *float64, ld int, kc int)
