package dynamics

import (
	"context"
	"path/filepath"
	"testing"

	"gallop/assets"
	"gallop/internal/shareddata"
	"gallop/solver/ssdr"
	"gallop/tools/rig"
)

// TestSkeletonRigDrives (issue 35): an object rigged as a skeleton (the
// Rig tool's skeleton mode, applied) drives the dynamics as a rig of free
// bones does: its bones run from joint to child joint (the segments the
// spokes hang on), and the goal is the rig's skinning of its animation.
func TestSkeletonRigDrives(t *testing.T) {
	mesh, clip, err := assets.LoadAnimation(filepath.Join(shareddata.Path(t, "cylinder-rig"), "poses-1"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := ssdr.Decompose(context.Background(), mesh.Positions, mesh.Triangles, clip.Frames, ssdr.Options{Bones: 4, Skeleton: ssdr.DefaultSkeleton()})
	if err != nil {
		t.Fatal(err)
	}
	o := rig.SkinnedObject(res, "cylinder", 24, mesh, mesh.Positions)
	rg, err := NewRigging(o)
	if err != nil {
		t.Fatal(err)
	}
	_, segs, _, err := newModel(o)
	if err != nil {
		t.Fatal(err)
	}
	joint := func(j int) assets.Vec3 { return o.Rig.Joints[j].InverseBind.Inv().Col(3).Vec3() }
	children := map[int]int{}
	for _, jt := range o.Rig.Joints {
		if jt.Parent >= 0 {
			children[jt.Parent]++
		}
	}
	for j, s := range segs {
		if s.A.Sub(s.B).Len() == 0 {
			t.Errorf("bone %d's segment has no length", j)
		}
		if children[j] == 1 && s.A != joint(j) {
			t.Errorf("bone %d's segment starts at %v, its joint is at %v", j, s.A, joint(j))
		}
	}
	var want []assets.Vec3
	for f := range clip.Frames {
		want = res.Pose(want, mesh.Positions, f)
		for i, p := range rg.Goal.Positions[f] {
			if d := p.Sub(want[i]).Len(); d > 1e-9 {
				t.Fatalf("frame %d, vertex %d: the goal is %.3g from the skeleton's skinning", f, i, d)
			}
		}
	}
}
