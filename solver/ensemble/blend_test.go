package ensemble

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gallop/solver/ensemble/csp"
)

// TestValuesRoundTrip: every (τ, blend) pair has one Program value and
// back; the values' order among equal costs is the pair's preference
// (shorter blend, then smaller |τ|, then negative τ); with one blend
// length a value is its τ.
func TestValuesRoundTrip(t *testing.T) {
	for _, blends := range []int{1, 2} {
		m := model(t, synthetic(1, motion{}), Options{Blends: blends})
		T, V := m.opts.TauMax, m.valueMax()
		seen := map[int]bool{}
		prev := -1
		for r := range blends * (2*T + 1) {
			v := valueOf(r)
			if rankOf(v) != r || v < -V || v > V {
				t.Fatalf("rank %d: value %d of rank %d, V %d", r, v, rankOf(v), V)
			}
			tau, b, ok := m.decodeValue(v)
			if !ok || seen[v] {
				t.Fatalf("value %d: %d %d %v", v, tau, b, ok)
			}
			seen[v] = true
			// Preference: blend, then |τ|, then the negative.
			key := (b/m.opts.TauBlend-1)*(4*T+4) + 2*abs(tau)
			if tau > 0 {
				key++
			}
			if key <= prev {
				t.Fatalf("value %d (τ %d, blend %d) out of preference order", v, tau, b)
			}
			prev = key
			back := m.Values([]int{tau}, []int{b})
			if back[0] != v {
				t.Fatalf("τ %d blend %d: value %d, then %d", tau, b, v, back[0])
			}
			if blends == 1 && v != tau {
				t.Fatalf("one blend: value %d stands for τ %d", v, tau)
			}
		}
		if blends == 2 {
			if _, _, ok := m.decodeValue(V); ok {
				t.Fatalf("the spare value %d decodes", V)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		tau := randomTau(rng, 5, T)
		blend := []int{10, 10, 10, 10, 10}
		if blends == 2 {
			blend[2] = 20
		}
		gotTau, gotBlend := m.Offsets(m.Values(tau, blend))
		if !slices.Equal(gotTau, tau) || blends == 2 && !slices.Equal(gotBlend, blend) || blends == 1 && gotBlend != nil {
			t.Fatalf("round trip: %v %v → %v %v", tau, blend, gotTau, gotBlend)
		}
	}
}

// TestTransitionSpan: a transition is taken where its first group starts
// blending and left where its last one ends, per group's offset and
// blend length (τ_blend = 10: s0 = min τ − 4, s1 = max τ + 4; a blend of
// 20 reaches 5 frames further on each side).
func TestTransitionSpan(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{Blends: 2})
	tr := Transition{From: State{0, 50}, To: State{1, 60}, Tau: []int{-7, 3, 0, 12, 5}}
	if s0, s1 := tr.Blends(m); s0 != -11 || s1 != 16 {
		t.Fatalf("blends %d … %d, want −11 … 16", s0, s1)
	}
	if tr.Start(m) != 38 || tr.Landing(m) != (State{1, 77}) || tr.Duration(m) != 29 {
		t.Fatalf("start %d, landing %v, duration %d", tr.Start(m), tr.Landing(m), tr.Duration(m))
	}
	tr.Blend = []int{20, 10, 10, 20, 10}
	if s0, s1 := tr.Blends(m); s0 != -16 || s1 != 21 {
		t.Fatalf("long blends %d … %d, want −16 … 21", s0, s1)
	}
	// The frames outside the span are the sources' own.
	ps := m.NewPoser()
	s0, s1 := tr.Blends(m)
	for _, c := range []struct {
		s   int
		src State
	}{{s0 - 1, State{0, 50 + s0 - 1}}, {s1 + 1, State{1, 60 + s1 + 1}}} {
		x := ps.Transition(nil, tr.From, tr.To, tr.Tau, tr.Blend, c.s)
		y := m.Pose(c.src)
		for v := range x {
			if x[v].Sub(y[v]).Len() > 1e-12 {
				t.Fatalf("frame s = %d differs from source %v", c.s, c.src)
			}
		}
	}
}

// TestViolatedMatchesBad: Violated answers as Bad over every frame, on
// random values of both blend lengths, for contacts and steps, on the
// banner (cliques of three groups) and the blades.
func TestViolatedMatchesBad(t *testing.T) {
	_, bm := banner(t, bannerFrames)
	for _, m := range []*Model{bm, model(t, blades(), Options{Blends: 2})} {
		rng := rand.New(rand.NewPCG(3, 4))
		H := m.Margin()
		n := len(m.data.Levels[0].Frames)
		for range 20 {
			a := State{0, H + rng.IntN(n-2*H)}
			b := State{len(m.data.Levels) - 1, H + rng.IntN(n-2*H)}
			p := m.Program(a, b)
			V := p.TauMax()
			values := make([]int, m.Groups())
			for k := range values {
				for {
					values[k] = rng.IntN(2*V+1) - V
					if !math.IsInf(p.Phi(k, values[k]), 1) {
						break
					}
				}
			}
			for k := range m.Groups() {
				for l := k; l < m.Groups(); l++ {
					pr := csp.Pair{K: k, L: l}
					any := false
					for f := range p.Frames() {
						any = any || len(p.Bad(nil, values, f, []csp.Pair{pr})) > 0
					}
					got, f := p.Violated(pr, values, rng.IntN(p.Frames()))
					if got != any || got && len(p.Bad(nil, values, f, []csp.Pair{pr})) == 0 {
						t.Fatalf("%v→%v pair %v: Violated %v at %d, Bad over the frames %v", a, b, pr, got, f, any)
					}
				}
			}
		}
	}
}
