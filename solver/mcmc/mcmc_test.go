package mcmc

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// gauss is a model whose posterior is known: prior x ~ N(0, 1), constraint
// likelihood N(x; 2, 0.5²), so x | C ~ N(1.6, 0.2).
type gauss struct{}

func (gauss) Init(rng *rand.Rand) float64         { return rng.NormFloat64() }
func (gauss) LogPrior(x float64) float64          { return -0.5 * x * x }
func (gauss) Simulate(x float64) (float64, error) { return x, nil }
func (gauss) Constraint(x float64) Score {
	d := (x - 2) / 0.5
	return Score{LogLikelihood: -0.5 * d * d, Of: 1, Met: b2i(math.Abs(x-2) < 0.5), Satisfied: math.Abs(x-2) < 0.5}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// kernels mixes a symmetric random walk with an asymmetric independence
// proposal from N(0, 2²), whose ratio log q(cur) − log q(cand) must be
// right for the chain to sample the posterior.
func gaussKernels() []Kernel[float64] {
	logq := func(x float64) float64 { return -0.5 * (x / 2) * (x / 2) }
	return []Kernel[float64]{
		{Name: "walk", Weight: 2, Propose: func(rng *rand.Rand, x float64) (float64, float64) {
			return x + 0.7*(2*rng.Float64()-1), 0
		}},
		{Name: "independent", Weight: 1, Propose: func(rng *rand.Rand, x float64) (float64, float64) {
			c := 2 * rng.NormFloat64()
			return c, logq(x) - logq(c)
		}},
	}
}

// TestPosteriorMoments: the chain's samples have the posterior's mean and
// variance.
func TestPosteriorMoments(t *testing.T) {
	var sum, sum2 float64
	n := 0
	const burn = 1000
	st, err := Run(context.Background(), gauss{}, gaussKernels(), 7, 200_000, func(s Sample[float64, float64]) bool {
		if s.Iteration >= burn {
			sum += s.State
			sum2 += s.State * s.State
			n++
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	mean := sum / float64(n)
	variance := sum2/float64(n) - mean*mean
	t.Logf("mean %.4f (want 1.6), variance %.4f (want 0.2), acceptance %.2f, kernels proposed %v taken %v", mean, variance, st.AcceptanceRate, st.Proposed, st.Taken)
	if math.Abs(mean-1.6) > 0.02 || math.Abs(variance-0.2) > 0.01 {
		t.Errorf("posterior mean %.4f variance %.4f, want 1.6 and 0.2", mean, variance)
	}
	if st.Taken[1] == 0 || st.Taken[0] == 0 {
		t.Errorf("a kernel was never accepted: %v", st.Taken)
	}
}

// TestWrongRatioIsCaught: the same independence proposal without its
// ratio samples the wrong distribution, so the moment test above can fail.
func TestWrongRatioIsCaught(t *testing.T) {
	k := gaussKernels()[1:]
	inner := k[0].Propose
	k[0].Propose = func(rng *rand.Rand, x float64) (float64, float64) {
		c, _ := inner(rng, x)
		return c, 0
	}
	var sum float64
	n := 0
	if _, err := Run(context.Background(), gauss{}, k, 7, 100_000, func(s Sample[float64, float64]) bool {
		sum += s.State
		n++
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if n != 100_001 { // the initial state, then one per iteration
		t.Fatalf("the chain returned %d samples, want 100001", n)
	}
	if mean := sum / float64(n); math.IsNaN(mean) || math.Abs(mean-1.6) < 0.05 {
		t.Errorf("a proposal without its ratio still gave mean %.3f: the test cannot tell", mean)
	}
}

func TestSameSeedSameChain(t *testing.T) {
	run := func() []float64 {
		var xs []float64
		if _, err := Run(context.Background(), gauss{}, gaussKernels(), 3, 500, func(s Sample[float64, float64]) bool {
			xs = append(xs, s.State, s.LogP)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return xs
	}
	a, b := run(), run()
	if len(a) != 2*501 || len(b) != 2*501 { // the initial state, then one per iteration
		t.Fatalf("the chains returned %d and %d values, want %d each", len(a), len(b), 2*501)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("entry %d differs: %v vs %v", i, a[i], b[i])
		}
	}
}

func TestRunErrors(t *testing.T) {
	k := gaussKernels()
	for i := range k {
		k[i].Weight = 0
	}
	if _, err := Run(context.Background(), gauss{}, k, 1, 10, nil); !errors.Is(err, ErrNoKernel) {
		t.Errorf("zero weights: %v", err)
	}
	k[0].Weight = math.NaN()
	if _, err := Run(context.Background(), gauss{}, k, 1, 10, nil); err == nil {
		t.Error("NaN weight accepted")
	}
	if _, err := Chains(context.Background(), gauss{}, gaussKernels(), nil, 10, nil); err == nil {
		t.Error("no chains accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, gauss{}, gaussKernels(), 1, 10, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: %v", err)
	}
}

// TestChainPanicIsAnError: a kernel that panics in one chain stops the
// run with an error naming the panic and the chain; the process lives.
func TestChainPanicIsAnError(t *testing.T) {
	k := gaussKernels()
	walk := k[0].Propose
	k[0].Propose = func(rng *rand.Rand, x float64) (float64, float64) {
		if x > 1.5 {
			panic("test: a kernel bug")
		}
		return walk(rng, x)
	}
	_, err := Chains(context.Background(), gauss{}, k, []uint64{1, 2}, 100_000, nil)
	if err == nil || !strings.Contains(err.Error(), "panic") || !strings.Contains(err.Error(), "a kernel bug") || !strings.Contains(err.Error(), "chain ") {
		t.Fatalf("err = %v; want the panic reported as the chain's error", err)
	}
}

// TestKeeperDistinct keeps satisfying, accepted samples once and picks
// outcomes farther apart than Same.
func TestKeeperDistinct(t *testing.T) {
	k := &Keeper[float64, float64]{Distance: func(a, b float64) float64 { return math.Abs(a - b) }, Same: 0.1}
	_, err := Chains(context.Background(), gauss{}, gaussKernels(), []uint64{1, 2}, 5000, func(c int, s Sample[float64, float64]) bool {
		k.Offer(c, s)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if k.Len() < 100 {
		t.Fatalf("kept %d samples", k.Len())
	}
	// The satisfying interval (1.5, 2.5) holds at most 10 points more
	// than 0.1 apart; greedy selection from an arbitrary first finds 5-9.
	d := k.Distinct(8)
	if len(d) < 5 {
		t.Fatalf("%d distinct samples, want at least 5", len(d))
	}
	for i := range d {
		if math.Abs(d[i].Outcome-2) >= 0.5 {
			t.Errorf("kept a sample that does not satisfy: %v", d[i].Outcome)
		}
		for j := i + 1; j < len(d); j++ {
			if math.Abs(d[i].Outcome-d[j].Outcome) <= 0.1 {
				t.Errorf("samples %v and %v are not distinct", d[i].Outcome, d[j].Outcome)
			}
		}
	}
}
