package csp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// checkOutcome checks what every outcome must satisfy, and, when OK, that
// τ breaks no constraint at any frame (every pair tested).
func checkOutcome(t *testing.T, p *lineProgram, o Outcome, cutoff float64) {
	t.Helper()
	if len(o.Tau) != p.g {
		t.Fatalf("τ has %d entries, want %d", len(o.Tau), p.g)
	}
	phi := 0.0
	for k, tau := range o.Tau {
		if tau < -p.tmax || tau > p.tmax {
			t.Fatalf("τ_%d = %d outside ±%d", k, tau, p.tmax)
		}
		phi += p.phi(k, tau)
	}
	if phi != o.Phi {
		t.Fatalf("φ = %v, but Σ Φ_k(τ_k) = %v", o.Phi, phi)
	}
	if o.Status != OK {
		return
	}
	if v := p.violated(o.Tau); len(v) > 0 {
		t.Fatalf("OK with τ = %v, but %d constraints are broken, e.g. pair %d at frame %d", o.Tau, len(v), v[0][0], v[0][1])
	}
	if o.Bad != 0 || o.Phi > cutoff {
		t.Fatalf("OK with |B| = %d, φ = %v > cutoff %v", o.Bad, o.Phi, cutoff)
	}
}

// TestSatisfyAgainstEnumeration solves many small random programs whose
// feasibility is known by enumerating every τ: each OK answer satisfies
// every constraint (all pairs, all frames). The paper's walk times out on
// every infeasible program and solves nearly every feasible one (a
// randomized heuristic: a feasible set of a few needles among 7⁴ points
// may escape it); propagation, alone or after the walk, is complete: it
// solves every feasible program and proves every infeasible one.
func TestSatisfyAgainstEnumeration(t *testing.T) {
	for _, search := range []Search{Walk, Propagate, Hybrid} {
		var nFeasible, nOK, nInfeasible int
		for seed := uint64(0); seed < 80; seed++ {
			var p *lineProgram
			if seed%2 == 0 {
				p = waves(seed, 4, 3, 24, 1, 0.5, 0.3)
			} else {
				p = banner(seed, 4, 3, 24, 1, 0.5, 0.3)
			}
			feasible, _ := p.feasible()
			o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Eta: 300, Search: search}, seeded(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, p, o, math.Inf(1))
			want := TimeOut
			if search != Walk {
				want = Infeasible
			}
			if !feasible && o.Status != want {
				t.Errorf("%v, seed %d: infeasible program, but %v", search, seed, o.Status)
			}
			switch {
			case !feasible:
				nInfeasible++
			case o.Status == OK:
				nFeasible++
				nOK++
			default:
				nFeasible++
				t.Logf("%v, seed %d: feasible program, but %v after %d local searches", search, seed, o.Status, o.Local)
			}
		}
		t.Logf("%v: %d feasible programs, %d solved; %d infeasible", search, nFeasible, nOK, nInfeasible)
		if nFeasible < 20 || nInfeasible < 5 || nOK < nFeasible*9/10 || search != Walk && nOK != nFeasible {
			t.Errorf("%v: %d feasible programs, %d solved; %d infeasible", search, nFeasible, nOK, nInfeasible)
		}
	}
}

// TestSatisfyTreesAgainstEnumeration: the complete searches on programs
// whose groups hang in trees of several levels (tree: flags on a rope
// with tassels on the flags), where most constraints' cliques hold three
// or more variables and the propagation asks about several pairs of
// each, in an order that changes as it backtracks. Feasibility is known
// by an exhaustive search (feasibleSearch, within a number of nodes that
// tells all but a few): a feasible program is never answered Infeasible,
// an infeasible one never OK (checkOutcome). Answers of one pair read as
// another's (a memo keyed by its constraint alone) made the feasible
// program of seed 10 "Infeasible" under Propagate.
func TestSatisfyTreesAgainstEnumeration(t *testing.T) {
	var nFeasible, nInfeasible, nUnknown, nOK int
	for seed := uint64(0); seed < 40; seed++ {
		p := tree(seed, 9, 2, 24, 1.2, 0.5, 0.3)
		feasible, known := p.feasibleSearch(200000)
		switch {
		case !known:
			nUnknown++
		case feasible:
			nFeasible++
		default:
			nInfeasible++
		}
		for _, search := range []Search{Propagate, Hybrid} {
			o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Eta: 3000, Search: search}, seeded(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutcome(t, p, o, math.Inf(1))
			if feasible && o.Status == Infeasible {
				t.Errorf("%v, seed %d: feasible program, but Infeasible", search, seed)
			}
			if known && !feasible && o.Status != Infeasible {
				t.Errorf("%v, seed %d: infeasible program, but %v", search, seed, o.Status)
			}
			switch {
			case feasible && o.Status == OK:
				nOK++
			case feasible && o.Status != Infeasible:
				t.Logf("%v, seed %d: feasible program, %v after %d local searches", search, seed, o.Status, o.Local)
			}
		}
	}
	t.Logf("%d feasible programs (%d answers OK), %d infeasible, %d not told", nFeasible, nOK, nInfeasible, nUnknown)
	if nFeasible < 15 || nInfeasible < 5 || nUnknown > 5 || nOK < 2*nFeasible {
		t.Errorf("%d feasible programs (%d answers OK), %d infeasible, %d not told: the test needs both kinds, every feasible one solved", nFeasible, nOK, nInfeasible, nUnknown)
	}
}

// TestSatisfyLarger solves banner-sized programs (31 groups, τ_max = 30,
// 71 frames) and checks the answers exhaustively.
func TestSatisfyLarger(t *testing.T) {
	solved := 0
	for seed := uint64(0); seed < 4; seed++ {
		p := banner(seed, 31, 30, 71, 1, 0.5, 0.3)
		o, err := Satisfy(context.Background(), p, math.Inf(1), Options{C: 2, Eta: 50}, seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcome(t, p, o, math.Inf(1))
		if o.Status == OK {
			solved++
			if o.Contacts == 0 || o.Local == 0 {
				t.Errorf("seed %d: solved with |C| = %d, %d local searches: the start had no contact, a weak test", seed, o.Contacts, o.Local)
			}
		}
		t.Logf("seed %d: %v φ=%.2f nLocal=%d |C|=%d work=%d t_CD=%d", seed, o.Status, o.Phi, o.Local, o.Contacts, o.Work, o.CDWork)
	}
	if solved < 3 {
		t.Errorf("only %d of 4 solved", solved)
	}
}

// TestSatisfyNoContact: groups far apart; the unconstrained minimum comes
// back untouched after one scan.
func TestSatisfyNoContact(t *testing.T) {
	p := waves(7, 6, 5, 20, 10, 0.5, 0.3)
	o, err := Satisfy(context.Background(), p, math.Inf(1), Options{}, seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutcome(t, p, o, math.Inf(1))
	want := make([]int, p.g)
	for k := range want {
		best := math.Inf(1)
		for tau := -p.tmax; tau <= p.tmax; tau++ {
			if f := p.phi(k, tau); f < best || f == best && abs(tau) < abs(want[k]) {
				best, want[k] = f, tau
			}
		}
	}
	if o.Status != OK || !slices.Equal(o.Tau, want) || o.Local != 0 || o.Contacts != 0 || !o.Scanned {
		t.Fatalf("got %v τ=%v nLocal=%d |C|=%d, want OK τ=%v untouched", o.Status, o.Tau, o.Local, o.Contacts, want)
	}
	if o.CDWork != int64(p.frames*p.g*(p.g-1)/2) || o.Work != o.CDWork {
		t.Fatalf("work %d, t_CD %d: want one full scan, %d pair tests", o.Work, o.CDWork, p.frames*p.g*(p.g-1)/2)
	}
}

// twins: two points at τ_0 and τ_1 collide iff τ_0 = τ_1; Φ_k(τ) = τ², so
// the unconstrained minimum (0, 0) with φ = 0 collides and every feasible
// point costs at least 1.
func twins(tmax int) *lineProgram {
	return &lineProgram{
		g: 2, tmax: tmax, frames: 3, radius: []float64{0.25, 0.25},
		phi: func(k, tau int) float64 { return float64(tau * tau) },
		pos: func(k, f int, tau []int) float64 { return float64(tau[k]) },
	}
}

func TestSatisfyCull(t *testing.T) {
	// Line 3: the unconstrained minimum is above the cutoff; no collision test.
	p := waves(3, 5, 4, 10, 1, 0.5, 0.3)
	o, err := Satisfy(context.Background(), p, 0.01, Options{}, seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Cull || o.Scanned || o.Work != 0 || p.work != 0 {
		t.Fatalf("got %v scanned=%v work=%d, want Cull before any test", o.Status, o.Scanned, p.work)
	}
	checkOutcome(t, p, o, 0.01)

	// Line 10: φ must rise above the cutoff to leave the contact.
	p = twins(3)
	o, err = Satisfy(context.Background(), p, 0.5, Options{}, seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Status != Cull || !o.Scanned || o.Phi <= 0.5 {
		t.Fatalf("got %v φ=%v, want Cull above 0.5", o.Status, o.Phi)
	}
	// Without the cutoff it is solved, at cost ≥ 1.
	o, err = Satisfy(context.Background(), p, math.Inf(1), Options{}, seeded(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutcome(t, p, o, math.Inf(1))
	if o.Status != OK || o.Phi < 1 {
		t.Fatalf("got %v φ=%v, want OK at φ ≥ 1", o.Status, o.Phi)
	}

	// A group with no finite Φ: culled whatever the cutoff.
	p = waves(3, 3, 2, 10, 1, 0.5, 0.3)
	p.phi = func(k, tau int) float64 {
		if k == 1 {
			return math.Inf(1)
		}
		return 1
	}
	o, err = Satisfy(context.Background(), p, math.Inf(1), Options{}, seeded(1), nil)
	if err != nil || o.Status != Cull || o.Scanned {
		t.Fatalf("got %v, %v: want Cull without a scan", o.Status, err)
	}
}

func TestSatisfyTimeOut(t *testing.T) {
	// Two groups that overlap at every τ: infeasible, but never stuck.
	p := waves(5, 2, 10, 30, 1, 0.5, 5)
	for _, eta := range []float64{1, 10, 100} {
		p.work = 0
		o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Eta: eta, Search: Walk}, seeded(2), nil)
		if err != nil {
			t.Fatal(err)
		}
		budget := eta * float64(o.CDWork)
		// A step tests |A_k| = 1 pair at up to every frame.
		if o.Status != TimeOut || float64(o.Work) <= budget || float64(o.Work) > budget+float64(p.frames) {
			t.Fatalf("η=%v: got %v after work %d, t_CD %d: want TimeOut just past %v", eta, o.Status, o.Work, o.CDWork, budget)
		}
		checkOutcome(t, p, o, math.Inf(1))
	}

	// Stuck: τ_max = 0, nothing can move.
	p = twins(0)
	o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Eta: 1e9, Search: Walk}, seeded(2), nil)
	if err != nil || o.Status != TimeOut || o.Local != 1 {
		t.Fatalf("got %v after %d local searches, %v: want TimeOut at once", o.Status, o.Local, err)
	}
}

func TestSatisfyDeterministic(t *testing.T) {
	run := func(seed uint64) Outcome {
		p := banner(11, 31, 30, 71, 1, 0.5, 0.35)
		o, err := Satisfy(context.Background(), p, math.Inf(1), Options{C: 2}, seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		o.Seconds, o.CDSeconds = 0, 0
		return o
	}
	a, b, c := run(4), run(4), run(5)
	if !equalOutcome(a, b) {
		t.Fatalf("same seed, different outcomes:\n%+v\n%+v", a, b)
	}
	if a.Local < 10 {
		t.Fatalf("only %d local searches: a weak test", a.Local)
	}
	if equalOutcome(a, c) {
		t.Logf("seeds 4 and 5 gave the same outcome")
	}
}

func equalOutcome(a, b Outcome) bool {
	return a.Status == b.Status && a.Phi == b.Phi && slices.Equal(a.Tau, b.Tau) && a.Local == b.Local &&
		a.Contacts == b.Contacts && a.Bad == b.Bad && a.Work == b.Work && a.CDWork == b.CDWork
}

func TestSatisfyCancel(t *testing.T) {
	// Cancelled before the start: the first frame of the scan stops.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := waves(5, 2, 10, 30, 1, 0.5, 5)
	_, err := Satisfy(ctx, p, math.Inf(1), Options{}, seeded(1), nil)
	if !errors.Is(err, context.Canceled) || p.work != 0 {
		t.Fatalf("err %v after %d tests, want Canceled at once", err, p.work)
	}

	// Cancelled during the search of an infeasible program that would run
	// for ever: it stops within the frame being tested.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	p = waves(5, 2, 10, 30, 1, 0.5, 5)
	var after int
	p.onTest = func() {
		if p.work == 1000 {
			cancel()
		}
		if p.work > 1000 {
			after++
		}
	}
	o, err := Satisfy(ctx, p, math.Inf(1), Options{Eta: 1e15, Search: Walk}, seeded(1), nil)
	if !errors.Is(err, context.Canceled) || o.Status != TimeOut || after > 1 {
		t.Fatalf("%v, %v after %d more tests: want Canceled within the frame", o.Status, err, after)
	}
}

func TestSatisfyTrace(t *testing.T) {
	p := banner(2, 12, 10, 30, 1, 0.5, 0.35)
	var ev []Event
	o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Search: Walk}, seeded(3), func(e Event) { ev = append(ev, e) })
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != o.Local+3 || ev[0].Kind != SatisfyStart || ev[1].Kind != Scanned || ev[len(ev)-1].Kind != SatisfyEnd {
		t.Fatalf("%d events for %d local searches: %v … %v", len(ev), o.Local, ev[0].Kind, ev[len(ev)-1].Kind)
	}
	end := ev[len(ev)-1]
	if end.Status != o.Status || end.Phi != o.Phi || end.Bad != o.Bad || end.Contacts != o.Contacts || end.Work != o.Work {
		t.Fatalf("last event %+v, outcome %+v", end, o)
	}
	for i := 1; i < len(ev); i++ {
		if ev[i].Seconds < ev[i-1].Seconds || ev[i].Work < ev[i-1].Work || ev[i].Contacts < ev[i-1].Contacts || ev[i].Candidate != -1 || !math.IsInf(ev[i].PhiMin, 1) {
			t.Fatalf("event %d: %+v after %+v", i, ev[i], ev[i-1])
		}
	}
}

// TestSelectVariable checks (13): with B = {(1, 2)} in a rope-like program
// (ℵ = {0, 1, 2}) and |A_0| = 5, |A_1| = 2, |A_2| = 1, variable m is picked
// with probability ∝ C^−|A_m|.
func TestSelectVariable(t *testing.T) {
	for _, c := range []float64{1, 1.1, 2} {
		p := banner(1, 6, 3, 5, 1, 0.5, 0.3)
		s := newSolver(context.Background(), p, Options{C: c}.WithDefaults(), seeded(9), nil, timeZero, 0)
		s.updateContacts([]Pair{{1, 2}, {1, 3}, {3, 4}, {4, 5}, {3, 5}})
		s.setB([]Pair{{1, 2}})
		na := []int{len(s.a[0]), len(s.a[1]), len(s.a[2])}
		if !slices.Equal(na, []int{5, 2, 1}) {
			t.Fatalf("|A| = %v", na)
		}
		want := []float64{math.Pow(c, -5), math.Pow(c, -2), math.Pow(c, -1)}
		sum := want[0] + want[1] + want[2]
		const n = 200000
		var got [3]int
		for range n {
			got[s.selectVariable()]++
		}
		for m := range want {
			pm := want[m] / sum
			sd := math.Sqrt(pm * (1 - pm) / n)
			if f := float64(got[m]) / n; math.Abs(f-pm) > 5*sd {
				t.Errorf("C = %v: variable %d picked %.4f of the time, want %.4f", c, m, f, pm)
			}
		}
	}
}

func TestImportanceSampling(t *testing.T) {
	inf := math.Inf(1)
	v := variable{phi: []float64{inf, 0, 2, 4, 1, inf}}
	v.weight, v.total = importance(v.phi)
	// Φ = 0 weighs as the smallest positive Φ (1): weights 0, 1, ½, ¼, 1, 0.
	if !slices.Equal(v.weight, []float64{0, 1, 0.5, 0.25, 1, 0}) {
		t.Fatalf("weights %v", v.weight)
	}
	rng := seeded(1)
	const n = 200000
	got := make([]int, len(v.phi))
	for range n {
		got[v.sample(rng, 4)]++
	}
	want := []float64{0, 1 / 1.75, 0.5 / 1.75, 0.25 / 1.75, 0, 0}
	for i, pi := range want {
		f := float64(got[i]) / n
		if math.Abs(f-pi) > 5*math.Sqrt(pi*(1-pi)/n)+1e-12 {
			t.Errorf("value %d drawn %.4f of the time, want %.4f", i, f, pi)
		}
	}
	// All zero: uniform; a single finite value: nowhere to go.
	w, total := importance([]float64{0, 0, inf})
	if !slices.Equal(w, []float64{1, 1, 0}) || total != 2 {
		t.Fatalf("weights %v", w)
	}
	one := variable{phi: []float64{inf, 3, inf}}
	one.weight, one.total = importance(one.phi)
	if got := one.sample(rng, 1); got != 1 {
		t.Fatalf("sampled %d from a single finite value", got)
	}
	// Underflowing weights fall back to uniform among the finite others.
	tiny := variable{phi: []float64{5e-324, 1e300, inf, 1e308}}
	tiny.weight, tiny.total = importance(tiny.phi)
	seen := map[int]bool{}
	for range 100 {
		seen[tiny.sample(rng, 0)] = true
	}
	if !seen[1] || !seen[3] || seen[2] || seen[0] {
		t.Fatalf("drew %v", seen)
	}
}

func TestOptions(t *testing.T) {
	bad := []Options{{Samples: -1}, {Eta: -1}, {Eta: math.Inf(1)}, {Eta: math.NaN()}, {Alpha: 1.5}, {Alpha: -0.1}, {C: 0.5}, {C: math.NaN()}, {Search: Walk + 1}}
	for _, o := range bad {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
		if _, err := Satisfy(context.Background(), twins(1), 1, o, seeded(1), nil); err == nil {
			t.Errorf("Satisfy accepted %+v", o)
		}
	}
	d := Options{}.WithDefaults()
	if d != (Options{Samples: 5, Eta: 40, Alpha: 0.97, C: 1.1, Search: Hybrid}) {
		t.Fatalf("defaults %+v", d)
	}
	if w := (Options{Search: Walk}).WithDefaults(); w.Eta != 10 {
		t.Fatalf("the walk's η %v, want the paper's 10", w.Eta)
	}
}

// TestPropagateChains: groups side by side that must keep in phase with
// both neighbours (waves, 16 groups, τ_max 10, neighbours nearly
// touching): each pair's feasible offsets form a band around
// τ_k − τ_l = const, and the bands chain every group to the next, the
// structure of densely touching reeds. Propagation decides every program
// (OK or proved Infeasible, never timed out), solves every one the walk
// solves, and spends far less work than the walk, which wanders through
// thousands of steps on the feasible ones and its whole budget on the
// infeasible ones.
func TestPropagateChains(t *testing.T) {
	var walkWork, propWork int64
	decided := 0
	for seed := uint64(0); seed < 12; seed++ {
		mk := func() *lineProgram { return waves(100+seed, 16, 10, 40, 1, 0.5, 0.4) }
		w, err := Satisfy(context.Background(), mk(), math.Inf(1), Options{Search: Walk, Eta: 40}, seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		p := mk()
		o, err := Satisfy(context.Background(), p, math.Inf(1), Options{Search: Propagate, Eta: 40}, seeded(seed), nil)
		if err != nil {
			t.Fatal(err)
		}
		checkOutcome(t, p, o, math.Inf(1))
		walkWork += w.Work
		propWork += o.Work
		if o.Status == OK || o.Status == Infeasible {
			decided++
		}
		if w.Status == OK && o.Status != OK || o.Status == Infeasible && w.Status == OK {
			t.Errorf("seed %d: walk %v, propagation %v", seed, w.Status, o.Status)
		}
		t.Logf("seed %d: walk %v (%d steps, work %d), propagation %v (%d nodes, |C| %d, work %d)", seed, w.Status, w.Local, w.Work, o.Status, o.Local, o.Contacts, o.Work)
	}
	if decided != 12 || propWork*4 > walkWork {
		t.Errorf("propagation decided %d of 12 with work %d; the walk's work %d", decided, propWork, walkWork)
	}
}
