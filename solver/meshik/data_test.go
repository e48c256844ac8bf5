package meshik

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/farthest"
)

// allPoses loads a pose set with all its frames: the lion's 9, the
// horse's 10.
func allPoses(t testing.TB, set string) (*poseSet, float64) {
	t.Helper()
	frames := []int{1, 2, 3, 4, 5, 6, 7, 8, 9}
	if set == "horse-poses" {
		frames = append(frames, 10)
	}
	p := loadPoses(t, set, frames...)
	lo, hi := assets.Bounds(p.ref.Positions)
	return p, hi.Sub(lo).Len()
}

// spreadHandles is the acceptance tests' handle set: 10 vertices by
// farthest-point sampling from vertex 0 of the reference.
func spreadHandles(ref *assets.Mesh) []int {
	return farthest.Points(ref.Positions, 10, 0)
}

// poseTo starts from the reference with the space's neutral weights,
// constrains the handles to pose's positions and solves.
func poseTo(t testing.TB, s *Solver, ref, pose []mgl64.Vec3) (Result, error) {
	t.Helper()
	if err := s.SetPositions(ref); err != nil {
		t.Fatal(err)
	}
	s.ResetWeights()
	targets := make([]mgl64.Vec3, len(s.Handles()))
	for i, v := range s.Handles() {
		targets[i] = pose[v]
	}
	if err := s.SetTargets(targets); err != nil {
		t.Fatal(err)
	}
	if err := s.StartFromLinear(); err != nil {
		t.Fatal(err)
	}
	return s.Solve(nil)
}

// TestReproducesExamples is acceptance point 1 of the Pose tool: with every
// pose as an example and 10 well-spread vertices constrained to pose k's
// positions, the solve returns pose k (RMS error ≤ 1e-4 of the bounding
// box diagonal) for every k.
func TestReproducesExamples(t *testing.T) {
	for _, name := range []string{"lion-poses", "horse-poses"} {
		t.Run(name, func(t *testing.T) {
			set, diag := allPoses(t, name)
			s, err := New(set.ref.Positions, set.ref.Triangles, set.poses, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetHandles(spreadHandles(set.ref)); err != nil {
				t.Fatal(err)
			}
			for k, pose := range set.poses {
				res, err := poseTo(t, s, set.ref.Positions, pose)
				if err != nil {
					t.Fatalf("pose %d: %v", k+1, err)
				}
				rel := rmsDistance(s.Positions(), pose) / diag
				t.Logf("pose %d: %d iterations, RMS / diagonal %.2e", k+1, res.Iterations, rel)
				if rel > 1e-4 || math.IsNaN(rel) {
					t.Errorf("pose %d: RMS error %.3g of the diagonal, want ≤ 1e-4 (weights %.3f)", k+1, rel, s.Weights())
				}
			}
		})
	}
}

// LeaveOneOut is one row of the generalisation table: pose k left out of
// the examples, the 10 spread vertices constrained to its positions, the
// RMS vertex error over the bounding-box diagonal in each space.
type LeaveOneOut struct {
	Pose                        int
	Nonlinear, Linear, Identity float64
}

// leaveOneOut runs the generalisation experiment on a pose set.
func leaveOneOut(t testing.TB, set *poseSet, diag float64) []LeaveOneOut {
	var rows []LeaveOneOut
	handles := spreadHandles(set.ref)
	for k, pose := range set.poses {
		var examples [][]mgl64.Vec3
		for i, p := range set.poses {
			if i != k {
				examples = append(examples, p)
			}
		}
		row := LeaveOneOut{Pose: k + 1}
		for _, kind := range []SpaceKind{Nonlinear, Linear, Identity} {
			ex := examples
			if kind == Identity {
				ex = nil
			}
			s, err := New(set.ref.Positions, set.ref.Triangles, ex, Options{Space: kind})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SetHandles(handles); err != nil {
				t.Fatal(err)
			}
			if _, err := poseTo(t, s, set.ref.Positions, pose); err != nil {
				t.Fatalf("pose %d, %v space: %v", k+1, kind, err)
			}
			e := rmsDistance(s.Positions(), pose) / diag
			switch kind {
			case Nonlinear:
				row.Nonlinear = e
			case Linear:
				row.Linear = e
			case Identity:
				row.Identity = e
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestLeaveOneOut is acceptance point 2 of the Pose tool: pose k left out
// of the examples and the same vertices constrained to its positions, the
// nonlinear space must beat the linear space and the reference alone on
// average over k, as the paper claims.
func TestLeaveOneOut(t *testing.T) {
	for _, name := range []string{"lion-poses", "horse-poses"} {
		t.Run(name, func(t *testing.T) {
			set, diag := allPoses(t, name)
			rows := leaveOneOut(t, set, diag)
			var mean LeaveOneOut
			for _, r := range rows {
				t.Logf("pose %2d: nonlinear %.2e  linear %.2e  identity %.2e", r.Pose, r.Nonlinear, r.Linear, r.Identity)
				mean.Nonlinear += r.Nonlinear / float64(len(rows))
				mean.Linear += r.Linear / float64(len(rows))
				mean.Identity += r.Identity / float64(len(rows))
			}
			t.Logf("mean:    nonlinear %.2e  linear %.2e  identity %.2e", mean.Nonlinear, mean.Linear, mean.Identity)
			if !(mean.Nonlinear < mean.Linear && mean.Nonlinear < mean.Identity) {
				t.Errorf("the nonlinear space does not generalise best on average: %+v", mean)
			}
		})
	}
}
