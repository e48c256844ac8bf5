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
	"strings"
	"time"

	"gallop/assets"
	"gallop/internal/option"
	"gallop/internal/shard"
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
	// With a folder of animations: the animation's file or folder name.
	File string `json:"file,omitempty"`
	// The file --out wrote, for the text report.
	Out string `json:"-"`
}

// rigJob is what one animation is rigged with: the options of runRig.
type rigJob struct {
	ref     string // --reference, "" for the first frame
	bones   int
	maxInfl int
	iters   int
	opts    ssdr.Options
	json    bool
	folder  bool   // IN is a folder of animations
	out     string // --out: the file, or with folder the folder
}

func runRig(args []string, stdout io.Writer) error {
	return rigCommand(args, stdout, nil)
}

// rigPayload is a shard file's payload: the report of each of its
// animations, in order, every float as computed (gob keeps every bit).
// The merge prints them as the whole run does; the rigged files are
// already in --out, each written by its shard.
type rigPayload struct {
	Results []rigResult
}

// rigCommand runs `gallop rig` with args: the plain run, a shard of it,
// or (files not nil) the merge of its shard files.
func rigCommand(args []string, stdout io.Writer, files []*shard.File) error {
	fs := flag.NewFlagSet("rig", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the rest pose, an .obj file with the animation's vertices (default: the first frame); not with a folder of animations")
	bones := fs.Int("bones", 0, "number of bones B (required)")
	maxInfl := fs.Int("max-influences", 4, "most bones per vertex K (1 to 16)")
	iters := fs.Int("iterations", 100, "most alternation rounds (it stops earlier when the error stalls)")
	smooth := fs.Float64("smooth", 1e-4, "weight smoothness (Dem Bones' weightsSmooth); 0 for none")
	transAffine := fs.Float64("trans-affine", 10, "translation affinity (Dem Bones' transAffine); 0 for none")
	polish := fs.Int("polish", 5, "rounds without the translation affinity after the alternation stops; 0 for none, as Dem Bones")
	out := fs.String("out", "", "write the rig and its animation as a skinned glTF (.glb or .gltf); with a folder of animations, a folder for one NAME.glb each")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures (one per line and animation with a folder of animations)")
	shards := addShardOptions(fs, rig.Plan, args)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop rig IN [--reference REF.obj] --bones B [--max-influences 4]
                 [--iterations N] [--smooth S] [--trans-affine A] [--polish P]
                 [--out OUT.glb] [--json] [--shard K/N [--shard-dir D]]

Infers a linear-blend-skinning rig from a mesh animation (IN: a folder of OBJ
frames, or a .gltf / .glb file whose first animated object is used) by Smooth
Skinning Decomposition with Rigid Bones (Le and Deng 2012), as Dem Bones
does: B bones with a rigid transform per frame and at most K weights per
vertex. Without --reference the first frame is the rest pose. Unlike Dem
Bones, it ends with --polish rounds without the translation affinity, which
lower the error (and recover exact skinning) at the cost of bone
translations held less closely to their vertices. With --out it
also reports the file's size and that of the clip's morph-target export.

IN may also be a folder of animations: a folder with no .obj file of its
own, whose animations are its .glb and .gltf files and its sub-folders that
hold .obj files (the frames of one animation each), taken in the order of
their names; other entries are ignored. Each is rigged in turn and reported
on a line of its own that starts with its name (with --json, one object per
line with its "file"); --out is then a folder, to which each animation NAME
(NAME.glb, NAME.gltf or the folder NAME) is written as NAME.glb.

With --shard K/N it rigs only animations ⌊(K−1)·A/N⌋ to ⌊K·A/N⌋−1 of the A
(writing their files to --out) and writes their reports to --shard-dir for
gallop merge, which prints exactly what the whole run does, times aside.`)
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
	run, err := shards.run(files)
	if err != nil {
		return err
	}
	opts := ssdr.Options{Bones: *bones, MaxInfluences: *maxInfl, Iterations: *iters,
		Smooth: option.Literal(*smooth), TransAffine: option.Literal(*transAffine), PolishIterations: option.Literal(*polish)}
	job := rigJob{ref: *refPath, bones: *bones, maxInfl: *maxInfl, iters: *iters, opts: opts, json: *asJSON, out: *out}
	var results []rigResult
	if files != nil {
		for _, f := range files {
			var p rigPayload
			if err := f.Decode(&p); err != nil {
				return err
			}
			if len(p.Results) != f.Units[1]-f.Units[0] {
				return fmt.Errorf("%s: %d animations, want %d", f.Path, len(p.Results), f.Units[1]-f.Units[0])
			}
			results = append(results, p.Results...)
		}
		job.folder = len(results) > 0 && results[0].File != "" // File is set for a folder's animations only
		return printRigResults(stdout, job, results)
	}
	anims, folder, err := rigInputs(in)
	if err != nil {
		return err
	}
	job.folder = folder
	if folder {
		if job.ref != "" {
			return fmt.Errorf("--reference %s: not with a folder of animations (%s), whose animations each have their own vertices", job.ref, in)
		}
		if job.out != "" {
			if err := os.MkdirAll(job.out, 0o755); err != nil {
				return err
			}
		}
	}
	lo, hi := run.Range(len(anims))
	for _, a := range anims[lo:hi] {
		r, err := rigOne(a, job)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if run.Sharded() {
		return run.Write(len(anims), rigPayload{Results: results})
	}
	return printRigResults(stdout, job, results)
}

// rigInputs returns the animations of IN: IN itself when it is a file or a
// folder holding .obj files (its frames), else the animations of the
// folder IN (its .glb and .gltf files and its sub-folders holding .obj
// files, sorted by name), with folder set; a folder with none is an error.
func rigInputs(in string) (anims []string, folder bool, err error) {
	st, err := os.Stat(in)
	if err != nil {
		return nil, false, err
	}
	if !st.IsDir() || hasOBJ(in) {
		return []string{in}, false, nil
	}
	entries, err := os.ReadDir(in)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries { // os.ReadDir sorts by name
		p := filepath.Join(in, e.Name())
		if e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				if hasOBJ(p) {
					anims = append(anims, p)
				}
				continue
			}
		}
		if assets.DetectFormat(p) == assets.FormatGLTF {
			anims = append(anims, p)
		}
	}
	if len(anims) == 0 {
		return nil, false, fmt.Errorf("%s: neither OBJ frames nor animations (.glb or .gltf files, or folders of OBJ frames)", in)
	}
	seen := make(map[string]string, len(anims))
	for _, a := range anims {
		name := rigName(a)
		if other, dup := seen[name]; dup {
			return nil, false, fmt.Errorf("%s and %s would both be written as %s.glb", other, a, name)
		}
		seen[name] = a
	}
	return anims, true, nil
}

// hasOBJ reports whether the folder dir holds an .obj file.
func hasOBJ(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".obj") {
			return true
		}
	}
	return false
}

// rigName is the name of animation path in a folder of animations: its
// file name without the extension (a folder's, whole).
func rigName(path string) string {
	base := filepath.Base(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return base
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// rigOne rigs the animation in, writes it to --out (job.out itself, or
// with a folder of animations the .glb named after it in that folder) and
// returns its report.
func rigOne(in string, job rigJob) (rigResult, error) {
	mesh, clip, err := loadAnimation(in)
	if err != nil {
		return rigResult{}, err
	}
	animMesh, rest := mesh, clip.Frames[0]
	if job.ref != "" {
		ref, err := assets.LoadOBJ(job.ref)
		if err != nil {
			return rigResult{}, err
		}
		if ref.NumVertices() != mesh.NumVertices() {
			return rigResult{}, fmt.Errorf("%s: %d vertices, the animation %s has %d", job.ref, ref.NumVertices(), in, mesh.NumVertices())
		}
		mesh, rest = ref, ref.Positions
	}
	opts := job.opts
	line := newProgress()
	polishRounds, polished := opts.MaxRounds(len(rest))-job.iters, 0
	opts.Progress = func(it int, rmse float64, polish bool) {
		if polish {
			polished++
			line.Report("rig: polish round %d of %d, RMSE %.4g", polished, polishRounds, rmse)
			return
		}
		line.Report("rig: iteration %d of at most %d, RMSE %.4g", it, job.iters, rmse)
	}
	line.Report("rig: clustering %d vertices into %d bones", len(rest), job.bones)
	start := time.Now()
	res, err := ssdr.Decompose(context.Background(), rest, mesh.Triangles, clip.Frames, opts)
	line.Done()
	if err != nil {
		return rigResult{}, fmt.Errorf("%s: %w", in, err)
	}
	seconds := time.Since(start).Seconds()
	lo, hi := assets.Bounds(rest)
	diag := hi.Sub(lo).Len()
	r := rigResult{
		Vertices: len(rest), Frames: len(clip.Frames), Bones: job.bones, MaxInfluences: job.maxInfl,
		Iterations: res.Iterations, BestIteration: res.BestIteration, RMSE: res.RMSE, Diagonal: diag,
		Seconds: seconds, History: res.History,
	}
	if job.folder {
		r.File = filepath.Base(in)
	}
	if out := job.outPath(in); out != "" {
		if err := assets.SaveGLTF(out, rig.SkinnedObject(res, clip.Name, clip.FPS, mesh, rest), assets.ExportOptions{Mode: assets.ExportSkin}); err != nil {
			return rigResult{}, err
		}
		if r.GLBBytes, r.MorphGLBBytes, err = exportSizes(out, &assets.Object{Name: clip.Name, Mesh: animMesh, Clip: clip}); err != nil {
			return rigResult{}, err
		}
		r.Out = out
	}
	if diag > 0 {
		r.RMSERelative = res.RMSE / diag
	}
	return r, nil
}

// outPath is where the rig of animation in goes, "" for nowhere.
func (job rigJob) outPath(in string) string {
	if job.out == "" || !job.folder {
		return job.out
	}
	return filepath.Join(job.out, rigName(in)+".glb")
}

// printRigResults prints the reports, in order.
func printRigResults(w io.Writer, job rigJob, results []rigResult) error {
	for _, r := range results {
		if job.json {
			if err := json.NewEncoder(w).Encode(r); err != nil {
				return err
			}
			continue
		}
		prefix := ""
		if job.folder {
			prefix = r.File + ": "
		}
		fmt.Fprintf(w, "%s%d bones, at most %d influences: RMSE %.6g (%.4g of the bounding-box diagonal) after %d iterations (best %d), %.2f s\n",
			prefix, r.Bones, r.MaxInfluences, r.RMSE, r.RMSERelative, r.Iterations, r.BestIteration, r.Seconds)
		if r.Out != "" {
			fmt.Fprintf(w, "%s: %d bytes; the morph-target export of the clip: %d bytes\n", r.Out, r.GLBBytes, r.MorphGLBBytes)
		}
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
