package synth

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/ssdr"
)

// models caches the SSDR models of the shared data sets across tests.
var models sync.Map

// loadModel returns the model of shared data set name (its reference.obj
// and frames/), rigged by SSDR with bones bones and 4 influences.
func loadModel(t testing.TB, name string, bones int) *Model {
	t.Helper()
	dir := shareddata.Path(t, name)
	key := [2]any{name, bones}
	if m, ok := models.Load(key); ok {
		return m.(*Model)
	}
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := assets.ListOBJSequence(filepath.Join(dir, "frames"))
	if err != nil {
		t.Fatal(err)
	}
	_, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := ssdr.Decompose(context.Background(), ref.Positions, ref.Triangles, clip.Frames, ssdr.Options{Bones: bones, MaxInfluences: 4})
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Rest: ref.Positions, Triangles: ref.Triangles, Weights: res.Weights, Bones: res.Transforms, Input: clip.Frames}
	models.Store(key, m)
	return m
}
