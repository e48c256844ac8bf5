package dense

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRows9 checks Dots9, Mul9, Scatter3 and Widen against plain sums for
// every length from 0 to 13 (the kernels' unrolled blocks and their
// tails), on the kernels this machine runs.
func TestRows9(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	near := func(got, want, scale float64) bool { return math.Abs(got-want) <= 1e-14*(1+scale) }
	for l := 0; l <= 13; l++ {
		w := make([]float64, l)
		f := make([]float64, 9*l+5) // longer than needed
		for i := range w {
			w[i] = rng.NormFloat64()
		}
		for i := range f {
			f[i] = rng.NormFloat64()
		}
		dst := [9]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}
		Dots9(&dst, w, f)
		for c := 0; c < 9; c++ {
			want, scale := 0.0, 0.0
			for k := 0; k < l; k++ {
				want += w[k] * f[c*l+k]
				scale += math.Abs(w[k] * f[c*l+k])
			}
			if !near(dst[c], want, scale) {
				t.Errorf("Dots9 l=%d: element %d = %v, want %v", l, c, dst[c], want)
			}
		}
		for _, rows := range []int{1, 3, 6} {
			for _, add := range []bool{false, true} {
				a := make([]float64, 9*rows)
				for i := range a {
					a[i] = rng.NormFloat64()
				}
				stride := l + 3
				out := make([]float64, rows*stride)
				for i := range out {
					out[i] = float64(i)
				}
				Mul9(out, stride, a, f, l, add)
				for i := 0; i < rows; i++ {
					for k := 0; k < stride; k++ {
						want, scale := float64(i*stride+k), 0.0
						if k < l {
							if !add {
								want = 0
							}
							for c := 0; c < 9; c++ {
								want += a[9*i+c] * f[c*l+k]
								scale += math.Abs(a[9*i+c] * f[c*l+k])
							}
						}
						if got := out[i*stride+k]; !near(got, want, scale) {
							t.Errorf("Mul9 l=%d rows=%d add=%v: [%d][%d] = %v, want %v", l, rows, add, i, k, got, want)
						}
					}
				}
			}
		}
		narrow := make([]float32, l)
		for i := range narrow {
			narrow[i] = float32(f[i])
		}
		wide := make([]float64, l+1)
		wide[l] = 7
		Widen(wide, narrow)
		for i, v := range narrow {
			if wide[i] != float64(v) {
				t.Errorf("Widen l=%d: [%d] = %v, want %v", l, i, wide[i], float64(v))
			}
		}
		if wide[l] != 7 {
			t.Errorf("Widen l=%d wrote past its length", l)
		}
		// Scatter3: three corners' rows of three coordinates each, apart.
		ds := l + 2
		rows := f[:6*l+1] // stride l: six rows of l numbers
		var d [3][]float64
		store := make([]float64, 3*3*ds+4)
		for i := range store {
			store[i] = float64(i % 5)
		}
		orig := slices.Clone(store)
		for q := range d {
			d[q] = store[q*3*ds+1:]
		}
		g := [6]float64{0.5, -1, 2, 1.5, 0.25, -3}
		Scatter3(&d, ds, rows, l, &g, l)
		for q := 0; q < 3; q++ {
			for r := 0; r < 3; r++ {
				for k := 0; k < ds; k++ {
					i := q*3*ds + 1 + r*ds + k
					want, scale := orig[i], 0.0
					if k < l {
						want += g[q]*rows[2*r*l+k] + g[3+q]*rows[(2*r+1)*l+k]
						scale = math.Abs(rows[2*r*l+k]) + math.Abs(rows[(2*r+1)*l+k])
					}
					if !near(store[i], want, 4*scale) {
						t.Errorf("Scatter3 l=%d: corner %d, coordinate %d, [%d] = %v, want %v", l, q, r, k, store[i], want)
					}
				}
			}
		}
	}
}

// TestGatherDots4 checks GatherDots4 against the sums written out, for
// blocks of 0 to 13 rows and 1 to 9 columns, rows gathered out of order
// from a longer matrix.
func TestGatherDots4(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const n, ldx = 40, 6
	x := make([]float64, n*ldx)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for m := 0; m <= 13; m++ {
		idx := make([]int32, m)
		for q := range idx {
			idx[q] = int32(rng.IntN(n))
		}
		for ns := 1; ns <= 9; ns++ {
			lda := m + 2
			a := make([]float64, ns*lda)
			for i := range a {
				a[i] = rng.NormFloat64()
			}
			out := make([]float64, 4*ns)
			for i := range out {
				out[i] = 7 // overwritten
			}
			GatherDots4(m, ns, a, lda, idx, x, ldx, out)
			for j := 0; j < ns; j++ {
				for c := 0; c < 4; c++ {
					want, scale := 0.0, 0.0
					for q, r := range idx {
						p := a[j*lda+q] * x[int(r)*ldx+c]
						want += p
						scale += math.Abs(p)
					}
					if got := out[4*j+c]; math.Abs(got-want) > 1e-14*(1+scale) {
						t.Errorf("m=%d ns=%d: out[%d][%d] = %v, want %v", m, ns, j, c, got, want)
					}
				}
			}
		}
	}
}

// TestSubRows checks SubRows against the sums written out, for 0 to 9
// rows, 1 to 7 columns of L and widths of 4 to 76 columns (the kernel's
// blocks of 32 and 4), rows updated out of order.
func TestSubRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, kc := range []int{3, 4, 8, 36, 64, 76} {
		ld := kc + 4
		for m := 0; m <= 9; m++ {
			for ns := 1; ns <= 7; ns++ {
				const n = 30
				d := make([]float64, n*ld)
				for i := range d {
					d[i] = rng.NormFloat64()
				}
				x := make([]float64, ns*ld)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				ldl := m + 1
				l := make([]float64, ns*ldl)
				for i := range l {
					l[i] = rng.NormFloat64()
				}
				idx := make([]int32, m)
				for q, p := range rng.Perm(n)[:m] {
					idx[q] = int32(p)
				}
				want := append([]float64(nil), d...)
				for q, r := range idx {
					for c := 0; c < kc; c++ {
						for j := 0; j < ns; j++ {
							want[int(r)*ld+c] -= l[j*ldl+q] * x[j*ld+c]
						}
					}
				}
				SubRows(m, ns, kc, l, ldl, idx, d, x, ld)
				for i := range d {
					if math.Abs(d[i]-want[i]) > 1e-13*(1+math.Abs(want[i])) {
						t.Fatalf("kc=%d m=%d ns=%d: d[%d] = %v, want %v", kc, m, ns, i, d[i], want[i])
					}
				}
			}
		}
	}
}
