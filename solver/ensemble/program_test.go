package ensemble

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/collide"
	"gallop/solver/ensemble/csp"
)

// TestClique: the kinematic cliques of the synthetic hierarchy (rope 0
// with flags 1, 2 and plate 3; post 4 a second root).
func TestClique(t *testing.T) {
	m := model(t, synthetic(1, motion{}), Options{})
	for _, c := range []struct {
		k, l int
		want []int
	}{
		{1, 2, []int{0, 1, 2}}, // siblings and their parent
		{0, 1, []int{0, 1}},    // parent and child
		{3, 1, []int{0, 1, 3}},
		{1, 4, []int{0, 1, 4}}, // different trees: both root paths
		{0, 4, []int{0, 4}},    // two roots
	} {
		if got := m.Clique(c.k, c.l); !slices.Equal(got, c.want) {
			t.Errorf("ℵ(%d, %d) = %v, want %v", c.k, c.l, got, c.want)
		}
	}
}

// blades returns two vertical blades 0.1 apart (planes x = 0 and x = 0.1)
// swaying together along x, their tops by ±0.2 over a period of 4 s:
// level 0 is at the far +x side at frame 45, level 1 (half a period
// later) at the far −x side. In the sources they never touch.
func blades() *Dataset {
	d := &Dataset{FPS: 30}
	quad := [][3]int{{0, 1, 2}, {1, 3, 2}}
	for k := range 2 {
		x := 0.1 * float64(k)
		rest := []mgl64.Vec3{{x, 0, -0.05}, {x, 0, 0.05}, {x, 1, -0.05}, {x, 1, 0.05}}
		d.Groups = append(d.Groups, Group{Name: []string{"left", "right"}[k], First: len(d.Rest), Count: 4, Parent: -1, Triangles: quad})
		d.Rest = append(d.Rest, rest...)
	}
	for l := range 2 {
		lv := Level{Name: []string{"a", "b"}[l]}
		for f := range 110 {
			phase := 2*math.Pi*float64(f-45)/120 + math.Pi*float64(l)
			sway := 0.2 * math.Cos(phase)
			x := make([]mgl64.Vec3, len(d.Rest))
			for v, p := range d.Rest {
				x[v] = p.Add(mgl64.Vec3{sway * p[1], 0, 0})
			}
			lv.Frames = append(lv.Frames, x)
		}
		d.Levels = append(d.Levels, lv)
	}
	return d
}

// TestOracleBlades: blades that sway in step never meet in the sources;
// a transition that lets the left one keep swaying right while the right
// one already swings left makes them cross, and the other way round keeps
// them apart, as do equal offsets.
func TestOracleBlades(t *testing.T) {
	m := model(t, blades(), Options{})
	a, b := State{0, 45}, State{1, 45}
	if n, _, _ := m.SourceInterpenetrations(t.Context()); n != 0 {
		t.Fatalf("%d interpenetrations in the sources", n)
	}
	for _, c := range []struct {
		tau  []int
		want []csp.Pair
	}{
		{[]int{30, -30}, []csp.Pair{{K: 0, L: 1}}},
		{[]int{-30, 30}, nil},
		{[]int{0, 0}, nil},
		{[]int{12, 12}, nil},
	} {
		p := m.Program(a, b)
		got, frames := p.Interpenetrations(c.tau)
		if !slices.Equal(got, c.want) {
			t.Errorf("τ %v: new interpenetrations %v, want %v", c.tau, got, c.want)
		}
		// Bad agrees with New frame by frame.
		all := []csp.Pair{{K: 0, L: 1}}
		n := 0
		for f := range p.Frames() {
			n += len(p.Bad(nil, c.tau, f, all))
		}
		if n != frames {
			t.Errorf("τ %v: New finds the pair in %d frames, Bad in %d", c.tau, frames, n)
		}
		t.Logf("τ %v: %v in %d frames, work %d", c.tau, got, frames, p.Work())
	}
}

// TestOracleSameSource: a transition from a source to itself poses that
// source at every frame whatever τ, so it can have no new
// interpenetration, though the pairs are tested (Work > 0). On the
// banner, whose neighbouring flags touch in nearly every frame.
func TestOracleSameSource(t *testing.T) {
	_, m := banner(t, bannerFrames)
	rng := rand.New(rand.NewPCG(9, 10))
	for _, a := range []State{{0, 40}, {2, 50}} {
		p := m.Program(a, a)
		tau := randomTau(rng, m.Groups(), m.Options().TauMax)
		if got, _ := p.Interpenetrations(tau); len(got) != 0 || p.Work() == 0 {
			t.Errorf("%+v → itself, τ %v: new %v, work %d", a, tau, got, p.Work())
		}
	}
}

// TestOracleBadTau: on the banner, a transition from calm to strong wind
// with neighbouring flags half a second and more apart (τ = ±30
// alternately) and the unconstrained minimum of Φ both make flags pass
// through each other.
func TestOracleBadTau(t *testing.T) {
	_, m := banner(t, bannerFrames)
	a, b := State{0, 40}, State{2, 50}
	bad := make([]int, m.Groups())
	for k := 1; k < len(bad); k++ {
		bad[k] = 30 * (2*(k%2) - 1)
	}
	p := m.Program(a, b)
	pairs, frames := p.Interpenetrations(bad)
	if len(pairs) == 0 {
		t.Fatalf("τ %v: no new interpenetrations", bad)
	}
	for _, pr := range pairs {
		if !(pr.K >= 1 && pr.L == pr.K+1 || pr.K == 0) {
			t.Errorf("pair %v: not neighbouring flags or a flag and the rope", pr)
		}
	}
	t.Logf("alternating ±30: %d pairs in %d pair-frames: %v", len(pairs), frames, pairs)
	tau, phi := p.Minimum(nil)
	pairs, frames = p.Interpenetrations(tau)
	t.Logf("unconstrained minimum (Φ %.4g, Φ(0) %.4g): %d pairs in %d pair-frames", phi, m.Distance(a, b), len(pairs), frames)
}

// TestWorkDeterministic: the same calls cost the same Work and give the
// same answers on a fresh Program and on a second one; on the first again,
// its memo warm, the answers are the same and the work less (answers from
// the memo count a fraction of a test).
func TestWorkDeterministic(t *testing.T) {
	_, m := banner(t, bannerFrames)
	a, b := State{1, 44}, State{2, 47}
	script := func(p *Program) (int64, []csp.Pair) {
		rng := rand.New(rand.NewPCG(11, 12))
		start := p.Work()
		var out []csp.Pair
		tau, _ := p.Minimum(nil)
		known := map[csp.Pair]bool{}
		for range 30 {
			f := rng.IntN(p.Frames())
			if rng.IntN(3) == 0 {
				out = p.New(out, tau, f, func(pr csp.Pair) bool { return known[pr] })
				for _, pr := range out {
					known[pr] = true
				}
			} else {
				var set []csp.Pair
				for range 8 {
					k := 1 + rng.IntN(p.Groups()-2)
					set = append(set, csp.Pair{K: k, L: k + 1}, csp.Pair{K: 0, L: k})
				}
				out = p.Bad(out, tau, f, set)
			}
			tau[1+rng.IntN(p.Groups()-1)] = rng.IntN(61) - 30
		}
		return p.Work() - start, out
	}
	p, q := m.Program(a, b), m.Program(a, b)
	w1, r1 := script(p)
	w2, r2 := script(q)
	w3, r3 := script(p)
	if w1 == 0 || w1 != w2 || w3 >= w1 || !slices.Equal(r1, r2) || !slices.Equal(r1, r3) {
		t.Errorf("work %d, %d, %d; results %v, %v, %v", w1, w2, w3, r1, r2, r3)
	}
}

// TestCliqueBanner: two flags' clique is both flags and the rope; a flag
// and the rope, those two.
func TestCliqueBanner(t *testing.T) {
	d, m := banner(t, bannerFrames)
	rope := slices.IndexFunc(d.Groups, func(g Group) bool { return g.Name == "rope" })
	p := m.Program(State{0, 40}, State{0, 41})
	for k := range d.Groups {
		for l := k + 1; l < len(d.Groups); l++ {
			want := []int{k, l}
			if k != rope && l != rope {
				want = sortUnique([]int{rope, k, l})
			}
			if got := p.Clique(csp.Pair{K: k, L: l}); !slices.Equal(got, want) {
				t.Fatalf("ℵ(%s, %s) = %v, want %v", d.Groups[k].Name, d.Groups[l].Name, got, want)
			}
		}
	}
}

// TestSewnExcluded: in a banner frame of the data each flag's triangles
// touch the rope's at the sewn vertices (so a plain mesh test reports
// them), yet no source frame counts an interpenetration: sewn pairs are
// excluded, and the source frames are otherwise free of them.
func TestSewnExcluded(t *testing.T) {
	d, m := banner(t, bannerFrames)
	x := d.Levels[1].Frames[20] // the data: sewn vertices coincide exactly
	rope := d.Groups[0]
	rm := collide.NewMesh(x[rope.First:rope.First+rope.Count], rope.Triangles)
	touching := 0
	for _, g := range d.Groups[1:] {
		if collide.MeshesIntersect(collide.NewMesh(x[g.First:g.First+g.Count], g.Triangles), rm) {
			touching++
		}
	}
	if touching < len(d.Groups)/2 {
		t.Errorf("only %d flags touch the rope in a plain test", touching)
	}
	n, frames, err := m.SourceInterpenetrations(t.Context())
	if err != nil || n != 0 {
		t.Errorf("%d interpenetrating pairs in %d source frames (%v)", n, frames, err)
	}
}

// TestBannerSewnGap: every pose sews the flags to the rope, so sewn
// vertices coincide to rounding in reconstructed source frames and in
// transitions, at the unconstrained minimum and at random offsets (where
// a flag and the rope blend at different times: 4 mm apart unsewn).
func TestBannerSewnGap(t *testing.T) {
	d, m := banner(t, bannerFrames)
	const tol = 1e-12
	ps := m.NewPoser()
	var x []mgl64.Vec3
	plain := 0.0
	for l, lv := range d.Levels {
		for f := range lv.Frames {
			x = ps.Pose(x, State{l, f})
			plain = max(plain, m.SewnGap(x))
		}
	}
	rng := rand.New(rand.NewPCG(13, 14))
	trans, transMin, moved := 0.0, 0.0, 0.0
	for range 6 {
		a := State{rng.IntN(3), 35 + rng.IntN(20)}
		b := State{rng.IntN(3), 35 + rng.IntN(20)}
		tau, _ := m.Program(a, b).Minimum(nil)
		random := randomTau(rng, m.Groups(), 30)
		for s := -m.Margin(); s <= m.Margin(); s++ {
			x = ps.Transition(x, a, b, tau, nil, s)
			transMin = max(transMin, m.SewnGap(x))
			x = ps.Transition(x, a, b, random, nil, s)
			trans = max(trans, m.SewnGap(x))
			for k := 1; k < m.Groups(); k++ {
				for _, c := range ps.Sewing(k) {
					moved = max(moved, c.Len())
				}
			}
		}
	}
	if plain > tol || transMin > tol || trans > tol {
		t.Errorf("sewn vertices apart by %.3g m in reconstructed sources, %.3g and %.3g in transitions (unconstrained minimum, random τ)", plain, transMin, trans)
	}
	t.Logf("largest sewing correction in transitions %.3g m; sewn gaps %.3g, %.3g, %.3g", moved, plain, transMin, trans)
}

// TestOracleNoAllocation: once a Program's caches hold the poses, Bad and
// New allocate nothing.
func TestOracleNoAllocation(t *testing.T) {
	m := model(t, blades(), Options{})
	p := m.Program(State{0, 45}, State{1, 45})
	tau := []int{30, -30}
	set := []csp.Pair{{K: 0, L: 1}}
	dst := make([]csp.Pair, 0, 4)
	p.Interpenetrations(tau)
	allocs := testing.AllocsPerRun(10, func() {
		for f := range p.Frames() {
			dst = p.Bad(dst[:0], tau, f, set)
			dst = p.New(dst[:0], tau, f, nil)
		}
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per pass", allocs)
	}
}
