package ensemble

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/assets/gltftest"
	"gallop/internal/shareddata"
	"gallop/solver/ensemble"
)

// bannerGraph is the banner's model and a small graph of it (one leaving
// frame per task, two samples per transition), built once per test binary.
var bannerGraph = sync.OnceValues(func() (*bannerSetup, error) {
	dir, err := shareddata.Dir()
	if err != nil {
		return nil, err
	}
	b := &bannerSetup{levels: []string{filepath.Join(dir, "ensemble-banner", "wind-1"), filepath.Join(dir, "ensemble-banner", "wind-2"), filepath.Join(dir, "ensemble-banner", "wind-3")}}
	d, e, err := Load(context.Background(), b.levels, "", nil)
	if err != nil {
		return nil, err
	}
	b.e = e
	if b.m, err = ensemble.NewModel(context.Background(), d, ensemble.Options{}, nil); err != nil {
		return nil, err
	}
	b.settings = BuildSettings{Seed: 5, Tries: 1, Samples: 2}
	b.g, _, err = ensemble.Build(context.Background(), b.m, b.settings.Options(), nil, nil)
	return b, err
})

type bannerSetup struct {
	levels   []string
	e        *assets.Ensemble
	m        *ensemble.Model
	g        *ensemble.Graph
	settings BuildSettings
}

func banner(t *testing.T) *bannerSetup {
	t.Helper()
	shareddata.Path(t, "ensemble-banner")
	b, err := bannerGraph()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestGraphFileRoundTrip: a saved graph reopens to the same transitions
// and components, checked against its data.
func TestGraphFileRoundTrip(t *testing.T) {
	b := banner(t)
	f, err := NewGraphFile(b.levels, "", b.m, b.settings, b.g)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "banner.graph.json")
	if err := SaveGraph(path, f); err != nil {
		t.Fatal(err)
	}
	back, err := LoadGraph(path)
	if err != nil {
		t.Fatal(err)
	}
	m, g, _, err := back.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalRank() != b.m.TotalRank() || len(g.Transitions) != len(b.g.Transitions) {
		t.Fatalf("reopened: rank %d, %d transitions; built: %d, %d", m.TotalRank(), len(g.Transitions), b.m.TotalRank(), len(b.g.Transitions))
	}
	for x, tr := range g.Transitions {
		w := b.g.Transitions[x]
		if tr.From != w.From || tr.To != w.To || !slices.Equal(tr.Tau, w.Tau) || tr.Phi != w.Phi {
			t.Errorf("transition %d: %+v, built %+v", x, tr, w)
		}
	}
	for l := range g.In {
		if !slices.Equal(g.In[l], b.g.In[l]) {
			t.Errorf("level %d: components differ", l)
		}
	}
}

// TestCompactExport plays four seconds with a wind change, exports them in
// the compact form (a node per group, PCA basis and sewing fields as morph
// targets) and reads the file back: every vertex of every frame within
// 1e-5 of the banner's diagonal of what was played; the validator reports
// no error or warning.
func TestCompactExport(t *testing.T) {
	b := banner(t)
	p, err := ensemble.NewPlayer(b.m, b.g, 0, 11)
	if err != nil {
		t.Fatal(err)
	}
	rec := &Recording{FPS: 30}
	var played [][]mgl64.Vec3
	for f := range 120 {
		if f == 30 {
			p.SetWind(2)
		}
		played = append(played, p.Step(nil))
		rec.Add(p, b.m)
	}
	a, err := rec.Compact(b.m, b.e, "banner")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	compact := filepath.Join(dir, "compact.glb")
	if err := assets.SaveRigidGLTF(compact, a); err != nil {
		t.Fatal(err)
	}
	objs, err := assets.LoadGLTF(compact)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := assets.Bounds(b.e.Rest)
	tol := 1e-5 * hi.Sub(lo).Len()
	worst := 0.0
	for k, g := range b.e.Groups {
		o := objs[k]
		if o.Clip == nil || o.Clip.NumFrames() != len(played) {
			t.Fatalf("group %s came back with %v", g.Name, o.Clip)
		}
		for f, x := range played {
			for v := range g.Count {
				worst = max(worst, o.Clip.Frames[f][v].Sub(x[g.First+v]).Len())
			}
		}
	}
	t.Logf("read back within %.3g of what was played (tolerance %.3g)", worst, tol)
	if worst > tol {
		t.Errorf("read back %.3g from what was played (tolerance %.3g)", worst, tol)
	}
	gltftest.Validate(t, compact)
}

// TestPlayCheck: Play's check of every frame finds no new interpenetration
// in the built graph, and finds some once its transitions take the
// unconstrained minimum of Φ instead of the solver's offsets.
func TestPlayCheck(t *testing.T) {
	b := banner(t)
	o := PlayOptions{Frames: 300, Winds: []int{0, 2, 1}, ChangeEvery: 60, Seed: 3, Check: true}
	good, err := Play(b.m, b.g, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	bad := *b.g
	bad.Transitions = slices.Clone(b.g.Transitions)
	for x := range bad.Transitions {
		tr := &bad.Transitions[x]
		u, _ := b.m.Program(tr.From, tr.To).Minimum(nil)
		tr.Tau, tr.Blend = b.m.Offsets(u)
	}
	worse, err := Play(b.m, &bad, o, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d transitions played: %d new (frame, pair)s; at the unconstrained minimum %d in %d frames", good.Transitions, good.NewPairFrames, worse.NewPairFrames, worse.FramesWithNew)
	if good.Transitions == 0 || good.NewPairFrames != 0 || worse.NewPairFrames == 0 {
		t.Errorf("solver's offsets: %d new in %d transitions; unconstrained: %d", good.NewPairFrames, good.Transitions, worse.NewPairFrames)
	}
}
