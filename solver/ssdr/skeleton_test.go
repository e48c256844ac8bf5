package ssdr

import (
	"context"
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSkeletonCylinder: the cylinder set is exact linear blend skinning
// by a chain of four bones with joints at x = −0.9, 0 and 0.9. Asked
// for a skeleton of four bones, Decompose finds that chain (each joint
// between the ground-truth bones it lies between, within 2% of the
// cylinder's length of the true joint), one root, joints that hold in
// every frame, and poses within 1e-3 of the diagonal.
func TestSkeletonCylinder(t *testing.T) {
	ref, frames, truth := loadCylinder(t)
	r, err := Decompose(context.Background(), ref.Positions, ref.Triangles, frames, Options{Bones: 4, Skeleton: DefaultSkeleton()})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, r, ref.NumVertices(), 4, 8, len(frames))
	k := r.Skeleton
	if k == nil {
		t.Fatal("no skeleton")
	}
	if err := k.Validate(4); err != nil {
		t.Fatal(err)
	}
	diag := diagonal(ref.Positions)
	worst, gap := 0.0, 0.0
	var pose []mgl64.Vec3
	for f, want := range frames {
		pose = r.Pose(pose, ref.Positions, f)
		for i := range want {
			worst = max(worst, pose[i].Sub(want[i]).Len())
		}
		for j, p := range k.Parent {
			if p >= 0 {
				gap = max(gap, r.Transforms[f][j].Apply(k.Joint[j]).Sub(r.Transforms[f][p].Apply(k.Joint[j])).Len())
			}
		}
	}
	t.Logf("RMSE %.3g of the diagonal (free bones %.3g), worst vertex %.3g, joints part by %.2g; parents %v, joints %v",
		r.RMSE/diag, r.FlatRMSE/diag, worst/diag, gap/diag, k.Parent, k.Joint)
	if worst > 1e-3*diag || gap > 1e-9*diag {
		t.Errorf("worst vertex %.3g of the diagonal (want ≤ 1e-3), joints part by %.3g", worst/diag, gap/diag)
	}
	// Ground truth: bones 0 (x 0 to 0.9), 1 (0.9 to 1.8), 2 (0 to −0.9),
	// 3 (−0.9 to −1.8), the DMAT's columns in the TGF's edge order.
	joints := map[[2]int]float64{{0, 1}: 0.9, {0, 2}: 0, {2, 3}: -0.9}
	match := matchBones(r.Weights, truth, 4)
	for j, p := range k.Parent {
		if p < 0 {
			continue
		}
		a, b := min(match[j], match[p]), max(match[j], match[p])
		x, ok := joints[[2]int{a, b}]
		if !ok {
			t.Errorf("bone %d (true bone %d) hangs from bone %d (true bone %d), which it does not touch", j, match[j], p, match[p])
			continue
		}
		if d := k.Joint[j].Sub(mgl64.Vec3{x, 0, 0}).Len(); d > 0.02*3.6 {
			t.Errorf("the joint of bones %d and %d is at %v, %.3g from the true joint at x = %g", j, p, k.Joint[j], d, x)
		}
	}
}

// TestSkeletonOptions: the root asked for (a bone, or the bone weighing a
// vertex most) is the root; a locked bone's vertices keep the weights the
// free bones gave them; a given skeleton comes back with its hierarchy
// and joints; bad options are refused with ErrSkeleton.
func TestSkeletonOptions(t *testing.T) {
	ref, frames, _ := loadCylinder(t)
	fit := func(o *SkeletonOptions) *Result {
		t.Helper()
		r, err := Decompose(context.Background(), ref.Positions, ref.Triangles, frames, Options{Bones: 4, Skeleton: o})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	flat := fit(nil)
	o := DefaultSkeleton()
	o.Root = 3
	if r := fit(o); r.Skeleton.Root() != 3 {
		t.Errorf("root %d, asked for 3", r.Skeleton.Root())
	}
	o = DefaultSkeleton()
	o.RootVertex = 7
	if r, want := fit(o), flat.Weights[7][0].Bone; r.Skeleton.Root() != want {
		t.Errorf("root %d, the bone weighing vertex 7 most is %d", r.Skeleton.Root(), want)
	}
	o = DefaultSkeleton()
	o.Locked = []int{1}
	r := fit(o)
	held := 0
	for i, l := range flat.Weights {
		for _, in := range l {
			if in.Bone == 1 {
				held++
				if !equalInfluences(r.Weights[i], l) {
					t.Fatalf("vertex %d of locked bone 1: weights %v, before %v", i, r.Weights[i], l)
				}
				break
			}
		}
	}
	if held == 0 {
		t.Fatal("bone 1 weighs no vertex")
	}
	given := fit(DefaultSkeleton()).Skeleton
	o = &SkeletonOptions{Root: AutoRoot, RootVertex: -1, Given: given, Weights: flat.Weights}
	g := fit(o)
	for j := range given.Parent {
		if g.Skeleton.Parent[j] != given.Parent[j] || g.Skeleton.Joint[j] != given.Joint[j] {
			t.Errorf("given bone %d: parent %d at %v, got parent %d at %v", j, given.Parent[j], given.Joint[j], g.Skeleton.Parent[j], g.Skeleton.Joint[j])
		}
	}
	diag := diagonal(ref.Positions)
	if g.RMSE > 1e-4*diag || g.Iterations != g.SkeletonRounds {
		t.Errorf("fit to the given skeleton: RMSE %.3g of the diagonal after %d rounds (%d skeleton rounds)", g.RMSE/diag, g.Iterations, g.SkeletonRounds)
	}
	// Without weights: each vertex starts on its nearest bone.
	o.Weights = nil
	if g := fit(o); g.RMSE > 1e-3*diag {
		t.Errorf("fit to the given skeleton from its nearest bones: RMSE %.3g of the diagonal", g.RMSE/diag)
	}

	two := given.Clone()
	two.Parent[two.Order()[1]] = -1
	for name, o := range map[string]*SkeletonOptions{
		"root 4":       {Root: 4, RootVertex: -1},
		"vertex -2":    {Root: AutoRoot, RootVertex: -2},
		"lock 9":       {Root: AutoRoot, RootVertex: -1, Locked: []int{9}},
		"two roots":    {Root: AutoRoot, RootVertex: -1, Given: two},
		"weights only": {Root: AutoRoot, RootVertex: -1, Weights: flat.Weights},
	} {
		_, err := Decompose(context.Background(), ref.Positions, ref.Triangles, frames, Options{Bones: 4, Skeleton: o})
		if !errors.Is(err, ErrSkeleton) {
			t.Errorf("%s: %v, want ErrSkeleton", name, err)
		}
	}
}

// equalInfluences reports whether a and b hold the same influences.
func equalInfluences(a, b []Influence) bool {
	if len(a) != len(b) {
		return false
	}
	for q := range a {
		if a[q] != b[q] {
			return false
		}
	}
	return true
}

// TestSkeletonSampled: on a mesh fitted coarse to fine (SampleVertices),
// the skeleton found on the sample is refined on the whole mesh and keeps
// its joints together there.
func TestSkeletonSampled(t *testing.T) {
	ref, frames, _ := loadCylinder(t)
	r, err := Decompose(context.Background(), ref.Positions, ref.Triangles, frames, Options{Bones: 4, SampleVertices: 100, Skeleton: DefaultSkeleton()})
	if err != nil {
		t.Fatal(err)
	}
	checkInvariants(t, r, ref.NumVertices(), 4, 8, len(frames))
	diag := diagonal(ref.Positions)
	gap := 0.0
	for f := range frames {
		for j, p := range r.Skeleton.Parent {
			if p >= 0 {
				gap = max(gap, r.Transforms[f][j].Apply(r.Skeleton.Joint[j]).Sub(r.Transforms[f][p].Apply(r.Skeleton.Joint[j])).Len())
			}
		}
	}
	t.Logf("sample of %d: RMSE %.3g of the diagonal, %d skeleton rounds, %d refinement rounds, joints part by %.2g",
		r.SampleVertices, r.RMSE/diag, r.SkeletonRounds, r.RefineRounds, gap/diag)
	if r.SampleVertices != 100 || r.RefineRounds == 0 || r.RMSE > 1e-3*diag || gap > 1e-9*diag {
		t.Errorf("sample %d, %d refinement rounds, RMSE %.3g of the diagonal, joints part by %.3g", r.SampleVertices, r.RefineRounds, r.RMSE/diag, gap/diag)
	}
}
