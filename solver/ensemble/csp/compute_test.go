package csp

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"
)

var timeZero time.Time

// fixed returns a program whose unconstrained minimum costs phi; if
// infeasible, its two groups overlap at every τ.
func fixed(phi float64, infeasible bool) *lineProgram {
	r := 0.1
	if infeasible {
		r = 100
	}
	return &lineProgram{
		g: 2, tmax: 2, frames: 4, radius: []float64{r, r},
		phi: func(k, tau int) float64 { return phi/2 + float64(tau*tau) },
		pos: func(k, f int, tau []int) float64 { return float64(k) },
	}
}

func candidatesOf(phi0 []float64, phi []float64, infeasible []bool) []Candidate {
	c := make([]Candidate, len(phi0))
	for n := range c {
		c[n] = Candidate{J: 100 + n, Phi0: phi0[n], Program: func() Program { return fixed(phi[n], infeasible[n]) }}
	}
	return c
}

// TestComputeBest: with N_samples = |J| every candidate is tried, and the
// result is the cheapest feasible one, whatever the order drawn; the
// cheaper infeasible one times out, the costlier feasible ones are culled
// once a better point is known, or lose. (The infeasible one is culled
// rather than timed out when it is drawn after a feasible point: leaving
// its contact costs more than the cutoff.)
func TestComputeBest(t *testing.T) {
	phi := []float64{5, 2, 1, 3, 2.5}
	infeasible := []bool{false, false, true, false, false}
	for seed := uint64(0); seed < 40; seed++ {
		c := candidatesOf([]float64{1, 1, 1, 1, 1}, phi, infeasible)
		for _, search := range []Search{Walk, Hybrid} {
			res, st, err := Compute(context.Background(), c, Options{Samples: 5, Search: search}, seeded(seed), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Found || res.Candidate != 1 || res.J != 101 || res.Phi != 2 || len(res.Tau) != 2 || res.Tau[0] != 0 {
				t.Fatalf("seed %d, %v: %+v, want candidate 1 at φ = 2", seed, search, res)
			}
			if st.Computes != 1 || st.Wins != 1 || st.Programs != 5 || st.OK+st.Cull+st.TimeOut+st.Infeasible != 5 || st.OK < 1 || st.OK > 4 {
				t.Fatalf("seed %d, %v: stats %+v", seed, search, st)
			}
		}
	}
	// Nothing feasible: the walk times out, propagation proves it.
	c := candidatesOf([]float64{1, 2}, []float64{1, 1}, []bool{true, true})
	res, st, err := Compute(context.Background(), c, Options{Search: Walk}, seeded(1), nil)
	if err != nil || res.Found || st.Wins != 0 || st.Programs != 2 || st.TimeOut != 2 {
		t.Fatalf("%+v %+v %v", res, st, err)
	}
	res, st, err = Compute(context.Background(), c, Options{}, seeded(1), nil)
	if err != nil || res.Found || st.Wins != 0 || st.Programs != 2 || st.Infeasible != 2 {
		t.Fatalf("%+v %+v %v", res, st, err)
	}
}

// TestComputeBestFirst: with propagation (the default search) the
// candidates are tried in order of Φ(0), the least first, every finite
// one once.
func TestComputeBestFirst(t *testing.T) {
	phi0 := []float64{4, 1, math.Inf(1), 2, 0}
	var order []int
	c := make([]Candidate, len(phi0))
	for m := range c {
		c[m] = Candidate{J: m, Phi0: phi0[m], Program: func() Program { return fixed(float64(10-m), false) }}
	}
	trace := func(e Event) {
		if e.Kind == SatisfyStart {
			order = append(order, e.Candidate)
		}
	}
	if _, _, err := Compute(context.Background(), c, Options{Samples: 10, Alpha: 1}, seeded(1), trace); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(order, []int{4, 1, 3, 0}) {
		t.Fatalf("tried %v, want [4 1 3 0]", order)
	}
}

// TestComputeSampling: with the paper's walk, j is drawn ∝ 1/Φ(0; i, j)
// without replacement; Φ(0) = +Inf is never drawn, Φ(0) = 0 weighs as the
// smallest positive.
func TestComputeSampling(t *testing.T) {
	phi0 := []float64{1, 2, 4, math.Inf(1), 0}
	want := []float64{1, 0.5, 0.25, 0, 1}
	sum := 2.75
	n := 20000
	first := make([]int, len(phi0))
	tried := make([]int, len(phi0))
	for seed := range n {
		c := make([]Candidate, len(phi0))
		for m := range c {
			c[m] = Candidate{J: m, Phi0: phi0[m], Program: func() Program {
				tried[m]++
				return fixed(float64(10-m), false)
			}}
		}
		var order []int
		trace := func(e Event) {
			if e.Kind == SatisfyStart {
				order = append(order, e.Candidate)
			}
		}
		// Feasible points get worse in draw order only by chance; with α = 1
		// every later call runs, culled or not.
		if _, _, err := Compute(context.Background(), c, Options{Samples: 10, Alpha: 1, Search: Walk}, seeded(uint64(seed)), trace); err != nil {
			t.Fatal(err)
		}
		if len(order) != 4 {
			t.Fatalf("%d draws, want the 4 candidates of finite Φ(0) once each", len(order))
		}
		first[order[0]]++
	}
	for m, w := range want {
		p := w / sum
		f := float64(first[m]) / float64(n)
		if math.Abs(f-p) > 5*math.Sqrt(p*(1-p)/float64(n))+1e-12 {
			t.Errorf("candidate %d drawn first %.4f of the time, want %.4f", m, f, p)
		}
		if tried[m] != n && w > 0 || tried[m] != 0 && w == 0 {
			t.Errorf("candidate %d built %d times in %d calls", m, tried[m], n)
		}
	}
}

func TestComputeEventsAndCancel(t *testing.T) {
	c := candidatesOf([]float64{1, 1, 1}, []float64{3, 2, 1}, []bool{false, false, true})
	var ev []Event
	res, st, err := Compute(context.Background(), c, Options{Samples: 3}, seeded(2), func(e Event) { ev = append(ev, e) })
	if err != nil {
		t.Fatal(err)
	}
	if ev[0].Kind != ComputeStart || ev[len(ev)-1].Kind != ComputeEnd || ev[len(ev)-1].PhiMin != res.Phi || ev[len(ev)-1].Work != st.Work {
		t.Fatalf("events %+v … %+v for %+v", ev[0], ev[len(ev)-1], res)
	}
	phiMin := math.Inf(1)
	for i, e := range ev {
		if i > 0 && (e.Seconds < ev[i-1].Seconds || e.Work < ev[i-1].Work) {
			t.Fatalf("event %d goes back: %+v after %+v", i, e, ev[i-1])
		}
		if e.Kind == SatisfyEnd && e.Status == OK {
			phiMin = min(phiMin, e.Phi)
		}
		if e.Kind == SatisfyStart && e.PhiMin != phiMin {
			t.Fatalf("event %d: φ_min %v, want %v", i, e.PhiMin, phiMin)
		}
	}

	// Cancelled: the error and what was found so far.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c = candidatesOf([]float64{1, 1e9}, []float64{1, 1}, []bool{false, true})
	calls := 0
	c[1].Program = func() Program {
		p := fixed(1, true)
		p.phi = func(k, tau int) float64 { return 0.25 } // flat: never culled
		p.onTest = func() {
			if calls++; calls == 50 {
				cancel()
			}
		}
		return p
	}
	res, st, err = Compute(ctx, c, Options{Samples: 2, Eta: 1e15, Alpha: 1, Search: Walk}, seeded(3), nil)
	if !errors.Is(err, context.Canceled) || calls > 51 || st.Programs != 2 {
		t.Fatalf("%v after %d tests, %d programs", err, calls, st.Programs)
	}
	if res.Found && res.Candidate != 0 {
		t.Fatalf("%+v", res)
	}

	if _, _, err := Compute(context.Background(), []Candidate{{Phi0: math.NaN()}}, Options{}, seeded(1), nil); err == nil {
		t.Fatal("NaN Φ(0) accepted")
	}
}

func TestStats(t *testing.T) {
	var s Stats
	s.Add(Outcome{Status: OK, Local: 10, Contacts: 4, Scanned: true, CDWork: 100, CDSeconds: 1, Work: 300, Seconds: 3})
	s.Add(Outcome{Status: TimeOut, Local: 50, Contacts: 8, Scanned: true, CDWork: 200, CDSeconds: 2, Work: 2200, Seconds: 22})
	s.Add(Outcome{Status: Cull})
	var m Stats
	m.Merge(s)
	m.Merge(s)
	w, sec := m.TCD()
	ok, cull, tout, _ := m.Fractions()
	if w != 150 || sec != 1.5 || m.NLocal() != 10 || m.MeanContacts() != 4 || ok != 1.0/3 || cull != 1.0/3 || tout != 1.0/3 || m.Programs != 6 || m.Work != 5000 {
		t.Fatalf("%+v: t_CD %v %v, nLocal %v, |C| %v, fractions %v %v %v", m, w, sec, m.NLocal(), m.MeanContacts(), ok, cull, tout)
	}
}
