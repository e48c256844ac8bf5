package ssdr

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
)

// loadSet loads a shared set's reference and frames.
func loadSet(b testing.TB, name string) (*assets.Mesh, [][]mgl64.Vec3) {
	dir := sharedDir(b, name)
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		b.Fatal(err)
	}
	files, err := assets.ListOBJSequence(filepath.Join(dir, "frames"))
	if err != nil {
		b.Fatal(err)
	}
	_, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		b.Fatal(err)
	}
	return ref, clip.Frames
}

// BenchmarkDecompose runs the acceptance-2 settings (Dem Bones'
// defaults, at most 8 influences) and reports the RMSE over the bounding
// box diagonal and the rounds run.
func BenchmarkDecompose(b *testing.B) {
	for _, set := range []string{"horse-gallop", "pcow"} {
		for _, bones := range []int{10, 20, 30} {
			b.Run(fmt.Sprintf("%s/bones=%d", set, bones), func(b *testing.B) {
				ref, frames := loadSet(b, set)
				b.ResetTimer()
				var r *Result
				for range b.N {
					var err error
					r, err = Decompose(context.Background(), ref.Positions, ref.Triangles, frames, Options{Bones: bones})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.RMSE/diagonal(ref.Positions), "rmse/diag")
				b.ReportMetric(float64(r.Iterations), "iterations")
			})
		}
	}
}

// BenchmarkRound times one alternation round (transforms, then weights)
// on the horse with 20 bones, after the clustering.
func BenchmarkRound(b *testing.B) {
	ref, frames := loadSet(b, "horse-gallop")
	s := newSolver(ref.Positions, adjacency(b, len(ref.Positions), ref.Triangles), frames, Options{Bones: 20}.withDefaults())
	if err := s.initialize(context.Background()); err != nil {
		b.Fatal(err)
	}
	sm, err := newSmoother(s)
	if err != nil {
		b.Fatal(err)
	}
	s.smooth = sm
	var tr transformStep
	var ws weightStep
	b.ResetTimer()
	for range b.N {
		tr.run(s, s.opts.TransAffine)
		ws.run(s)
	}
}
