package plausible

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gallop/solver/mcmc"
)

// switches is a model whose posterior is known in closed form: n objects,
// each on or off, a flat prior, and a Gibbs constraint λ^k on the number k
// of objects on. So each object is on independently with probability
// λ/(1+λ), and k is binomial.
type switches struct {
	n      int
	logLam float64
}

func (m switches) Init(rng *rand.Rand) []bool        { return make([]bool, m.n) }
func (m switches) LogPrior([]bool) float64           { return 0 }
func (m switches) Simulate(s []bool) ([]bool, error) { return s, nil }
func (m switches) Constraint(s []bool) mcmc.Score {
	k := 0
	for _, on := range s {
		if on {
			k++
		}
	}
	return mcmc.Score{LogLikelihood: float64(k) * m.logLam, Met: k, Of: m.n}
}

// binomialPMF returns P(k) for k = 0..n of Binomial(n, p).
func binomialPMF(n int, p float64) []float64 {
	pmf := make([]float64, n+1)
	for k := range pmf {
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
		pmf[k] = math.Exp(lg(n) - lg(k) - lg(n-k) + float64(k)*math.Log(p) + float64(n-k)*math.Log1p(-p))
	}
	return pmf
}

// chainHistogram runs the birth-death kernel alone and returns the
// frequency of each number of objects on.
func chainHistogram(t *testing.T, m switches, propose func(*rand.Rand, []bool) ([]bool, float64), iterations int) []float64 {
	t.Helper()
	hist := make([]float64, m.n+1)
	k := []mcmc.Kernel[[]bool]{{Name: "birth-death", Weight: 1, Propose: propose}}
	_, err := mcmc.Run(context.Background(), m, k, 11, iterations, func(s mcmc.Sample[[]bool, []bool]) bool {
		hist[s.Score.Met]++
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range hist {
		hist[i] /= float64(iterations + 1)
	}
	return hist
}

// TestBirthDeathDetailedBalance: with the proposal ratio of birthDeath the
// chain samples the closed-form posterior; without it (a plain flip
// treated as symmetric) it does not, so the test can fail.
func TestBirthDeathDetailedBalance(t *testing.T) {
	m := switches{n: 6, logLam: 0.5}
	lam := math.Exp(m.logLam)
	want := binomialPMF(m.n, lam/(1+lam))
	const iterations = 400_000
	got := chainHistogram(t, m, func(rng *rand.Rand, s []bool) ([]bool, float64) { return birthDeath(rng, s, 0.3) }, iterations)
	worst := 0.0
	for k := range want {
		worst = math.Max(worst, math.Abs(got[k]-want[k]))
	}
	t.Logf("P(k on): chain %.4f, closed form %.4f; largest difference %.4f", got, want, worst)
	if worst > 0.01 {
		t.Errorf("birth-death chain misses the posterior by %.4f", worst)
	}
	wrong := chainHistogram(t, m, func(rng *rand.Rand, s []bool) ([]bool, float64) {
		next, _ := birthDeath(rng, s, 0.3)
		return next, 0
	}, iterations)
	bad := 0.0
	for k := range want {
		bad = math.Max(bad, math.Abs(wrong[k]-want[k]))
	}
	t.Logf("without the ratio: %.4f, largest difference %.4f", wrong, bad)
	if bad < 0.03 {
		t.Errorf("dropping the proposal ratio changed the distribution by only %.4f: the test cannot tell", bad)
	}
}
