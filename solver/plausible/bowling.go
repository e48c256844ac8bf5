package plausible

import (
	"errors"
	"fmt"
	"math"
	"strings"
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

var (
	_ Scenario[BowlingState, BowlingOutcome] = (*Bowling)(nil)
	_ Plotter[BowlingOutcome]                = (*Bowling)(nil)
)
