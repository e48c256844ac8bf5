package ensemble

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
	"gallop/tools"
)

// Variant is one of the offsets Compare shows a transition with.
type Variant int

const (
	// Synchronous is τ = 0: every group blends at once.
	Synchronous Variant = iota
	// Unconstrained is the unconstrained minimum of Φ (Eq. 5).
	Unconstrained
	// Solved is the solver's τ: the transition as the graph holds it.
	Solved
	// Variants is the number of variants.
	Variants
)

// String names the variant as the panel does.
func (v Variant) String() string {
	switch v {
	case Synchronous:
		return "synchronous τ = 0"
	case Unconstrained:
		return "unconstrained minimum"
	case Solved:
		return "solver's τ"
	}
	return fmt.Sprintf("variant %d", int(v))
}

// VariantResult is one variant of a compared transition: its offsets and
// cost, its 2H+1 frames, and the new interpenetrations the model's
// collision oracle finds in them (Program.New: pairs of groups that
// intersect in the transition pose and in neither source frame it blends;
// the groups' step constraints are left out).
type VariantResult struct {
	Tau     []int
	Lengths []int   // per group, its blend length; nil: τ_blend for every group
	Phi     float64 // Φ(τ)
	// Pairs are the distinct new interpenetrating pairs, by K then L, and
	// PairFrames the (pair, frame)s.
	Pairs      [][2]int
	PairFrames int
	// Red and Blend are, per frame and group, whether the group is in a
	// new interpenetrating pair at that frame, and whether it blends.
	Red, Blend [][]bool
	obj        *assets.Object // the frames as a clip
}

// Object returns the variant's frames as the clip Compare shows.
func (r *VariantResult) Object() *assets.Object { return r.obj }

// Comparison is a transition of the built graph under the three variants,
// computed together.
type Comparison struct {
	Index      int // in the graph's Transitions
	Transition ensemble.Transition
	Variants   [Variants]VariantResult
	built      *Built
}

// compareRun is a job computing a Comparison.
type compareRun struct {
	built *Built
	index int
	task  jobs.Task[Progress]
	res   *Comparison // set when it succeeds
}

func (r *compareRun) start(runner *jobs.Runner, done func()) {
	r.task.Start(runner, fmt.Sprintf("Ensemble: compare transition %d", r.index+1), r.work, done)
}

// work poses and tests the transition's frames under each variant, on
// one core.
func (r *compareRun) work(ctx context.Context, rep jobs.Reporter) error {
	b := r.built
	m := b.Model
	tr := b.Graph.Transitions[r.index]
	c := &Comparison{Index: r.index, Transition: tr, built: b}
	p := m.Program(tr.From, tr.To)
	ps := m.NewPoser()
	G, H, frames := len(tr.Tau), m.Margin(), m.Frames()
	fps := m.Dataset().FPS
	steps, done := int(Variants)*frames, 0
	for v := range Variants {
		res := &c.Variants[v]
		switch v {
		case Synchronous:
			res.Tau = make([]int, G)
		case Unconstrained:
			values, _ := p.Minimum(nil)
			res.Tau, res.Lengths = m.Offsets(values)
		case Solved:
			res.Tau, res.Lengths = slices.Clone(tr.Tau), slices.Clone(tr.Blend)
		}
		values := m.Values(res.Tau, res.Lengths)
		for k, v := range values {
			res.Phi += p.Phi(k, v)
		}
		res.obj = &assets.Object{Name: fmt.Sprintf("%s transition %d (%s)", b.Data.Name(), r.index+1, v), Mesh: b.Data.Mesh,
			Clip: &assets.Clip{Name: v.String(), FPS: fps}}
		var failed error
		pairs, pairFrames := p.InterpenetrationsBy(values, func(f int, contacts []csp.Pair) {
			if failed = ctx.Err(); failed != nil {
				return
			}
			s := f - H
			res.obj.Clip.Frames = append(res.obj.Clip.Frames, ps.Transition(nil, tr.From, tr.To, res.Tau, res.Lengths, s))
			red, blend := make([]bool, G), m.Blending(nil, s, res.Tau, res.Lengths)
			for _, pr := range contacts {
				red[pr.K], red[pr.L] = true, true
			}
			res.Red, res.Blend = append(res.Red, red), append(res.Blend, blend)
			done++
			frac := float64(done) / float64(steps)
			text := fmt.Sprintf("%s: frame %d of %d", v, f+1, frames)
			r.task.Latest.Publish(&Progress{Fraction: frac, Text: text})
			rep.Report(frac, text)
		})
		if failed != nil {
			return failed
		}
		res.PairFrames = pairFrames
		for _, pr := range pairs {
			res.Pairs = append(res.Pairs, [2]int{pr.K, pr.L})
		}
	}
	r.res = c
	return nil
}

// redColour marks the groups of a new interpenetrating pair in Compare.
var redColour = [3]float32{1, 0.05, 0.05}

// CompareDefault returns the transition Compare picks unless told: the
// one the player took last, or else the graph's first between levels (its
// first when every one stays in its level); −1 without a graph.
func (t *Tool) CompareDefault() int {
	b := t.built
	if b == nil || len(b.Graph.Transitions) == 0 {
		return -1
	}
	if t.play != nil && t.play.built == b {
		if x := t.play.player.Last(); x >= 0 {
			return x
		}
	}
	for x, tr := range b.Graph.Transitions {
		if tr.From.Level != tr.To.Level {
			return x
		}
	}
	return 0
}

// CompareIndex returns the transition Compare shows or would compute:
// the one picked by SetCompareIndex, else CompareDefault.
func (t *Tool) CompareIndex() int {
	if b := t.built; b != nil && t.picked && t.pick < len(b.Graph.Transitions) {
		return t.pick
	}
	return t.CompareDefault()
}

// SetCompareIndex picks transition x of the graph (0-based) for Compare;
// a negative x goes back to the default.
func (t *Tool) SetCompareIndex(x int) {
	t.pick, t.picked = x, x >= 0
}

// Variant returns the variant Compare shows.
func (t *Tool) Variant() Variant { return t.variant }

// Compare shows the picked transition (CompareIndex) under the chosen
// variant in place of the scene, computing its three variants as a job
// first unless they are computed; the player, if any, waits.
func (t *Tool) Compare(h tools.Host) {
	t.defaults()
	b := t.built
	x := t.CompareIndex()
	switch {
	case b == nil || x < 0:
		h.Error(errors.New("ensemble: build or open a motion graph with transitions first"))
		return
	case t.cmp != nil && t.cmp.built == b && t.cmp.Index == x:
		t.showVariant(h)
		return
	case t.Comparing() && t.compare.built == b && t.compare.index == x:
		return
	}
	t.StopCompare()
	r := &compareRun{built: b, index: x}
	t.compare = r
	r.start(h.Jobs(), func() { t.compared(h, r) })
}

// compared runs on the UI thread when r ends.
func (t *Tool) compared(h tools.Host, r *compareRun) {
	if r != t.compare {
		return
	}
	if r.task.Err != nil {
		h.Error(fmt.Errorf("ensemble: %w", r.task.Err))
		return
	}
	if r.res == nil || r.built != t.built {
		h.Info("Ensemble: comparison stopped")
		return
	}
	t.cmp = r.res
	t.showVariant(h)
	c := r.res
	h.Info("Ensemble: transition %d compared: new interpenetrating pairs %d (τ = 0), %d (unconstrained), %d (solver)",
		c.Index+1, len(c.Variants[Synchronous].Pairs), len(c.Variants[Unconstrained].Pairs), len(c.Variants[Solved].Pairs))
}

// Comparing reports whether a comparison is being computed.
func (t *Tool) Comparing() bool { return t.compare != nil && t.compare.task.Running() }

// CompareProgress returns the comparison job's progress (nil when none
// was published).
func (t *Tool) CompareProgress() *Progress {
	if t.compare == nil {
		return nil
	}
	return t.compare.task.Shown()
}

// StopCompare cancels the comparison being computed.
func (t *Tool) StopCompare() {
	if t.compare != nil {
		t.compare.task.Cancel()
	}
}

// Comparison returns the last transition compared for the current graph,
// or nil.
func (t *Tool) Comparison() *Comparison {
	if t.cmp == nil || t.cmp.built != t.built {
		return nil
	}
	return t.cmp
}

// SetVariant chooses the variant Compare shows; if a comparison is shown,
// its clip changes to that variant's.
func (t *Tool) SetVariant(h tools.Host, v Variant) {
	if v < 0 || v >= Variants {
		return
	}
	t.variant = v
	if _, ok := t.CompareShown(h); ok {
		t.showVariant(h)
	}
}

// CompareShown returns the variant shown in place of the scene, ok false
// when no comparison is shown.
func (t *Tool) CompareShown(h tools.Host) (Variant, bool) {
	c := t.Comparison()
	if c == nil || h.ShownClip() == nil {
		return 0, false
	}
	for v := range Variants {
		if h.ShownClip() == c.Variants[v].obj {
			return v, true
		}
	}
	return 0, false
}

// showVariant shows the comparison's chosen variant, paused at its frame
// with the most groups in new interpenetrating pairs; without any, at the
// frame shown before (the middle of the transition when it was not a
// comparison).
func (t *Tool) showVariant(h tools.Host) {
	c := t.cmp
	f := c.built.Model.Margin()
	if _, ok := t.CompareShown(h); ok {
		f, _ = h.ShownFrame()
	} else if t.Playing(h) {
		t.resume, _ = h.ShownFrame()
	}
	res := &c.Variants[t.variant]
	most := 0
	for i, red := range res.Red {
		if n := Marked(red); n > most {
			f, most = i, n
		}
	}
	if err := h.ShowClip(res.obj, nil, false); err != nil {
		h.Error(err)
		return
	}
	h.SetShownFrame(f)
}

// BackToPlaying ends the comparison shown: the played stretch comes back
// at the frame it was left, or, before playing, the wind level's source
// clip.
func (t *Tool) BackToPlaying(h tools.Host) {
	p := t.play
	if p == nil || p.built != t.built {
		t.showLevel(h)
		return
	}
	if err := h.ShowClip(p.obj, nil, true); err != nil {
		h.Error(err)
		return
	}
	h.SetShownFrame(t.resume)
}

// endCompare forgets the comparison (a new graph or dataset).
func (t *Tool) endCompare(h tools.Host) {
	if _, ok := t.CompareShown(h); ok {
		if err := h.ShowClip(nil, nil, false); err != nil {
			h.Error(err)
		}
	}
	t.StopCompare()
	t.compare, t.cmp = nil, nil
	t.picked = false
}

// compareColors returns the colours of variant v's frame f: groups in a
// new interpenetrating pair red, blending ones yellow, the others in
// their colours.
func (t *Tool) compareColors(v Variant, f int) (red, blend []bool) {
	res := &t.cmp.Variants[v]
	f = max(0, min(f, len(res.Red)-1))
	return res.Red[f], res.Blend[f]
}

// Marked returns how many groups bs marks (blending, or red in a
// comparison): how many of bs are true.
func Marked(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
