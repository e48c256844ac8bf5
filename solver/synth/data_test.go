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

// subdividedModel returns the model of shared data set name (as loadModel
// rigs it) on its mesh subdivided once by assets.SubdivideMidpoint: about
// four times the vertices and triangles. The bones are the same; an edge's
// midpoint vertex takes the mean of its end points' weights (so they still
// sum to 1: linear blend skinning then poses it at the mean of their
// skinned positions up to the bones' spread, as a rig carried over by
// assets.SubdivideMidpointRig does), and every input frame is subdivided
// the same way.
func subdividedModel(t testing.TB, name string, bones int) *Model {
	t.Helper()
	key := [3]any{name, bones, "subdivided"}
	if m, ok := models.Load(key); ok {
		return m.(*Model)
	}
	m := loadModel(t, name, bones)
	mesh := &assets.Mesh{Positions: m.Rest, Triangles: m.Triangles}
	sub := assets.SubdivideMidpoint(mesh)
	nb := m.NumBones()
	// The weights, three bones at a time as the coordinates of a "pose",
	// through the same midpoint rule as the positions.
	dense := make([][]float64, len(sub.Positions))
	for i := range dense {
		dense[i] = make([]float64, nb)
	}
	w := make([]assets.Vec3, len(m.Rest))
	for b0 := 0; b0 < nb; b0 += 3 {
		for i, l := range m.Weights {
			w[i] = assets.Vec3{}
			for _, in := range l {
				if in.Bone >= b0 && in.Bone < b0+3 {
					w[i][in.Bone-b0] = in.Weight
				}
			}
		}
		for i, v := range assets.SubdivideMidpointPositions(mesh, w) {
			for c := 0; c < 3 && b0+c < nb; c++ {
				dense[i][b0+c] = v[c]
			}
		}
	}
	out := &Model{Rest: sub.Positions, Triangles: sub.Triangles, Bones: m.Bones, Weights: make([][]ssdr.Influence, len(dense))}
	for i, d := range dense {
		for b, x := range d {
			if x > 0 {
				out.Weights[i] = append(out.Weights[i], ssdr.Influence{Bone: b, Weight: x})
			}
		}
	}
	for _, f := range m.Input {
		out.Input = append(out.Input, assets.SubdivideMidpointPositions(mesh, f))
	}
	models.Store(key, out)
	return out
}
