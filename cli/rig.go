package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"gallop/assets"
	"gallop/solver/ssdr"
	"gallop/tools/rig"
)

// rigResult is what `gallop rig --json` prints.
type rigResult struct {
	Vertices      int       `json:"vertices"`
	Frames        int       `json:"frames"`
	Bones         int       `json:"bones"`
	MaxInfluences int       `json:"max_influences"`
	Iterations    int       `json:"iterations"`
	BestIteration int       `json:"best_iteration"`
	RMSE          float64   `json:"rmse"`
	RMSERelative  float64   `json:"rmse_relative"`
	Diagonal      float64   `json:"bbox_diagonal"`
	Seconds       float64   `json:"seconds"`
	History       []float64 `json:"rmse_history"`
	// With --out: the size of the skinned file written, and that of the
	// morph-target export of the same clip (written to a temporary file
	// of the same kind), for comparison.
	GLBBytes      int64 `json:"glb_bytes,omitempty"`
	MorphGLBBytes int64 `json:"morph_glb_bytes,omitempty"`
}

func runRig(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("rig", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the rest pose, an .obj file with the animation's vertices (default: the first frame)")
	bones := fs.Int("bones", 0, "number of bones B (required)")
	maxInfl := fs.Int("max-influences", 4, "most bones per vertex K (1 to 16)")
	iters := fs.Int("iterations", 100, "most alternation rounds (it stops earlier when the error stalls)")
	smooth := fs.Float64("smooth", 1e-4, "weight smoothness (Dem Bones' weightsSmooth); 0 for none")
	transAffine := fs.Float64("trans-affine", 10, "translation affinity (Dem Bones' transAffine); 0 for none")
	polish := fs.Int("polish", 5, "rounds without the translation affinity after the alternation stops; 0 for none, as Dem Bones")
	out := fs.String("out", "", "write the rig and its animation as a skinned glTF (.glb or .gltf)")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop rig IN [--reference REF.obj] --bones B [--max-influences 4]
                 [--iterations N] [--smooth S] [--trans-affine A] [--polish P]
                 [--out OUT.glb] [--json]

Infers a linear-blend-skinning rig from a mesh animation (IN: a folder of OBJ
frames, or a .gltf / .glb file whose first animated object is used) by Smooth
Skinning Decomposition with Rigid Bones (Le and Deng 2012), as Dem Bones
does: B bones with a rigid transform per frame and at most K weights per
vertex. Without --reference the first frame is the rest pose. Unlike Dem
Bones, it ends with --polish rounds without the translation affinity, which
lower the error (and recover exact skinning) at the cost of bone
translations held less closely to their vertices. With --out it
also reports the file's size and that of the clip's morph-target export.`)
		fs.PrintDefaults()
	}
	in, err := parseInput(fs, args)
	if err != nil {
		return err
	}
	if *bones == 0 {
		fs.Usage()
		return errUsage
	}
	if *maxInfl < 1 || *maxInfl > 16 {
		return fmt.Errorf("--max-influences %d: want 1 to 16", *maxInfl)
	}
	if *iters < 1 {
		return fmt.Errorf("--iterations %d: want at least 1", *iters)
	}
	if *smooth < 0 || *transAffine < 0 || *polish < 0 {
		return errors.New("--smooth, --trans-affine and --polish must not be negative")
	}
	mesh, clip, err := loadAnimation(in)
	if err != nil {
		return err
	}
	animMesh, rest := mesh, clip.Frames[0]
	if *refPath != "" {
		ref, err := assets.LoadOBJ(*refPath)
		if err != nil {
			return err
		}
		if ref.NumVertices() != mesh.NumVertices() {
			return fmt.Errorf("%s: %d vertices, the animation %s has %d", *refPath, ref.NumVertices(), in, mesh.NumVertices())
		}
		mesh, rest = ref, ref.Positions
	}
	opts := ssdr.Options{Bones: *bones, MaxInfluences: *maxInfl, Iterations: *iters, Smooth: *smooth, TransAffine: *transAffine, PolishIterations: *polish}
	if *smooth == 0 {
		opts.Smooth = -1 // none (0 would mean the default)
	}
	if *transAffine == 0 {
		opts.TransAffine = -1
	}
	if *polish == 0 {
		opts.PolishIterations = -1
	}
	line := newProgress()
	polishRounds, polished := opts.MaxRounds()-*iters, 0
	opts.Progress = func(it int, rmse float64, polish bool) {
		if polish {
			polished++
			line.Report("rig: polish round %d of %d, RMSE %.4g", polished, polishRounds, rmse)
			return
		}
		line.Report("rig: iteration %d of at most %d, RMSE %.4g", it, *iters, rmse)
	}
	line.Report("rig: clustering %d vertices into %d bones", len(rest), *bones)
	start := time.Now()
	res, err := ssdr.Decompose(context.Background(), rest, mesh.Triangles, clip.Frames, opts)
	line.Done()
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	seconds := time.Since(start).Seconds()
	lo, hi := assets.Bounds(rest)
	diag := hi.Sub(lo).Len()
	r := rigResult{
		Vertices: len(rest), Frames: len(clip.Frames), Bones: *bones, MaxInfluences: *maxInfl,
		Iterations: res.Iterations, BestIteration: res.BestIteration, RMSE: res.RMSE, Diagonal: diag,
		Seconds: seconds, History: res.History,
	}
	if *out != "" {
		if err := assets.SaveGLTF(*out, rig.SkinnedObject(res, clip.Name, clip.FPS, mesh, rest), assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
			return err
		}
		if r.GLBBytes, r.MorphGLBBytes, err = exportSizes(*out, &assets.Object{Name: clip.Name, Mesh: animMesh, Clip: clip}); err != nil {
			return err
		}
	}
	if diag > 0 {
		r.RMSERelative = res.RMSE / diag
	}
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%d bones, at most %d influences: RMSE %.6g (%.4g of the bounding-box diagonal) after %d iterations (best %d), %.2f s\n",
		r.Bones, r.MaxInfluences, r.RMSE, r.RMSERelative, r.Iterations, r.BestIteration, r.Seconds)
	if *out != "" {
		fmt.Fprintf(stdout, "%s: %d bytes; the morph-target export of the clip: %d bytes\n", *out, r.GLBBytes, r.MorphGLBBytes)
	}
	return nil
}

// exportSizes returns the size of the file at path and that of the
// morph-target export of o, written to a temporary file of the same kind
// (.glb or .gltf) and removed.
func exportSizes(path string, o *assets.Object) (skin, morph int64, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	tmp, err := os.MkdirTemp("", "gallop-morph-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	morphPath := filepath.Join(tmp, "morph"+filepath.Ext(path))
	if err := assets.SaveGLTF(morphPath, o, assets.ExportOptions{Mode: assets.ExportMorph}); err != nil {
		return 0, 0, fmt.Errorf("measuring the morph-target export: %w", err)
	}
	mst, err := os.Stat(morphPath)
	if err != nil {
		return 0, 0, err
	}
	return st.Size(), mst.Size(), nil
}

// loadAnimation reads a folder of OBJ frames, or the first object of a glTF
// file that has an animation of at least two frames.
func loadAnimation(in string) (*assets.Mesh, *assets.Clip, error) {
	st, err := os.Stat(in)
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		files, err := assets.ListOBJSequence(in)
		if err != nil {
			return nil, nil, err
		}
		return assets.LoadOBJSequence(context.Background(), files, nil)
	}
	if assets.DetectFormat(in) != assets.FormatGLTF {
		return nil, nil, fmt.Errorf("%s: want a folder of OBJ frames or a .gltf / .glb file", in)
	}
	objs, err := assets.LoadGLTF(in)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objs {
		if o.Clip != nil && len(o.Clip.Frames) >= 2 {
			return o.Mesh, o.Clip, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: no animated mesh (need an object with at least 2 frames)", filepath.Base(in))
}
