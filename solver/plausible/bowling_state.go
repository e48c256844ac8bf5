package plausible

// The bowling world's random variables: the state, its priors and the
// proposals that sample them (Section 5.2.2), and the outcome.

import (
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/mcmc"
)

// bowlPriors are the ball's variables' priors, in the order of
// BowlingState.ball: a Gaussian N(mean, sigma²) truncated to [lo, hi], or
// uniform on [lo, hi] when sigma is 0. step is the large random-walk step
// (the small one is a tenth of it).
var bowlPriors = [bowlBallVars]struct {
	name        string
	mean, sigma float64
	lo, hi      float64
	step        float64
}{
	{"radius", 0, 0, 8.5 * inch / 2, 8.595 * inch / 2, 0.0006},
	{"density", 0, 0, 516.5, 1332.2, 200},
	{"x", 0, 0.15, -0.41, 0.41, 0.1},
	{"speed", 8, 0.6, 6, 10, 0.5},
	{"angle", 0, 1.5, -6, 6, 1},
	{"spin x", -30, 20, -90, 30, 15},
	{"spin y", 0, 10, -30, 30, 8},
	{"spin z", 0, 15, -45, 45, 12},
}

const bowlBallVars = 8

// BowlingState holds the random variables (see Bowling for their priors).
type BowlingState struct {
	Radius  float64    // ball radius, m
	Density float64    // ball density, kg/m³
	X       float64    // ball centre across the lane at the start, m (+ right)
	Speed   float64    // m/s
	Angle   float64    // degrees from −z, positive toward +x
	Spin    [3]float64 // angular velocity, rad/s, world axes
	// Pins holds each pin's offset (dx, dz) from its spot, m.
	Pins [BowlingPins][2]float64
}

// ball returns a pointer to ball variable i (the order of bowlPriors).
func (s *BowlingState) ball(i int) *float64 {
	switch i {
	case 0:
		return &s.Radius
	case 1:
		return &s.Density
	case 2:
		return &s.X
	case 3:
		return &s.Speed
	case 4:
		return &s.Angle
	default:
		return &s.Spin[i-5]
	}
}

// BowlingPathStations is the number of points of the ball's path an
// outcome keeps: where it crosses BowlingPathStations evenly spaced lines
// z = const from its start to the pit edge.
const BowlingPathStations = 12

// BowlingOutcome is what a simulation gives.
type BowlingOutcome struct {
	InPlay [BowlingPins]bool       // the pin was on the deck at the start
	Down   [BowlingPins]bool       // knocked down (tilted or off the deck)
	Tilt   [BowlingPins]float64    // final tilt from the vertical, degrees
	Moved  [BowlingPins]float64    // horizontal distance of the base from its start, m
	Final  [BowlingPins]mgl64.Vec3 // final position of each pin's base centre
	// Path is the ball centre's x where it crosses each station (see
	// BowlingPathStations); stations it never reached repeat its last x.
	Path     [BowlingPathStations]float64
	BallEnd  mgl64.Vec3 // the ball's final position
	Time     float64    // simulated seconds
	Steps    int
	Settled  bool // stopped because every body was at rest or out of play
	Messages int  // ODE messages during the simulation (LCP warnings)
}

// Knocked returns the number of pins knocked down (of those in play).
func (o BowlingOutcome) Knocked() int {
	n := 0
	for i, d := range o.Down {
		if d && o.InPlay[i] {
			n++
		}
	}
	return n
}

// Init implements mcmc.Model: every variable drawn from its prior.
func (b *Bowling) Init(rng *rand.Rand) BowlingState {
	var s BowlingState
	for i := range bowlBallVars {
		*s.ball(i) = bowlDraw(rng, i)
	}
	for i := range s.Pins {
		s.Pins[i] = [2]float64{rng.NormFloat64() * BowlingPinSigma, rng.NormFloat64() * BowlingPinSigma}
	}
	return s
}

// Mode returns a typical state: the Gaussian variables at their means,
// the uniform ones (radius, density) at their middles, every pin on its
// spot. The Gallery shows it before sampling.
func (b *Bowling) Mode() BowlingState {
	var s BowlingState
	for i, p := range bowlPriors {
		*s.ball(i) = p.mean
		if p.sigma == 0 {
			*s.ball(i) = (p.lo + p.hi) / 2
		}
	}
	return s
}

// bowlDraw draws ball variable i from its prior (rejection from the
// Gaussian: the bounds are at least 2.5σ from the mean).
func bowlDraw(rng *rand.Rand, i int) float64 {
	p := bowlPriors[i]
	if p.sigma == 0 {
		return p.lo + (p.hi-p.lo)*rng.Float64()
	}
	for {
		x := p.mean + p.sigma*rng.NormFloat64()
		if x >= p.lo && x <= p.hi {
			return x
		}
	}
}

// LogPrior implements mcmc.Model: log p_w up to a constant, −∞ outside
// the bounds.
func (b *Bowling) LogPrior(s BowlingState) float64 {
	return bowlBallLogPrior(&s) + bowlPinsLogPrior(&s)
}

func bowlBallLogPrior(s *BowlingState) float64 {
	lp := 0.0
	for i, p := range bowlPriors {
		x := *s.ball(i)
		if !(x >= p.lo && x <= p.hi) {
			return math.Inf(-1)
		}
		if p.sigma > 0 {
			z := (x - p.mean) / p.sigma
			lp -= 0.5 * z * z
		}
	}
	return lp
}

func bowlPinsLogPrior(s *BowlingState) float64 {
	lp := 0.0
	for _, d := range s.Pins {
		lp -= 0.5 * (d[0]*d[0] + d[1]*d[1]) / (BowlingPinSigma * BowlingPinSigma)
	}
	return lp
}

// Kernels returns the proposals of Section 5.2.2 ("sample new values for
// all the random variables; change the radius, density or initial
// conditions of the ball; change the initial position of some pins"), with
// their Metropolis-Hastings ratios:
//
//   - change all: every variable drawn afresh from the prior, an
//     independence proposal q(A'|A) = p_w(A')/Z; its log ratio is
//     log p_w(A) − log p_w(A'), which cancels the prior in the acceptance
//     so that it is accepted by λ^(Δ(k+m)) alone;
//   - one ball variable (radius, density, x, speed, angle or a spin
//     component, chosen uniformly) moved by a large Gaussian step (about
//     the prior's scale, bowlPriors' step) or a small one (a tenth), and
//     folded back into the variable's bounds by reflection; reflecting a
//     symmetric random walk keeps it symmetric, so the log ratio is 0;
//   - some pins: each pin on the deck is chosen with probability ½ (at
//     least one: redraw until one is), each chosen pin moved by
//     N(0, (σ/2)²) per axis; symmetric, log ratio 0.
func (b *Bowling) Kernels() []mcmc.Kernel[BowlingState] {
	var onDeck []int
	for i, on := range b.Start {
		if on {
			onDeck = append(onDeck, i)
		}
	}
	ballStep := func(scale float64) func(rng *rand.Rand, cur BowlingState) (BowlingState, float64) {
		return func(rng *rand.Rand, cur BowlingState) (BowlingState, float64) {
			i := rng.IntN(bowlBallVars)
			p := bowlPriors[i]
			v := cur.ball(i)
			*v = bowlFold(*v+scale*p.step*rng.NormFloat64(), p.lo, p.hi)
			return cur, 0
		}
	}
	return []mcmc.Kernel[BowlingState]{
		{Name: "change all", Weight: b.Weights.ChangeAll, Propose: func(rng *rand.Rand, cur BowlingState) (BowlingState, float64) {
			next := b.Init(rng)
			return next, b.LogPrior(cur) - b.LogPrior(next)
		}},
		{Name: "ball, large step", Weight: b.Weights.BallLarge, Propose: ballStep(1)},
		{Name: "ball, small step", Weight: b.Weights.BallSmall, Propose: ballStep(0.1)},
		{Name: "some pins", Weight: b.Weights.Pins, Propose: func(rng *rand.Rand, cur BowlingState) (BowlingState, float64) {
			if len(onDeck) == 0 {
				return cur, 0
			}
			for {
				moved := false
				next := cur
				for _, i := range onDeck {
					if rng.Float64() < 0.5 {
						next.Pins[i][0] += rng.NormFloat64() * BowlingPinSigma / 2
						next.Pins[i][1] += rng.NormFloat64() * BowlingPinSigma / 2
						moved = true
					}
				}
				if moved {
					return next, 0
				}
			}
		}},
	}
}

// bowlFold reflects x into [lo, hi] (as often as needed).
func bowlFold(x, lo, hi float64) float64 {
	if x >= lo && x <= hi {
		return x
	}
	l := hi - lo
	y := math.Mod(x-lo, 2*l)
	if y < 0 {
		y += 2 * l
	}
	if y > l {
		y = 2*l - y
	}
	return lo + y
}
