package meshik

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/decimate"
	"gallop/solver/farthest"
)

// coarseCow is pcow (the elastic cow, not used to tune the coarse level)
// subdivided once, 11,606 vertices, with frames 1-47 as examples: a full
// solver with handles held at frame 48, and a coarse level of 2,000
// vertices synced to it. The handles are 10 farthest-point vertices, or
// with turning a hoof (60 vertices) and the muzzle (30) that turn with
// the pose; dragged is the vertices a test drags (the first handle, or
// the muzzle).
func coarseCow(t *testing.T, turning bool) (s *Solver, c *Coarse, fine *assets.Mesh, pose []mgl64.Vec3, dragged []int) {
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
	fine = assets.SubdivideMidpoint(ref)
	pose = frames[47]
	s, err = New(fine.Positions, fine.Triangles, frames[:47], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPositions(pose); err != nil {
		t.Fatal(err)
	}
	handles := farthest.Points(fine.Positions, 10, 0)
	var hoof []int
	dragged = handles[:1]
	if turning {
		hoof, dragged = hoofAndMuzzle(pose)
		handles = append(slices.Clone(hoof), dragged...)
	}
	if err := s.SetHandles(handles); err != nil {
		t.Fatal(err)
	}
	s.FitWeights()
	if turning {
		if err := s.SetRotating([][]int{hoof, dragged}); err != nil {
			t.Fatal(err)
		}
	}
	simp, err := decimate.Simplify(fine.Positions, fine.Triangles, 2000)
	if err != nil {
		t.Fatal(err)
	}
	c, err = NewCoarse(context.Background(), simp, fine.Positions, fine.Triangles, frames[:47], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(s, nil, fine.Triangles); err != nil {
		t.Fatal(err)
	}
	return s, c, fine, pose, dragged
}

// TestCoarseDrag drags a handle of the cow by a tenth of its diagonal in
// five steps through the coarse level, one vertex that holds its place or
// the muzzle turning with the pose (a hoof turning too): every update puts
// the handles exactly on their targets (a turning one rigidly, its
// centroid on its target) and the rest of the mesh at the best positions
// for the coarse level's weights (what Reconstruct gives for them); the
// settled preview is within a quarter of the drag's effect (rms and
// farthest vertex, against how far the full solve moved the mesh) of the
// full solve that finishes from it, for a handle that holds its place
// also within 1% (rms) and 3% (farthest vertex) of the diagonal, and that
// solve converges in a few iterations.
func TestCoarseDrag(t *testing.T) {
	for _, turning := range []bool{false, true} {
		name := map[bool]string{false: "holding", true: "turning"}[turning]
		t.Run(name, func(t *testing.T) { coarseDrag(t, turning) })
	}
}

func coarseDrag(t *testing.T, turning bool) {
	s, c, fine, pose, dragged := coarseCow(t, turning)
	if turning && len(c.s.groups) != 2 {
		t.Fatalf("%d coarse rotating groups, want the hoof's and the muzzle's", len(c.s.groups))
	}
	lo, hi := assets.Bounds(pose)
	diag := hi.Sub(lo).Len()
	hs := s.Handles()
	targets := make([]mgl64.Vec3, len(hs))
	for step := 1; step <= 5; step++ {
		for i, v := range hs {
			targets[i] = pose[v]
			if slices.Contains(dragged, v) {
				targets[i] = targets[i].Add(mgl64.Vec3{0.02 * diag * float64(step), 0.01 * diag * float64(step), 0})
			}
		}
		if err := s.SetTargets(targets); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Step(s); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		onTargets(t, s, targets, diag)
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
	if !turning {
		// Place is Eq. 3 at fixed weights: Reconstruct (a full
		// linearisation and solve at the same weights) gives the same
		// positions.
		w := s.Weights()
		if err := s.Reconstruct(w); err != nil {
			t.Fatal(err)
		}
		if d := maxDistance(preview, s.Positions()); d > 1e-9*diag {
			t.Errorf("Place is %g of the diagonal from Reconstruct", d/diag)
		}
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
	moved, movedFar := rmsDistance(s.Positions(), pose)/diag, maxDistance(s.Positions(), pose)/diag
	t.Logf("%d → %d vertices; preview rms %.3g, max %.3g of the diagonal from the full solve (%d iterations), which moved the mesh by rms %.3g, max %.3g", fine.NumVertices(), c.Vertices(), rms, farthestOff, res.Iterations, moved, movedFar)
	// The preview approximates what the drag does: measured against how
	// far the full solve moved the mesh (holding: 11% of it, rms and
	// farthest vertex; turning: 7% and 19%), and for handles that hold
	// their orientation also in the diagonal (0.36% and 1.2%).
	if rms > 0.25*moved || farthestOff > 0.25*movedFar {
		t.Errorf("the settled preview is rms %.3g, max %.3g of the diagonal from the full solve: more than a quarter of how far it moved the mesh", rms, farthestOff)
	}
	if !turning && (rms > 0.01 || farthestOff > 0.03) {
		t.Errorf("the settled preview is rms %.3g, max %.3g of the diagonal from the full solve", rms, farthestOff)
	}
}

// onTargets checks that the full solver's handles are on their targets:
// a fixed vertex at its own, a rotating group's centroid at theirs and its
// shape theirs (every vertex as far from the centroid as its target).
func onTargets(t *testing.T, s *Solver, targets []mgl64.Vec3, diag float64) {
	t.Helper()
	x := s.Positions()
	hs := s.Handles()
	in := map[int]bool{}
	for _, g := range s.groups {
		var ct, cx mgl64.Vec3
		for _, v := range g.verts {
			in[v] = true
			i, _ := slices.BinarySearch(hs, v)
			ct, cx = ct.Add(targets[i]), cx.Add(x[v])
		}
		k := 1 / float64(len(g.verts))
		ct, cx = ct.Mul(k), cx.Mul(k)
		if d := cx.Sub(ct).Len(); d > 1e-12*diag {
			t.Fatalf("a rotating group's centroid is %g from its target", d)
		}
		for _, v := range g.verts {
			i, _ := slices.BinarySearch(hs, v)
			if d := math.Abs(x[v].Sub(cx).Len() - targets[i].Sub(ct).Len()); d > 1e-9*diag {
				t.Fatalf("vertex %d of a rotating group is %g out of its shape", v, d)
			}
		}
	}
	for i, v := range hs {
		if !in[v] {
			if d := x[v].Sub(targets[i]).Len(); d > 1e-12*diag {
				t.Fatalf("handle vertex %d is %g from its target", v, d)
			}
		}
	}
}

func maxDistance(a, b []mgl64.Vec3) float64 {
	d := 0.0
	for v := range a {
		d = math.Max(d, a[v].Sub(b[v]).Len())
	}
	return d
}

// TestCoarseRefuses: the coarse level says when it cannot be used, by
// name: before a Sync or after the handles changed (ErrCoarseStale), and
// for a simplification of another mesh.
func TestCoarseRefuses(t *testing.T) {
	s, c, fine, _, _ := coarseCow(t, false)
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
	other, err := decimate.Simplify(fine.Positions[:3], [][3]int{{0, 1, 2}}, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewCoarse(context.Background(), other, fine.Positions, fine.Triangles, nil, Options{}); err == nil {
		t.Error("a simplification of another mesh was accepted")
	}
}
