package plausible

// The bowling world's physics: the alley, the pins and the ball in an
// ODE world (package rigidbody), and the simulation of one roll.

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rigidbody"
)

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
