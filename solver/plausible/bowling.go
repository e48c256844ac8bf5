package plausible

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/mcmc"
	"gallop/solver/rigidbody"
)

// Bowling is the ten-pin bowling world of Section 5.2: a ball rolled down a
// regulation lane into ten pins, simulated by ODE, with the constraint
// saying which pins must fall and which must stand.
//
// # World
//
// +Y is up, lengths are in metres, masses in kilograms. The lane runs along
// −z: the head pin (pin 1) stands at the origin, the foul line is at
// z = +18.288 m (60 ft), the bowler looks toward −z with +x on the right.
// Pins are numbered as usual from the bowler's view: 1 in front, 2 and 3
// behind it (2 on the left, x < 0), then 4, 5, 6 and 7, 8, 9, 10 (7 at the
// back left, 10 at the back right), spots 12 in (0.3048 m) apart on an
// equilateral triangle (rows 10.392 in apart).
//
// The lane surface is y = 0, 41.5 in (1.0541 m) wide, from the foul line to
// the pit edge 34 3/16 in behind the head pin. Either side is a gutter
// 9.25 in (0.23495 m) wide, modelled as a rectangular channel whose floor
// lies 1.875 in (0.047625 m) below the lane, closed on the outside by a
// capping 0.1 m high and, from the head pin on (the paper's "side walls
// starting in line with the front pin"), by kickbacks 0.52 m high, flush
// with the capping. Behind the pit edge the pit: a floor 0.25 m below the lane
// and a back cushion 0.75 m behind the pit edge. The lane's friction is a
// field (rigidbody.SurfaceField): oiled over the first 40 ft (12.19 m) from the
// foul line, dry behind (a common "house" oil pattern), with a 0.3 m
// linear transition.
//
// A pin is a compound body of fixed shape and mass (Section 5.2: "each
// pin, of fixed shape and mass"), approximating the regulation profile
// (height 15 in = 0.381 m, widest 4.766 in = 0.1211 m at 4.5 in): a flat
// cylindrical base (radius 32 mm, 50 mm high, so that it stands), the belly
// as a capsule of radius 60.5 mm centred 4.5 in up, the neck as a capsule
// of radius 23.5 mm, the head a sphere of radius 32.3 mm reaching 15 in.
// The neck and head are given 35% more density than the base and belly so
// that the centre of mass lies 0.1485 m (5.85 in) above the base, inside
// the regulation 5 11/16 – 5 15/16 in; the whole pin weighs 1.59 kg (3 lb
// 8 oz, regulation 3 lb 6 oz – 3 lb 10 oz).
//
// The ball is a solid sphere (real balls have weight blocks; that
// simplification is the paper's too).
//
// # Run-up
//
// Simulating the first 10 m of the lane, where an oiled lane barely
// changes the ball's motion, would cost time for nothing, so the ball
// starts BowlingStart (8 m) before the head pin, 10.29 m past the foul
// line, still on the oil, with the velocity and spin it has there: its
// position across the lane, speed, direction and spin are the random
// variables (the priors below are for that point of the lane, not for the
// release).
//
// # Random variables and priors (BowlingState)
//
// p_w is the product of the variables' densities (Section 5.2). The paper
// gives the variables but not their distributions ("roughly based on the
// rules of bowling"); the choices here:
//
//   - ball radius: uniform over the regulation diameters 8.500–8.595 in
//     (radius 0.10795–0.10916 m);
//   - ball density: uniform on 516.5–1332.2 kg/m³, the range that keeps
//     every ball between 6 lb and 16 lb (the rules' maximum) whatever its
//     radius;
//   - start x (across the lane, + right): N(0, (0.15 m)²) truncated to
//     ±0.41 m (the ball on the lane);
//   - speed: N(8 m/s, (0.6 m/s)²) truncated to 6–10 m/s;
//   - direction: the angle from straight down the lane (−z), positive
//     toward +x, N(0, (1.5°)²) truncated to ±6°;
//   - spin ω (rad/s, world axes): ω_x ~ N(−30, 20²) truncated to
//     [−90, 30] (negative is forward roll: rolling without slip at 8 m/s
//     is ω_x = −74), ω_y ~ N(0, 10²) truncated to ±30 (spin about the
//     vertical), ω_z ~ N(0, 15²) truncated to ±45 (side roll about the
//     direction of travel: ω_z > 0 hooks the ball toward −x once the lane
//     grips it);
//   - each pin's offset from its spot, (dx, dz) ~ N(0, (5 mm)²) per axis
//     (the paper perturbs pin positions "by a small random amount").
//
// The rules put no limit on speed or spin; those priors describe a
// typical straight-to-moderate hook. Every truncation is part of the
// prior: a state outside the bounds has probability 0.
//
// # Constraint
//
// Start lists the pins standing at the beginning (all ten, or a spare's
// leave, Section 5.2.1), Goal what each must do: fall, stand, or don't
// care. With k the number of constrained pins that end as wanted and m
// the number of pins that must stand and end standing within
// BowlingMovedLimit (5 cm) of their start (the paper's term against pins
// "pushed but not knocked down"),
//
//	p_c ∝ λ^(k+m),   λ = e^2.5 by default,
//
// Score.Met = k of Of constrained pins, Satisfied when k = Of. The paper's
// m counts "standing pins that have not moved far"; counting every
// untouched standing pin would make a nine-pin hit whose last pin was
// never touched score as much as a strike (k + m = 9 + 1), so m counts
// only pins whose goal is to stand. A pin is
// down when its axis tilts more than BowlingDownTilt (30°) from the
// vertical at the end, or when it left the pin deck (into the pit or a
// gutter).
//
// # Simulator
//
// ODE (package ode), deterministic: a new world per simulation, time step
// BowlingDT (1/500 s), QuickStep with 8 iterations (which never touches
// ODE's global random generator), 4 contacts per pair, pins auto-disabled
// while they stand still (an enabled body touching one wakes it). The
// simulation stops once every body is at rest or out of play (the ball
// in the pit, pins in the pit, in a gutter or off the alley), or after
// BowlingMaxTime; whatever leaves the alley lands on a floor at the pit's
// depth. Pins have a little rolling friction (bowlRolling) so that a
// lying pin does not roll in circles for seconds. A simulation from the
// prior takes about 900 steps (1.8 s) and 10 ms on the project's machines.
//
// # Measured
//
// `gallop sample --scenario bowling --pins T --chains 2` (seeds 1 and 2,
// λ = e^2.5, default weights), on the project's 2-core machine shared
// with other work (2026-11-22): strike, 5,000 iterations: first strike at
// iterations 75 and 31, about 70% strikes after it, 100 distinct kept per
// chain (the report's cap), 28 ms per iteration; leave the 6-7 split,
// 20,000 iterations: first at 160 and 271, 33% after, 1,477 and 1,287
// kept, 100 distinct, 27 ms (542 s per chain);
// the 6-7 spare, 20,000 iterations: first at 8,472 and 6,080, 0.3-0.7%
// after, 18 and 13 distinct, 3 ms; leave the 7-10 split, 5,000
// iterations: first at 96 and 178, 80-90% after (head-on hits leave it
// easily); the 7-10 spare, 20,000 iterations: never, as in the paper (the
// shot needs a hook and a 7 pin sent off the kickback that this model's
// priors and friction do not produce). A simulation of a state from the
// prior: about 940 steps, 11-12 ms.
//
// # Simplifications relative to the paper
//
// The paper's impulse-based simulator is replaced by ODE's LCP contacts;
// the pins are compounds of primitives (not the exact profile); the run-up
// is shortened (above); gutters are rectangular; the friction and
// restitution values (bowlBallSurface and the others) are fixed estimates, not
// measurements; and the proposal details the paper leaves to its CD-ROM
// version are chosen here (Kernels).
type Bowling struct {
	Name    string                   // the target's name ("strike", "6-7", ...) or its pattern
	Start   [BowlingPins]bool        // pins on the deck at the start (index i is pin i+1)
	Goal    [BowlingPins]BowlingGoal // what each pin must do
	Lambda  float64                  // λ of the Gibbs term, > 1 (the paper: e^2.5)
	Weights BowlingWeights           // the proposal mixture
}

// BowlingPins is the number of pins.
const BowlingPins = 10

// BowlingGoal is what a pin must do.
type BowlingGoal uint8

const (
	// PinAny: don't care (the pin is not constrained).
	PinAny BowlingGoal = iota
	// PinDown: the pin must be knocked down.
	PinDown
	// PinStand: the pin must stay standing.
	PinStand
)

// BowlingWeights are the relative probabilities of Bowling's proposals
// (see Kernels). Zero switches a kernel off; at least one must be
// positive.
type BowlingWeights struct {
	ChangeAll float64 // every variable afresh from the prior
	BallLarge float64 // one ball variable, large random-walk step
	BallSmall float64 // one ball variable, small random-walk step
	Pins      float64 // some pins' positions, small random-walk steps
}

// DefaultBowlingWeights mixes the paper's three kinds of proposal
// (Section 5.2.2); the weights themselves are not in the paper.
var DefaultBowlingWeights = BowlingWeights{ChangeAll: 0.1, BallLarge: 0.25, BallSmall: 0.35, Pins: 0.3}

// BowlingLambda is the paper's λ for bowling, e^2.5.
var BowlingLambda = math.Exp(2.5)

// Regulation dimensions (USBC), in metres.
const (
	inch = 0.0254

	BowlingLaneWidth   = 41.5 * inch          // 1.0541 m
	BowlingLaneLength  = 60 * 12 * inch       // foul line to head pin, 18.288 m
	BowlingPinSpacing  = 12 * inch            // centre to centre
	BowlingGutterWidth = 9.25 * inch          // each side
	BowlingGutterDepth = 1.875 * inch         // below the lane
	BowlingPitEdge     = (34 + 3.0/16) * inch // head pin to the pit edge (tail plank)
	BowlingPinHeight   = 15 * inch
	BowlingPinMass     = 1.59 // kg, 3 lb 8 oz

	// BowlingStart is how far before the head pin the ball starts (see
	// Run-up in the type's comment).
	BowlingStart = 8.0
	// BowlingOilLength is the oiled length from the foul line (40 ft).
	BowlingOilLength = 40 * 12 * inch
)

// Simulation settings.
const (
	BowlingDT      = 1.0 / 500 // s
	BowlingMaxTime = 6.0       // s of simulated time at most
	// BowlingDownTilt is the tilt from the vertical, in degrees, beyond
	// which a pin counts as down.
	BowlingDownTilt = 30.0
	// BowlingMovedLimit is how far (m, horizontally) a standing pin may
	// have moved from its start and still count toward m of λ^(k+m).
	BowlingMovedLimit = 0.05
	// BowlingPinSigma is the standard deviation of each pin's offset
	// from its spot, per axis, in metres.
	BowlingPinSigma = 0.005
)

// Derived geometry.
const (
	bowlPitZ   = -BowlingPitEdge      // the pit edge
	bowlBackZ  = bowlPitZ - 0.75      // the back cushion's front face
	bowlFoulZ  = BowlingLaneLength    // the foul line
	bowlHalfW  = BowlingLaneWidth / 2 // lane half width
	bowlOuterX = bowlHalfW + BowlingGutterWidth
	bowlPitY   = -0.25 // pit floor
	// bowlCappingY is the top of the capping beside the gutters: above
	// the centre of a ball in a gutter, so that the ball touches the
	// capping's face, flush with the kickbacks' (a lower capping would let
	// it ride on the capping's edge and strike the kickbacks' front ends).
	bowlCappingY = 0.1
	bowlOilZ     = bowlFoulZ - BowlingOilLength
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

// BowlingTargets are the named targets: a pattern per name (see
// ParseBowlingPins).
var BowlingTargets = map[string]string{
	"strike":     "dddddddddd",
	"6-7":        "dddddssddd", // leave the 6-7 split
	"6-7-spare":  ".....dd...", // only 6 and 7 stand; knock both down
	"7-10":       "ddddddsdds", // leave the 7-10 split
	"7-10-spare": "......d..d", // the paper's Figure 4 shot
}

// ParseBowlingPins reads a target: a name of BowlingTargets, or a pattern
// of ten characters, pin 1 first: 'd' the pin must be knocked down, 's' it
// must stand, '?' don't care, '.' the pin is not on the deck at the start
// (a spare's missing pin).
func ParseBowlingPins(p string) (start [BowlingPins]bool, goal [BowlingPins]BowlingGoal, err error) {
	if named, ok := BowlingTargets[p]; ok {
		p = named
	}
	if len(p) != BowlingPins {
		return start, goal, fmt.Errorf("bowling: pins %q: want a target name (%s) or 10 characters of d (down), s (stand), ? (don't care), . (not on the deck)",
			p, strings.Join(bowlingTargetNames(), ", "))
	}
	for i := 0; i < BowlingPins; i++ {
		start[i] = true
		switch p[i] {
		case 'd', 'D':
			goal[i] = PinDown
		case 's', 'S':
			goal[i] = PinStand
		case '?':
			goal[i] = PinAny
		case '.':
			start[i] = false
		default:
			return start, goal, fmt.Errorf("bowling: pins %q: character %d (pin %d) is %q; want d (down), s (stand), ? (don't care) or . (not on the deck)", p, i+1, i+1, p[i])
		}
	}
	return start, goal, nil
}

// bowlingTargetNames returns the named targets in a fixed order.
func bowlingTargetNames() []string {
	return []string{"strike", "6-7", "6-7-spare", "7-10", "7-10-spare"}
}

// NewBowling returns the bowling world for a target (a name of
// BowlingTargets or a pattern, see ParseBowlingPins) with λ = lambda (0:
// the paper's e^2.5) and the default proposal weights, validated.
func NewBowling(target string, lambda float64) (*Bowling, error) {
	start, goal, err := ParseBowlingPins(target)
	if err != nil {
		return nil, err
	}
	if lambda == 0 {
		lambda = BowlingLambda
	}
	b := &Bowling{Name: target, Start: start, Goal: goal, Lambda: lambda, Weights: DefaultBowlingWeights}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// Validate checks the settings: λ > 1 and finite, at least one pin on the
// deck, at least one constrained pin, no pin constrained that is not on
// the deck, and proposal weights that are finite, non-negative and not
// all zero.
func (b *Bowling) Validate() error {
	if !(b.Lambda > 1) || math.IsInf(b.Lambda, 0) {
		return fmt.Errorf("bowling: λ = %v, want a finite number > 1 (λ ≤ 1 would not reward meeting constraints)", b.Lambda)
	}
	on, constrained := 0, 0
	for i := range b.Start {
		if b.Start[i] {
			on++
		}
		if b.Goal[i] > PinStand {
			return fmt.Errorf("bowling: pin %d: unknown goal %d", i+1, b.Goal[i])
		}
		if b.Goal[i] != PinAny {
			if !b.Start[i] {
				return fmt.Errorf("bowling: pin %d is constrained but not on the deck at the start", i+1)
			}
			constrained++
		}
	}
	if on == 0 {
		return errors.New("bowling: no pin on the deck")
	}
	if constrained == 0 {
		return errors.New("bowling: no pin is constrained (every pin is don't care)")
	}
	w := b.Weights
	total := 0.0
	for _, x := range []float64{w.ChangeAll, w.BallLarge, w.BallSmall, w.Pins} {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("bowling: proposal weight %v, want a finite number ≥ 0", x)
		}
		total += x
	}
	if total <= 0 {
		return errors.New("bowling: every proposal weight is 0")
	}
	return nil
}

// BowlingSpot returns pin i's spot (0-based: i = 0 is the head pin) on the
// deck, (x, z).
func BowlingSpot(i int) (x, z float64) {
	row, first := 0, 0
	for first+row+1 <= i {
		first += row + 1
		row++
	}
	col := i - first // 0 is the leftmost pin of the row
	x = (float64(col) - float64(row)/2) * BowlingPinSpacing
	z = -float64(row) * BowlingPinSpacing * math.Sqrt(3) / 2
	return x, z
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

// Constraint implements mcmc.Model: (k+m)·log λ (see Bowling).
func (b *Bowling) Constraint(o BowlingOutcome) mcmc.Score {
	k, m, of := 0, 0, 0
	for i, g := range b.Goal {
		if g == PinAny || !b.Start[i] {
			continue
		}
		of++
		if (g == PinDown) == o.Down[i] {
			k++
		}
		if g == PinStand && !o.Down[i] && o.Moved[i] <= BowlingMovedLimit {
			m++
		}
	}
	return mcmc.Score{LogLikelihood: float64(k+m) * math.Log(b.Lambda), Met: k, Of: of, Satisfied: k == of}
}

// Distance is how different two animations look, in metres: the RMS
// difference of the ball's path (its x at the stations) and of the final
// positions of the pins in play, plus 0.1 m per pin that falls in one and
// not in the other.
func (b *Bowling) Distance(p, q BowlingOutcome) float64 {
	path := 0.0
	for i := range p.Path {
		d := p.Path[i] - q.Path[i]
		path += d * d
	}
	pins, n, flips := 0.0, 0, 0.0
	for i := range p.Final {
		if !p.InPlay[i] {
			continue
		}
		d := p.Final[i].Sub(q.Final[i])
		pins += d[0]*d[0] + d[2]*d[2]
		n++
		if p.Down[i] != q.Down[i] {
			flips++
		}
	}
	if n > 0 {
		pins /= float64(n)
	}
	return math.Sqrt(path/float64(len(p.Path))+pins) + 0.1*flips
}

// Same implements Scenario: animations within 3 cm are the same.
func (b *Bowling) Same() float64 { return 0.03 }

// PlotValue implements Plotter: the number of pins knocked down.
func (b *Bowling) PlotValue(o BowlingOutcome) float64 { return float64(o.Knocked()) }

// PlotLabel implements Plotter.
func (b *Bowling) PlotLabel() string { return "pins down" }

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

// bowlSurface are the contact parameters. ODE combines two geoms' friction
// by the geometric mean and their restitution by the maximum, so the
// per-geom values are chosen for these pairs: ball on oiled lane μ = 0.04,
// ball on dry lane 0.2, ball on pin 0.2, pin on pin and pin on deck 0.25,
// pin restitution 0.4 (against everything), kickbacks 0.4, the ball
// itself inelastic on the lane.
var (
	bowlBallSurface   = rigidbody.Surface{Friction: 0.16, Bounce: 0, BounceVel: 0.3}
	bowlPinSurface    = rigidbody.Surface{Friction: 0.25, Bounce: 0.4, BounceVel: 0.3, Rolling: bowlRolling}
	bowlLaneSurface   = rigidbody.Surface{Friction: 0.25, BounceVel: 0.3, Rolling: bowlRolling} // friction from bowlLaneField
	bowlGutterSurface = rigidbody.Surface{Friction: 0.25, BounceVel: 0.3, Rolling: bowlRolling}
	bowlWallSurface   = rigidbody.Surface{Friction: 0.25, Bounce: 0.4, BounceVel: 0.3}
	bowlPitSurface    = rigidbody.Surface{Friction: 0.6, BounceVel: 0.3, Rolling: bowlRolling}

	bowlOilFriction = 0.01 // with the ball's 0.16: 0.04
	// bowlRolling is the rolling friction (m) of pins on the deck, the
	// gutters, the pit and each other, which stops lying pins from rolling
	// in circles for seconds; the ball has none.
	bowlRolling     = 0.003
	bowlDryFriction = 0.25 // with the ball's 0.16: 0.2
)

// bowlLaneField is the lane's friction: oiled from the foul line to
// bowlOilZ, dry behind, a 0.3 m ramp between.
func bowlLaneField() *rigidbody.SurfaceField {
	zs := []float64{bowlPitZ - 1, bowlOilZ - 0.15, bowlOilZ + 0.15, bowlFoulZ + 1}
	mu := []float64{bowlDryFriction, bowlDryFriction, bowlOilFriction, bowlOilFriction}
	// A grid must be regular: sample the piecewise-linear profile every
	// 0.15 m along z (2 × n samples).
	dz := 0.15
	n := int(math.Ceil((zs[3]-zs[0])/dz)) + 1
	f := &rigidbody.SurfaceField{Nx: 2, Nz: n, X0: -2, Z0: zs[0], DX: 4, DZ: dz,
		Friction: make([]float64, 2*n), Bounce: make([]float64, 2*n)}
	for j := 0; j < n; j++ {
		z := zs[0] + float64(j)*dz
		m := bowlOilFriction
		switch {
		case z <= zs[1]:
			m = bowlDryFriction
		case z < zs[2]:
			m = mu[1] + (mu[2]-mu[1])*(z-zs[1])/(zs[2]-zs[1])
		}
		f.Friction[2*j], f.Friction[2*j+1] = m, m
	}
	return f
}

// bowlBox is a static box of the alley.
type bowlBox struct {
	name     string
	lo, hi   mgl64.Vec3
	surface  rigidbody.Surface
	color    [3]float32
	laneLike bool // gets the lane's friction field
}

// bowlAlley returns the static boxes: the lane, the gutters' floors and
// cappings, the kickbacks, the pit floor and the back cushion.
func bowlAlley() []bowlBox {
	wood := [3]float32{0.85, 0.66, 0.42}
	dark := [3]float32{0.25, 0.25, 0.28}
	wall := [3]float32{0.45, 0.3, 0.2}
	const far = bowlFoulZ
	boxes := []bowlBox{
		{"lane", mgl64.Vec3{-bowlHalfW, -1, bowlPitZ}, mgl64.Vec3{bowlHalfW, 0, far}, bowlLaneSurface, wood, true},
		{"pit floor", mgl64.Vec3{-bowlOuterX - 0.3, bowlPitY - 0.5, bowlBackZ}, mgl64.Vec3{bowlOuterX + 0.3, bowlPitY, bowlPitZ}, bowlPitSurface, dark, false},
		{"back cushion", mgl64.Vec3{-bowlOuterX - 0.3, bowlPitY - 0.5, bowlBackZ - 0.5}, mgl64.Vec3{bowlOuterX + 0.3, 0.6, bowlBackZ}, bowlPitSurface, dark, false},
	}
	for _, side := range []float64{-1, 1} {
		span := func(a, b float64) (float64, float64) { return math.Min(side*a, side*b), math.Max(side*a, side*b) }
		x0, x1 := span(bowlHalfW, bowlOuterX)
		boxes = append(boxes, bowlBox{"gutter", mgl64.Vec3{x0, -1, bowlPitZ}, mgl64.Vec3{x1, -BowlingGutterDepth, far}, bowlGutterSurface, dark, false})
		x0, x1 = span(bowlOuterX, bowlOuterX+0.3)
		boxes = append(boxes,
			bowlBox{"capping", mgl64.Vec3{x0, -1, bowlBackZ - 0.5}, mgl64.Vec3{x1, bowlCappingY, far}, bowlWallSurface, wall, false},
			bowlBox{"kickback", mgl64.Vec3{x0, bowlPitY - 0.5, bowlBackZ - 0.5}, mgl64.Vec3{x1, 0.52, 0}, bowlWallSurface, wall, false})
	}
	return boxes
}

// bowlPinParts is a pin in its model frame: the base centre at the
// origin, +y up (capsules and cylinders turned from ODE's z to y).
func bowlPinParts() []rigidbody.Part {
	up := mgl64.QuatRotate(-math.Pi/2, mgl64.Vec3{1, 0, 0}) // z → y
	const heavy = 1.35                                      // neck and head density, relative
	return []rigidbody.Part{
		{Shape: rigidbody.Cylinder{Radius: 0.032, Length: 0.05}, Pos: mgl64.Vec3{0, 0.025, 0}, Rot: up, Density: 1},
		{Shape: rigidbody.Capsule{Radius: 0.0605, Length: 0.045}, Pos: mgl64.Vec3{0, 4.5 * inch, 0}, Rot: up, Density: 1},
		{Shape: rigidbody.Capsule{Radius: 0.0235, Length: 0.10}, Pos: mgl64.Vec3{0, 0.25, 0}, Rot: up, Density: heavy},
		{Shape: rigidbody.Sphere{Radius: 0.0323}, Pos: mgl64.Vec3{0, BowlingPinHeight - 0.0323, 0}, Rot: up, Density: heavy},
	}
}

// bowlWorld is a built world.
type bowlWorld struct {
	w    *rigidbody.World
	ball *rigidbody.Body
	pins [BowlingPins]*rigidbody.Body // nil for pins not on the deck
	spot [BowlingPins]mgl64.Vec3
}

// build makes the world of state s.
func (b *Bowling) build(s *BowlingState) (*bowlWorld, error) {
	for i := range bowlBallVars {
		if v := *s.ball(i); math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("bowling: ball %s is %v", bowlPriors[i].name, v)
		}
	}
	if !(s.Radius > 0.01 && s.Radius < 1) || !(s.Density > 1 && s.Density < 1e5) {
		return nil, fmt.Errorf("bowling: ball radius %v m, density %v kg/m³: not a ball", s.Radius, s.Density)
	}
	for i, d := range s.Pins {
		if !(math.Abs(d[0]) < 0.1 && math.Abs(d[1]) < 0.1) {
			return nil, fmt.Errorf("bowling: pin %d offset %v: more than 0.1 m from its spot", i+1, d)
		}
	}
	w := rigidbody.NewWorld(mgl64.Vec3{0, -9.81, 0})
	bw := &bowlWorld{w: w}
	w.SetTimeStep(BowlingDT)
	w.SetStepper(rigidbody.StepQuick, 8)
	w.SetMaxContacts(4)
	w.SetContactSurfaceLayer(0.0005)
	w.SetRestThresholds(0.05, 0.5, 10)
	w.SetAutoDisable(0.03, 0.3, 10)
	for _, bx := range bowlAlley() {
		g := w.NewStatic(rigidbody.Box{Size: bx.hi.Sub(bx.lo)}, bx.lo.Add(bx.hi).Mul(0.5), mgl64.Quat{}, bx.surface)
		if bx.laneLike {
			if err := g.SetSurfaceField(bowlLaneField()); err != nil {
				w.Close()
				return nil, err
			}
		}
	}
	// Whatever flies off the alley lands on the floor of the building, at
	// the pit floor's height.
	w.NewPlane(mgl64.Vec3{0, 1, 0}, bowlPitY, bowlPitSurface)
	ball := w.NewBody()
	ball.SetMass(rigidbody.Sphere{Radius: s.Radius}.Mass(s.Density))
	ball.AddGeom(rigidbody.Sphere{Radius: s.Radius}, mgl64.Vec3{}, mgl64.Quat{}, bowlBallSurface)
	ball.SetPosition(mgl64.Vec3{s.X, s.Radius, BowlingStart})
	sin, cos := math.Sincos(s.Angle * math.Pi / 180)
	ball.SetLinearVel(mgl64.Vec3{s.Speed * sin, 0, -s.Speed * cos})
	ball.SetAngularVel(mgl64.Vec3(s.Spin))
	bw.ball = ball
	parts := bowlPinParts()
	for i := range BowlingPins {
		x, z := BowlingSpot(i)
		bw.spot[i] = mgl64.Vec3{x + s.Pins[i][0], 0, z + s.Pins[i][1]}
		if !b.Start[i] {
			continue
		}
		p, err := w.NewCompound(parts, BowlingPinMass, bowlPinSurface)
		if err != nil {
			w.Close()
			return nil, err
		}
		p.SetModelPose(bw.spot[i], mgl64.QuatIdent())
		bw.pins[i] = p
	}
	return bw, nil
}

// out reports whether a body whose centre is at p is out of play: past the
// pit edge and below the deck, or over a gutter and below the lane.
func bowlOut(p mgl64.Vec3) bool {
	return (p[2] < bowlPitZ && p[1] < 0) || (math.Abs(p[0]) > bowlHalfW && p[1] < 0.1)
}

// Simulate implements mcmc.Model.
func (b *Bowling) Simulate(s BowlingState) (BowlingOutcome, error) {
	return b.simulate(&s, nil)
}

// simulate runs the world of s; frame, if not nil, is called before the
// first step and after every step with the world and the time.
func (b *Bowling) simulate(s *BowlingState, frame func(bw *bowlWorld, t float64)) (BowlingOutcome, error) {
	var o BowlingOutcome
	o.InPlay = b.Start
	bw, err := b.build(s)
	if err != nil {
		return o, err
	}
	defer bw.w.Close()
	w := bw.w
	// Path stations: from the start to the pit edge.
	var station [BowlingPathStations]float64
	for k := range station {
		station[k] = BowlingStart + (bowlPitZ-BowlingStart)*float64(k)/float64(BowlingPathStations-1)
	}
	next := 0
	prev := bw.ball.Position()
	for k := range o.Path {
		o.Path[k] = prev[0]
	}
	if frame != nil {
		frame(bw, 0)
	}
	limit := int(math.Round(BowlingMaxTime / BowlingDT))
	step := 0
	for step < limit {
		if err := w.Step(); err != nil {
			return o, fmt.Errorf("bowling: %w", err)
		}
		step++
		if frame != nil {
			frame(bw, float64(step)*BowlingDT)
		}
		p := bw.ball.Position()
		for next < BowlingPathStations && p[2] <= station[next] {
			// Interpolate the crossing between the last two steps.
			x := p[0]
			if dz := prev[2] - p[2]; dz > 0 {
				x = prev[0] + (p[0]-prev[0])*(prev[2]-station[next])/dz
			}
			for k := next; k < BowlingPathStations; k++ {
				o.Path[k] = x
			}
			next++
		}
		prev = p
		if step%5 == 0 && bw.settled() {
			o.Settled = true
			break
		}
	}
	o.Steps = step
	o.Time = float64(step) * BowlingDT
	o.BallEnd = bw.ball.Position()
	o.Messages, _ = w.Messages()
	cosDown := math.Cos(BowlingDownTilt * math.Pi / 180)
	for i, p := range bw.pins {
		if p == nil {
			o.Down[i] = true // not on the deck: down from the start
			o.Final[i] = bw.spot[i]
			continue
		}
		pose := p.Pose()
		base := pose.Transform(p.ModelOffset())
		o.Final[i] = base
		axis := pose.Rot.Rotate(mgl64.Vec3{0, 1, 0})
		o.Tilt[i] = math.Acos(math.Max(-1, math.Min(1, axis[1]))) * 180 / math.Pi
		o.Moved[i] = math.Hypot(base[0]-bw.spot[i][0], base[2]-bw.spot[i][2])
		offDeck := base[2] < bowlPitZ || math.Abs(base[0]) > bowlHalfW || base[1] < -0.02
		o.Down[i] = axis[1] < cosDown || offDeck || bowlOut(pose.Pos)
	}
	return o, nil
}

// settled reports whether every body is at rest or out of play.
func (bw *bowlWorld) settled() bool {
	if p := bw.ball.Position(); !(p[2] < bowlPitZ && p[1] < 0) && !bw.ball.AtRest() {
		return false
	}
	for _, p := range bw.pins {
		if p != nil && !p.AtRest() && !bowlOut(p.Position()) {
			return false
		}
	}
	return true
}

// Record implements Scenario: the simulation of s replayed at fps frames
// per second (a frame at every multiple of 1/fps, from the start to the
// early stop): the ball and the pins on the deck as bodies (the pin a
// merged mesh of its parts in the body frame), the lane, gutters,
// cappings, kickbacks and pit as static parts.
func (b *Bowling) Record(s BowlingState, fps float64) (*Recording, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("bowling: frame rate %v, want a positive number", fps)
	}
	var poses []rigidbody.Pose
	frames := 0
	nextFrame := 0.0
	var pinOffset mgl64.Vec3
	_, err := b.simulate(&s, func(bw *bowlWorld, t float64) {
		for _, p := range bw.pins {
			if p != nil {
				pinOffset = p.ModelOffset()
			}
		}
		for t+1e-9 >= nextFrame {
			poses = bw.w.AppendPoses(poses)
			frames++
			nextFrame = float64(frames) / fps
		}
	})
	if err != nil {
		return nil, err
	}
	// Seen from behind the bowler, above the lane.
	a := &Recording{Name: "bowling " + b.Name, FPS: fps, View: mgl64.Vec3{0, 0.5, 1}}
	nb := len(poses) / frames
	body := func(name string, shape *Shape, color [3]float32, k int) RecordedBody {
		rb := RecordedBody{Name: name, Shape: shape, Color: color,
			Positions: make([]mgl64.Vec3, frames), Rotations: make([]mgl64.Quat, frames)}
		for f := 0; f < frames; f++ {
			p := poses[f*nb+k]
			rb.Positions[f], rb.Rotations[f] = p.Pos, p.Rot
		}
		return rb
	}
	a.Bodies = append(a.Bodies, body("ball", sphereShape(s.Radius, 24), [3]float32{0.12, 0.2, 0.6}, 0))
	pin := bowlPinShape(pinOffset)
	k := 1
	for i, on := range b.Start {
		if on {
			a.Bodies = append(a.Bodies, body(fmt.Sprintf("pin %d", i+1), pin, [3]float32{0.95, 0.94, 0.9}, k))
			k++
		}
	}
	for _, bx := range bowlAlley() {
		box := &Shape{Pieces: []Piece{boxAt(bx.hi.Sub(bx.lo), bx.lo.Add(bx.hi).Mul(0.5))}}
		a.Static = append(a.Static, RecordedPart{Name: bx.name, Shape: box, Color: bx.color})
	}
	return a, a.Validate()
}

// bowlPinShape returns a pin's look in its body frame: its parts turned
// and placed as in bowlPinParts and moved by the compound's model offset
// (the body origin is the centre of mass).
func bowlPinShape(offset mgl64.Vec3) *Shape {
	out := &Shape{Name: "pin"}
	for _, p := range bowlPinParts() {
		pc := Piece{Rot: p.Rot, Pos: p.Pos.Add(offset)}
		switch sh := p.Shape.(type) {
		case rigidbody.Cylinder:
			pc.Kind, pc.Radius, pc.Length, pc.Segments = CylinderPiece, sh.Radius, sh.Length, 20
		case rigidbody.Capsule:
			pc.Kind, pc.Radius, pc.Length, pc.Segments = CapsulePiece, sh.Radius, sh.Length, 20
		case rigidbody.Sphere:
			pc.Kind, pc.Radius, pc.Segments = SpherePiece, sh.Radius, 16
		default:
			panic(fmt.Sprintf("plausible: bowling pin part of shape %T", p.Shape))
		}
		out.Pieces = append(out.Pieces, pc)
	}
	return out
}

var (
	_ Scenario[BowlingState, BowlingOutcome] = (*Bowling)(nil)
	_ Plotter[BowlingOutcome]                = (*Bowling)(nil)
)
