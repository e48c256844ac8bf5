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

// Spell is the "balls that spell" world of Section 5.3: a stream of balls
// is dropped into a box divided into Cols × Rows square bins so that, once
// everything has come to rest, the filled bins spell a word seen from
// above.
//
// Random variables (SpellState):
//   - the height offset of every partition vertex (the corners of the bins
//     that partitions meet; the box's four outer corners touch no
//     partition and are left out), prior N(0, SpellVertexSigma²); the top
//     edge of each partition is the straight line between the heights of
//     its two end vertices, so perturbed vertices tilt the tops and steer
//     the balls that hit them;
//   - each ball's drop point (x, z), prior uniform over the box;
//   - each ball's active flag, prior uniform (½ on, ½ off): inactive balls
//     take no part in the simulation.
//
// There are as many balls as designated bins (the paper's "maximum number
// of balls"), so when every designated bin is filled no ball lies anywhere
// else. Ball i (in index order among the active ones) is released at time
// i·SpellRelease from SpellDropHeight above the floor.
//
// Constraint: the Gibbs term p_c ∝ λ^k, k the number of designated bins
// holding at least one ball at the end. A sample satisfies the constraints
// when k is the number of designated bins.
//
// Simulator: ODE (package ode), deterministic, with the partitions as one
// static triangle mesh of thin slabs, the box's outer walls as tall static
// boxes, the floor as a plane; it stops once every ball has been at rest
// for a few steps, or after SpellMaxTime.
type Spell struct {
	Word       string // a name for the pattern ("HI", "ACM", or the pattern itself)
	Cols, Rows int
	// Designated marks the bins to fill: bin (c, r) at index r·Cols + c,
	// column c along +x, row r along +z (row 0 at the back, read first
	// when looking down from above with −z up the screen).
	Designated []bool
	Lambda     float64 // λ of the Gibbs term, > 1 (the paper: e^5 for "HI", e^7.25 for "ACM")
	// Balls is the number of balls; 0 means one per designated bin (the
	// paper's choice). Fewer balls than designated bins is impossible to
	// satisfy and an error; with more, the extra balls must rest in
	// designated bins too.
	Balls int
	// Weights of the proposal mixture (Section 5.3.1): change all,
	// change some partition vertices, change an active ball, birth-death
	// (activate or deactivate some balls). Zero weights switch a kernel
	// off; at least one must be positive.
	Weights SpellWeights

	// Derived by Validate.
	vertices []spellVertex // perturbed partition vertices
	vindex   []int         // (Cols+1)·(Rows+1) → index in vertices, −1 for the outer corners
	nballs   int           // balls
	ndesig   int           // designated bins
}

// SpellWeights are the relative probabilities of Spell's proposals.
type SpellWeights struct {
	ChangeAll, Partitions, Ball, BirthDeath float64
}

// DefaultSpellWeights favours the local moves, as a chain needs many small
// steps between the rare large ones.
var DefaultSpellWeights = SpellWeights{ChangeAll: 0.05, Partitions: 0.3, Ball: 0.45, BirthDeath: 0.2}

// spellVertex is a partition vertex at grid corner (i, j).
type spellVertex struct{ i, j int }

// Physical settings of Spell, in metres, kilograms and seconds.
const (
	SpellBin          = 0.10  // bin width (inside, between partition centre lines)
	SpellWall         = 0.006 // partition thickness
	SpellWallHeight   = 0.06  // default partition height (before the vertex offsets)
	SpellVertexSigma  = 0.02  // σ of a partition vertex's height offset
	SpellBallRadius   = 0.032 // ball radius (a ball fits a bin; two do not fit side by side)
	SpellDropHeight   = 0.35  // release height of a ball's centre above the floor
	SpellRelease      = 0.08  // time between two balls' releases, s
	SpellMaxTime      = 4.0   // simulation time limit after the last release, s
	spellDT           = 1.0 / 120
	spellRimHeight    = 0.15 // outer walls: tall enough that no ball leaves the box
	spellBallDensity  = 1100
	spellSettleSpeed  = 0.02 // m/s: a ball slower than this for spellSettleSteps is at rest
	spellSettleSpin   = 1.0  // rad/s
	spellSettleSteps  = 6
	spellMinWallScale = 0.1 // a partition top never dips below this fraction of the default height
)

// SpellLetters are the patterns of the paper's two examples. In "HI" the
// letters are three bins high on a 7 × 5 grid with a margin of one bin: 10
// balls. "ACM" is five bins high on 15 × 7: 30 balls, 30 of 105 bins as in
// the paper.
var SpellLetters = map[string][]string{
	"HI": {
		".......",
		".x.x.x.",
		".xxx.x.",
		".x.x.x.",
		".......",
	},
	"ACM": {
		"...............",
		"..x...xx.x...x.",
		".x.x.x...xx.xx.",
		".xxx.x...x.x.x.",
		".x.x.x...x...x.",
		".x.x..xx.x...x.",
		"...............",
	},
}

// NewSpell returns the world for a pattern: rows of equal length, 'x' (or
// '#') for a designated bin and '.' for an empty one. lambda ≤ 0 picks the
// paper's choice by size: e^5 up to 10 designated bins, e^7.25 beyond.
func NewSpell(word string, rows []string, lambda float64) (*Spell, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("spell %q: no rows", word)
	}
	s := &Spell{Word: word, Cols: len(rows[0]), Rows: len(rows), Weights: DefaultSpellWeights}
	for r, row := range rows {
		if len(row) != s.Cols {
			return nil, fmt.Errorf("spell %q: row %d has %d bins, row 0 has %d", word, r, len(row), s.Cols)
		}
		for c, ch := range row {
			switch ch {
			case 'x', 'X', '#':
				s.Designated = append(s.Designated, true)
			case '.', ' ':
				s.Designated = append(s.Designated, false)
			default:
				return nil, fmt.Errorf("spell %q: row %d, column %d: %q is neither 'x' (fill) nor '.' (empty)", word, r, c, ch)
			}
		}
	}
	s.Lambda = lambda
	if lambda <= 0 {
		s.Lambda = math.Exp(5)
		if s.count() > 10 {
			s.Lambda = math.Exp(7.25)
		}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseSpellPattern splits a pattern written on one line with '/' between
// rows ("..x../.x.x.") or names one of SpellLetters.
func ParseSpellPattern(p string) (word string, rows []string) {
	if rows, ok := SpellLetters[strings.ToUpper(p)]; ok {
		return strings.ToUpper(p), rows
	}
	return p, strings.Split(p, "/")
}

func (s *Spell) count() int {
	n := 0
	for _, d := range s.Designated {
		if d {
			n++
		}
	}
	return n
}

// Validate checks the settings and prepares the model; call it after
// changing any field.
func (s *Spell) Validate() error {
	switch {
	case s.Cols < 1 || s.Rows < 1 || s.Cols*s.Rows > 4096:
		return fmt.Errorf("spell %q: %d × %d bins; want 1 to 4096 bins", s.Word, s.Cols, s.Rows)
	case len(s.Designated) != s.Cols*s.Rows:
		return fmt.Errorf("spell %q: %d bin flags for %d × %d bins", s.Word, len(s.Designated), s.Cols, s.Rows)
	case !(s.Lambda > 1) || math.IsInf(s.Lambda, 0):
		return fmt.Errorf("spell %q: λ = %v; λ must be greater than 1 (λ ≤ 1 would not reward filled bins)", s.Word, s.Lambda)
	}
	w := s.Weights
	for _, x := range []float64{w.ChangeAll, w.Partitions, w.Ball, w.BirthDeath} {
		if !(x >= 0) || math.IsInf(x, 0) {
			return fmt.Errorf("spell %q: proposal weight %v must be non-negative and finite", s.Word, x)
		}
	}
	if w.ChangeAll+w.Partitions+w.Ball+w.BirthDeath == 0 {
		return fmt.Errorf("spell %q: every proposal weight is zero", s.Word)
	}
	need := s.count()
	s.ndesig = need
	s.nballs = s.Balls
	if s.Balls == 0 {
		s.nballs = need
	}
	switch {
	case need == 0:
		return fmt.Errorf("spell %q: no bin to fill", s.Word)
	case s.Balls < 0:
		return fmt.Errorf("spell %q: %d balls", s.Word, s.Balls)
	case s.nballs < need:
		return fmt.Errorf("spell %q: impossible constraints: %d bins to fill with only %d balls", s.Word, need, s.nballs)
	}
	if s.nballs > 200 {
		return fmt.Errorf("spell %q: %d bins to fill; at most 200 balls", s.Word, s.nballs)
	}
	s.vertices = s.vertices[:0]
	s.vindex = make([]int, (s.Cols+1)*(s.Rows+1))
	for j := 0; j <= s.Rows; j++ {
		for i := 0; i <= s.Cols; i++ {
			corner := (i == 0 || i == s.Cols) && (j == 0 || j == s.Rows)
			if corner {
				s.vindex[j*(s.Cols+1)+i] = -1
				continue
			}
			s.vindex[j*(s.Cols+1)+i] = len(s.vertices)
			s.vertices = append(s.vertices, spellVertex{i, j})
		}
	}
	return nil
}

// NumBalls returns the number of balls (after Validate).
func (s *Spell) NumBalls() int { return s.nballs }

// NumDesignated returns the number of bins to fill.
func (s *Spell) NumDesignated() int { return s.ndesig }

// SpellState is a point of Spell's random variables. Kernels copy the
// slices they change.
type SpellState struct {
	Offsets []float64    // per partition vertex, m
	Drops   [][2]float64 // per ball: drop point (x, z), m
	Active  []bool       // per ball
}

// SpellOutcome is where the balls came to rest.
type SpellOutcome struct {
	Bins   []int          // per ball: the bin it rests in (see inBin), −1 if inactive or in no bin
	Drops  [][2]float64   // per ball: its drop point (inactive balls: NaN)
	Final  []mgl64.Vec3   // per ball: resting position (inactive balls: zero)
	Filled int            // designated bins holding a ball
	Wrong  int            // balls resting outside every designated bin
	Time   float64        // simulated time, s
	Steps  int            // simulation steps
	AtRest bool           // every ball came to rest before the time limit
	Paths  [][]mgl64.Vec3 // per ball, recorded only by Record
}

// extent returns the box's half sizes along x and z.
func (s *Spell) extent() (hx, hz float64) {
	return SpellBin * float64(s.Cols) / 2, SpellBin * float64(s.Rows) / 2
}

// Init implements mcmc.Model: partitions and drop points from the prior,
// every ball active.
func (s *Spell) Init(rng *rand.Rand) SpellState {
	st := SpellState{Offsets: make([]float64, len(s.vertices)), Drops: make([][2]float64, s.nballs), Active: make([]bool, s.nballs)}
	for i := range st.Offsets {
		st.Offsets[i] = rng.NormFloat64() * SpellVertexSigma
	}
	for b := range st.Drops {
		st.Drops[b] = s.drawDrop(rng)
		st.Active[b] = true
	}
	return st
}

// Ideal returns the state an artist would set up by hand: flat partitions
// and every ball active above the centre of a designated bin (the extra
// balls, if any, above the first ones). Its simulation spells the word; the
// Gallery shows it before sampling.
func (s *Spell) Ideal() SpellState {
	st := SpellState{Offsets: make([]float64, len(s.vertices)), Drops: make([][2]float64, s.nballs), Active: make([]bool, s.nballs)}
	var centres [][2]float64
	for bin, d := range s.Designated {
		if d {
			x, z := s.corner(bin%s.Cols, bin/s.Cols)
			centres = append(centres, [2]float64{x + SpellBin/2, z + SpellBin/2})
		}
	}
	for b := range st.Drops {
		st.Drops[b] = centres[b%len(centres)]
		st.Active[b] = true
	}
	return st
}

func (s *Spell) drawDrop(rng *rand.Rand) [2]float64 {
	hx, hz := s.extent()
	return [2]float64{(2*rng.Float64() - 1) * (hx - SpellBallRadius), (2*rng.Float64() - 1) * (hz - SpellBallRadius)}
}

// inBox reports whether a drop point lies in the prior's support.
func (s *Spell) inBox(p [2]float64) bool {
	hx, hz := s.extent()
	return math.Abs(p[0]) <= hx-SpellBallRadius && math.Abs(p[1]) <= hz-SpellBallRadius
}

// LogPrior implements mcmc.Model: −½ Σ (offset/σ)², −∞ for a drop point
// outside the box; drop points and active flags are otherwise uniform.
func (s *Spell) LogPrior(st SpellState) float64 {
	for b, p := range st.Drops {
		if st.Active[b] && !s.inBox(p) {
			return math.Inf(-1)
		}
	}
	return s.offsetLogPrior(st.Offsets)
}

// height returns the top of the partitions at grid corner (i, j).
func (s *Spell) height(st SpellState, i, j int) float64 {
	k := s.vindex[j*(s.Cols+1)+i]
	if k < 0 {
		return SpellWallHeight
	}
	return math.Max(SpellWallHeight+st.Offsets[k], spellMinWallScale*SpellWallHeight)
}

// corner returns the floor position of grid corner (i, j).
func (s *Spell) corner(i, j int) (x, z float64) {
	hx, hz := s.extent()
	return -hx + SpellBin*float64(i), -hz + SpellBin*float64(j)
}

// partitions returns the interior partitions as one triangle mesh: a slab
// SpellWall thick under each edge of the grid between two bins, its top
// edge straight between the heights of its end vertices. Slabs are closed
// boxes (floor face left out), wound counter-clockwise from outside.
func (s *Spell) partitions(st SpellState) (vertices []mgl64.Vec3, triangles [][3]uint32) {
	slab := func(x0, z0, y0, x1, z1, y1 float64) {
		// Centre line (x0, z0)–(x1, z1), axis-aligned; half thickness t
		// across it.
		t := SpellWall / 2
		var ox, oz float64
		if z0 == z1 {
			oz = t
		} else {
			ox = t
		}
		b := uint32(len(vertices))
		vertices = append(vertices,
			mgl64.Vec3{x0 - ox, 0, z0 - oz}, mgl64.Vec3{x1 - ox, 0, z1 - oz}, mgl64.Vec3{x1 + ox, 0, z1 + oz}, mgl64.Vec3{x0 + ox, 0, z0 + oz},
			mgl64.Vec3{x0 - ox, y0, z0 - oz}, mgl64.Vec3{x1 - ox, y1, z1 - oz}, mgl64.Vec3{x1 + ox, y1, z1 + oz}, mgl64.Vec3{x0 + ox, y0, z0 + oz})
		quad := func(a, b2, c, d uint32) {
			triangles = append(triangles, [3]uint32{b + a, b + b2, b + c}, [3]uint32{b + a, b + c, b + d})
		}
		quad(4, 7, 6, 5) // top
		quad(0, 1, 5, 4) // side −
		quad(2, 3, 7, 6) // side +
		quad(0, 4, 7, 3) // end 0
		quad(1, 2, 6, 5) // end 1
	}
	for j := 1; j < s.Rows; j++ { // partitions along x, between rows
		for i := 0; i < s.Cols; i++ {
			x0, z := s.corner(i, j)
			x1, _ := s.corner(i+1, j)
			slab(x0, z, s.height(st, i, j), x1, z, s.height(st, i+1, j))
		}
	}
	for i := 1; i < s.Cols; i++ { // partitions along z, between columns
		for j := 0; j < s.Rows; j++ {
			x, z0 := s.corner(i, j)
			_, z1 := s.corner(i, j+1)
			slab(x, z0, s.height(st, i, j), x, z1, s.height(st, i, j+1))
		}
	}
	return vertices, triangles
}

// rim returns the four outer walls as boxes (centre, size).
func (s *Spell) rim() [4][2]mgl64.Vec3 {
	hx, hz := s.extent()
	t, h := 0.05, spellRimHeight
	return [4][2]mgl64.Vec3{
		{{-hx - t/2, h / 2, 0}, {t, h, 2*hz + 2*t}},
		{{hx + t/2, h / 2, 0}, {t, h, 2*hz + 2*t}},
		{{0, h / 2, -hz - t/2}, {2 * hx, h, t}},
		{{0, h / 2, hz + t/2}, {2 * hx, h, t}},
	}
}

var (
	spellBallSurface = rigidbody.Surface{Friction: 0.4, Bounce: 0.35, BounceVel: 0.05, Rolling: 0.002}
	spellWallSurface = rigidbody.Surface{Friction: 0.4, Bounce: 0.35, BounceVel: 0.05, Rolling: 0.002}
)

// Simulate implements mcmc.Model.
func (s *Spell) Simulate(st SpellState) (SpellOutcome, error) {
	return s.simulate(st, 0)
}

// simulate runs the world; with fps > 0 it records every ball's centre
// each 1/fps s into the outcome's Paths.
func (s *Spell) simulate(st SpellState, fps float64) (SpellOutcome, error) {
	if len(st.Offsets) != len(s.vertices) || len(st.Drops) != s.nballs || len(st.Active) != s.nballs {
		return SpellOutcome{}, fmt.Errorf("spell %q: state has %d offsets, %d drops, %d flags; want %d, %d, %d",
			s.Word, len(st.Offsets), len(st.Drops), len(st.Active), len(s.vertices), s.nballs, s.nballs)
	}
	o := SpellOutcome{Bins: make([]int, s.nballs), Drops: make([][2]float64, s.nballs), Final: make([]mgl64.Vec3, s.nballs)}
	w := rigidbody.NewWorld(mgl64.Vec3{0, -9.81, 0})
	defer w.Close()
	w.SetTimeStep(spellDT)
	w.SetStepper(rigidbody.StepQuick, 8)
	w.SetMaxContacts(4)
	w.SetContactSurfaceLayer(0.0005)
	w.SetRestThresholds(spellSettleSpeed, spellSettleSpin, spellSettleSteps)
	w.NewPlane(mgl64.Vec3{0, 1, 0}, 0, spellWallSurface)
	for _, r := range s.rim() {
		w.NewStatic(rigidbody.Box{Size: r[1]}, r[0], mgl64.Quat{}, spellWallSurface)
	}
	if s.Cols > 1 || s.Rows > 1 {
		v, t := s.partitions(st)
		if _, err := w.NewTriMesh(v, t, spellWallSurface); err != nil {
			return o, fmt.Errorf("spell %q: partitions: %w", s.Word, err)
		}
	}
	type pending struct {
		ball int
		at   int // step of release
	}
	var queue []pending
	for b, on := range st.Active {
		o.Bins[b] = -1
		o.Drops[b] = [2]float64{math.NaN(), math.NaN()}
		if on {
			queue = append(queue, pending{b, int(math.Round(float64(len(queue)) * SpellRelease / spellDT))})
			o.Drops[b] = st.Drops[b]
		}
	}
	bodies := make([]*rigidbody.Body, s.nballs)
	mass := rigidbody.Sphere{Radius: SpellBallRadius}.Mass(spellBallDensity)
	last := 0
	if len(queue) > 0 {
		last = queue[len(queue)-1].at
	}
	limit := last + int(SpellMaxTime/spellDT)
	frameEvery := 0.0
	if fps > 0 {
		frameEvery = 1 / fps
		o.Paths = make([][]mgl64.Vec3, s.nballs)
	}
	nextFrame := 0.0
	record := func(t float64) {
		for ; fps > 0 && nextFrame <= t+1e-9; nextFrame += frameEvery {
			for b := range o.Paths {
				p := mgl64.Vec3{st.Drops[b][0], SpellDropHeight, st.Drops[b][1]}
				if bodies[b] != nil {
					p = bodies[b].Position()
				}
				o.Paths[b] = append(o.Paths[b], p)
			}
		}
	}
	step := 0
	record(0)
	for ; step < limit; step++ {
		for len(queue) > 0 && queue[0].at == step {
			b := queue[0].ball
			queue = queue[1:]
			body := w.NewBody()
			body.SetMass(mass)
			body.AddGeom(rigidbody.Sphere{Radius: SpellBallRadius}, mgl64.Vec3{}, mgl64.Quat{}, spellBallSurface)
			body.SetPosition(mgl64.Vec3{st.Drops[b][0], SpellDropHeight, st.Drops[b][1]})
			bodies[b] = body
		}
		if len(queue) == 0 && step > last && w.AllAtRest() {
			o.AtRest = true
			break
		}
		if err := w.Step(); err != nil {
			return o, fmt.Errorf("spell %q: %w", s.Word, err)
		}
		record(float64(step+1) * spellDT)
	}
	o.Steps = step
	o.Time = float64(step) * spellDT
	filled := make([]bool, len(s.Designated))
	hx, hz := s.extent()
	for b, body := range bodies {
		if body == nil {
			continue
		}
		p := body.Position()
		o.Final[b] = p
		c := int(math.Floor((p[0] + hx) / SpellBin))
		r := int(math.Floor((p[2] + hz) / SpellBin))
		if c < 0 || c >= s.Cols || r < 0 || r >= s.Rows || !s.inBin(st, c, r, p) {
			o.Wrong++
			continue
		}
		bin := r*s.Cols + c
		o.Bins[b] = bin
		if s.Designated[bin] {
			filled[bin] = true
		} else {
			o.Wrong++
		}
	}
	for _, f := range filled {
		if f {
			o.Filled++
		}
	}
	return o, nil
}

// spellTile is the side of a designated bin's floor mark (the green tile
// of the recording), a fraction of the bin's width.
const spellTile = 0.8

// inBin reports whether a ball whose centre p lies over bin (c, r) is in
// it: its centre over the bin's floor tile (the middle spellTile of the
// bin each way, where a ball resting on the floor between the partitions
// always is) and below the lowest top of the bin's partitions, or resting
// on the floor (partitions may be lower than a ball's radius). A ball
// lying on a partition, or still in the air when the simulation stops,
// is in no bin, whichever bin its centre happens to be over; so is one
// straddling a low partition with its centre near the partition's line.
func (s *Spell) inBin(st SpellState, c, r int, p mgl64.Vec3) bool {
	x, z := s.corner(c, r)
	if math.Abs(p[0]-(x+SpellBin/2)) > spellTile*SpellBin/2 || math.Abs(p[2]-(z+SpellBin/2)) > spellTile*SpellBin/2 {
		return false
	}
	top := math.Min(math.Min(s.height(st, c, r), s.height(st, c+1, r)), math.Min(s.height(st, c, r+1), s.height(st, c+1, r+1)))
	return p[1] < top || p[1] < 1.5*SpellBallRadius
}

// Constraint implements mcmc.Model: log p_c = k·log λ.
func (s *Spell) Constraint(o SpellOutcome) mcmc.Score {
	return mcmc.Score{
		LogLikelihood: float64(o.Filled) * math.Log(s.Lambda),
		Met:           o.Filled, Of: s.ndesig,
		Satisfied: o.Filled == s.ndesig && o.Wrong == 0,
	}
}

// Distance is how different two animations look: the number of balls that
// end in a different bin (a different fill order) plus the RMS distance
// between the balls' drop points, in bins.
func (s *Spell) Distance(a, b SpellOutcome) float64 {
	moved, d2, n := 0.0, 0.0, 0
	for i := range a.Bins {
		if a.Bins[i] != b.Bins[i] {
			moved++
		}
		if math.IsNaN(a.Drops[i][0]) != math.IsNaN(b.Drops[i][0]) {
			moved++
			continue
		}
		if !math.IsNaN(a.Drops[i][0]) {
			dx, dz := a.Drops[i][0]-b.Drops[i][0], a.Drops[i][1]-b.Drops[i][1]
			d2 += dx*dx + dz*dz
			n++
		}
	}
	if n > 0 {
		moved += math.Sqrt(d2/float64(n)) / SpellBin
	}
	return moved
}

// Same implements Scenario: every ball in the same bin and drop points a
// quarter of a bin apart (RMS) or closer.
func (s *Spell) Same() float64 { return 0.25 }

// PlotValue implements Plotter: the number of filled designated bins (the
// paper's Figure 6).
func (s *Spell) PlotValue(o SpellOutcome) float64 { return float64(o.Filled) }

// PlotLabel implements Plotter.
func (s *Spell) PlotLabel() string { return "filled bins" }

// Kernels returns the proposals of Section 5.3.1 with their
// Metropolis-Hastings ratios.
//
//   - change all: every partition offset and every ball's drop point drawn
//     afresh from the prior, an independence proposal: its ratio
//     q(A|A')/q(A'|A) = p_w(A)/p_w(A') cancels the prior, so it is accepted
//     by λ^(k'−k) alone. It is the paper's escape from poor regions; when
//     accepted, log p_w typically jumps up to the prior's typical set (the
//     paper's "change-all effect", Figure 7).
//   - change some partition vertices: each vertex with probability
//     2/#vertices (at least one) moves by N(0, (σ/2)²); symmetric.
//   - change an active ball: one of the active balls, chosen uniformly (the
//     active set does not change, so the choice is symmetric), moves its
//     drop point by N(0, (bin/4)²) per axis (40%), by N(0, bin²) (30%), or
//     redraws it uniformly over the box (30%): small and large steps, as in
//     Section 5.1, all symmetric. (With only the small step and one time in
//     four the redraw, the median first full "HI" over seeds 1-5 was 5,395
//     iterations; with this mixture 2,893.) Without an active ball the
//     state is proposed unchanged.
//   - birth-death: activate or deactivate some balls (see birthDeath), each
//     with probability ρ = max(1/#balls, 0.1).
func (s *Spell) Kernels() []mcmc.Kernel[SpellState] {
	nv := len(s.vertices)
	rho := math.Max(1/float64(s.nballs), 0.1)
	ks := []mcmc.Kernel[SpellState]{
		{Name: "change all", Weight: s.Weights.ChangeAll, Propose: func(rng *rand.Rand, cur SpellState) (SpellState, float64) {
			next := SpellState{Offsets: make([]float64, nv), Drops: make([][2]float64, s.nballs), Active: cur.Active}
			for i := range next.Offsets {
				next.Offsets[i] = rng.NormFloat64() * SpellVertexSigma
			}
			for b := range next.Drops {
				next.Drops[b] = s.drawDrop(rng)
			}
			return next, s.offsetLogPrior(cur.Offsets) - s.offsetLogPrior(next.Offsets)
		}},
		{Name: "partition vertices", Weight: s.Weights.Partitions, Propose: func(rng *rand.Rand, cur SpellState) (SpellState, float64) {
			next := cur
			next.Offsets = append([]float64(nil), cur.Offsets...)
			p := math.Min(1, 2/float64(nv))
			moved := false
			for i := range next.Offsets {
				if rng.Float64() < p {
					next.Offsets[i] += rng.NormFloat64() * SpellVertexSigma / 2
					moved = true
				}
			}
			if !moved && nv > 0 {
				next.Offsets[rng.IntN(nv)] += rng.NormFloat64() * SpellVertexSigma / 2
			}
			return next, 0
		}},
		{Name: "active ball", Weight: s.Weights.Ball, Propose: func(rng *rand.Rand, cur SpellState) (SpellState, float64) {
			var on []int
			for b, a := range cur.Active {
				if a {
					on = append(on, b)
				}
			}
			if len(on) == 0 {
				return cur, 0
			}
			next := cur
			next.Drops = append([][2]float64(nil), cur.Drops...)
			b := on[rng.IntN(len(on))]
			switch u := rng.Float64(); {
			case u < 0.3:
				next.Drops[b] = s.drawDrop(rng)
			case u < 0.6:
				next.Drops[b][0] += rng.NormFloat64() * SpellBin
				next.Drops[b][1] += rng.NormFloat64() * SpellBin
			default:
				next.Drops[b][0] += rng.NormFloat64() * SpellBin / 4
				next.Drops[b][1] += rng.NormFloat64() * SpellBin / 4
			}
			return next, 0
		}},
		{Name: "activate or deactivate balls", Weight: s.Weights.BirthDeath, Propose: func(rng *rand.Rand, cur SpellState) (SpellState, float64) {
			next := cur
			var r float64
			next.Active, r = birthDeath(rng, cur.Active, rho)
			// A ball switched on keeps its old drop point; if a change-all
			// left it outside the box (impossible while it was off), the
			// prior rejects the candidate.
			return next, r
		}},
	}
	return ks
}

// offsetLogPrior is the partition offsets' part of LogPrior.
func (s *Spell) offsetLogPrior(off []float64) float64 {
	lp := 0.0
	for _, o := range off {
		lp -= 0.5 * (o / SpellVertexSigma) * (o / SpellVertexSigma)
	}
	return lp
}

// Record implements Scenario: the balls' flights at fps frames per second
// (inactive balls are left out), the floor, the outer walls and the
// partitions as static parts, and the designated bins marked on the floor.
func (s *Spell) Record(st SpellState, fps float64) (*Recording, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, errors.New("spell: frame rate must be positive")
	}
	o, err := s.simulate(st, fps)
	if err != nil {
		return nil, err
	}
	// Seen from above, a little toward +z, so row 0 is at the top; what
	// matters is the bins.
	hx, hz := s.extent()
	a := &Recording{Name: "spell " + s.Word, FPS: fps, View: mgl64.Vec3{0, 1, 0.35},
		FocusLo: mgl64.Vec3{-hx, 0, -hz}, FocusHi: mgl64.Vec3{hx, SpellWallHeight, hz}}
	ball := sphereShape(SpellBallRadius, 16)
	for b, on := range st.Active {
		if !on {
			continue
		}
		body := RecordedBody{Name: fmt.Sprintf("ball %d", b+1), Shape: ball, Color: [3]float32{0.85, 0.2, 0.15}}
		for _, p := range o.Paths[b] {
			body.Positions = append(body.Positions, p)
			body.Rotations = append(body.Rotations, mgl64.QuatIdent())
		}
		a.Bodies = append(a.Bodies, body)
	}
	if len(a.Bodies) == 0 {
		return nil, fmt.Errorf("spell %q: no active ball to record", s.Word)
	}
	floor := &Shape{Pieces: []Piece{boxAt(mgl64.Vec3{2*hx + 0.1, 0.01, 2*hz + 0.1}, mgl64.Vec3{0, -0.005, 0})}}
	a.Static = append(a.Static, RecordedPart{Name: "floor", Shape: floor, Color: [3]float32{0.75, 0.72, 0.65}})
	marks := &Shape{}
	for bin, d := range s.Designated {
		if d {
			x, z := s.corner(bin%s.Cols, bin/s.Cols)
			marks.Pieces = append(marks.Pieces, boxAt(mgl64.Vec3{SpellBin * spellTile, 0.002, SpellBin * spellTile}, mgl64.Vec3{x + SpellBin/2, 0.001, z + SpellBin/2}))
		}
	}
	a.Static = append(a.Static, RecordedPart{Name: "designated bins", Shape: marks, Color: [3]float32{0.2, 0.65, 0.3}})
	rims := &Shape{}
	for _, r := range s.rim() {
		rims.Pieces = append(rims.Pieces, boxAt(r[1], r[0]))
	}
	a.Static = append(a.Static, RecordedPart{Name: "box", Shape: rims, Color: [3]float32{0.45, 0.35, 0.25}})
	if s.Cols > 1 || s.Rows > 1 {
		v, t := s.partitions(st)
		m := &Shape{Name: "partitions", Positions: v, Triangles: make([][3]int, len(t))}
		for i, tri := range t {
			m.Triangles[i] = [3]int{int(tri[0]), int(tri[1]), int(tri[2])}
		}
		a.Static = append(a.Static, RecordedPart{Name: "partitions", Shape: m, Color: [3]float32{0.55, 0.45, 0.35}})
	}
	return a, a.Validate()
}

var _ Scenario[SpellState, SpellOutcome] = (*Spell)(nil)
