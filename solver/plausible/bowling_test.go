package plausible

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/mcmc"
	"gallop/solver/rigidbody"
)

// bowlPocket is a straight, fast ball into the pocket (between pins 1 and
// 3) with some forward roll.
func bowlPocket() BowlingState {
	return BowlingState{Radius: 0.108, Density: 1250, X: 0.064, Speed: 8.5, Spin: [3]float64{-30, 0, 0}}
}

// TestBowlingPin checks the pin model against the regulation figures:
// mass, height, widest diameter, centre of mass 5 11/16 – 5 15/16 in
// above the base.
func TestBowlingPin(t *testing.T) {
	w := rigidbody.NewWorld(mgl64.Vec3{0, -9.81, 0})
	defer w.Close()
	p, err := w.NewCompound(bowlPinParts(), BowlingPinMass, bowlPinSurface)
	if err != nil {
		t.Fatal(err)
	}
	if m := p.Mass().Total; math.Abs(m-BowlingPinMass) > 1e-9 || m < 1.531 || m > 1.645 {
		t.Errorf("pin mass %v kg, want 3 lb 6 oz – 3 lb 10 oz", m)
	}
	com := -p.ModelOffset()[1]
	if com < (5+11.0/16)*inch || com > (5+15.0/16)*inch {
		t.Errorf("centre of mass %.4f m (%.3f in) above the base, want 5 11/16 – 5 15/16 in", com, com/inch)
	}
	if testing.Verbose() {
		t.Logf("pin centre of mass %.4f m (%.3f in) above the base", com, com/inch)
	}
	// The pin's look: its parts, with the widest at 4.766 in (the mesh
	// made of them is checked in tools/gallery).
	shape := bowlPinShape(p.ModelOffset())
	if len(shape.Pieces) != len(bowlPinParts()) {
		t.Errorf("%d pieces for %d parts", len(shape.Pieces), len(bowlPinParts()))
	}
}

// TestBowlingSpots checks the pin numbering: 1 in front at the origin, 7
// at the back left, 10 at the back right, 12 in apart.
func TestBowlingSpots(t *testing.T) {
	row := BowlingPinSpacing * math.Sqrt(3) / 2
	want := map[int][2]float64{0: {0, 0}, 1: {-6 * inch, -row}, 2: {6 * inch, -row}, 5: {12 * inch, -2 * row},
		6: {-18 * inch, -3 * row}, 9: {18 * inch, -3 * row}}
	for i, w := range want {
		x, z := BowlingSpot(i)
		if math.Abs(x-w[0]) > 1e-12 || math.Abs(z-w[1]) > 1e-12 {
			t.Errorf("pin %d at (%v, %v), want %v", i+1, x, z, w)
		}
	}
	for i := range BowlingPins {
		for j := range i {
			xi, zi := BowlingSpot(i)
			xj, zj := BowlingSpot(j)
			if d := math.Hypot(xi-xj, zi-zj); d < BowlingPinSpacing-1e-9 {
				t.Errorf("pins %d and %d %v m apart", i+1, j+1, d)
			}
		}
	}
}

// TestBowlingPhysics: a straight fast ball into the pocket knocks most pins
// down; a gutter ball knocks none; everything comes to rest early.
func TestBowlingPhysics(t *testing.T) {
	b, err := NewBowling("strike", 0)
	if err != nil {
		t.Fatal(err)
	}
	o, err := b.Simulate(bowlPocket())
	if err != nil {
		t.Fatal(err)
	}
	if o.Knocked() < 7 {
		t.Errorf("pocket hit knocked %d pins down (%v), want at least 7", o.Knocked(), o.Down)
	}
	if !o.Settled || o.Time > 4 {
		t.Errorf("pocket hit: settled %v after %.2f s", o.Settled, o.Time)
	}
	gutter := bowlPocket()
	gutter.X = bowlHalfW + BowlingGutterWidth/2
	o, err = b.Simulate(gutter)
	if err != nil {
		t.Fatal(err)
	}
	if o.Knocked() != 0 {
		t.Errorf("gutter ball knocked %d pins down (%v)", o.Knocked(), o.Down)
	}
	if o.BallEnd[2] > bowlPitZ || o.BallEnd[1] > 0 {
		t.Errorf("gutter ball ended at %v, want in the pit", o.BallEnd)
	}
	for i, m := range o.Moved {
		if m > 0.005 || o.Tilt[i] > 1 {
			t.Errorf("gutter ball: pin %d moved %.4f m, tilted %.2f°", i+1, m, o.Tilt[i])
		}
	}
	// Strike wanted, none down: k = 0, m = 0 (no pin should stand).
	sc := b.Constraint(o)
	if sc.Met != 0 || sc.Of != 10 || sc.Satisfied || sc.LogLikelihood != 0 {
		t.Errorf("gutter ball scored %+v, want k = 0 of 10, m = 0", sc)
	}
	// Leave the 7-10 split wanted: k = 2 (7 and 10 stand), m = 2 (untouched).
	split, _ := NewBowling("7-10", 0)
	if sc := split.Constraint(o); sc.Met != 2 || math.Abs(sc.LogLikelihood-4*2.5) > 1e-12 {
		t.Errorf("gutter ball for the 7-10 split scored %+v, want k = 2, m = 2", sc)
	}
}

// TestBowlingDeterminism: the same state gives bitwise the same outcome,
// in a row and on goroutines at once.
func TestBowlingDeterminism(t *testing.T) {
	b, _ := NewBowling("strike", 0)
	rng := mcmc.NewRand(5)
	states := []BowlingState{bowlPocket(), b.Init(rng), b.Init(rng)}
	want := make([]BowlingOutcome, len(states))
	for i, s := range states {
		var err error
		if want[i], err = b.Simulate(s); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	got := make([][]BowlingOutcome, 2)
	for g := range got {
		wg.Go(func() {
			for _, s := range states {
				o, err := b.Simulate(s)
				if err != nil {
					t.Error(err)
				}
				got[g] = append(got[g], o)
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i := range states {
			if got[g][i] != want[i] {
				t.Errorf("goroutine %d, state %d: outcome differs", g, i)
			}
		}
	}
}

// TestBowlingConstraint checks k, m and λ on hand-made outcomes.
func TestBowlingConstraint(t *testing.T) {
	b, _ := NewBowling("6-7", 0)
	var o BowlingOutcome
	o.InPlay = b.Start
	for i := range o.Down {
		o.Down[i] = true
	}
	o.Down[5], o.Down[6] = false, false // 6 and 7 stand, untouched
	sc := b.Constraint(o)
	if !sc.Satisfied || sc.Met != 10 || sc.Of != 10 || math.Abs(sc.LogLikelihood-12*2.5) > 1e-12 {
		t.Errorf("6-7 left: %+v, want k = 10, m = 2", sc)
	}
	o.Moved[5] = 0.2 // pushed far but standing: no m for it
	if sc := b.Constraint(o); math.Abs(sc.LogLikelihood-11*2.5) > 1e-12 || !sc.Satisfied {
		t.Errorf("6 pushed: %+v, want k = 10, m = 1", sc)
	}
	o.Down[5] = true
	if sc := b.Constraint(o); sc.Satisfied || sc.Met != 9 || math.Abs(sc.LogLikelihood-10*2.5) > 1e-12 {
		t.Errorf("6 down: %+v, want k = 9, m = 1", sc)
	}
	spare, _ := NewBowling("6-7-spare", 0)
	if sc := spare.Constraint(o); sc.Of != 2 || sc.Met != 1 || sc.Satisfied {
		t.Errorf("6-7 spare with 7 standing: %+v, want 1 of 2", sc)
	}
}

// TestBowlingTargets checks the named patterns and the bad input errors.
func TestBowlingTargets(t *testing.T) {
	b, err := NewBowling("6-7-spare", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range BowlingPins {
		on := i == 5 || i == 6
		if b.Start[i] != on || (on && b.Goal[i] != PinDown) {
			t.Errorf("6-7 spare: pin %d on %v goal %v", i+1, b.Start[i], b.Goal[i])
		}
	}
	b, _ = NewBowling("7-10", 0)
	for i := range BowlingPins {
		want := PinDown
		if i == 6 || i == 9 {
			want = PinStand
		}
		if !b.Start[i] || b.Goal[i] != want {
			t.Errorf("7-10: pin %d on %v goal %v", i+1, b.Start[i], b.Goal[i])
		}
	}
	if b, err := NewBowling("dd??ssdd.d", 3); err != nil || b.Lambda != 3 || b.Start[8] || b.Goal[2] != PinAny {
		t.Errorf("explicit pattern: %+v, %v", b, err)
	}
	for _, c := range []struct {
		target string
		lambda float64
		want   string
	}{
		{"strike", 1, "λ"},
		{"strike", 0.5, "λ"},
		{"strike", math.Inf(1), "λ"},
		{"strike", math.NaN(), "λ"},
		{"spare", 0, "target name"},
		{"ddddd", 0, "10 characters"},
		{"ddddxddddd", 0, "character 5 (pin 5)"},
		{"??????????", 0, "no pin is constrained"},
		{"..........", 0, "no pin on the deck"},
	} {
		_, err := NewBowling(c.target, c.lambda)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewBowling(%q, %v): error %v, want one mentioning %q", c.target, c.lambda, err, c.want)
		}
	}
	bad := &Bowling{Start: [BowlingPins]bool{true}, Lambda: 2, Weights: DefaultBowlingWeights}
	bad.Goal[3] = PinStand
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "pin 4") {
		t.Errorf("pin constrained but not on the deck: %v", err)
	}
	bad.Goal[3], bad.Goal[0] = PinAny, PinDown
	bad.Weights = BowlingWeights{}
	if err := bad.Validate(); err == nil {
		t.Error("zero weights accepted")
	}
	b, _ = NewBowling("strike", 0)
	s := bowlPocket()
	s.Speed = math.NaN()
	if _, err := b.Simulate(s); err == nil || !strings.Contains(err.Error(), "speed") {
		t.Errorf("NaN speed: %v", err)
	}
	s = bowlPocket()
	s.Pins[2][1] = 0.5
	if _, err := b.Simulate(s); err == nil || !strings.Contains(err.Error(), "pin 3") {
		t.Errorf("pin 0.5 m off its spot: %v", err)
	}
}

// TestBowlingProposals checks each kernel's log q-ratio and that the
// candidates stay in the prior's support.
func TestBowlingProposals(t *testing.T) {
	b, _ := NewBowling("6-7-spare", 0)
	ks := b.Kernels()
	if len(ks) != 4 {
		t.Fatalf("%d kernels", len(ks))
	}
	rng := mcmc.NewRand(9)
	cur := b.Init(rng)
	for it := 0; it < 2000; it++ {
		for ki, k := range ks {
			before := cur
			cand, r := k.Propose(rng, cur)
			if cur != before {
				t.Fatalf("kernel %q modified its input", k.Name)
			}
			if math.IsInf(b.LogPrior(cand), -1) {
				t.Fatalf("kernel %q left the prior's support: %+v", k.Name, cand)
			}
			switch ki {
			case 0:
				if want := b.LogPrior(cur) - b.LogPrior(cand); math.Abs(r-want) > 1e-12 {
					t.Fatalf("change all: ratio %v, want log p_w(cur) − log p_w(cand) = %v", r, want)
				}
			default:
				if r != 0 {
					t.Fatalf("kernel %q: ratio %v, want 0 (symmetric)", k.Name, r)
				}
			}
			switch ki {
			case 1, 2:
				if cand.Pins != cur.Pins {
					t.Fatalf("kernel %q moved pins", k.Name)
				}
			case 3:
				cand.Pins[5], cand.Pins[6] = cur.Pins[5], cur.Pins[6]
				if cand != cur {
					t.Fatalf("pins kernel changed more than pins 6 and 7")
				}
			}
			cur = cand
		}
	}
	if got := bowlFold(1.3, 0, 1); math.Abs(got-0.7) > 1e-12 {
		t.Errorf("fold 1.3 into [0, 1] = %v", got)
	}
	if got := bowlFold(-2.2, 0, 1); math.Abs(got-0.2) > 1e-12 {
		t.Errorf("fold −2.2 into [0, 1] = %v", got)
	}
}

// bowlPriorOnly is Bowling with the constraint switched off (λ = 1) and no
// simulation: a chain of Bowling's kernels on it must sample the prior.
type bowlPriorOnly struct{ *Bowling }

func (m bowlPriorOnly) Simulate(BowlingState) (BowlingOutcome, error) { return BowlingOutcome{}, nil }
func (m bowlPriorOnly) Constraint(BowlingOutcome) mcmc.Score          { return mcmc.Score{} }

// truncatedMoments returns the mean and variance of N(mean, σ²) truncated
// to [lo, hi].
func truncatedMoments(mean, sigma, lo, hi float64) (float64, float64) {
	a, b := (lo-mean)/sigma, (hi-mean)/sigma
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	z := cdf(b) - cdf(a)
	m := (phi(a) - phi(b)) / z
	v := 1 + (a*phi(a)-b*phi(b))/z - m*m
	return mean + sigma*m, sigma * sigma * v
}

// TestBowlingKernelsSamplePrior: with the constraint switched off, the
// mixture of Bowling's kernels (with their ratios) leaves the prior
// invariant: the chain's moments of a uniform, a symmetric and an
// asymmetrically truncated Gaussian and a pin offset match the prior's.
// A wrong ratio (say, the change-all proposal without its prior terms)
// pulls the moments away.
func TestBowlingKernelsSamplePrior(t *testing.T) {
	b, _ := NewBowling("strike", 0)
	m := bowlPriorOnly{b}
	const n = 300_000
	var sum, sum2 [4]float64
	value := func(s BowlingState) [4]float64 { return [4]float64{s.Radius, s.X, s.Spin[0], s.Pins[4][1]} }
	_, err := mcmc.Run[BowlingState, BowlingOutcome](context.Background(), m, b.Kernels(), 3, n, func(s mcmc.Sample[BowlingState, BowlingOutcome]) bool {
		v := value(s.State)
		for k := range v {
			sum[k] += v[k]
			sum2[k] += v[k] * v[k]
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	r := bowlPriors[0]
	type mom struct {
		name     string
		mean, vr float64
		tolM     float64 // in standard deviations of the variable
		tolV     float64 // relative
	}
	xm, xv := truncatedMoments(bowlPriors[2].mean, bowlPriors[2].sigma, bowlPriors[2].lo, bowlPriors[2].hi)
	wm, wv := truncatedMoments(bowlPriors[5].mean, bowlPriors[5].sigma, bowlPriors[5].lo, bowlPriors[5].hi)
	want := []mom{
		{"radius", (r.lo + r.hi) / 2, (r.hi - r.lo) * (r.hi - r.lo) / 12, 0.05, 0.05},
		{"x", xm, xv, 0.05, 0.05},
		{"spin x", wm, wv, 0.05, 0.05},
		{"pin 5 dz", 0, BowlingPinSigma * BowlingPinSigma, 0.05, 0.05},
	}
	for k, w := range want {
		mean := sum[k] / (n + 1)
		vr := sum2[k]/(n+1) - mean*mean
		sd := math.Sqrt(w.vr)
		if math.Abs(mean-w.mean) > w.tolM*sd || math.Abs(vr/w.vr-1) > w.tolV {
			t.Errorf("%s: chain mean %.5g, variance %.5g; prior %.5g, %.5g", w.name, mean, vr, w.mean, w.vr)
		}
	}
}

// TestBowlingChainFindsStrike runs a short chain for a strike.
func TestBowlingChainFindsStrike(t *testing.T) {
	b, _ := NewBowling("strike", 0)
	st, err := mcmc.Run[BowlingState, BowlingOutcome](context.Background(), b, b.Kernels(), 1, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.FirstSatisfied < 0 {
		t.Fatalf("no strike in %d iterations (acceptance %.2f)", st.Iterations, st.AcceptanceRate)
	}
	t.Logf("first strike at iteration %d, %.0f%% strikes after, acceptance %.2f, %.1f ms per iteration",
		st.FirstSatisfied, 100*st.SatisfiedAfter, st.AcceptanceRate, st.Wall.Seconds()*1000/float64(st.Iterations))
}

// TestBowlingRecord replays the pocket hit as an animation.
func TestBowlingRecord(t *testing.T) {
	b, _ := NewBowling("strike", 0)
	s := bowlPocket()
	o, _ := b.Simulate(s)
	a, err := b.Record(s, 30)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(a.Bodies) != 11 || len(a.Static) < 8 {
		t.Fatalf("%d bodies and %d static parts, want 11 and at least 8", len(a.Bodies), len(a.Static))
	}
	if nf, want := a.NumFrames(), int(o.Time*30)+1; nf < want-1 || nf > want+1 {
		t.Errorf("%d frames for %.3f s at 30 fps", nf, o.Time)
	}
	if p := a.Bodies[0].Positions[0]; p.Sub(mgl64.Vec3{s.X, s.Radius, BowlingStart}).Len() > 1e-12 {
		t.Errorf("ball starts at %v", p)
	}
	last := a.NumFrames() - 1
	if p := a.Bodies[0].Positions[last]; p.Sub(o.BallEnd).Len() > 0.1 {
		t.Errorf("ball ends at %v in the animation, %v in the outcome", p, o.BallEnd)
	}
	if _, err := b.Record(s, 0); err == nil {
		t.Error("frame rate 0 accepted")
	}
}

// BenchmarkBowlingSimulate measures one simulation of states drawn from
// the prior.
func BenchmarkBowlingSimulate(b *testing.B) {
	bw, _ := NewBowling("strike", 0)
	rng := rand.New(rand.NewPCG(3, 4))
	states := make([]BowlingState, 64)
	for i := range states {
		states[i] = bw.Init(rng)
	}
	steps := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o, err := bw.Simulate(states[i%len(states)])
		if err != nil {
			b.Fatal(err)
		}
		steps += o.Steps
	}
	b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
}
