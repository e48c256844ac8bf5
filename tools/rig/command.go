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
	// With a folder of animations: the animation's file or folder name.
	File string `json:"file,omitempty"`
	// The file Out wrote, for the text report.
	Out string `json:"-"`
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
	iters := opts.Iterations
	polishRounds, polished := opts.MaxRounds(len(rest))-iters, 0
	opts.Progress = func(it int, rmse float64, polish bool) {
		if polish {
			polished++
			c.status("rig: polish round %d of %d, RMSE %.4g", polished, polishRounds, rmse)
			return
		}
		c.status("rig: iteration %d of at most %d, RMSE %.4g", it, iters, rmse)
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
	if out != "" {
		got, err := writeSkinned(out, SkinnedObject(res, clip.Name, clip.FPS, mesh, rest), &assets.Object{Name: clip.Name, Mesh: animMesh, Clip: clip})
		if err != nil {
			return Report{}, err
		}
		r.GLBBytes, r.MorphGLBBytes, r.Out = got.skin, got.morph, out
	}
	if diag > 0 {
		r.RMSERelative = res.RMSE / diag
	}
	return r, nil
}
