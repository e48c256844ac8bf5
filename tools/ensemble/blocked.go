package ensemble

import (
	"fmt"
	"math"
	"strings"

	"gallop/solver/ensemble"
)

// Unreachable is, in a BuildReport, why one wind level cannot be reached
// from another (ensemble.Blockage), with the message an artist reads.
type Unreachable struct {
	From    float64        `json:"from"` // wind levels
	To      float64        `json:"to"`
	Stuck   int            `json:"stuck_frames"` // frames of From's loop from which To cannot be reached
	Frames  int            `json:"frames"`       // frames of From's loop
	Tried   int            `json:"transitions_examined"`
	Blocked int            `json:"transitions_impossible"` // of those, the ones no offsets make possible
	Pairs   []BlockingPair `json:"blocking"`
	Message string         `json:"message"`
}

// BlockingPair is a constraint that makes examined transitions
// impossible: groups A and B on opposite sides of each other, or group A
// alone (B empty) moving faster than it ever does in the data.
type BlockingPair struct {
	A           string `json:"a"`
	B           string `json:"b,omitempty"`
	Transitions int    `json:"transitions"` // the examined transitions it stops
}

// unreachable returns the report of b.
func unreachable(m *ensemble.Model, b ensemble.Blockage) Unreachable {
	d, winds := m.Dataset(), m.WindLevels()
	u := Unreachable{From: winds[b.From], To: winds[b.To], Stuck: b.Stuck, Frames: b.Frames, Tried: b.Tried, Blocked: b.Blocked, Message: BlockageMessage(m, b)}
	for _, q := range b.Pairs {
		p := BlockingPair{A: d.Groups[q.K].Name, Transitions: q.Count}
		if q.K != q.L {
			p.B = d.Groups[q.L].Name
		}
		u.Pairs = append(u.Pairs, p)
	}
	return u
}

// namesShown is how many blocking pairs or groups a message names.
const namesShown = 3

// BlockageMessage says in an artist's words why wind level b.To cannot be
// reached from b.From, and what to do.
func BlockageMessage(m *ensemble.Model, b ensemble.Blockage) string {
	d, winds := m.Dataset(), m.WindLevels()
	from, to := winds[b.From], winds[b.To]
	var s strings.Builder
	fmt.Fprintf(&s, "wind %g → %g: ", from, to)
	if b.Stuck == b.Frames {
		fmt.Fprintf(&s, "no transition or clip leads from wind %g to wind %g", from, to)
	} else {
		fmt.Fprintf(&s, "from %d of the %d frames of wind %g's loop nothing leads to wind %g", b.Stuck, b.Frames, from, to)
	}
	if b.Blocked == 0 {
		fmt.Fprintf(&s, ". The %d closest transitions that would open a way are not impossible: a higher search effort may find them.", b.Tried)
		return s.String()
	}
	fmt.Fprintf(&s, ". %d of the %d closest transitions that would open a way are impossible whatever the time offsets: ", b.Blocked, b.Tried)
	var pairs, fast []string
	np, nf := 0, 0
	for _, q := range b.Pairs {
		if q.K == q.L {
			nf++
			if len(fast) < namesShown {
				fast = append(fast, d.Groups[q.K].Name)
			}
			continue
		}
		np++
		if len(pairs) < namesShown {
			pairs = append(pairs, d.Groups[q.K].Name+" and "+d.Groups[q.L].Name)
		}
	}
	var why []string
	if np > 0 {
		why = append(why, fmt.Sprintf("%d %s on opposite sides of each other in the frames a blend would join (%s), and a blend moves every vertex straight through the other", np, plural(np, "pair of groups lies", "pairs of groups lie"), list(pairs, np)))
	}
	if nf > 0 {
		why = append(why, fmt.Sprintf("%d %s have to move faster than in any frame of the data (%s)", nf, plural(nf, "group would", "groups would"), list(fast, nf)))
	}
	s.WriteString(strings.Join(why, "; "))
	if passes(m, b.From, b.To) {
		fmt.Fprintf(&s, ". The clips in which the wind changes from %g to %g cannot be entered from these frames: a take that returns to each level more often gives the graph more places to join.", from, to)
	} else {
		fmt.Fprintf(&s, ". Add a clip in which the wind changes from %g to %g (Add clip folder...; the user guide's Ensemble page says how to simulate one).", from, to)
	}
	return s.String()
}

// passes reports whether some clip has a frame at wind level from
// followed, later in the clip, by one at to.
func passes(m *ensemble.Model, from, to int) bool {
	for l, lv := range m.Dataset().Levels {
		seen := false
		for f := range lv.Frames {
			switch m.LevelOf(ensemble.State{Level: l, Frame: f}) {
			case from:
				seen = true
			case to:
				if seen {
					return true
				}
			}
		}
	}
	return false
}

// list joins the names shown, with "…" when there are more than shown.
func list(names []string, n int) string {
	s := strings.Join(names, ", ")
	if n > len(names) {
		s += ", …"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// UnreachableFrom returns, per wind level of the built graph (by index),
// the levels, 1-based and increasing, from some frames of whose loop the
// graph cannot reach it: the wind slider's marks. Nil without a graph.
func (t *Tool) UnreachableFrom() [][]int {
	b := t.built
	if b == nil {
		return nil
	}
	out := make([][]int, len(b.Latency))
	for from, row := range b.Latency {
		for to, l := range row {
			if from != to && math.IsInf(l.Worst, 1) {
				out[to] = append(out[to], from+1)
			}
		}
	}
	return out
}

// Blockages returns what stops the built graph from reaching each wind
// level it cannot reach, in an artist's words (BlockageMessage); none for
// a graph read from a file, whose build figures were not kept.
func (t *Tool) Blockages() []string {
	b := t.built
	if b == nil {
		return nil
	}
	var out []string
	for _, x := range b.Stats.Blocked {
		out = append(out, BlockageMessage(b.Model, x))
	}
	return out
}
