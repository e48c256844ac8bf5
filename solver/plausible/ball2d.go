// Package plausible holds the world models of Chenney and Forsyth's
// "Sampling Plausible Solutions to Multi-body Constraint Problems" (2000),
// Section 5, as mcmc models: the 2D ball, bowling, balls that spell and
// dice on a random table. Each model has its random variables, their prior,
// a deterministic simulator, its constraints, its proposal kernels, a
// distance between outcomes (to show different solutions rather than
// repeats) and a recorder that replays a state as an animation.
package plausible

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/mcmc"
)

// Ball2D is the 2D ball of Section 5.1 (after Barzel, Hughes and Wood): a
// ball of diameter D dropped from 4.5·D above the origin bounces on a table
// five times; at each collision the table's normal is a random angle θ_i
// from the vertical, θ_i ~ N(0, 10°); the velocity is reflected about the
// normal with its normal component scaled by 1/√2 (no spin, no friction:
// the paper's deliberately simple model). The constraint is the sixth
// collision's position x: log p_c = −½((x − Target)/σ_d)².
//
// Lengths are in units of D (D = 1) and time in units of √(D/g); the
// trajectory's shape does not depend on g.
type Ball2D struct {
	Target float64 // where the sixth collision should be (the paper: 1, i.e. x = D)
	Sigma  float64 // σ_d (the paper: 0.1, i.e. 0.1·D)
	// Tolerance is the distance from the target within which a sample
	// satisfies the constraint (the acceptance: 0.1·D).
	Tolerance float64
}

// Ball2DBounces is the number of random normals (collisions before the one
// that lands).
const Ball2DBounces = 5

// Ball2DSigmaNormal is the prior's standard deviation of each normal's
// angle from the vertical, in degrees.
const Ball2DSigmaNormal = 10.0

// Ball2DHeight is the drop height of the ball's centre above the table, in
// units of D.
const Ball2DHeight = 4.5

// NewBall2D returns the paper's setting: target x = D, σ_d = 0.1·D,
// tolerance 0.1·D.
func NewBall2D() *Ball2D { return &Ball2D{Target: 1, Sigma: 0.1, Tolerance: 0.1} }

// Validate checks the settings.
func (b *Ball2D) Validate() error {
	if !(b.Sigma > 0) || math.IsInf(b.Sigma, 0) {
		return fmt.Errorf("ball2d: σ_d = %v, want a positive number", b.Sigma)
	}
	if !(b.Tolerance > 0) || math.IsInf(b.Tolerance, 0) {
		return fmt.Errorf("ball2d: tolerance %v, want a positive number", b.Tolerance)
	}
	if math.IsNaN(b.Target) || math.IsInf(b.Target, 0) {
		return fmt.Errorf("ball2d: target %v is not a number", b.Target)
	}
	return nil
}

// Ball2DState holds the normals' angles from the vertical, in degrees
// (positive tilts the normal toward +x).
type Ball2DState [Ball2DBounces]float64

// Ball2DOutcome is where the ball touched the table: the five collisions
// with random normals, then the landing (the sixth), x only (the table is
// y = 0 for the ball's centre).
type Ball2DOutcome struct {
	Hits [Ball2DBounces + 1]float64
	// Impossible is set when a collision left the ball moving into the
	// table (a normal so steep that the reflected velocity still points
	// down): the model has no such world, so its probability is 0.
	Impossible bool
}

// Landing returns the sixth collision's x.
func (o Ball2DOutcome) Landing() float64 { return o.Hits[Ball2DBounces] }

// Init implements mcmc.Model: normals drawn from the prior.
func (b *Ball2D) Init(rng *rand.Rand) Ball2DState {
	var s Ball2DState
	for i := range s {
		s[i] = rng.NormFloat64() * Ball2DSigmaNormal
	}
	return s
}

// LogPrior implements mcmc.Model: −½ Σ (θ_i/10°)².
func (b *Ball2D) LogPrior(s Ball2DState) float64 {
	lp := 0.0
	for _, th := range s {
		lp -= 0.5 * (th / Ball2DSigmaNormal) * (th / Ball2DSigmaNormal)
	}
	return lp
}

// Simulate implements mcmc.Model.
func (b *Ball2D) Simulate(s Ball2DState) (Ball2DOutcome, error) {
	var o Ball2DOutcome
	o.Impossible = !b.fly(s, func(i int, x float64) { o.Hits[i] = x }, 0, nil)
	return o, nil
}

// Constraint implements mcmc.Model. An impossible outcome has probability
// 0 (log −∞): a chain never moves to one and leaves one at once.
func (b *Ball2D) Constraint(o Ball2DOutcome) mcmc.Score {
	if o.Impossible {
		return mcmc.Score{LogLikelihood: math.Inf(-1), Of: 1}
	}
	d := o.Landing() - b.Target
	sc := mcmc.Score{LogLikelihood: -0.5 * (d / b.Sigma) * (d / b.Sigma), Of: 1}
	if math.Abs(d) <= b.Tolerance {
		sc.Met, sc.Satisfied = 1, true
	}
	return sc
}

// Distance is the distance between two outcomes: the RMS difference of
// their collision points, in units of D.
func (b *Ball2D) Distance(p, q Ball2DOutcome) float64 {
	s := 0.0
	for i := range p.Hits {
		d := p.Hits[i] - q.Hits[i]
		s += d * d
	}
	return math.Sqrt(s / float64(len(p.Hits)))
}

// Same implements Scenario: outcomes whose collisions differ by at most
// 0.05·D (RMS) are the same animation.
func (b *Ball2D) Same() float64 { return 0.05 }

// Kernels returns the paper's proposal (Section 5.1.2): each normal, with
// probability ½, gets a uniform offset in (−5°, 5°). It is symmetric.
func (b *Ball2D) Kernels() []mcmc.Kernel[Ball2DState] {
	return []mcmc.Kernel[Ball2DState]{{
		Name:   "perturb normals",
		Weight: 1,
		Propose: func(rng *rand.Rand, cur Ball2DState) (Ball2DState, float64) {
			for i := range cur {
				if rng.Float64() < 0.5 {
					cur[i] += -5 + 10*rng.Float64()
				}
			}
			return cur, 0
		},
	}}
}

// MaxTrajectoryPoints bounds the points Trajectory returns: a time step
// so small that the path would hold more is an error, not an allocation
// without bound.
const MaxTrajectoryPoints = 1 << 20

// Trajectory returns the ball centre's path from the drop to the landing
// as (x, y) pairs, every dt time units (√(D/g)), the landing last. dt must
// be a positive finite number giving at most MaxTrajectoryPoints points.
func (b *Ball2D) Trajectory(s Ball2DState, dt float64) ([][2]float64, error) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return nil, fmt.Errorf("ball2d: time step %v, want a positive number", dt)
	}
	var path [][2]float64
	long := false
	b.fly(s, nil, dt, func(x, y float64) bool {
		if len(path) == MaxTrajectoryPoints {
			long = true
			return false
		}
		path = append(path, [2]float64{x, y})
		return true
	})
	if long {
		return nil, fmt.Errorf("ball2d: time step %v gives more than %d points", dt, MaxTrajectoryPoints)
	}
	return path, nil
}

// fly runs the ballistic model: hit(i, x) is called at each collision;
// point(x, y), if not nil, every dt time units from the drop and at the
// landing, until it returns false. It reports false, and stops, when a collision leaves the ball
// moving into the table or along it (a normal too steep for the incoming
// velocity): the paper's model does not say what happens then, so such
// worlds are impossible.
func (b *Ball2D) fly(s Ball2DState, hit func(i int, x float64), dt float64, point func(x, y float64) bool) bool {
	const g = 1.0
	x, y := 0.0, Ball2DHeight
	vx, vy := 0.0, 0.0
	next := 0.0 // time of the next point, from the start of this flight
	for i := 0; i <= Ball2DBounces; i++ {
		// Time to reach y = 0: y + vy·t − g·t²/2 = 0, the positive root.
		t := (vy + math.Sqrt(math.Max(0, vy*vy+2*g*y))) / g
		if point != nil {
			for ; next < t; next += dt {
				if !point(x+vx*next, y+vy*next-0.5*g*next*next) {
					return true
				}
			}
			next -= t
		}
		x += vx * t
		vy -= g * t
		y = 0
		if hit != nil {
			hit(i, x)
		}
		if i == Ball2DBounces {
			if point != nil {
				point(x, y)
			}
			return true
		}
		// Reflect about the normal n = (sin θ, cos θ), normal component
		// scaled by 1/√2: v' = v − (1 + 1/√2)(v·n)n.
		sin, cos := math.Sincos(s[i] * math.Pi / 180)
		vn := vx*sin + vy*cos
		k := (1 + 1/math.Sqrt2) * vn
		vx -= k * sin
		vy -= k * cos
		if vn >= 0 || vy <= 0 {
			// Not approaching this surface, or still moving into the
			// table: the ball stays where it is.
			for j := i + 1; j <= Ball2DBounces && hit != nil; j++ {
				hit(j, x)
			}
			if point != nil {
				point(x, y)
			}
			return false
		}
	}
	return true
}

// Ball2DDiameter is the ball's diameter in metres when a sample is
// replayed as an animation (Record): a 0.2 m ball, so a bounce plays at
// the speed of a real one under g = 9.81 m/s².
const Ball2DDiameter = 0.2

// Record replays s as a rigid animation at fps frames per second: the
// ball (a sphere of diameter Ball2DDiameter, moving in the x-y plane, y up)
// and the table under it (a thin box from the drop point past the target),
// with a marker of the target on the table.
func (b *Ball2D) Record(s Ball2DState, fps float64) (*Recording, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("ball2d: frame rate %v, want a positive number", fps)
	}
	const d = Ball2DDiameter
	// Time unit √(D/g) in seconds; one frame is 1/fps seconds.
	unit := math.Sqrt(d / 9.81)
	path, err := b.Trajectory(s, 1/(fps*unit))
	if err != nil {
		return nil, err
	}
	ball := RecordedBody{Name: "ball", Shape: sphereShape(d/2, 24), Color: [3]float32{0.8, 0.25, 0.2}}
	for _, p := range path {
		ball.Positions = append(ball.Positions, mgl64.Vec3{p[0] * d, p[1] * d, 0})
		ball.Rotations = append(ball.Rotations, mgl64.QuatIdent())
	}
	lo, hi := math.Min(-1, b.Target-2), math.Max(1, b.Target+2)
	for _, p := range path {
		lo, hi = math.Min(lo, p[0]-1), math.Max(hi, p[0]+1)
	}
	table := &Shape{Pieces: []Piece{boxAt(mgl64.Vec3{(hi - lo) * d, 0.05 * d, 2 * d}, mgl64.Vec3{(lo + hi) / 2 * d, -0.525 * d, 0})}}
	target := &Shape{Pieces: []Piece{boxAt(mgl64.Vec3{2 * b.Tolerance * d, 0.01 * d, 1.2 * d}, mgl64.Vec3{b.Target * d, -0.495 * d, 0})}}
	return &Recording{
		Name: "ball2d", FPS: fps, Bodies: []RecordedBody{ball},
		Static: []RecordedPart{
			{Name: "table", Shape: table, Color: [3]float32{0.55, 0.45, 0.35}},
			{Name: "target", Shape: target, Color: [3]float32{0.3, 0.8, 0.3}},
		},
	}, nil
}

// PlotValue implements Plotter: the landing x, in units of D (the
// paper's Figure 2).
func (b *Ball2D) PlotValue(o Ball2DOutcome) float64 { return o.Landing() }

// PlotLabel implements Plotter.
func (b *Ball2D) PlotLabel() string { return "landing x (D)" }
