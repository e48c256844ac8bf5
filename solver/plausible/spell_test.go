package plausible

import (
	"context"
	"math"
	"testing"

	"gallop/solver/mcmc"

	"github.com/go-gl/mathgl/mgl64"
)

func hiSpell(t testing.TB) *Spell {
	t.Helper()
	s, err := NewSpell("HI", SpellLetters["HI"], 0)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSpellCentredDrops drops every ball straight above the centre of its
// own designated bin on flat partitions: each lands in its bin and the
// word is spelt.
func TestSpellCentredDrops(t *testing.T) {
	s := hiSpell(t)
	o, err := s.Simulate(s.Ideal())
	if err != nil {
		t.Fatal(err)
	}
	if o.Filled != s.NumBalls() || o.Wrong != 0 || !o.AtRest {
		t.Fatalf("filled %d of %d, %d wrong, at rest %v after %.2f s", o.Filled, s.NumBalls(), o.Wrong, o.AtRest, o.Time)
	}
	if sc := s.Constraint(o); !sc.Satisfied || math.Abs(sc.LogLikelihood-10*5) > 1e-9 {
		t.Errorf("score %+v", sc)
	}
	t.Logf("%d steps, %.2f s simulated", o.Steps, o.Time)
}

// BenchmarkSpellSimulate simulates states drawn from the prior: "HI" (10
// balls on 7 × 5 bins) and "ACM" (30 balls on 15 × 7).
func BenchmarkSpellSimulate(b *testing.B) {
	for _, word := range []string{"HI", "ACM"} {
		b.Run(word, func(b *testing.B) {
			s, err := NewSpell(word, SpellLetters[word], 0)
			if err != nil {
				b.Fatal(err)
			}
			rng := mcmc.NewRand(3)
			states := make([]SpellState, 16)
			for i := range states {
				states[i] = s.Init(rng)
			}
			b.ResetTimer()
			steps := 0
			for i := 0; i < b.N; i++ {
				o, err := s.Simulate(states[i%len(states)])
				if err != nil {
					b.Fatal(err)
				}
				steps += o.Steps
			}
			b.ReportMetric(float64(steps)/float64(b.N), "steps/op")
		})
	}
}

// TestSpellDeterministic simulates the same state twice and on another
// goroutine at once: bitwise the same resting positions.
func TestSpellDeterministic(t *testing.T) {
	s := hiSpell(t)
	st := s.Init(mcmc.NewRand(5))
	a, err := s.Simulate(st)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan SpellOutcome)
	go func() {
		o, _ := s.Simulate(st)
		done <- o
	}()
	b, _ := s.Simulate(st)
	c := <-done
	for i := range a.Final {
		if a.Final[i] != b.Final[i] || a.Final[i] != c.Final[i] {
			t.Fatalf("ball %d rests at %v, %v and %v", i, a.Final[i], b.Final[i], c.Final[i])
		}
	}
	if a.Steps != b.Steps || a.Filled != c.Filled {
		t.Errorf("steps %d/%d, filled %d/%d", a.Steps, b.Steps, a.Filled, c.Filled)
	}
}

// priorOnly is Spell with the simulator and the constraint switched off:
// a chain over it must sample the prior, which checks the kernels'
// Metropolis-Hastings ratios.
type priorOnly struct{ *Spell }

func (p priorOnly) Simulate(SpellState) (SpellOutcome, error) { return SpellOutcome{}, nil }
func (p priorOnly) Constraint(SpellOutcome) mcmc.Score        { return mcmc.Score{} }

func TestSpellKernelsSamplePrior(t *testing.T) {
	s := hiSpell(t)
	s.Weights = SpellWeights{ChangeAll: 0.1, Partitions: 0.3, Ball: 0.3, BirthDeath: 0.3}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	m := priorOnly{s}
	const n = 200000
	var off, off2, x2, on float64
	count := 0
	_, err := mcmc.Run(context.Background(), m, s.Kernels(), 9, n, func(smp mcmc.Sample[SpellState, SpellOutcome]) bool {
		if smp.Iteration < 1000 {
			return true
		}
		count++
		o := smp.State.Offsets[7]
		off += o
		off2 += o * o
		for b, a := range smp.State.Active {
			if a {
				on++
				if b == 0 {
					x2 += smp.State.Drops[0][0] * smp.State.Drops[0][0]
				}
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	nf := float64(count)
	sd := math.Sqrt(off2/nf) / SpellVertexSigma
	onFrac := on / nf / float64(s.NumBalls())
	hx, _ := s.extent()
	half := hx - SpellBallRadius
	// Ball 0's drop x is uniform on (−half, half) while it is on: E x² = half²/3.
	active0 := onFrac * nf // about the iterations ball 0 is on
	rx := math.Sqrt(x2/active0) / (half / math.Sqrt(3))
	t.Logf("offset mean %.4f σ, sd %.3f σ; active fraction %.3f; drop x rms %.3f of the prior's", off/nf/SpellVertexSigma, sd, onFrac, rx)
	if math.Abs(off/nf)/SpellVertexSigma > 0.05 || math.Abs(sd-1) > 0.05 {
		t.Errorf("partition offset: mean %.4f σ, sd %.3f σ; want 0, 1", off/nf/SpellVertexSigma, sd)
	}
	if math.Abs(onFrac-0.5) > 0.03 {
		t.Errorf("active fraction %.3f, want 0.5 (uniform prior on the flags)", onFrac)
	}
	if math.Abs(rx-1) > 0.1 {
		t.Errorf("drop x rms %.3f of the uniform prior's", rx)
	}
}

func TestSpellBadInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		rows   []string
		lambda float64
		balls  int
	}{
		{"no rows", nil, 0, 0},
		{"ragged", []string{"x..", "x."}, 0, 0},
		{"bad character", []string{"x.o"}, 0, 0},
		{"nothing to fill", []string{"..."}, 0, 0},
		{"λ = 1", []string{"x.."}, 1, 0},
		{"λ < 1", []string{"x.."}, 0.5, 0},
		{"more bins than balls", []string{"xxx"}, 0, 2},
	} {
		s, err := NewSpell(c.name, c.rows, c.lambda)
		if err == nil && c.balls != 0 {
			s.Balls = c.balls
			err = s.Validate()
		}
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// TestSpellRecord records a state: one body per active ball, every frame
// valid, the balls at rest where the simulation left them.
func TestSpellRecord(t *testing.T) {
	s := hiSpell(t)
	st := s.Init(mcmc.NewRand(2))
	st.Active[3] = false
	a, err := s.Record(st, 30)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Bodies) != s.NumBalls()-1 {
		t.Fatalf("%d bodies, want %d", len(a.Bodies), s.NumBalls()-1)
	}
	o, _ := s.Simulate(st)
	last := a.Bodies[3].Positions[a.NumFrames()-1] // ball 5 (index 4)
	if last.Sub(o.Final[4]).Len() > 0.01 {
		t.Errorf("recorded end %v, simulated %v", last, o.Final[4])
	}
}

// TestSpellChainsFindWord runs short chains on a small word ("V" on 3 × 2
// bins): each spells it, and keeps distinct solutions.
func TestSpellChainsFindWord(t *testing.T) {
	s, err := NewSpell("V", []string{"x.x", ".x."}, math.Exp(5))
	if err != nil {
		t.Fatal(err)
	}
	keep := &mcmc.Keeper[SpellState, SpellOutcome]{Distance: s.Distance, Same: s.Same()}
	stats, err := mcmc.Chains(context.Background(), s, s.Kernels(), []uint64{1, 2, 3}, 800, func(c int, smp mcmc.Sample[SpellState, SpellOutcome]) bool {
		keep.Offer(c, smp)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for c, st := range stats {
		t.Logf("chain %d: first satisfied %d, %.0f%% after, acceptance %.2f, %v", c, st.FirstSatisfied, 100*st.SatisfiedAfter, st.AcceptanceRate, st.Wall)
		if st.FirstSatisfied < 0 {
			t.Errorf("chain %d never spelt the word", c)
		}
		if st.BestMet != 3 || st.Of != 3 {
			t.Errorf("chain %d: best %d of %d bins filled, want 3 of 3", c, st.BestMet, st.Of)
		}
	}
	if d := len(keep.Distinct(10)); d < 5 {
		t.Errorf("%d distinct solutions, want at least 5", d)
	}
}

// TestItem6SpellSatisfiedIsGeometric (issue 10, item 6): every satisfying
// sample of short "HI" chains is checked by a geometric test independent
// of the simulator's bookkeeping: each bin to fill holds a ball whose
// centre lies over the bin's green floor tile and below the tops of its
// partitions, or on the floor (partitions can be lower than a ball's
// radius). A ball on top of a partition, straddling one, or still in the
// air, fills nothing (issue 26, item 8).
func TestItem6SpellSatisfiedIsGeometric(t *testing.T) {
	s := hiSpell(t)
	hx, hz := s.extent()
	checked := 0
	_, err := mcmc.Chains(context.Background(), s, s.Kernels(), []uint64{1, 2}, 1800, func(c int, smp mcmc.Sample[SpellState, SpellOutcome]) bool {
		if !s.Constraint(smp.Outcome).Satisfied {
			return true
		}
		checked++
		st := smp.State
		for bin, want := range s.Designated {
			if !want {
				continue
			}
			col, row := bin%s.Cols, bin/s.Cols
			x0, z0 := -hx+SpellBin*float64(col), -hz+SpellBin*float64(row)
			top := math.Min(math.Min(s.height(st, col, row), s.height(st, col+1, row)), math.Min(s.height(st, col, row+1), s.height(st, col+1, row+1)))
			held := false
			for b, p := range smp.Outcome.Final {
				// Over the bin's green floor tile (the middle 80% each way,
				// as seen from above), not merely over the bin: a ball
				// straddling a low partition is over its bin's edge.
				tile := math.Abs(p[0]-(x0+SpellBin/2)) <= 0.4*SpellBin && math.Abs(p[2]-(z0+SpellBin/2)) <= 0.4*SpellBin
				if st.Active[b] && tile && (p[1] < top || p[1] < 1.5*SpellBallRadius) {
					held = true
				}
			}
			if !held {
				t.Errorf("chain %d, iteration %d counts as spelt, but bin (%d, %d) holds no ball below its partition tops (%.3f m); balls at %v",
					c, smp.Iteration, col, row, top, smp.Outcome.Final)
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked == 0 {
		t.Fatal("no satisfying sample in 2 × 1,800 iterations to check")
	}
	t.Logf("%d satisfying samples checked", checked)
}

// TestSpellStraddlingBallFillsNothing (issue 26, item 8): with partitions
// at their lowest, a ball resting across a partition, its centre a
// millimetre from the partition's line, is low enough to count as on the
// floor, but it is over no bin's floor tile: it fills nothing. A ball
// resting in the middle of the bin fills it.
func TestSpellStraddlingBallFillsNothing(t *testing.T) {
	s := hiSpell(t)
	st := s.Ideal()
	for k := range st.Offsets {
		st.Offsets[k] = -1 // every partition at spellMinWallScale of its height
	}
	low := spellMinWallScale * SpellWallHeight
	x, z := s.corner(2, 2)
	for _, c := range []struct {
		name string
		p    mgl64.Vec3
		want bool
	}{
		{"in the middle, on the floor", mgl64.Vec3{x + SpellBin/2, SpellBallRadius, z + SpellBin/2}, true},
		{"across the partition at x, a millimetre inside", mgl64.Vec3{x + 0.001, low + SpellBallRadius, z + SpellBin/2}, false},
		{"across the partition at z, a millimetre inside", mgl64.Vec3{x + SpellBin/2, low + SpellBallRadius, z + 0.001}, false},
	} {
		if got := s.inBin(st, 2, 2, c.p); got != c.want {
			t.Errorf("%s (centre %v): in the bin %v, want %v", c.name, c.p, got, c.want)
		}
	}
}
