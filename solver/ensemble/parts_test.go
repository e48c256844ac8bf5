package ensemble

import (
	"bytes"
	"context"
	"encoding/gob"
	"slices"
	"testing"
	"time"

	"gallop/solver/ensemble/csp"
)

// TestModelParts: a model made from another's parts poses every source
// frame and every frame of a transition bit for bit as the original, with
// the same costs, step limits, source contacts and collision oracle; and a
// build split into its steps over two halves of each phase's tasks, on the
// model made from the parts, gives the graph Build gives on the original.
// (tools/ensemble's TestModelFile checks the same through the model file,
// which keeps the parts bit for bit.)
func TestModelParts(t *testing.T) {
	d := synthetic(2, motion{})
	m := model(t, d, Options{TauMax: 6})
	parts, err := m.Parts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	back, err := NewModelFromParts(cloneParts(t, parts))
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.states() {
		s := m.state(i)
		if !slices.Equal(m.Pose(s), back.Pose(s)) {
			t.Fatalf("state %v poses differently", s)
		}
		if !slices.Equal(m.SourceContacts(s), back.SourceContacts(s)) {
			t.Fatalf("state %v: source contacts differ", s)
		}
	}
	if !slices.Equal(m.StepLimits(), back.StepLimits()) || !slices.Equal(m.MaxSteps(), back.MaxSteps()) || m.TotalRank() != back.TotalRank() {
		t.Fatal("step limits or ranks differ")
	}
	a, c := State{0, m.margin + 3}, State{1, m.margin + 9}
	if m.Distance(a, c) != back.Distance(a, c) {
		t.Fatal("Φ(0) differs")
	}
	tau := make([]int, m.Groups())
	for k := range tau {
		tau[k] = k%3 - 1
	}
	p, q := m.NewPoser(), back.NewPoser()
	for s := -m.margin; s <= m.margin; s++ {
		if !slices.Equal(p.Transition(nil, a, c, tau, nil, s), q.Transition(nil, a, c, tau, nil, s)) {
			t.Fatalf("transition frame %d poses differently", s)
		}
	}
	pa, _ := m.Program(a, c).Interpenetrations(tau)
	pb, _ := back.Program(a, c).Interpenetrations(tau)
	if !slices.Equal(pa, pb) {
		t.Fatalf("oracle: %v against %v", pa, pb)
	}

	ctx := context.Background()
	opts := BuildOptions{Seed: 5, Tries: 1, CSP: csp.Options{Samples: 2}}
	want, wantStats, err := Build(ctx, m, opts, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	halves := func(m *Model, opts BuildOptions, tasks []Task, first int, g *Graph) []TaskResult {
		h := len(tasks) / 2
		r1, err := RunTasks(ctx, m, opts, tasks[:h], first, g, time.Now(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := RunTasks(ctx, m, opts, tasks[h:], first+h, g, time.Now(), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return append(r1, r2...)
	}
	o, within, err := PlanBuild(back, opts)
	if err != nil {
		t.Fatal(err)
	}
	phase1 := halves(back, o, within, 0, nil)
	g, between := JoinLevels(back, o, phase1)
	phase2 := halves(back, o, between, len(within), g)
	st := FinishBuild(back, o, g, phase1, phase2)
	if len(g.Transitions) == 0 || !slices.EqualFunc(want.Transitions, g.Transitions, func(a, b Transition) bool {
		return a.From == b.From && a.To == b.To && a.Phi == b.Phi && a.Phi0 == b.Phi0 && slices.Equal(a.Tau, b.Tau)
	}) || st.Found != wantStats.Found || st.Served != wantStats.Served || st.CSP.Programs != wantStats.CSP.Programs || st.CSP.Wins != wantStats.CSP.Wins {
		t.Fatalf("steps on the decoded model: %d transitions, %+v; Build: %d, %+v", len(g.Transitions), st, len(want.Transitions), wantStats)
	}
}

// TestModelPartsAltered: parts that index what they should not (a
// triangle vertex past its group, a path that skips a parent, a level that
// claims frames it has no data for) are an error, found before any table
// is sized by the claim.
func TestModelPartsAltered(t *testing.T) {
	m := model(t, synthetic(2, motion{}), Options{TauMax: 6})
	parts, err := m.Parts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		alter func(f *ModelParts)
	}{
		{"triangle", func(f *ModelParts) { f.Models[0].Triangles = [][3]int{{0, 1, 1_000_000}} }},
		{"dataset triangle", func(f *ModelParts) {
			f.Groups[0].Triangles = slices.Clone(f.Groups[0].Triangles)
			f.Groups[0].Triangles[0][2] = 1_000_000
		}},
		{"path", func(f *ModelParts) { f.Models[1].Path = []int{1} }},
		{"order", func(f *ModelParts) { slices.Reverse(f.Order) }},
		{"frames", func(f *ModelParts) { f.Frames[0] = 1 << 24 }},
		{"patch", func(f *ModelParts) { f.Models[1].Patch = []int{1 << 30} }},
	} {
		f := cloneParts(t, parts)
		c.alter(f)
		if _, err = NewModelFromParts(f); err == nil {
			t.Errorf("%s: made a model", c.name)
		}
		t.Logf("%s: %v", c.name, err)
	}
}

// cloneParts returns a deep copy of p (the parts share the model's
// memory; the tests change theirs).
func cloneParts(t *testing.T, p *ModelParts) *ModelParts {
	t.Helper()
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(p); err != nil {
		t.Fatal(err)
	}
	var q ModelParts
	if err := gob.NewDecoder(&b).Decode(&q); err != nil {
		t.Fatal(err)
	}
	return &q
}
