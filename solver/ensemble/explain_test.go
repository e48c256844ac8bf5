package ensemble

import (
	"context"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"gallop/assets"
	"gallop/internal/shareddata"
)

// reedsFrames is how many frames of the reeds' calm and strong levels
// the tests of Blockers and Explain load: enough for transitions (2H + 1
// = 81 frames) from and into several frames of each.
const reedsFrames = 170

// reeds returns the model of the first reedsFrames frames of the
// ensemble-reeds data's calm (wind-1) and strong (wind-3) levels, each
// simulated from rest on its own: some blades lie on opposite sides of
// each other in the two (see the data's README).
func reeds(t *testing.T) (*Dataset, *Model) {
	t.Helper()
	dir := shareddata.Path(t, "ensemble-reeds")
	e, err := assets.LoadEnsemble(context.Background(), []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-3")}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &Dataset{Rest: e.Rest, FPS: 30}
	for _, g := range e.Groups {
		d.Groups = append(d.Groups, Group{Name: g.Name, First: g.First, Count: g.Count, Parent: g.Parent, Triangles: g.Triangles})
	}
	for _, c := range e.Levels {
		d.Levels = append(d.Levels, Level{Name: c.Name, Frames: c.Frames[:reedsFrames]})
	}
	m, err := NewModel(context.Background(), d, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d, m
}

// TestBlockers checks that a transition from the reeds' calm level to
// their strong one is stopped by pairs of blades whatever the offsets,
// each such pair interpenetrating (by the oracle's own full count,
// Interpenetrations) under spread values of both its blades; and that a
// transition to the next frame of the same level has no blocker.
func TestBlockers(t *testing.T) {
	_, m := reeds(t)
	p := m.Program(State{0, 60}, State{1, 60})
	bl := p.Blockers()
	if len(bl) == 0 {
		t.Fatal("calm → strong: no blocker; the levels' blades lie on opposite sides of each other (blade_019 / blade_023)")
	}
	tau, _ := p.Minimum(nil)
	V := p.TauMax()
	finite := func(k int) []int {
		var vs []int
		for v := -V; v <= V; v++ {
			if !math.IsInf(p.Phi(k, v), 1) {
				vs = append(vs, v)
			}
		}
		return []int{vs[0], vs[len(vs)/2], vs[len(vs)-1]}
	}
	for _, pr := range bl[:min(3, len(bl))] {
		if pr.K == pr.L {
			continue
		}
		for _, x := range finite(pr.K) {
			for _, y := range finite(pr.L) {
				try := slices.Clone(tau)
				try[pr.K], try[pr.L] = x, y
				pairs, _ := p.Interpenetrations(try)
				if !slices.Contains(pairs, pr) {
					t.Errorf("blocker %v: values %d, %d do not interpenetrate", pr, x, y)
				}
			}
		}
	}
	if bl := m.Program(State{0, 60}, State{0, 61}).Blockers(); len(bl) > 0 {
		t.Errorf("a transition to the next frame is blocked by %v", bl)
	}
}

// TestExplainWithoutRoute checks Explain on a graph without transitions
// over the calm and strong reeds: each level cannot reach the other from
// any frame, the transitions examined (four leaving frames, two targets
// each) are stopped by blade pairs, and the answer is the same twice.
func TestExplainWithoutRoute(t *testing.T) {
	d, m := reeds(t)
	g := &Graph{}
	g.components(m)
	bs, err := Explain(context.Background(), m, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("%d blockages, want calm → strong and strong → calm", len(bs))
	}
	for _, b := range bs {
		if b.Stuck != b.Frames || b.Frames != reedsFrames {
			t.Errorf("%d → %d: %d of %d frames stuck, want all %d", b.From, b.To, b.Stuck, b.Frames, reedsFrames)
		}
		if b.Tried != explainLeaves*explainTargets || b.Blocked == 0 || len(b.Pairs) == 0 {
			t.Errorf("%d → %d: %d of %d examined blocked by %d pairs", b.From, b.To, b.Blocked, b.Tried, len(b.Pairs))
		}
		for x, q := range b.Pairs {
			if q.Count < 1 || q.Count > b.Blocked || x > 0 && q.Count > b.Pairs[x-1].Count {
				t.Errorf("%d → %d: pair %v out of order or count", b.From, b.To, q)
			}
		}
		t.Logf("wind %d → %d: %d of %d blocked; %d pairs, first %s / %s in %d", b.From+1, b.To+1, b.Blocked, b.Tried, len(b.Pairs), d.Groups[b.Pairs[0].K].Name, d.Groups[b.Pairs[0].L].Name, b.Pairs[0].Count)
	}
	again, err := Explain(context.Background(), m, g, BuildOptions{})
	if err != nil || !reflect.DeepEqual(again, bs) {
		t.Errorf("a second Explain differs (%v)", err)
	}
}
