package ssdr

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"gallop/internal/parallel"
	"gallop/solver/sparse"
)

// weightEps is the smallest smoothed weight that makes a bone a candidate
// (Dem Bones' weightEps).
const weightEps = 1e-15

// smoother applies one implicit Laplacian smoothing step to the weights:
// w̃ = (I + s·D⁻¹L)⁻¹·w, with L = D − W the graph Laplacian of the rest
// mesh whose edge (i, k) weighs 1/(ρᵢₖ + ε), ρᵢₖ the RMS over the frames
// of the change of the edge's length from the rest pose and ε = 10⁻¹⁵
// times the summed edge lengths (Dem Bones' computeSmoothSolver). It
// solves the symmetric positive definite form ((1+s)D − s·W)·w̃ = D·w; an
// isolated vertex keeps its weights.
type smoother struct {
	fac  *sparse.Factor
	diag []float64 // D (1 for an isolated vertex)
}

func newSmoother(s *solver) (*smoother, error) {
	n, step := s.n, s.opts.SmoothStep
	total := 0.0
	for i := range n {
		for _, k := range s.adj.Neighbours(i) {
			total += s.rest[i].Sub(s.rest[k]).Len()
		}
	}
	eps := total * weightEps
	// Edge weights, row by row (each edge computed from both ends, the
	// same value).
	val := make([]float64, len(s.adj.Nbr))
	parallel.Chunks(n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			vi := s.vt[i*s.t : (i+1)*s.t]
			for q := s.adj.Start[i]; q < s.adj.Start[i+1]; q++ {
				k := int(s.adj.Nbr[q])
				vk := s.vt[k*s.t : (k+1)*s.t]
				rest := s.rest[i].Sub(s.rest[k]).Len()
				e := 0.0
				for f := range vi {
					e += sq(vi[f].Sub(vk[f]).Len() - rest)
				}
				val[q] = 1 / (math.Sqrt(e/float64(s.t)) + eps)
			}
		}
	})
	sm := &smoother{diag: make([]float64, n)}
	tr := sparse.NewTriplet(n, n, len(val)+n)
	for i := range n {
		d := 0.0
		for q := s.adj.Start[i]; q < s.adj.Start[i+1]; q++ {
			d += val[q]
			if k := int(s.adj.Nbr[q]); k > i {
				tr.Add(k, i, -step*val[q])
			}
		}
		if d == 0 {
			sm.diag[i] = 1
			tr.Add(i, i, 1)
			continue
		}
		sm.diag[i] = d
		tr.Add(i, i, (1+step)*d)
	}
	a := tr.CSC()
	sym, err := sparse.Analyze(a, nil)
	if err != nil {
		return nil, err
	}
	sm.fac, err = sym.Factor(a)
	if err != nil {
		return nil, fmt.Errorf("ssdr: weight smoothing matrix: %w", err)
	}
	return sm, nil
}

// apply sets dst (N×B, row-major) to the smoothed weights of s's iterate,
// clamped at 0 and normalised per vertex (uniform where they sum below
// 0.1), as Dem Bones' compute_ws does.
func (sm *smoother) apply(s *solver, dst []float64) {
	n, b := s.n, s.b
	clear(dst)
	for i := range n {
		for q := range s.k {
			if j := s.wb[i*s.k+q]; j >= 0 {
				dst[i*b+int(j)] = sm.diag[i] * s.ww[i*s.k+q]
			}
		}
	}
	m := mat.NewDense(n, b, dst)
	sm.fac.Solve(m, m)
	parallel.Chunks(n, 0, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := dst[i*b : (i+1)*b]
			sum := 0.0
			for j, x := range row {
				x = max(x, 0)
				row[j] = x
				sum += x
			}
			if sum < 0.1 {
				for j := range row {
					row[j] = 1 / float64(b)
				}
				continue
			}
			for j := range row {
				row[j] /= sum
			}
		}
	})
}

// weightStep updates the weights with the transforms fixed; its buffers
// are reused from round to round.
type weightStep struct {
	mtm    []cov4    // mtm[j*B+k] = Σₜ [Rⱼ|Tⱼ]ᵀ[Rₖ|Tₖ]
	atb    []float64 // atb[i*B+j] = Σₜ vᵢᵗ·(Rⱼᵗpᵢ + Tⱼᵗ), NaN until needed
	smooth []float64 // w̃, N×B
}

// run does WeightIterations sweeps. Each smooths the weights into w̃,
// then gives every vertex i the solution over its candidates (the K bones
// of largest w̃ᵢⱼ above weightEps) of
//
//	min wᵀ(AᵀA/σ + μI)w − 2wᵀ(Aᵀb/σ + μw̃ᵢ)  s.t. w ≥ 0, Σw = 1,
//
// σ = N̄²·T, with (AᵀA)ⱼₖ = [pᵢ;1]ᵀ·Mⱼₖ·[pᵢ;1] and (Aᵀb)ⱼ = Σₜ vᵢᵗ·(Rⱼᵗpᵢ + Tⱼᵗ),
// started from its current weights on the candidates. The last sweep
// also sets each vertex's error, ‖Aw − b‖² = wᵀAᵀAw − 2wᵀAᵀb + Σₜ‖vᵢᵗ‖².
func (ws *weightStep) run(s *solver) {
	b, k, n := s.b, s.k, s.n
	ws.prepare(s)
	sigma := s.modelSize() * s.modelSize() * float64(s.t)
	if !(sigma > 0) {
		sigma = 1
	}
	mu := s.opts.Smooth
	ws.smooth = grow(ws.smooth, n*b)
	for sweep := range s.opts.WeightIterations {
		last := sweep == s.opts.WeightIterations-1
		s.smooth.apply(s, ws.smooth)
		parallel.Chunks(n, 0, func(lo, hi int) {
			var q simplexQP
			cand := make([]int, 0, k)
			for i := lo; i < hi; i++ {
				sw := ws.smooth[i*b : (i+1)*b]
				cand = topK(cand[:0], sw, k)
				q.reset(len(cand))
				sum := 0.0
				for a, j := range cand {
					for e := range k {
						if int(s.wb[i*k+e]) == j {
							q.x[a] = max(s.ww[i*k+e], 0)
						}
					}
					sum += q.x[a]
				}
				for a := range cand {
					if sum > 0.1 {
						q.x[a] /= sum
					} else {
						q.x[a] = 1 / float64(len(cand))
					}
				}
				p := s.rest[i]
				pp := [4]float64{p[0], p[1], p[2], 1}
				for a, ja := range cand {
					for c := a; c < len(cand); c++ {
						m := &ws.mtm[ja*b+cand[c]]
						v := 0.0
						for r := range 4 {
							v += pp[r] * (m[4*r]*pp[0] + m[4*r+1]*pp[1] + m[4*r+2]*pp[2] + m[4*r+3])
						}
						v /= sigma
						if a == c {
							v += mu
						}
						q.a[a*q.n+c], q.a[c*q.n+a] = v, v
					}
					q.b[a] = ws.aTb(s, i, ja)/sigma + mu*sw[ja]
				}
				q.solve()
				if last {
					// The vertex's error ‖Aw − b‖² from the sums just used.
					e := s.vv[i]
					for a := range cand {
						xa := q.x[a]
						e -= 2 * sigma * xa * (q.b[a] - mu*sw[cand[a]])
						for c := range cand {
							aac := q.a[a*q.n+c]
							if a == c {
								aac -= mu
							}
							e += sigma * xa * aac * q.x[c]
						}
					}
					s.vertErr[i] = max(e, 0)
				}
				for e := range k {
					s.wb[i*k+e], s.ww[i*k+e] = -1, 0
				}
				e := 0
				for a, j := range cand {
					if q.x[a] > 0 {
						s.wb[i*k+e], s.ww[i*k+e] = int32(j), q.x[a]
						e++
					}
				}
			}
		})
	}
}

// prepare computes the sums Mⱼₖ and resets the Aᵀb cache.
func (ws *weightStep) prepare(s *solver) {
	b := s.b
	ws.mtm = grow(ws.mtm, b*b)
	parallel.For(b*(b+1)/2, func(pair int) {
		// Unrank pair into j ≤ k.
		j := 0
		for pair >= b-j {
			pair -= b - j
			j++
		}
		k := j + pair
		m := &ws.mtm[j*b+k]
		xj, xk := s.m[j*s.t:(j+1)*s.t], s.m[k*s.t:(k+1)*s.t]
		for f := range xj {
			x, y := &xj[f], &xk[f]
			for r := range 3 {
				cx := [4]float64{x.R[r], x.R[3+r], x.R[6+r], x.T[r]}
				cy := [4]float64{y.R[r], y.R[3+r], y.R[6+r], y.T[r]}
				for a := range 4 {
					for c := range 4 {
						m[4*a+c] += cx[a] * cy[c]
					}
				}
			}
		}
		if j != k {
			t := &ws.mtm[k*b+j]
			for a := range 4 {
				for c := range 4 {
					t[4*c+a] = m[4*a+c]
				}
			}
		}
	})
	if cap(ws.atb) < s.n*b {
		ws.atb = make([]float64, s.n*b)
	}
	ws.atb = ws.atb[:s.n*b]
	for i := range ws.atb {
		ws.atb[i] = math.NaN()
	}
}

// aTb returns Σₜ vᵢᵗ·(Rⱼᵗpᵢ + Tⱼᵗ), computed on first use in the round.
func (ws *weightStep) aTb(s *solver, i, j int) float64 {
	c := &ws.atb[i*s.b+j]
	if !math.IsNaN(*c) {
		return *c
	}
	// Σₜ vᵗ·(Rᵗp + Tᵗ) = Σₐ pₐ·Σₜ vᵗ·Rᵗeₐ + Σₜ vᵗ·Tᵗ: 12 products per frame.
	v := s.vt[i*s.t : (i+1)*s.t]
	x := s.m[j*s.t : (j+1)*s.t]
	x = x[:len(v)] // one bounds check for the loop
	var c0, c1, c2, c3 float64
	for f := range v {
		y, m := &v[f], &x[f]
		c0 += y[0]*m.R[0] + y[1]*m.R[1] + y[2]*m.R[2]
		c1 += y[0]*m.R[3] + y[1]*m.R[4] + y[2]*m.R[5]
		c2 += y[0]*m.R[6] + y[1]*m.R[7] + y[2]*m.R[8]
		c3 += y[0]*m.T[0] + y[1]*m.T[1] + y[2]*m.T[2]
	}
	p := s.rest[i]
	*c = c0*p[0] + c1*p[1] + c2*p[2] + c3
	return *c
}

// modelSize returns N̄, the RMS distance of the rest vertices to their
// centroid.
func (s *solver) modelSize() float64 {
	var c [3]float64
	for _, p := range s.rest {
		for a := range 3 {
			c[a] += p[a]
		}
	}
	e := 0.0
	for _, p := range s.rest {
		for a := range 3 {
			e += sq(p[a] - c[a]/float64(s.n))
		}
	}
	return math.Sqrt(e / float64(s.n))
}

// topK appends to dst the indices of the (up to) k largest values of w
// above weightEps, largest first, ties by index.
func topK(dst []int, w []float64, k int) []int {
	for j, x := range w {
		if !(x >= weightEps) {
			continue
		}
		if len(dst) == k && x <= w[dst[k-1]] {
			continue
		}
		if len(dst) < k {
			dst = append(dst, j)
		} else {
			dst[k-1] = j
		}
		for a := len(dst) - 1; a > 0 && w[dst[a]] > w[dst[a-1]]; a-- {
			dst[a], dst[a-1] = dst[a-1], dst[a]
		}
	}
	return dst
}
