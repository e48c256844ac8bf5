package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gallop/assets"
	"gallop/internal/figure"
	"gallop/solver/ssdr"
)

// rigBenchSets are the animations of the rig figures (issue 5, acceptance
// 2), each rigged from its reference.obj.
var rigBenchSets = []string{"horse-gallop", "pcow"}

// rigBenchBones are the bone counts of the rig figures, Dem Bones' table's.
var rigBenchBones = []int{10, 20, 30}

// benchRig prints the rig figures: for each set and bone count, SSDR with
// the default options (Dem Bones', then its polish rounds; at most 8
// influences): the median wall time of the
// decomposition over max(runs, 3) runs (file I/O excluded), its RMSE, the
// RMSE over the rest mesh's bounding-box diagonal and the rounds run; then
// the RMSE with at most 4 influences; with 20 bones, the skeleton's time,
// RMSE and ratio to the free bones' (K = 4).
func benchRig(stdout io.Writer, data string, runs int) error {
	runs = max(runs, 3)
	for _, set := range rigBenchSets {
		ref, clip, err := loadRigSet(data, set)
		if err != nil {
			return err
		}
		lo, hi := assets.Bounds(ref.Positions)
		diag := hi.Sub(lo).Len()
		name := strings.ReplaceAll(set, "-", "_")
		for _, bones := range rigBenchBones {
			prefix := fmt.Sprintf("rig_%s_%d", name, bones)
			decompose := func(k int) (*ssdr.Result, error) {
				res, err := ssdr.Decompose(context.Background(), ref.Positions, ref.Triangles, clip.Frames, ssdr.Options{Bones: bones, MaxInfluences: k})
				if err != nil {
					return nil, fmt.Errorf("%s, %d bones: %w", set, bones, err)
				}
				return res, nil
			}
			var res *ssdr.Result
			t, err := median(runs, func() (e error) {
				res, e = decompose(8)
				return e
			})
			if err != nil {
				return err
			}
			figure.Write(stdout, prefix+"_seconds", t.Seconds(), "s")
			figure.Write(stdout, prefix+"_rmse", res.RMSE, "model units")
			figure.Write(stdout, prefix+"_rmse_relative", res.RMSE/diag, "of the diagonal")
			figure.Write(stdout, prefix+"_iterations", float64(res.Iterations), "iterations")
			if res, err = decompose(4); err != nil {
				return err
			}
			figure.Write(stdout, prefix+"_k4_rmse", res.RMSE, "model units")
			figure.Write(stdout, prefix+"_k4_rmse_relative", res.RMSE/diag, "of the diagonal")
			if bones != 20 {
				continue
			}
			// The skeleton (issue 35), K = 4, one run: its error against
			// the free bones' it starts from.
			var sk *ssdr.Result
			t, err = median(1, func() (e error) {
				sk, e = ssdr.Decompose(context.Background(), ref.Positions, ref.Triangles, clip.Frames,
					ssdr.Options{Bones: bones, MaxInfluences: 4, Skeleton: ssdr.DefaultSkeleton()})
				return e
			})
			if err != nil {
				return fmt.Errorf("%s, %d bones, skeleton: %w", set, bones, err)
			}
			figure.Write(stdout, prefix+"_skeleton_seconds", t.Seconds(), "s")
			figure.Write(stdout, prefix+"_skeleton_rmse_relative", sk.RMSE/diag, "of the diagonal")
			figure.Write(stdout, prefix+"_skeleton_ratio", sk.RMSE/sk.FlatRMSE, "of the free bones' RMSE")
			figure.Write(stdout, prefix+"_skeleton_rounds", float64(sk.SkeletonRounds), "rounds")
		}
	}
	return nil
}

// loadRigSet reads a shared animation set laid out for rigging: its rest
// pose, reference.obj, and its frames/ folder.
func loadRigSet(data, set string) (*assets.Mesh, *assets.Clip, error) {
	dir := filepath.Join(data, set)
	ref, err := assets.LoadOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		return nil, nil, err
	}
	files, err := assets.ListOBJSequence(filepath.Join(dir, "frames"))
	if err != nil {
		return nil, nil, err
	}
	_, clip, err := assets.LoadOBJSequence(context.Background(), files, nil)
	if err != nil {
		return nil, nil, err
	}
	return ref, clip, nil
}
