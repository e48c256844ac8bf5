package plausible

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"gallop/solver/mcmc"
)

// TestBall2DFlatTable: with every normal vertical the ball bounces in
// place, each hop's height half the last (normal speed scaled by 1/√2).
func TestBall2DFlatTable(t *testing.T) {
	b := NewBall2D()
	o, _ := b.Simulate(Ball2DState{})
	for i, x := range o.Hits {
		if x != 0 {
			t.Fatalf("collision %d at x = %v on a flat table", i, x)
		}
	}
	path, err := b.Trajectory(Ball2DState{}, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	// The first local maximum of the height after the drop is the first
	// hop's peak.
	peak := 0.0
	for i := 1; i+1 < len(path); i++ {
		if path[i][1] > path[i-1][1] && path[i][1] >= path[i+1][1] {
			peak = path[i][1]
			break
		}
	}
	if math.Abs(peak-Ball2DHeight/2) > 0.01 {
		t.Errorf("first hop peaks at %v, want %v", peak, Ball2DHeight/2)
	}
}

// TestBall2DBadTimeStep: a time step or frame rate that is zero,
// negative, NaN or infinite, or a step so small that the path would not
// fit in memory, is an error (a zero or negative step used to loop
// forever).
func TestBall2DBadTimeStep(t *testing.T) {
	b := NewBall2D()
	s := Ball2DState{3, -2, 5, 1, -4}
	for _, dt := range []float64{0, -0.01, math.NaN(), math.Inf(1), math.Inf(-1), 1e-300} {
		if _, err := b.Trajectory(s, dt); err == nil || !strings.Contains(err.Error(), "time step") {
			t.Errorf("Trajectory with time step %v: error %v", dt, err)
		}
	}
	for _, fps := range []float64{0, -30, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := b.Record(s, fps); err == nil || !strings.Contains(err.Error(), "frame rate") {
			t.Errorf("Record at %v fps: error %v", fps, err)
		}
	}
}

// TestBall2DRecord: the replay starts at the drop height, ends at the
// landing, and is a valid rigid animation.
func TestBall2DRecord(t *testing.T) {
	b := NewBall2D()
	s := Ball2DState{3, -2, 5, 1, -4}
	o, _ := b.Simulate(s)
	a, err := b.Record(s, 60)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	p := a.Bodies[0].Positions
	if math.Abs(p[0][1]-Ball2DHeight*Ball2DDiameter) > 1e-12 {
		t.Errorf("first frame at height %v", p[0][1])
	}
	last := p[len(p)-1]
	if math.Abs(last[0]-o.Landing()*Ball2DDiameter) > 1e-12 || last[1] != 0 {
		t.Errorf("last frame at %v, landing at x = %v", last, o.Landing()*Ball2DDiameter)
	}
	// Real time: a fall of 4.5 D = 0.9 m takes √(2·0.9/9.81) = 0.43 s,
	// 26 frames at 60 fps, before the first collision.
	fall := 0
	for fall < len(p) && p[fall][1] > p[fall+1][1] {
		fall++
	}
	if fall < 24 || fall > 28 {
		t.Errorf("the fall takes %d frames at 60 fps, want about 26", fall)
	}
}

// TestBall2DTiltedNormal: a normal tilted toward +x sends the ball toward
// +x, by the closed-form distance of one hop.
func TestBall2DTiltedNormal(t *testing.T) {
	b := NewBall2D()
	s := Ball2DState{10}
	o, _ := b.Simulate(s)
	// Impact speed √(2·4.5) straight down; after the collision
	// v' = v − (1 + 1/√2)(v·n)n with n = (sin θ, cos θ).
	v := -math.Sqrt(2 * Ball2DHeight)
	sin, cos := math.Sincos(10 * math.Pi / 180)
	vn := v * cos
	k := (1 + 1/math.Sqrt2) * vn
	vx, vy := -k*sin, v-k*cos
	want := vx * 2 * vy // flight time 2·vy/g with g = 1
	if math.Abs(o.Hits[1]-want) > 1e-12 {
		t.Errorf("second collision at %v, want %v", o.Hits[1], want)
	}
	if o.Landing() <= 0 {
		t.Errorf("landing at %v, want > 0", o.Landing())
	}
}

// TestBall2DAcceptance is the acceptance point 1: 20 chains of
// 1,000 iterations (seeds 1-20) from random normals; at least 18 come
// within 0.1·D of the target, the median chain within 50 iterations, after
// which at least half its samples lie within 0.1·D; 1,000 iterations take
// at most 50 ms.
func TestBall2DAcceptance(t *testing.T) {
	b := NewBall2D()
	seeds := make([]uint64, 20)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	var stats []mcmc.Stats
	for _, seed := range seeds {
		st, err := mcmc.Run(context.Background(), b, b.Kernels(), seed, 1000, nil)
		if err != nil {
			t.Fatal(err)
		}
		stats = append(stats, st)
	}
	reached := 0
	var firsts []int
	var walls []time.Duration
	for i, st := range stats {
		t.Logf("seed %2d: first within 0.1 D at %4d, then %.0f%% within, acceptance %.2f, %v", seeds[i], st.FirstSatisfied, 100*st.SatisfiedAfter, st.AcceptanceRate, st.Wall)
		walls = append(walls, st.Wall)
		if st.FirstSatisfied >= 0 {
			reached++
			firsts = append(firsts, st.FirstSatisfied)
		} else {
			firsts = append(firsts, math.MaxInt)
		}
	}
	slices.Sort(firsts)
	slices.Sort(walls)
	median := firsts[len(firsts)/2]
	t.Logf("%d of 20 chains reach the target; median first iteration %d; median wall time %v", reached, median, walls[len(walls)/2])
	if reached < 18 {
		t.Errorf("%d chains reached the target, want at least 18", reached)
	}
	if median > 50 {
		t.Errorf("median first iteration %d, want at most 50", median)
	}
	// The median chain (by first iteration) keeps at least half its
	// samples within 0.1·D afterwards.
	byFirst := slices.Clone(stats)
	slices.SortFunc(byFirst, func(a, b mcmc.Stats) int { return cmpFirst(a.FirstSatisfied, b.FirstSatisfied) })
	if m := byFirst[len(byFirst)/2]; m.SatisfiedAfter < 0.5 {
		t.Errorf("the median chain has %.0f%% of its samples within 0.1 D after the first, want at least 50%%", 100*m.SatisfiedAfter)
	}
}

func cmpFirst(a, b int) int {
	if a < 0 {
		a = math.MaxInt
	}
	if b < 0 {
		b = math.MaxInt
	}
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestChainDeterminism: the same seed gives the same chain, sample for
// sample, whether chains run alone or together.
func TestChainDeterminism(t *testing.T) {
	b := NewBall2D()
	record := func() [][]float64 {
		out := make([][]float64, 4)
		var mu = make(chan struct{}, 1)
		mu <- struct{}{}
		_, err := mcmc.Chains(context.Background(), b, b.Kernels(), []uint64{1, 2, 3, 4}, 300, func(c int, s mcmc.Sample[Ball2DState, Ball2DOutcome]) bool {
			<-mu
			out[c] = append(out[c], s.Outcome.Landing(), s.LogP)
			mu <- struct{}{}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, c := record(), record()
	for i := range a {
		if !slices.Equal(a[i], c[i]) {
			t.Fatalf("chain %d differs between runs", i)
		}
	}
	var alone []float64
	mcmc.Run(context.Background(), b, b.Kernels(), 3, 300, func(s mcmc.Sample[Ball2DState, Ball2DOutcome]) bool {
		alone = append(alone, s.Outcome.Landing(), s.LogP)
		return true
	})
	if !slices.Equal(alone, a[2]) {
		t.Fatal("chain with seed 3 differs when run alone")
	}
}
