package ensemble

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestPhiSeparableMinimum: Φ_k(τ) is D_k(a+τ, b+τ); Minimum's τ* takes
// each Φ_k's least value, Φ(τ*) = Σ_k Φ_k(τ*_k) is below Φ at random
// offsets and at every single-coordinate change of τ*; |τ| > τ_max is
// infeasible.
func TestPhiSeparableMinimum(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	a, b := State{0, 38}, State{1, 52}
	p := m.Program(a, b)
	T := p.TauMax()
	for k := range p.Groups() {
		for _, tau := range []int{-T, -7, 0, 3, T} {
			want := m.D(k, State{a.Level, a.Frame + tau}, State{b.Level, b.Frame + tau})
			if got := p.Phi(k, tau); got != want {
				t.Fatalf("Φ_%d(%d) = %g, D = %g", k, tau, got, want)
			}
		}
		if !math.IsInf(p.Phi(k, T+1), 1) || !math.IsInf(p.Phi(k, -T-1), 1) {
			t.Fatalf("Φ_%d beyond τ_max is finite", k)
		}
	}
	phi := func(tau []int) float64 {
		s := 0.0
		for k, v := range tau {
			s += p.Phi(k, v)
		}
		return s
	}
	best, min := p.Minimum(nil)
	if got := phi(best); got != min {
		t.Fatalf("Minimum says Φ = %g, Σ Φ_k(τ*_k) = %g", min, got)
	}
	for k := range best {
		for tau := -T; tau <= T; tau++ {
			if p.Phi(k, tau) < p.Phi(k, best[k]) {
				t.Fatalf("Φ_%d(%d) = %g below Φ_%d(τ* = %d) = %g", k, tau, p.Phi(k, tau), k, best[k], p.Phi(k, best[k]))
			}
			other := slices.Clone(best)
			other[k] = tau
			if phi(other) < min {
				t.Fatalf("changing τ_%d to %d lowers Φ", k, tau)
			}
		}
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		if v := phi(randomTau(rng, p.Groups(), T)); v < min {
			t.Fatalf("random τ has Φ %g below the minimum %g", v, min)
		}
	}
	if zero := m.Distance(a, b); zero != phi(make([]int, p.Groups())) || zero < min {
		t.Errorf("Φ(0) = %g, Σ D_k(a, b) = %g, minimum %g", phi(make([]int, p.Groups())), zero, min)
	}
}

// TestDSymmetricZero: D_k(i, i) = 0 and D_k(i, j) = D_k(j, i) ≥ 0.
func TestDSymmetricZero(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{})
	i, j := State{0, 17}, State{1, 71}
	for k := range m.Groups() {
		if d := m.D(k, i, i); d != 0 {
			t.Errorf("D_%d(i, i) = %g", k, d)
		}
		if a, b := m.D(k, i, j), m.D(k, j, i); math.Abs(a-b) > 1e-12*a || !(a > 0) {
			t.Errorf("D_%d(i, j) = %g, D_%d(j, i) = %g", k, a, k, b)
		}
	}
}

// TestRootBlend checks a blending root group against an independent
// computation from the exported model: its frame blended by quaternion
// slerp about the rest centroid, its coordinates mixed linearly.
func TestRootBlend(t *testing.T) {
	d := synthetic(2, motion{})
	m := model(t, d, Options{})
	a, b := State{0, 40}, State{1, 50}
	tau := make([]int, m.Groups())
	tau[4] = 3 // the post
	s := 5     // weight 0.7
	w := m.Weight(s, tau[4], m.opts.TauBlend)
	x := m.NewPoser().Transition(nil, a, b, tau, nil, s)

	g := d.Groups[4]
	sa, sb := State{a.Level, a.Frame + s}, State{b.Level, b.Frame + s}
	fa, fb := m.LocalFrame(4, sa), m.LocalFrame(4, sb)
	var c mgl64.Vec3
	for _, p := range d.Rest[g.First : g.First+g.Count] {
		c = c.Add(p.Mul(1 / float64(g.Count)))
	}
	qa, qb := mgl64.Mat4ToQuat(fa.R.Mat4()), mgl64.Mat4ToQuat(fb.R.Mat4())
	r := mgl64.QuatSlerp(qa, qb, w).Mat4().Mat3()
	o := fa.R.Mul3x1(c).Add(fa.T).Mul(1 - w).Add(fb.R.Mul3x1(c).Add(fb.T).Mul(w))
	U := m.Basis(4)
	for v := range g.Count {
		u := d.Rest[g.First+v]
		for j := range U {
			q := (1-w)*m.Q(4, sa)[j] + w*m.Q(4, sb)[j]
			u = u.Add(U[j][v].Mul(q))
		}
		want := r.Mul3x1(u.Sub(c)).Add(o)
		if e := want.Sub(x[g.First+v]).Len(); e > 1e-12 {
			t.Fatalf("vertex %d at %v, want %v", v, x[g.First+v], want)
		}
	}
}
