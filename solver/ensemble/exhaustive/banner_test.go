package exhaustive

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
)

// loadBanner reads the banner through the file layer and returns its
// groups and the given frames (level index, frame index).
func loadBanner(tb testing.TB, frames ...[2]int) ([]Group, [][]mgl64.Vec3) {
	tb.Helper()
	dir := shareddata.Path(tb, "ensemble-banner")
	levels := []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3")}
	e, err := assets.LoadEnsemble(context.Background(), levels, "", nil)
	if err != nil {
		tb.Fatal(err)
	}
	var groups []Group
	for _, g := range e.Groups {
		grp := Group{First: g.First, Count: g.Count, Triangles: g.Triangles, Parent: g.Parent}
		for _, a := range g.Attach {
			grp.Attach = append(grp.Attach, Attachment{Vertex: a[0], ParentVertex: a[1]})
		}
		groups = append(groups, grp)
	}
	var pos [][]mgl64.Vec3
	for _, f := range frames {
		pos = append(pos, e.Levels[f[0]].Frames[f[1]])
	}
	return groups, pos
}

// TestBanner: the source frames have no interpenetration (the data's
// README, checked independently in numpy), and without the sewn-vertex
// rule every flag touches the rope.
func TestBanner(t *testing.T) {
	names := []string{"wind-1/1", "wind-2/105", "wind-3/210", "wind-3/57"}
	groups, frames := loadBanner(t, [2]int{0, 0}, [2]int{1, 104}, [2]int{2, 209}, [2]int{2, 56})
	if len(groups) != 31 || len(frames[0]) != 2152 {
		t.Fatalf("%d groups, %d vertices", len(groups), len(frames[0]))
	}
	c, err := New(groups, len(frames[0]))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := c.Frames(frames)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames in %v on both cores", len(frames), time.Since(start))
	for f, pairs := range got {
		if len(pairs) != 0 {
			t.Errorf("%s: %v", names[f], pairs)
		}
	}
	for g := range groups {
		groups[g].Attach = nil
	}
	c, err = New(groups, len(frames[0]))
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := c.Frame(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 30 || fmt.Sprint(pairs[0].K, pairs[29].K, pairs[29].L) != "0 0 30" {
		t.Errorf("unsewn: %v, want rope–flag for each of the 30 flags", pairs)
	}
}

// BenchmarkBannerFrame checks one banner frame (3,140 triangles, 31
// groups) on one core.
func BenchmarkBannerFrame(b *testing.B) {
	groups, frames := loadBanner(b, [2]int{2, 99})
	c, err := New(groups, len(frames[0]))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Frame(frames[0]); err != nil {
			b.Fatal(err)
		}
	}
}
