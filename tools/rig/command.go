package rig

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gallop/assets"
	"gallop/internal/shard"
	"gallop/solver/ssdr"
)

// Plan is how `gallop rig` runs in shards: one round, each shard rigging
// its block of the animations.
var Plan = shard.Plan{Command: "rig", Rounds: 1}

// Report is one animation's figures in `gallop rig` (with --json, its
// JSON object).
type Report struct {
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
	// With Out: the size of the skinned file written, and that of the
	// morph-target export of the same clip (written to a temporary file
	// of the same kind), for comparison.
	GLBBytes      int64 `json:"glb_bytes,omitempty"`
	MorphGLBBytes int64 `json:"morph_glb_bytes,omitempty"`
	// With a skeleton (Command.Options.Skeleton): its figures.
	Skeleton *SkeletonReport `json:"skeleton,omitempty"`
	// With a folder of animations: the animation's file or folder name.
	File string `json:"file,omitempty"`
	// The file Out wrote, for the text report.
	Out string `json:"-"`
}

// SkeletonReport is the skeleton's part of a Report.
type SkeletonReport struct {
	Root    int   `json:"root"`    // the root bone
	Roots   int   `json:"roots"`   // how many joints have no parent in the rig written (1)
	Parents []int `json:"parents"` // per bone, its parent bone (−1: the root)
	// LengthDrift and JointGap are SkeletonDrift's figures of the rig as
	// written, over the bounding-box diagonal.
	LengthDrift float64 `json:"bone_length_drift_relative"`
	JointGap    float64 `json:"joint_gap_relative"`
	// JointOutside is how far the rest joint farthest outside the rest
	// mesh's bounding box lies outside it, over the diagonal: 0 when every
	// joint is within the box (a bone sticking out of the body shows here).
	JointOutside float64 `json:"joint_outside_relative"`
	// FlatRMSE is the RMSE of the flat bones the skeleton was inferred
	// from (0 when it was given: --fit-to), and RMSERatio the skeleton's
	// RMSE over it.
	FlatRMSE         float64 `json:"flat_rmse,omitempty"`
	FlatRMSERelative float64 `json:"flat_rmse_relative,omitempty"`
	RMSERatio        float64 `json:"rmse_ratio,omitempty"`
	// Given is the file whose skeleton was fitted (--fit-to).
	Given string `json:"fitted_to,omitempty"`
}

// Command is the work of `gallop rig`: each animation of In rigged by
// SSDR, its rig written to Out, its figures reported.
type Command struct {
	// In is an animation (a folder of OBJ frames, or a glTF file whose
	// first animated object is used) or a folder of animations (Inputs).
	In string
	// Reference is the rest pose, an OBJ file with the animation's
	// vertices; "" for the first frame. Not with a folder of animations.
	Reference string
	// Options are the decomposition's; Run sets Progress.
	Options ssdr.Options
	// FitTo, if not "", is a glTF file with a skin whose skeleton is
	// fitted (its hierarchy and rest joints kept, the animation and
	// weights solved; its weights start the fit): Options.Skeleton.Given,
	// Weights and Bones are set from it, and its mesh, which must have
	// the animation's vertices, is the rest pose unless Reference is
	// given.
	FitTo string
	// Out is where the rig goes as a skinned glTF, or with a folder of
	// animations the folder of one NAME.glb each; "" for nowhere.
	Out string
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style), often.
	Status func(format string, args ...any)
}

// payload is a shard file's payload: the report of each of its
// animations, in order, every float as computed (gob keeps every bit).
// The merge reports them as the whole run does; the rigged files are
// already in Out, each written by its shard.
type payload struct {
	Results []Report
}

// Run rigs the animations as run asks and returns their reports in order:
// every animation of In in the whole run; its block in a shard, which
// writes the reports to its file and returns none; none in a merge, which
// takes them from the shard files. A report has File set when In is a
// folder of animations.
func (c *Command) Run(run *shard.Run) ([]Report, error) {
	if run.Merged != nil {
		return shard.Gather(run.Merged, "animations", func(p *payload) []Report { return p.Results })
	}
	anims, folder, err := Inputs(c.In)
	if err != nil {
		return nil, err
	}
	if folder {
		if c.Reference != "" {
			return nil, fmt.Errorf("--reference %s: not with a folder of animations (%s), whose animations each have their own vertices", c.Reference, c.In)
		}
		if c.Out != "" {
			if err := os.MkdirAll(c.Out, 0o755); err != nil {
				return nil, err
			}
		}
	}
	lo, hi := run.Range(len(anims))
	var reports []Report
	for _, a := range anims[lo:hi] {
		r, err := c.rig(a, folder)
		if err != nil {
			return nil, err
		}
		reports = append(reports, r)
	}
	if run.Sharded() {
		return nil, run.Write(len(anims), payload{Results: reports})
	}
	return reports, nil
}

// Inputs returns the animations of in: in itself when it is a file or a
// folder holding .obj files (its frames), else the animations of the
// folder in (its .glb and .gltf files and its sub-folders holding .obj
// files, sorted by name), with folder set; a folder with none is an error,
// and so are two animations that would be written to one NAME.glb.
func Inputs(in string) (anims []string, folder bool, err error) {
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
		name := animationName(a)
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

// animationName is the name of animation path in a folder of animations:
// its file name without the extension (a folder's, whole).
func animationName(path string) string {
	base := filepath.Base(path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return base
	}
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// status reports how far the work has come, if anyone listens.
func (c *Command) status(format string, args ...any) {
	if c.Status != nil {
		c.Status(format, args...)
	}
}

// rig rigs the animation in (of a folder of animations, with folder),
// writes it to Out (Out itself, or in a folder of animations the .glb
// named after it in that folder) and returns its report.
func (c *Command) rig(in string, folder bool) (Report, error) {
	mesh, clip, err := assets.LoadAnimation(in)
	if err != nil {
		return Report{}, err
	}
	animMesh, rest := mesh, clip.Frames[0]
	if c.Reference != "" {
		ref, err := assets.LoadOBJ(c.Reference)
		if err != nil {
			return Report{}, err
		}
		if ref.NumVertices() != mesh.NumVertices() {
			return Report{}, fmt.Errorf("%s: %d vertices, the animation %s has %d", c.Reference, ref.NumVertices(), in, mesh.NumVertices())
		}
		mesh, rest = ref, ref.Positions
	}
	opts := c.Options
	var given *Given
	if c.FitTo != "" {
		given, err = LoadSkeleton(c.FitTo, mesh.NumVertices())
		if err != nil {
			return Report{}, err
		}
		if c.Reference == "" {
			mesh, rest = given.Mesh, given.Rest
		}
		opts = given.fit(opts)
	}
	iters, polishRounds, skeletonRounds := opts.StageRounds(len(rest))
	polished, skeletal := 0, 0
	opts.Progress = func(it int, rmse float64, stage ssdr.Stage) {
		switch stage {
		case ssdr.StagePolish:
			polished++
			c.status("rig: polish round %d of %d, RMSE %.4g", polished, polishRounds, rmse)
		case ssdr.StageSkeleton:
			skeletal++
			c.status("rig: skeleton round %d of at most %d, RMSE %.4g", skeletal, skeletonRounds, rmse)
		default:
			c.status("rig: iteration %d of at most %d, RMSE %.4g", it, iters, rmse)
		}
	}
	c.status("rig: clustering %d vertices into %d bones", len(rest), opts.Bones)
	start := time.Now()
	res, err := ssdr.Decompose(context.Background(), rest, mesh.Triangles, clip.Frames, opts)
	if err != nil {
		return Report{}, fmt.Errorf("%s: %w", in, err)
	}
	seconds := time.Since(start).Seconds()
	lo, hi := assets.Bounds(rest)
	diag := hi.Sub(lo).Len()
	r := Report{
		Vertices: len(rest), Frames: len(clip.Frames), Bones: opts.Bones, MaxInfluences: opts.MaxInfluences,
		Iterations: res.Iterations, BestIteration: res.BestIteration, RMSE: res.RMSE, Diagonal: diag,
		Seconds: seconds, History: res.History,
	}
	out := c.Out
	if folder {
		r.File = filepath.Base(in)
		if out != "" {
			out = filepath.Join(out, animationName(in)+".glb")
		}
	}
	skinned := SkinnedObject(res, clip.Name, clip.FPS, mesh, rest)
	if given != nil {
		nameJoints(skinned, res.Skeleton, given.Names)
	}
	if out != "" {
		got, err := writeSkinned(out, skinned, &assets.Object{Name: clip.Name, Mesh: animMesh, Clip: clip})
		if err != nil {
			return Report{}, err
		}
		r.GLBBytes, r.MorphGLBBytes, r.Out = got.skin, got.morph, out
	}
	if diag > 0 {
		r.RMSERelative = res.RMSE / diag
	}
	if k := res.Skeleton; k != nil {
		length, gap := SkeletonDrift(skinned)
		sr := &SkeletonReport{Root: k.Root(), Parents: k.Parent, LengthDrift: length / diag, JointGap: gap / diag,
			FlatRMSE: res.FlatRMSE, FlatRMSERelative: res.FlatRMSE / diag, Given: c.FitTo}
		for _, jt := range skinned.Rig.Joints {
			if jt.Parent < 0 {
				sr.Roots++
			}
		}
		for _, c := range k.Joint {
			for a := range 3 {
				sr.JointOutside = max(sr.JointOutside, (lo[a]-c[a])/diag, (c[a]-hi[a])/diag)
			}
		}
		if res.FlatRMSE > 0 {
			sr.RMSERatio = res.RMSE / res.FlatRMSE
		}
		r.Skeleton = sr
	}
	return r, nil
}
