package ensemble

import (
	"context"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/exhaustive"
)

// Check counts the new interpenetrations of transitions: for each, the
// distinct pairs of groups that intersect in some frame of the transition
// under its offsets Tau (the accepted ones) and under the unconstrained
// minimum of Φ, leaving out pairs that intersect in a source frame the
// transition frame blends (the model's reconstruction of a+s or b+s).
type Check struct {
	After         []int // per transition: new pairs under its offsets
	Unconstrained []int // per transition: new pairs under the unconstrained minimum
}

// Totals returns the new pairs over all the transitions under their
// offsets, and the mean per transition under the unconstrained minimum (0
// for no transitions).
func (c *Check) Totals() (after int, unconstrained float64) {
	for x := range c.After {
		after += c.After[x]
		unconstrained += float64(c.Unconstrained[x])
	}
	if n := len(c.After); n > 0 {
		unconstrained /= float64(n)
	}
	return after, unconstrained
}

// Checker selects how Check finds intersecting pairs.
type Checker int

const (
	// Oracle uses the model's own collision oracle (Program.Interpenetrations:
	// BVHs, a grid, exact triangle tests).
	Oracle Checker = iota
	// Exhaustive uses gallop/solver/ensemble/exhaustive: every triangle pair
	// of different groups at every frame, with its own exact triangle test,
	// independent of the oracle.
	Exhaustive
)

// String names the checker: "oracle" or "exhaustive".
func (c Checker) String() string {
	if c == Exhaustive {
		return "exhaustive"
	}
	return "oracle"
}

// CheckTransitions checks ts with checker on both cores. The exhaustive
// checker takes the groups, triangles and attachments of m's dataset.
func CheckTransitions(ctx context.Context, m *ensemble.Model, ts []ensemble.Transition, checker Checker) (*Check, error) {
	c := &Check{After: make([]int, len(ts)), Unconstrained: make([]int, len(ts))}
	ex, err := newExhaustive(m)
	if err != nil {
		return nil, err
	}
	errs := make([]error, len(ts))
	parallel.For(len(ts), func(x int) {
		if ctx.Err() != nil {
			return
		}
		t := &ts[x]
		p := m.Program(t.From, t.To)
		unconstrained, _ := p.Minimum(nil)
		if checker == Oracle {
			pairs, _ := p.Interpenetrations(m.Values(t.Tau, t.Blend))
			c.After[x] = len(pairs)
			pairs, _ = m.Program(t.From, t.To).Interpenetrations(unconstrained)
			c.Unconstrained[x] = len(pairs)
			return
		}
		ps := m.NewPoser()
		c.After[x], errs[x] = newPairs(m, ps, ex, t.From, t.To, t.Tau, t.Blend)
		if errs[x] == nil {
			tau, blend := m.Offsets(unconstrained)
			c.Unconstrained[x], errs[x] = newPairs(m, ps, ex, t.From, t.To, tau, blend)
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newExhaustive returns the exhaustive checker of m's dataset: its
// groups, triangles and attachments.
func newExhaustive(m *ensemble.Model) (*exhaustive.Checker, error) {
	d := m.Dataset()
	var groups []exhaustive.Group
	for _, g := range d.Groups {
		eg := exhaustive.Group{First: g.First, Count: g.Count, Triangles: g.Triangles, Parent: g.Parent}
		for _, a := range g.Attach {
			eg.Attach = append(eg.Attach, exhaustive.Attachment{Vertex: a.Vertex, ParentVertex: a.ParentVertex})
		}
		groups = append(groups, eg)
	}
	return exhaustive.New(groups, len(d.Rest))
}

// newInFrame returns the pairs the exhaustive checker finds intersecting
// in positions x and in none of the reconstructed source frames srcs.
func newInFrame(ex *exhaustive.Checker, ps *ensemble.Poser, x []mgl64.Vec3, srcs ...ensemble.State) ([]exhaustive.Pair, error) {
	found, err := ex.Frame(x)
	if err != nil || len(found) == 0 {
		return nil, err
	}
	var source []exhaustive.Pair
	for _, st := range srcs {
		pairs, err := ex.Frame(ps.Pose(nil, st))
		if err != nil {
			return nil, err
		}
		source = append(source, pairs...)
	}
	return slices.DeleteFunc(found, func(pr exhaustive.Pair) bool {
		return slices.ContainsFunc(source, func(q exhaustive.Pair) bool { return q.K == pr.K && q.L == pr.L })
	}), nil
}

// newPairs returns the number of distinct pairs the exhaustive checker
// finds intersecting in some frame of the transition a → b under tau and
// blend and not in the source frames a+s and b+s it blends.
func newPairs(m *ensemble.Model, ps *ensemble.Poser, ex *exhaustive.Checker, a, b ensemble.State, tau, blend []int) (int, error) {
	seen := map[[2]int]bool{}
	var x []mgl64.Vec3
	H := m.Margin()
	for s := -H; s <= H; s++ {
		x = ps.Transition(x, a, b, tau, blend, s)
		found, err := newInFrame(ex, ps, x, ensemble.State{Level: a.Level, Frame: a.Frame + s}, ensemble.State{Level: b.Level, Frame: b.Frame + s})
		if err != nil {
			return 0, err
		}
		for _, pr := range found {
			seen[[2]int{pr.K, pr.L}] = true
		}
	}
	return len(seen), nil
}
