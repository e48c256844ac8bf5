package meshik

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
)

// benchCase is one of the Pose tool's speed figures: a mesh, its examples,
// and the pose whose handle positions are the targets.
type benchCase struct {
	name     string
	ref      *assets.Mesh
	examples [][]mgl64.Vec3
	target   []mgl64.Vec3
}

func benchCases(b testing.TB) []benchCase {
	lion := loadPoses(b, "lion-poses", 1, 2, 3, 4, 5, 6, 7, 8, 9)
	horse := loadPoses(b, "horse-poses", 1, 2, 3, 4, 5)
	sub := assets.SubdivideMidpoint(horse.ref)
	var subEx [][]mgl64.Vec3
	for _, p := range horse.poses {
		subEx = append(subEx, assets.SubdivideMidpointPositions(horse.ref, p))
	}
	return []benchCase{
		// The lion with 9 examples; targets from pose 5 (one of them).
		{"lion-9", lion.ref, lion.poses, lion.poses[4]},
		// The horse with 4 examples (poses 1-4); targets from pose 5.
		{"horse-4", horse.ref, horse.poses[:4], horse.poses[4]},
		{"horse-subdivided-4", sub, subEx[:4], subEx[4]},
	}
}

// setup builds the solver and its handles and targets, as the Pose tool
// does for a new handle set.
func (c *benchCase) setup(b testing.TB) *Solver {
	s, err := New(c.ref.Positions, c.ref.Triangles, c.examples, Options{Exact: true})
	if err != nil {
		b.Fatal(err)
	}
	if err := s.SetHandles(spreadHandles(c.ref)); err != nil {
		b.Fatal(err)
	}
	targets := make([]mgl64.Vec3, len(s.Handles()))
	for i, v := range s.Handles() {
		targets[i] = c.target[v]
	}
	if err := s.SetTargets(targets); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkIteration measures the mean time of a Gauss-Newton iteration
// (Table 1's "solve" column; the weight system formed every iteration,
// Options.Exact) over whole solves from the reference pose to the target
// pose's handle positions (damped retries included).
func BenchmarkIteration(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			s := c.setup(b)
			iters := 0
			var total time.Duration
			for b.Loop() {
				if err := s.SetPositions(c.ref.Positions); err != nil {
					b.Fatal(err)
				}
				s.ResetWeights()
				start := time.Now()
				res, err := s.Solve(nil)
				if err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				iters += res.Iterations
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(iters), "ms/iteration")
		})
	}
}

// BenchmarkNewHandleSet measures what a new handle set costs once the mesh
// is loaded: the numeric refactorization of GᵀG.
func BenchmarkNewHandleSet(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			s := c.setup(b)
			h := spreadHandles(c.ref)
			for i := 0; b.Loop(); i++ {
				if err := s.SetHandles(h[:5+i%5]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAnalyzeFactor measures New (features, GᵀG, symbolic analysis)
// plus the first factorization: the full cost of a new mesh.
func BenchmarkAnalyzeFactor(b *testing.B) {
	for _, c := range benchCases(b) {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.setup(b)
			}
		})
	}
}
