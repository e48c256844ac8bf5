package meshik

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/decimate"
	"gallop/solver/farthest"
)

// coarseCow is pcow (the elastic cow, not used to tune the coarse level)
// subdivided once, 11,606 vertices, with frames 1-47 as examples: a full
// solver with 10 farthest-point handles held at frame 48, and a coarse
// level of 2,000 vertices synced to it.
func coarseCow(t *testing.T) (*Solver, *Coarse, *assets.Mesh, []mgl64.Vec3) {
	t.Helper()
	dir := shareddata.Path(t, "pcow")
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		t.Fatal(err)
	}
	var frames [][]mgl64.Vec3
	for f := 1; f <= 48; f++ {
		m, err := assets.LoadOBJ(filepath.Join(dir, "frames", fmt.Sprintf("%d.obj", f)))
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, assets.SubdivideMidpointPositions(ref, m.Positions))
	}
	fine := assets.SubdivideMidpoint(ref)
	s, err := New(fine.Positions, fine.Triangles, frames[:47], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPositions(frames[47]); err != nil {
		t.Fatal(err)
	}
	if err := s.SetHandles(farthest.Points(fine.Positions, 10, 0)); err != nil {
		t.Fatal(err)
	}
	s.FitWeights()
	simp, err := decimate.Simplify(fine.Positions, fine.Triangles, 2000)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCoarse(context.Background(), simp, fine.Positions, fine.Triangles, frames[:47], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(s, nil, fine.Triangles); err != nil {
		t.Fatal(err)
	}
	return s, c, fine, frames[47]
}

// TestCoarseDrag drags one handle of the cow by a tenth of its diagonal
// in five steps through the coarse level: every update puts the handles
// exactly on their targets and the rest of the mesh at the best positions
// for the coarse level's weights (what Reconstruct gives for them); the
// settled preview is within 1% (rms) and 3% (farthest vertex) of the
// diagonal of the full solve that finishes from it, and that solve
// converges in a few iterations.
func TestCoarseDrag(t *testing.T) {
	s, c, fine, pose := coarseCow(t)
	lo, hi := assets.Bounds(pose)
	diag := hi.Sub(lo).Len()
	hs := s.Handles()
	targets := make([]mgl64.Vec3, len(hs))
	for step := 1; step <= 5; step++ {
		for i, v := range hs {
			targets[i] = pose[v]
		}
		targets[0] = targets[0].Add(mgl64.Vec3{0.02 * diag * float64(step), 0.01 * diag * float64(step), 0})
		if err := s.SetTargets(targets); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		x := s.Positions()
		for i, v := range hs {
			if d := x[v].Sub(targets[i]).Len(); d > 1e-12*diag {
				t.Fatalf("step %d: handle vertex %d is %g from its target", step, v, d)
			}
		}
	}
	settled := false
	for range 50 {
		st, err := c.Step(s)
		if err != nil {
			t.Fatal(err)
		}
		if settled = st.Converged; settled {
			break
		}
	}
	if !settled {
		t.Fatal("the coarse solve did not settle in 50 iterations")
	}
	preview := s.Positions()
	// Place is Eq. 3 at fixed weights: Reconstruct (a full linearisation
	// and solve at the same weights) gives the same positions.
	w := s.Weights()
	if err := s.Reconstruct(w); err != nil {
		t.Fatal(err)
	}
	if d := maxDistance(preview, s.Positions()); d > 1e-9*diag {
		t.Errorf("Place is %g of the diagonal from Reconstruct", d/diag)
	}
	res, err := s.Solve(nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations > 20 {
		t.Errorf("the full solve took %d iterations from the preview", res.Iterations)
	}
	rms := rmsDistance(s.Positions(), preview) / diag
	farthestOff := maxDistance(preview, s.Positions()) / diag
	if rms > 0.01 || farthestOff > 0.03 {
		t.Errorf("the settled preview is rms %.3g, max %.3g of the diagonal from the full solve", rms, farthestOff)
	}
	t.Logf("%d → %d vertices; preview rms %.3g, max %.3g of the diagonal from the full solve (%d iterations)", fine.NumVertices(), c.Vertices(), rms, farthestOff, res.Iterations)
}

func maxDistance(a, b []mgl64.Vec3) float64 {
	d := 0.0
	for v := range a {
		d = math.Max(d, a[v].Sub(b[v]).Len())
	}
	return d
}

// TestCoarseRefuses: the coarse level says when it cannot be used, by
// name: before a Sync or after the handles changed (ErrCoarseStale), for
// handles that turn (ErrCoarseTurning), and for a simplification of
// another mesh.
func TestCoarseRefuses(t *testing.T) {
	s, c, fine, _ := coarseCow(t)
	if err := s.SetHandles(farthest.Points(fine.Positions, 5, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Step(s); !errors.Is(err, ErrCoarseStale) {
		t.Errorf("step after new handles: %v, want ErrCoarseStale", err)
	}
	c.Invalidate()
	if err := c.Sync(s, nil, fine.Triangles); err != nil {
		t.Fatal(err)
	}
	c.Invalidate()
	if _, err := c.Step(s); !errors.Is(err, ErrCoarseStale) {
		t.Errorf("step after Invalidate: %v, want ErrCoarseStale", err)
	}
	hs := s.Handles()
	if err := s.SetRotating([][]int{hs[:2]}); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(s, nil, fine.Triangles); !errors.Is(err, ErrCoarseTurning) {
		t.Errorf("sync with a turning handle: %v, want ErrCoarseTurning", err)
	}
	other, err := decimate.Simplify(fine.Positions[:3], [][3]int{{0, 1, 2}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewCoarse(context.Background(), other, fine.Positions, fine.Triangles, nil, Options{}); err == nil {
		t.Error("a simplification of another mesh was accepted")
	}
}
