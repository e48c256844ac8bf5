package ssdr

import (
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
)

var identity3 = mgl64.Ident3()

// reduceChunks is the number of vertex ranges whose partial sums are
// added in order: fixed, so that sums do not depend on the core count.
const reduceChunks = 16

// chunkRange returns the c-th of reduceChunks consecutive ranges of [0, n).
func chunkRange(c, n int) (lo, hi int) {
	return c * n / reduceChunks, (c + 1) * n / reduceChunks
}

// transformStep updates the bones' transforms with the weights fixed; its
// buffers are reused from round to round.
type transformStep struct {
	vu    []cov4    // vu[f*B+j] = Σᵢ αᵢⱼ[vᵢᶠ;1][pᵢ;1]ᵀ
	uu    []cov4    // uu[j*B+k] = Σᵢ wᵢⱼwᵢₖ[pᵢ;1][pᵢ;1]ᵀ
	part  [][]cov4  // per-chunk partial sums of uu
	nbr   [][]int32 // nbr[j]: the bones k ≠ j sharing a vertex with j
	alpha []float64 // αᵢⱼ per weight slot

	// The bones' members (see members).
	memStart []int32
	memVert  []int32
	memG     [][4]float64
}

// run does TransformIterations sweeps. In frame f, bone j's target is the
// residual rᵢ = vᵢ − Σ_{k≠j} wᵢₖ(Rₖpᵢ + Tₖ) fitted with weight wᵢⱼ² by
// R·pᵢ + T (rᵢ/wᵢⱼ), plus vᵢ fitted with weight c·wᵢⱼ⁴ (translation
// affinity). Its sums Σ cᵢ[qᵢ;1][pᵢ;1]ᵀ are
//
//	Σᵢ αᵢⱼ[vᵢ;1][pᵢ;1]ᵀ − Σ_{k≠j} [Rₖ|Tₖ; 0 1]·Σᵢ wᵢⱼwᵢₖ[pᵢ;1][pᵢ;1]ᵀ
//
// with αᵢⱼ = wᵢⱼ + c·wᵢⱼ⁴, using Σₖ wᵢₖ = 1, and c = λ·Σᵢwᵢⱼ / Σᵢwᵢⱼ⁴
// for the translation-affinity weight λ = affine.
func (st *transformStep) run(s *solver, affine float64) {
	b := s.b
	st.prepare(s, affine)
	parallel.For(s.t, func(f int) {
		for range s.opts.TransformIterations {
			for j := range b {
				q := st.vu[f*b+j]
				for _, o := range st.nbr[j] {
					u := &st.uu[int(o)*b+j]
					x := &s.m[int(o)*s.t+f]
					for r := range 3 {
						r0, r1, r2, tr := x.R[r], x.R[3+r], x.R[6+r], x.T[r]
						for c := range 4 {
							q[4*r+c] -= r0*u[c] + r1*u[4+c] + r2*u[8+c] + tr*u[12+c]
						}
					}
					for c := range 4 {
						q[12+c] -= u[12+c]
					}
				}
				q.fit(&s.m[j*s.t+f])
			}
		}
	})
}

// prepare computes α, the sums vu and uu, and the bone neighbourhoods.
func (st *transformStep) prepare(s *solver, affine float64) {
	b, k, n := s.b, s.k, s.n
	sumW, sumW4 := make([]float64, b), make([]float64, b)
	for q, j := range s.wb {
		if j >= 0 {
			w := s.ww[q]
			sumW[j] += w
			sumW4[j] += w * w * w * w
		}
	}
	coef := make([]float64, b)
	for j := range b {
		if sumW4[j] > 0 {
			coef[j] = affine * sumW[j] / sumW4[j]
		}
	}
	st.alpha = grow(st.alpha, len(s.ww))
	for q, j := range s.wb {
		st.alpha[q] = 0
		if j >= 0 {
			w := s.ww[q]
			st.alpha[q] = w + coef[j]*w*w*w*w
		}
	}

	// uu and the frame-independent bottom rows of vu, by chunks.
	if len(st.part) != reduceChunks {
		st.part = make([][]cov4, reduceChunks)
	}
	bottoms := make([][][4]float64, reduceChunks)
	parallel.For(reduceChunks, func(c int) {
		part := grow(st.part[c], b*b)
		bot := make([][4]float64, b)
		lo, hi := chunkRange(c, n)
		for i := lo; i < hi; i++ {
			p := s.rest[i]
			pp := [4]float64{p[0], p[1], p[2], 1}
			for a := range k {
				ja := s.wb[i*k+a]
				if ja < 0 {
					continue
				}
				al := st.alpha[i*k+a]
				for c := range 4 {
					bot[ja][c] += al * pp[c]
				}
				wa := s.ww[i*k+a]
				for e := range k {
					je := s.wb[i*k+e]
					if je < ja {
						continue // the lower triangle is mirrored below
					}
					w := wa * s.ww[i*k+e]
					u := &part[int(ja)*b+int(je)]
					for r := range 4 {
						wr := w * pp[r]
						for c := range 4 {
							u[4*r+c] += wr * pp[c]
						}
					}
				}
			}
		}
		st.part[c] = part
		bottoms[c] = bot
	})
	st.uu = grow(st.uu, b*b)
	bottom := make([][4]float64, b)
	for c := range reduceChunks {
		for x := range st.uu {
			for e := range 16 {
				st.uu[x][e] += st.part[c][x][e]
			}
		}
		for j := range b {
			for e := range 4 {
				bottom[j][e] += bottoms[c][j][e]
			}
		}
	}
	if len(st.nbr) != b {
		st.nbr = make([][]int32, b)
	}
	for j := range b {
		st.nbr[j] = st.nbr[j][:0]
	}
	for j := range b {
		for o := j + 1; o < b; o++ {
			if st.uu[j*b+o][15] != 0 {
				st.uu[o*b+j] = st.uu[j*b+o]
				st.nbr[j] = append(st.nbr[j], int32(o))
				st.nbr[o] = append(st.nbr[o], int32(j))
			}
		}
	}

	// vu, frame by frame, from each bone's members in vertex order: the
	// twelve sums of a bone stay in registers.
	st.members(s)
	st.vu = grow(st.vu, s.t*b)
	parallel.For(s.t, func(f int) {
		v := s.frames[f]
		for j := range b {
			var a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23 float64
			for q := st.memStart[j]; q < st.memStart[j+1]; q++ {
				x, g := &v[st.memVert[q]], &st.memG[q]
				x0, x1, x2 := x[0], x[1], x[2]
				a00 += x0 * g[0]
				a01 += x0 * g[1]
				a02 += x0 * g[2]
				a03 += x0 * g[3]
				a10 += x1 * g[0]
				a11 += x1 * g[1]
				a12 += x1 * g[2]
				a13 += x1 * g[3]
				a20 += x2 * g[0]
				a21 += x2 * g[1]
				a22 += x2 * g[2]
				a23 += x2 * g[3]
			}
			st.vu[f*b+j] = cov4{a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23,
				bottom[j][0], bottom[j][1], bottom[j][2], bottom[j][3]}
		}
	})
}

// members lists, bone by bone in vertex order, the vertices each bone
// weighs and αᵢⱼ[pᵢ;1]: bone j's are memVert and memG over
// [memStart[j], memStart[j+1]).
func (st *transformStep) members(s *solver) {
	b, k := s.b, s.k
	st.memStart = append(st.memStart[:0], make([]int32, b+1)...)
	for _, j := range s.wb {
		if j >= 0 {
			st.memStart[j+1]++
		}
	}
	for j := range b {
		st.memStart[j+1] += st.memStart[j]
	}
	m := int(st.memStart[b])
	if cap(st.memVert) < m {
		st.memVert, st.memG = make([]int32, m), make([][4]float64, m)
	}
	st.memVert, st.memG = st.memVert[:m], st.memG[:m]
	fill := slices.Clone(st.memStart[:b])
	for i := range s.n {
		p := s.rest[i]
		for a := range k {
			j := s.wb[i*k+a]
			if j < 0 {
				continue
			}
			al := st.alpha[i*k+a]
			q := fill[j]
			fill[j]++
			st.memVert[q] = int32(i)
			st.memG[q] = [4]float64{al * p[0], al * p[1], al * p[2], al}
		}
	}
}

// grow returns s resized to n, zeroed, reusing its memory when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}
