package ensemble

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"gallop/assets"
	"gallop/internal/shareddata"
)

// bannerFrames is how many frames of each wind level the tests load: the
// first 90 of 210 (three levels, 270 frames), enough for transitions
// with one blend length (MinFrames(30, 10) = 82) and quick to load and
// model. The benchmarks
// load all 210.
const bannerFrames = 90

// loadBanner reads the ensemble-banner data set through the file layer
// (assets.LoadEnsemble) and keeps the first frames frames of each level.
func loadBanner(dir string, frames int) (*Dataset, error) {
	levels := []string{filepath.Join(dir, "wind-1"), filepath.Join(dir, "wind-2"), filepath.Join(dir, "wind-3")}
	e, err := assets.LoadEnsemble(context.Background(), levels, "", nil)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Rest: e.Rest, FPS: 30}
	for _, g := range e.Groups {
		grp := Group{Name: g.Name, First: g.First, Count: g.Count, Parent: g.Parent, Triangles: g.Triangles}
		for _, a := range g.Attach {
			grp.Attach = append(grp.Attach, Attachment{Vertex: a[0], ParentVertex: a[1]})
		}
		d.Groups = append(d.Groups, grp)
	}
	for _, c := range e.Levels {
		d.Levels = append(d.Levels, Level{Name: c.Name, Frames: c.Frames[:frames]})
	}
	return d, nil
}

var banners sync.Map // frames → *bannerEntry

type bannerEntry struct {
	once  sync.Once
	data  *Dataset
	model *Model
	err   error
}

// banner returns the banner data set (frames frames per level) and its
// model, loaded once per test binary: with default options for the whole
// banner (the builds), with the paper's single blend length on the first
// bannerFrames (the tests of poses and the oracle, whose frame numbers
// were chosen for it).
func banner(tb testing.TB, frames int) (*Dataset, *Model) {
	tb.Helper()
	dir := shareddata.Path(tb, "ensemble-banner")
	v, _ := banners.LoadOrStore(frames, &bannerEntry{})
	e := v.(*bannerEntry)
	e.once.Do(func() {
		e.data, e.err = loadBanner(dir, frames)
		if e.err == nil {
			o := Options{}
			if frames < fullBanner {
				o.Blends = 1
			}
			e.model, e.err = NewModel(context.Background(), e.data, o, nil)
		}
	})
	if e.err != nil {
		tb.Fatal(e.err)
	}
	return e.data, e.model
}
