package ensemble

import (
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ensemble"
	"gallop/solver/ensemble/exhaustive"
)

// PlayOptions configures Play.
type PlayOptions struct {
	Frames      int    // output frames
	Winds       []int  // wind levels (0-based) in turn, the first from frame 0; empty: level 0
	ChangeEvery int    // frames between wind changes
	Seed        uint64 // the player's random stream
	Record      bool   // keep a Recording for the compact export
	Keep        bool   // keep every frame's positions (the plain export)
	// Check tests every frame with the exhaustive checker for pairs of
	// groups that intersect in it and in none of the (reconstructed)
	// source frames it shows or blends (Player.Sources).
	Check bool
}

// PlayResult is what Play measured, and kept.
type PlayResult struct {
	Transitions, WindChanges int
	Cuts                     int     // jumps back to the first frame of a level without a loop
	LevelsShown              []int   // 0-based, increasing
	MaxStepRatio             float64 // largest group step over the sources' largest (StepLimits)
	MaxStepData              float64 // the same over the data's (MaxSteps)
	MaxSewnGap               float64
	NewPairFrames            int     // with Check: (frame, pair)s intersecting anew
	FramesWithNew            int     // with Check: frames with at least one
	StepSeconds              float64 // the player's Step calls alone
	Changes                  []Change
	Recording                *Recording
	Positions                [][]mgl64.Vec3
}

// Change is one change of wind in a play: the output frame at which it
// was asked, the wind level asked for (0-based), and After, the frames
// from then until the output first showed a frame at that level (0 when
// it already did), −1 when it did not before the next change or the end.
type Change struct {
	Frame, Wind, After int
}

// Play plays graph g of model m for o.Frames frames, the wind moving
// through o.Winds every o.ChangeEvery frames, measuring every frame's
// steps and sewing; each, if set, sees every frame's positions (valid
// during the call) and may stop the play with an error.
func Play(m *ensemble.Model, g *ensemble.Graph, o PlayOptions, each func(f int, x []mgl64.Vec3) error) (*PlayResult, error) {
	winds := o.Winds
	if len(winds) == 0 {
		winds = []int{0}
	}
	for _, w := range winds {
		if w < 0 || w >= len(m.WindLevels()) {
			return nil, fmt.Errorf("wind level %d: the data's frames are at %d wind levels, %v", w+1, len(m.WindLevels()), m.WindLevels())
		}
	}
	p, err := ensemble.NewPlayer(m, g, winds[0], o.Seed)
	if err != nil {
		return nil, err
	}
	res := &PlayResult{}
	if o.Record {
		res.Recording = &Recording{FPS: m.Dataset().FPS}
	}
	limits, data := m.StepLimits(), m.MaxSteps()
	var ex *exhaustive.Checker
	var ps *ensemble.Poser
	if o.Check {
		if ex, err = newExhaustive(m); err != nil {
			return nil, err
		}
		ps = m.NewPoser()
	}
	shown := make([]bool, len(m.WindLevels()))
	var prev, x []mgl64.Vec3
	every := max(1, o.ChangeEvery)
	for f := range o.Frames {
		if f > 0 && f%every == 0 && len(winds) > 1 {
			w := winds[(f/every)%len(winds)]
			p.SetWind(w)
			res.WindChanges++
			res.Changes = append(res.Changes, Change{Frame: f, Wind: w, After: -1})
		}
		t0 := time.Now()
		x = p.Step(x)
		res.StepSeconds += time.Since(t0).Seconds()
		if l := p.Level(); l >= 0 {
			shown[l] = true
			if c := len(res.Changes) - 1; c >= 0 && res.Changes[c].After < 0 && res.Changes[c].Wind == l {
				res.Changes[c].After = f - res.Changes[c].Frame
			}
		}
		res.MaxSewnGap = max(res.MaxSewnGap, m.SewnGap(x))
		if prev != nil {
			for k := range m.Groups() {
				s := m.GroupStep(k, prev, x)
				res.MaxStepRatio = max(res.MaxStepRatio, s/limits[k])
				res.MaxStepData = max(res.MaxStepData, s/data[k])
			}
		}
		if ex != nil {
			a, b, blended := p.Sources()
			srcs := []ensemble.State{a}
			if blended {
				srcs = append(srcs, b)
			}
			found, err := newInFrame(ex, ps, x, srcs...)
			if err != nil {
				return nil, err
			}
			res.NewPairFrames += len(found)
			if len(found) > 0 {
				res.FramesWithNew++
			}
		}
		prev = append(prev[:0], x...)
		if o.Record {
			res.Recording.Add(p, m)
		}
		if o.Keep {
			res.Positions = append(res.Positions, append([]mgl64.Vec3(nil), x...))
		}
		if each != nil {
			if err := each(f, x); err != nil {
				return nil, err
			}
		}
	}
	res.Transitions, res.Cuts = p.Transitions(), p.Cuts()
	for l, s := range shown {
		if s {
			res.LevelsShown = append(res.LevelsShown, l)
		}
	}
	return res, nil
}
