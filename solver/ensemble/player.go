package ensemble

import (
	"fmt"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
)

// DefaultWander is the chance that a Player at a frame where a transition
// within its level starts takes one, when the wind asks for no change.
const DefaultWander = 0.25

// Player plays a Graph forever, one output frame per Step: pure source
// frames of its level's component, and the frames of the transitions it
// takes (Poser.Transition). A wind level set by SetWind is reached by the
// fastest route the graph offers (Graph.Distances: through the levels
// between where that is faster or the only way, and on through the
// frames of a clip whose wind changes); once there, the player takes a
// transition within its level where one starts with probability Wander,
// and must where the next frame would leave the component (a clip that
// cuts back jumps to its first frame after its last). Where the wind's
// level cannot be reached, the player heads for the nearest level it can
// reach (staying where it is when that is its own). The choices come from
// the player's own random stream: the same graph, seed and calls give the
// same frames.
//
// A Player is not safe for concurrent use.
type Player struct {
	m       *Model
	g       *Graph
	rng     *rand.Rand
	poser   *Poser
	starts  []map[int][]int // per clip: start frame → indices into g.Transitions
	dist    [][][]int       // per wind level, Graph.Distances
	arrived [][][]bool      // per wind level, Graph.Arrivals

	// Wander is the chance of a transition within the level where one
	// starts (DefaultWander from NewPlayer).
	Wander float64

	clip, frame int         // the pure source frame, when tr is nil
	tr          *Transition // the transition being played
	s, s1       int         // its frame and its last blending frame
	wind        int
	onward      bool // the route plays on to the clip's next frame
	blending    []bool
	transitions int
	cuts        int
	last        int // index of the last transition taken, −1 before the first
	// the source frames of the last Step: srcA, and srcB when blended
	srcA, srcB State
	blended    bool
}

// NewPlayer returns a player of g that starts at the first frame of the
// component of wind level level (an index in Model.WindLevels), with the
// wind at that level, drawing its choices from seed.
func NewPlayer(m *Model, g *Graph, level int, seed uint64) (*Player, error) {
	W := len(m.winds)
	if level < 0 || level >= W {
		return nil, fmt.Errorf("ensemble: level %d of %d", level+1, W)
	}
	p := &Player{m: m, g: g, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15)), poser: m.NewPoser(),
		Wander: DefaultWander, frame: -1, wind: level, last: -1, blending: make([]bool, len(m.groups))}
	for l, in := range g.In {
		for f, ok := range in {
			if ok && m.LevelOf(State{l, f}) == level && p.frame < 0 {
				p.clip, p.frame = l, f
			}
		}
	}
	if p.frame < 0 {
		return nil, fmt.Errorf("ensemble: level %v has no component to play", m.winds[level])
	}
	p.starts = make([]map[int][]int, len(g.In))
	for l := range p.starts {
		p.starts[l] = map[int][]int{}
	}
	p.dist = make([][][]int, W)
	p.arrived = make([][][]bool, W)
	for w := range W {
		p.dist[w] = g.Distances(m, w)
		p.arrived[w] = g.Arrivals(m, w)
	}
	for x := range g.Transitions {
		t := &g.Transitions[x]
		if g.Connects(m, t) {
			p.starts[t.From.Level][t.Start(m)] = append(p.starts[t.From.Level][t.Start(m)], x)
		}
	}
	return p, nil
}

// SetWind sets the wind level the player heads for (an index in
// Model.WindLevels).
func (p *Player) SetWind(level int) {
	p.wind = min(max(level, 0), len(p.m.winds)-1)
}

// Wind returns the level the player heads for.
func (p *Player) Wind() int { return p.wind }

// Level returns the wind level shown (an index in Model.WindLevels): the
// level of the pure frame, or in a transition the level it leaves; −1
// while it plays the frames of a changing wind.
func (p *Player) Level() int {
	if p.tr != nil {
		return p.m.LevelOf(p.tr.From)
	}
	return p.m.LevelOf(State{p.clip, p.frame})
}

// Clip returns the clip (an index in Dataset.Levels) of the pure frame
// shown, or in a transition the clip it leaves.
func (p *Player) Clip() int {
	if p.tr != nil {
		return p.tr.From.Level
	}
	return p.clip
}

// Transitions returns how many transitions the player has taken.
func (p *Player) Transitions() int { return p.transitions }

// Cuts returns how many times the player cut back to the first frame of
// a clip without a loop (or, stranded at the end of a clip, jumped to its
// level's component).
func (p *Player) Cuts() int { return p.cuts }

// Last returns the index in the graph's Transitions of the transition the
// player took last (the one being played, if any), −1 before the first.
func (p *Player) Last() int { return p.last }

// Blending reports, for the frame the last Step posed, which groups were
// blending (weight strictly between 0 and 1: the paper's yellow glow).
// The slice is the player's.
func (p *Player) Blending() []bool { return p.blending }

// Sources returns the source frames the last Step showed: a, and in a
// transition also b (blended is then true), the frames a+s and b+s that
// its frame s blends (each group shows a, b or a blend of the two).
func (p *Player) Sources() (a, b State, blended bool) { return p.srcA, p.srcB, p.blended }

// Poser returns the poser of the last Step: the groups' frames,
// coordinates and sewing at the frame it posed.
func (p *Player) Poser() *Poser { return p.poser }

// Step poses the next output frame into dst (grown if too short) and
// returns it.
func (p *Player) Step(dst []mgl64.Vec3) []mgl64.Vec3 {
	m := p.m
	if p.tr == nil {
		if x := p.choose(); x >= 0 {
			p.tr = &p.g.Transitions[x]
			s0, s1 := p.tr.Blends(m)
			p.s, p.s1 = s0-1, s1 // from its Start, a pure frame
			p.transitions++
			p.last = x
		}
	}
	if p.tr == nil {
		clear(p.blending)
		p.srcA, p.blended = State{p.clip, p.frame}, false
		dst = p.poser.Pose(dst, p.srcA)
		next := p.g.Next(m, p.clip, p.frame)
		if p.onward || next < 0 {
			next = p.g.Onward(m, p.clip, p.frame)
		}
		switch {
		case next < 0:
			p.strand()
		case next < p.frame:
			p.cuts++
			p.frame = next
		default:
			p.frame = next
		}
		return dst
	}
	t := p.tr
	p.srcA, p.srcB, p.blended = State{t.From.Level, t.From.Frame + p.s}, State{t.To.Level, t.To.Frame + p.s}, true
	dst = p.poser.Transition(dst, t.From, t.To, t.Tau, t.Blend, p.s)
	p.blending = m.Blending(p.blending, p.s, t.Tau, t.Blend)
	if p.s == p.s1 {
		land := t.Landing(m)
		p.clip, p.frame, p.tr = land.Level, land.Frame, nil
	} else {
		p.s++
	}
	return dst
}

// strand moves a player at the end of a clip with nowhere to go (only a
// graph that fails Validate, or a level whose every route was cut by a
// later change of wind, leads there) to the first frame of the wind's
// component, or of any component: a cut.
func (p *Player) strand() {
	p.cuts++
	for _, w := range []int{p.wind, -1} {
		for l, in := range p.g.In {
			for f, ok := range in {
				if ok && (w < 0 || p.m.LevelOf(State{l, f}) == w) {
					p.clip, p.frame = l, f
					return
				}
			}
		}
	}
}

// Heading returns the wind level the player makes for from its pure
// frame: the wind's when a route leads there, else the nearest level a
// route leads to (its own, when it is in a component), −1 if none.
func (p *Player) Heading() int {
	if p.dist[p.wind][p.clip][p.frame] != Unreachable {
		return p.wind
	}
	best, bestW := Unreachable, -1
	for w := range p.dist {
		if d := p.dist[w][p.clip][p.frame]; d < best {
			best, bestW = d, w
		}
	}
	return bestW
}

// choose returns the transition to take at the current pure frame, or −1
// to play on (setting onward when the route leaves the component by the
// clip's next frame).
func (p *Player) choose() int {
	m := p.m
	here := p.starts[p.clip][p.frame]
	p.onward = false
	head := p.Heading()
	if head >= 0 && !p.arrived[head][p.clip][p.frame] {
		// The fastest route to the level: on, or a transition.
		dist := p.dist[head]
		best, bestX := Unreachable, -1
		if on := p.g.Onward(m, p.clip, p.frame); on >= 0 && dist[p.clip][on] != Unreachable {
			best = 1 + dist[p.clip][on]
		}
		var ties []int
		for _, x := range here {
			t := &p.g.Transitions[x]
			land := t.Landing(m)
			d := dist[land.Level][land.Frame]
			if d == Unreachable {
				continue
			}
			switch d += t.Duration(m); {
			case d < best:
				best, bestX, ties = d, x, append(ties[:0], x)
			case d == best && bestX >= 0:
				ties = append(ties, x)
			}
		}
		if best != Unreachable {
			if bestX < 0 {
				p.onward = true
				return -1
			}
			return ties[p.rng.IntN(len(ties))]
		}
	}
	if !p.g.In[p.clip][p.frame] {
		// Arrived, on the way into the level's component.
		p.onward = true
		return -1
	}
	level := m.LevelOf(State{p.clip, p.frame})
	next := p.g.Next(m, p.clip, p.frame)
	var within []int
	for _, x := range here {
		if m.LevelOf(p.g.Transitions[x].Landing(m)) == level {
			within = append(within, x)
		}
	}
	switch {
	case next < 0 && len(here) > 0:
		if len(within) > 0 {
			return within[p.rng.IntN(len(within))]
		}
		return here[p.rng.IntN(len(here))]
	case len(within) > 0 && p.rng.Float64() < p.Wander:
		return within[p.rng.IntN(len(within))]
	}
	return -1
}

// MaxSteps returns, per group, the largest step of the data itself (see
// StepLimits; here between consecutive frames of the data, not of the
// model's reconstruction): what a played sequence's steps are measured
// against.
func (m *Model) MaxSteps() []float64 { return m.dataSteps }

// dataStepsOf computes MaxSteps from the data.
func (m *Model) dataStepsOf() []float64 {
	out := make([]float64, len(m.groups))
	for _, lv := range m.data.Levels {
		for f := 1; f < len(lv.Frames); f++ {
			for k := range m.groups {
				out[k] = max(out[k], groupStep(&m.groups[k], lv.Frames[f-1], lv.Frames[f]))
			}
		}
	}
	return out
}
