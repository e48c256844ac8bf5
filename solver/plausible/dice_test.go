package plausible

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/mcmc"
)

// flatDice returns a state with every latent 0: a flat table (μ = 0.4,
// e = 0.4 everywhere) and the mean throw, unrotated.
func flatDice() DiceState {
	n := DiceControlPoints * DiceControlPoints
	return DiceState{Heights: make([]float64, n), Friction: make([]float64, n), Bounce: make([]float64, n)}
}

// cloneDice returns a copy of s sharing nothing and without a memo.
func cloneDice(s DiceState) DiceState {
	return DiceState{Heights: slices.Clone(s.Heights), Friction: slices.Clone(s.Friction), Bounce: slices.Clone(s.Bounce), Initial: s.Initial}
}

// TestDiceFlatTable: a die dropped on a flat table comes to rest on a
// face, its centre half a side above the table; dropped straight down
// without rotation it lands on its −Y face and shows 2.
func TestDiceFlatTable(t *testing.T) {
	d := NewDice()
	drop := flatDice()
	drop.Initial[7] = -DiceThrowVelocity[0] / DiceVelSigma // no horizontal velocity
	thrown := flatDice()
	thrown.Initial[3], thrown.Initial[4], thrown.Initial[5], thrown.Initial[6] = 0.3, 0.5, -0.2, 0.8
	thrown.Initial[10], thrown.Initial[12] = 1, -1 // 8 rad/s of spin about x and z
	for _, c := range []struct {
		name string
		s    DiceState
		face int
	}{{"dropped", drop, 2}, {"thrown", thrown, 0}} {
		o, err := d.Simulate(c.s)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: rests at %.4f after %.2f s showing %d", c.name, o.Pos, o.Time, o.Face)
		if !o.AtRest || o.OffTable {
			t.Errorf("%s: at rest %v, off the table %v", c.name, o.AtRest, o.OffTable)
		}
		if math.Abs(o.Pos[1]-DiceSide/2) > 0.0005 {
			t.Errorf("%s: rests with its centre at y = %.5f m, want %.4f (half a side)", c.name, o.Pos[1], DiceSide/2)
		}
		axis, sign := DiceFaceAxis(o.Face)
		var n mgl64.Vec3
		n[axis] = sign
		if up := o.Rot.Rotate(n)[1]; up < 0.9999 {
			t.Errorf("%s: face %d's normal has up component %.5f: not flat on a face", c.name, o.Face, up)
		}
		if c.face != 0 && o.Face != c.face {
			t.Errorf("%s: shows %d, want %d", c.name, o.Face, c.face)
		}
		if c.name == "dropped" && math.Abs(o.Pos[0]-DiceThrowFrom[0]) > 1e-3 {
			t.Errorf("dropped straight down but rests at x = %.4f, want %.4f", o.Pos[0], DiceThrowFrom[0])
		}
	}
}

// TestDiceDeterminism: the same state gives bitwise the same outcome,
// one after the other and on two goroutines at once.
func TestDiceDeterminism(t *testing.T) {
	d := NewDice()
	s := d.Init(mcmc.NewRand(7))
	want, err := d.Simulate(cloneDice(s))
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b DiceOutcome) bool {
		return a.Pos == b.Pos && a.Rot == b.Rot && a.Path == b.Path && a.Time == b.Time && a.Face == b.Face && *a.touched == *b.touched
	}
	var wg sync.WaitGroup
	got := make([]DiceOutcome, 3)
	for g := range got {
		wg.Go(func() { got[g], _ = d.Simulate(cloneDice(s)) })
	}
	wg.Wait()
	for g, o := range got {
		if !same(o, want) {
			t.Errorf("run %d differs: %v / %v, want %v / %v", g, o.Pos, o.Rot, want.Pos, want.Rot)
		}
	}
}

// TestDiceSpline: the B-spline reproduces constants and linear functions
// (control point a sits at x = −size/2 + (a−1)·spacing), and its values
// stay within the control values' range.
func TestDiceSpline(t *testing.T) {
	const m = DiceControlPoints
	c := make([]float64, m*m)
	for b := 0; b < m; b++ {
		for a := 0; a < m; a++ {
			x := -DiceTableSize/2 + float64(a-1)*DiceControlSpacing
			z := -DiceTableSize/2 + float64(b-1)*DiceControlSpacing
			c[b*m+a] = 2 + 3*x - 5*z
		}
	}
	n := DiceHeightSamples
	v := DiceSpline(c, n)
	for j := 0; j < n; j += 7 {
		for i := 0; i < n; i += 5 {
			x := -DiceTableSize/2 + float64(i)*DiceTableSize/float64(n-1)
			z := -DiceTableSize/2 + float64(j)*DiceTableSize/float64(n-1)
			if want := 2 + 3*x - 5*z; math.Abs(v[j*n+i]-want) > 1e-12 {
				t.Fatalf("sample (%d, %d): %v, want %v", i, j, v[j*n+i], want)
			}
		}
	}
	rng := mcmc.NewRand(3)
	for k := range c {
		c[k] = rng.Float64()
	}
	for _, y := range DiceSpline(c, 4*DiceSpans+1) {
		if y < 0 || y > 1 {
			t.Fatalf("spline value %v outside the control values' range [0, 1]", y)
		}
	}
}

// TestDiceFaces: the layout has opposite faces summing to 7 and 1, 2, 3
// counter-clockwise about their corner (right-handed); rotating face f to
// the top shows f.
func TestDiceFaces(t *testing.T) {
	normal := func(f int) mgl64.Vec3 {
		axis, sign := DiceFaceAxis(f)
		var n mgl64.Vec3
		n[axis] = sign
		return n
	}
	for f := 1; f <= 6; f++ {
		if normal(f).Add(normal(7-f)).Len() != 0 {
			t.Errorf("faces %d and %d are not opposite", f, 7-f)
		}
		// The rotation taking face f's normal to +Y.
		n := normal(f)
		var q mgl64.Quat
		if n[1] < -0.5 {
			q = mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0})
		} else {
			q = mgl64.QuatBetweenVectors(n, mgl64.Vec3{0, 1, 0})
		}
		q = q.Mul(mgl64.QuatRotate(0.3, n)) // any spin about the normal
		if got := DiceFaceUp(q); got != f {
			t.Errorf("face %d turned up shows %d", f, got)
		}
	}
	if normal(1).Cross(normal(2)).Sub(normal(3)).Len() != 0 {
		t.Error("1 × 2 ≠ 3: the layout is not right-handed")
	}
}

// TestDiceProposals: the random walks change one latent by at most their
// step and report log q-ratio 0; change-everything reports
// log p_w(cur) − log p_w(cand); none modifies the current state.
func TestDiceProposals(t *testing.T) {
	d := NewDice()
	rng := mcmc.NewRand(11)
	cur := d.Init(rng)
	keep := cloneDice(cur)
	flat := func(s DiceState) []float64 {
		return slices.Concat(s.Heights, s.Friction, s.Bounce, s.Initial[:])
	}
	ks := d.Kernels()
	if len(ks) != 3 || ks[0].Name != "one-point" || ks[1].Name != "one-initial-condition" || ks[2].Name != "change-everything" {
		t.Fatalf("kernels %v", ks)
	}
	for i := 0; i < 200; i++ {
		for ki, k := range ks {
			cand, lr := k.Propose(rng, cur)
			a, b := flat(cur), flat(cand)
			changed := 0
			for j := range a {
				if a[j] != b[j] {
					changed++
					step := d.PointStep
					if j >= len(a)-DiceInitial {
						step = d.InitialStep
					}
					if ki < 2 && math.Abs(a[j]-b[j]) > step {
						t.Fatalf("%s changed latent %d by %v, more than its step %v", k.Name, j, b[j]-a[j], step)
					}
					if ki == 0 && j >= len(a)-DiceInitial || ki == 1 && j < len(a)-DiceInitial {
						t.Fatalf("%s changed latent %d", k.Name, j)
					}
				}
			}
			switch ki {
			case 0, 1:
				if changed != 1 || lr != 0 {
					t.Fatalf("%s changed %d latents with log ratio %v, want 1 and 0", k.Name, changed, lr)
				}
			case 2:
				if want := d.LogPrior(cur) - d.LogPrior(cand); lr != want || changed < len(a)-5 {
					t.Fatalf("change-everything: log ratio %v, want %v; %d latents changed", lr, want, changed)
				}
			}
		}
	}
	if !slices.Equal(flat(cur), flat(keep)) {
		t.Fatal("a proposal modified the current state")
	}
}

// dicePriorOnly is the dice model with the constraint switched off and no
// physics: a chain of it samples the prior, whatever the kernels'
// weights, if and only if their q-ratios are right.
type dicePriorOnly struct{ *Dice }

func (p dicePriorOnly) Simulate(DiceState) (DiceOutcome, error) { return DiceOutcome{}, nil }
func (p dicePriorOnly) Constraint(DiceOutcome) mcmc.Score       { return mcmc.Score{} }

// TestDicePriorMoments: with the constraint off, the chain's samples of
// an initial-condition latent, a control point's friction and another's
// height have the prior's mean and variance (the independence proposal
// needs its prior ratio, without which the chain would sample p_w², a
// variance of ½); and a chain of change-everything alone accepts every
// candidate.
func TestDicePriorMoments(t *testing.T) {
	d := NewDice()
	d.OnePointWeight, d.OneInitialWeight, d.ChangeAllWeight = 0.5, 0.3, 0.2
	k := 100 // a control point
	var x, mu, h []float64
	_, err := mcmc.Run(context.Background(), dicePriorOnly{d}, d.Kernels(), 5, 60000, func(s mcmc.Sample[DiceState, DiceOutcome]) bool {
		x = append(x, s.State.Throw().Pos[0])
		mu = append(mu, DiceFriction*math.Exp(DiceFrictionLogSigma*s.State.Friction[k]))
		h = append(h, DiceHeightSigma*s.State.Heights[k+1])
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	moments := func(v []float64) (mean, sd float64) {
		for _, a := range v {
			mean += a
		}
		mean /= float64(len(v))
		for _, a := range v {
			sd += (a - mean) * (a - mean)
		}
		return mean, math.Sqrt(sd / float64(len(v)))
	}
	s2 := DiceFrictionLogSigma * DiceFrictionLogSigma
	muMean := DiceFriction * math.Exp(s2/2)
	for _, c := range []struct {
		name          string
		v             []float64
		mean, sd, tol float64
	}{
		{"initial x (m)", x, DiceThrowFrom[0], DicePosSigma, 0.06},
		{"friction", mu, muMean, muMean * math.Sqrt(math.Exp(s2)-1), 0.06},
		{"height (m)", h, 0, DiceHeightSigma, 0.06},
	} {
		m, sd := moments(c.v)
		t.Logf("%s: mean %.5f sd %.5f; prior %.5f, %.5f", c.name, m, sd, c.mean, c.sd)
		if math.Abs(m-c.mean) > c.tol*c.sd || math.Abs(sd/c.sd-1) > c.tol {
			t.Errorf("%s: mean %.5f and sd %.5f, prior's %.5f and %.5f", c.name, m, sd, c.mean, c.sd)
		}
	}
	d.OnePointWeight, d.OneInitialWeight = 0, 0
	st, err := mcmc.Run(context.Background(), dicePriorOnly{d}, d.Kernels(), 6, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.AcceptanceRate != 1 {
		t.Errorf("change-everything alone with the constraint off accepts %.3f of its candidates, want all", st.AcceptanceRate)
	}
}

// TestDiceValidate: bad settings give errors that say what is wrong.
func TestDiceValidate(t *testing.T) {
	if err := NewDice().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(d *Dice)
		want string
	}{
		{"face 0", func(d *Dice) { d.Face = 0 }, "face 0 does not exist"},
		{"face 7", func(d *Dice) { d.Face = 7 }, "face 7 does not exist"},
		{"λ = 1", func(d *Dice) { d.Lambda = 1 }, "greater than 1"},
		{"λ = 0.5", func(d *Dice) { d.Lambda = 0.5 }, "greater than 1"},
		{"λ NaN", func(d *Dice) { d.Lambda = math.NaN() }, "greater than 1"},
		{"target off the table", func(d *Dice) { d.Target = [2]float64{0.5, 0} }, "off the table"},
		{"target off the edge", func(d *Dice) { d.Target = [2]float64{0, -0.399} }, "off the table"},
		{"target NaN", func(d *Dice) { d.Target[1] = math.NaN() }, "not a point"},
		{"σ = 0", func(d *Dice) { d.Sigma = 0 }, "σ"},
		{"σ < 0", func(d *Dice) { d.Sigma = -0.01 }, "σ"},
		{"tolerance 0", func(d *Dice) { d.Tolerance = 0 }, "tolerance"},
		{"no weights", func(d *Dice) { d.OnePointWeight, d.OneInitialWeight, d.ChangeAllWeight = 0, 0, 0 }, "every proposal weight is 0"},
		{"negative weight", func(d *Dice) { d.ChangeAllWeight = -1 }, "weights"},
		{"step 0", func(d *Dice) { d.PointStep = 0 }, "step"},
	} {
		d := NewDice()
		c.edit(d)
		err := d.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
	if _, err := NewDice().Simulate(DiceState{}); err == nil {
		t.Error("a state without control points simulated")
	}
}

// TestDiceRecord: the replay is a valid animation that starts at the
// throw and ends at the outcome, the pips move with the die, and the
// table is a closed surface.
func TestDiceRecord(t *testing.T) {
	d := NewDice()
	s := d.Init(mcmc.NewRand(2))
	o, err := d.Simulate(s)
	if err != nil {
		t.Fatal(err)
	}
	a, err := d.Record(s, 60)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	die, pips := a.Bodies[0], a.Bodies[1]
	if p := die.Positions[0]; p != s.Throw().Pos {
		t.Errorf("first frame at %v, thrown from %v", p, s.Throw().Pos)
	}
	if p := die.Positions[len(die.Positions)-1]; p != o.Pos {
		t.Errorf("last frame at %v, the die ends at %v", p, o.Pos)
	}
	if want := o.Time * 60; math.Abs(float64(a.NumFrames()-1)-want) > 1 {
		t.Errorf("%d frames for %.3f s at 60 fps", a.NumFrames(), o.Time)
	}
	if !slices.Equal(die.Positions, pips.Positions) || !slices.Equal(die.Rotations, pips.Rotations) {
		t.Error("the pips do not move with the die")
	}
	if got := len(pips.Shape.Pieces); got != 21 {
		t.Errorf("%d pips, want 21", got)
	}
	// Closed and consistently oriented: every directed edge once, and
	// its reverse once.
	table := a.Static[0].Shape
	edges := map[[2]int]int{}
	for _, tri := range table.Triangles {
		for c := 0; c < 3; c++ {
			edges[[2]int{tri[c], tri[(c+1)%3]}]++
		}
	}
	for e, n := range edges {
		if n != 1 || edges[[2]int{e[1], e[0]}] != 1 {
			t.Fatalf("table edge %v used %d times, its reverse %d times", e, n, edges[[2]int{e[1], e[0]}])
		}
	}
	// The top faces up.
	tri := table.Triangles[0]
	p := table.Positions
	if n := p[tri[1]].Sub(p[tri[0]]).Cross(p[tri[2]].Sub(p[tri[0]])); n[1] <= 0 {
		t.Errorf("the table's top faces %v", n)
	}
	if _, err := d.Record(s, 0); err == nil {
		t.Error("frame rate 0 accepted")
	}
}

// TestDiceReuseExact: a one-point proposal that reuses the current
// outcome (its control point never came near the die) gives what a fresh
// simulation gives, bitwise.
func TestDiceReuseExact(t *testing.T) {
	d := NewDice()
	rng := mcmc.NewRand(4)
	cur := d.Init(rng)
	if _, err := d.Simulate(cur); err != nil {
		t.Fatal(err)
	}
	reused, checked := 0, 0
	for i := 0; i < 400 && checked < 25; i++ {
		cand, _ := d.onePoint(rng, cur)
		if cand.memo.out.Load() == nil {
			continue
		}
		reused++
		if reused%8 != 1 {
			continue
		}
		checked++
		memo, _ := d.Simulate(cand)
		fresh, err := d.Simulate(cloneDice(cand))
		if err != nil {
			t.Fatal(err)
		}
		if fresh.Pos != memo.Pos || fresh.Rot != memo.Rot || fresh.Path != memo.Path || fresh.Time != memo.Time {
			t.Fatalf("reused outcome %v differs from the fresh simulation's %v", memo.Pos, fresh.Pos)
		}
		cur = cand // walk on, so that the changes accumulate
	}
	t.Logf("%d of 400 one-point candidates reused the outcome; %d checked", reused, checked)
	if checked < 10 {
		t.Errorf("only %d reuses checked", checked)
	}
}

// TestDiceChain: chains find a throw that rests within 1.5 cm of the
// target with 6 up, each within 1,500 iterations (a few seconds).
func TestDiceChain(t *testing.T) {
	d := NewDice()
	seeds := []uint64{1, 2}
	var mu sync.Mutex
	found := make([]DiceState, len(seeds))
	stats, err := mcmc.Chains(context.Background(), d, d.Kernels(), seeds, 1500, func(c int, s mcmc.Sample[DiceState, DiceOutcome]) bool {
		if s.Score.Satisfied {
			mu.Lock()
			found[c] = s.State
			mu.Unlock()
			return false
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for c, st := range stats {
		t.Logf("seed %d: first satisfied at %d after %v, acceptance %.2f, proposed %v, accepted %v", seeds[c], st.FirstSatisfied, st.Wall, st.AcceptanceRate, st.Proposed, st.Taken)
		if st.FirstSatisfied < 0 {
			t.Errorf("seed %d: no satisfying throw in 1,500 iterations", seeds[c])
			continue
		}
		// A fresh simulation of the state agrees.
		o, err := d.Simulate(cloneDice(found[c]))
		if err != nil {
			t.Fatal(err)
		}
		if sc := d.Constraint(o); !sc.Satisfied || o.Face != 6 || d.TargetDistance(o) > d.Tolerance {
			t.Errorf("seed %d: the satisfying state, simulated afresh, rests %.4f m away showing %d", seeds[c], d.TargetDistance(o), o.Face)
		}
	}
}

// BenchmarkDiceSimulate measures one simulation of a throw drawn from the
// prior (building the table and stepping until the die rests).
func BenchmarkDiceSimulate(b *testing.B) {
	d := NewDice()
	rng := rand.New(rand.NewPCG(1, 2))
	states := make([]DiceState, 16)
	for i := range states {
		states[i] = cloneDice(d.Init(rng))
	}
	b.ResetTimer()
	simulated := 0.0
	for i := 0; i < b.N; i++ {
		o, err := d.Simulate(states[i%len(states)])
		if err != nil {
			b.Fatal(err)
		}
		simulated += o.Time
	}
	b.ReportMetric(simulated/float64(b.N), "sim-s/op")
}
