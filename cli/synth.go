package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"gallop/assets"
	"gallop/internal/parallel"
	"gallop/internal/shard"
	"gallop/solver/ssdr"
	"gallop/solver/synth"
	tsynth "gallop/tools/synth"
)

// synthClip is one clip of `gallop synth --json`, as the Synthesize tool
// reads it back from the farm.
type synthClip = tsynth.ClipReport

// synthResult is what `gallop synth --json` prints.
type synthResult struct {
	Vertices  int     `json:"vertices"`
	InFrames  int     `json:"input_frames"`
	FPS       float64 `json:"fps"`
	Bones     int     `json:"bones"`
	Blend     string  `json:"blend"`
	Parts     int     `json:"parts"`
	CutNodes  []int   `json:"cut_nodes"`
	Threshold float64 `json:"threshold"` // of the first part, in steps
	tsynth.GraphFigures

	Clips    []synthClip `json:"clips"`
	Distinct int         `json:"distinct"` // clips whose walks differ from every other's

	// Quality over all clips: the mean and the share above 1.5 of the
	// per-splice acceleration ratio, the largest edge ratio, and the mean
	// RMS distance between the first (up to 16) clips, pairwise.
	MeanSpliceAccRatio float64 `json:"mean_splice_acceleration_ratio"`
	SplicesOver15      float64 `json:"splices_over_1_5"`
	MaxEdgeRatio       float64 `json:"max_edge_ratio"`
	MeanPairwiseRMS    float64 `json:"mean_pairwise_rms"`
	PairwiseClips      int     `json:"pairwise_clips"`

	SSDRSeconds      float64 `json:"ssdr_seconds"`
	AnalysisSeconds  float64 `json:"analysis_seconds"`  // SSDR included
	SynthesisSeconds float64 `json:"synthesis_seconds"` // bone motion of every clip, on every core
}

// targetsFlag collects --target F@G.
type targetsFlag []synth.Target

func (t *targetsFlag) String() string { return fmt.Sprint(*t) }
func (t *targetsFlag) Set(s string) error {
	f, g, ok := strings.Cut(s, "@")
	a, err1 := strconv.Atoi(f)
	b, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("%q: want INPUT@OUTPUT frame numbers, as 10@100", s)
	}
	*t = append(*t, synth.Target{Input: a, Output: b})
	return nil
}

// obstaclesFlag collects --obstacle KIND:ARGS (tsynth.ParseObstacle).
type obstaclesFlag []synth.Obstacle

func (o *obstaclesFlag) String() string { return fmt.Sprint(len(*o), " obstacles") }
func (o *obstaclesFlag) Set(s string) error {
	ob, err := tsynth.ParseObstacle(s)
	if err != nil {
		return err
	}
	*o = append(*o, ob)
	return nil
}

func runSynth(args []string, stdout io.Writer) error {
	return synthCommand(args, stdout, nil)
}

// synthPrepared is the prepared stage of gallop synth, the work every
// shard shares: the input as loaded (the rest mesh, the frame rate) and
// its SSDR rig (the weights and each input frame's bones), which is most
// of that work, and the two figures synth.Analyze measures on the input
// frames, so that the frames themselves (nine tenths of the data) need
// not be stored. Encoded with gob, every float keeps its bit pattern, so
// the synth.Model rebuilt from it is the one Infer returned, and
// synth.Analyze given the figures (Options.Figures) and the motion graphs
// (a few hundredths of a second for pcow, against a second of SSDR) come
// out the same, bit for bit, as in the whole run.
type synthPrepared struct {
	Rest        *assets.Mesh // the rest pose; its Positions and Triangles are the model's
	FPS         float64
	Weights     [][]ssdr.Influence
	Bones       [][]ssdr.Transform
	Figures     synth.InputFigures
	SSDRSeconds float64
}

// model is the synth.Model of p, without its input frames.
func (p *synthPrepared) model() *synth.Model {
	return &synth.Model{Rest: p.Rest.Positions, Triangles: p.Rest.Triangles, Weights: p.Weights, Bones: p.Bones}
}

// synthUnit is one clip's result, the unit of gallop synth's shards: its
// entry of the report (File set with --out, which its shard writes), the
// acceleration ratio of each splice (for the mean and the share above
// 1.5), each part's walk (Source: what tells clips apart for the distinct
// count) and, for the first pairwiseClips clips only, its bones (12
// floats per bone and frame: R column by column, then T), from which the
// mean pairwise RMS distance is computed as the whole run computes it.
type synthUnit struct {
	Clip        synthClip
	SpliceAccel []float64
	Walks       [][]int
	Bones       []float64
}

// synthPayload is a shard file's payload: its clips, in order, and the
// time their synthesis took.
type synthPayload struct {
	Units            []synthUnit
	SynthesisSeconds float64
}

// pairwiseClips is how many of the first clips the mean pairwise RMS
// distance compares.
const pairwiseClips = 16

// synthCommand runs `gallop synth` with args: the plain run, its prepared
// stage, a shard of it, or (files not nil) the merge of its shard files.
func synthCommand(args []string, stdout io.Writer, files []*shard.File) error {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the rest pose, an .obj file with the animation's vertices (default: IN's reference.obj beside its frames folder, else the first frame)")
	bones := fs.Int("bones", tsynth.DefaultBones, "SSDR bones")
	count := fs.Int("count", 12, "clips to synthesise")
	seconds := fs.Float64("seconds", 10, "length of each clip in seconds")
	seed := fs.Uint64("seed", 1, "the first clip's seed; clip k has seed+k")
	threshold := fs.Float64("threshold", 0, "the largest pose distance a transition may join, in steps: the median distance between adjacent frames (default 2, or per part the least that gives a loop)")
	blendName := fs.String("blend", "gradient", "splice blending: gradient, gradient-poisson, crossfade, coordinates or poisson")
	components := fs.Bool("components", false, "split the mesh at a cut node of the bone graph and synthesise the parts independently")
	var targets targetsFlag
	fs.Var(&targets, "target", "INPUT@OUTPUT: show input frame INPUT at output frame OUTPUT (repeatable)")
	var obstacles obstaclesFlag
	fs.Var(&obstacles, "obstacle", "sphere:X,Y,Z,R, ground:HEIGHT (y up) or mesh:FILE.obj: a scene object the clips keep out of (repeatable)")
	inFPS := fs.Float64("fps", 0, "the frame rate of IN (default: the file's; 30 for OBJ frames)")
	outDir := fs.String("out", "", "write each clip to DIR/clip-SEED.glb as a skinned glTF")
	morph := fs.Bool("morph", false, "with --out, write morph targets instead of a skin")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	shards := addShardOptions(fs, tsynth.Plan, args)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop synth IN [--reference REF.obj] [--bones B] [--count N] [--seconds S]
                   [--seed K] [--threshold T] [--blend B]
                   [--components] [--target F@G ...] [--obstacle KIND:ARGS ...] [--fps F]
                   [--out DIR [--morph]] [--json]
                   [--prepare | --shard K/N] [--shard-dir D]

Turns one mesh animation (IN: a folder of OBJ frames, or a .gltf / .glb file
whose first animated object is used) into N different clips of S seconds by
One-to-Many (Zheng 2013): an SSDR rig, transitions between similar frames,
random walks through their motion graph, splices blended in the gradient
domain. --json prints the figures, per clip its seed, frames, splices and
the largest splice acceleration against the input's 99th percentile.

With --shard K/N it synthesises only clips ⌊(K−1)·C/N⌋ to ⌊K·C/N⌋−1 of the
C = --count (their seeds as in the whole run), writing their files to --out,
and writes their results to --shard-dir for gallop merge, which prints
exactly what the whole run does, times aside. --prepare (run once, before
the shards, with the same options) loads IN and infers its rig, the work
every shard would otherwise repeat, and writes it to --shard-dir, where the
shards and the merge find it.`)
		fs.PrintDefaults()
	}
	in, err := parseInput(fs, args)
	if err != nil {
		return err
	}
	blend, err := synth.ParseBlend(*blendName)
	if err != nil {
		return fmt.Errorf("--blend: %w", err)
	}
	switch {
	case *count < 1 || *count > 1_000_000:
		return fmt.Errorf("--count %d: want 1 to 1000000", *count)
	case !(*seconds > 0) || *seconds > 24*3600:
		return fmt.Errorf("--seconds %v: want a positive length up to a day", *seconds)
	case *bones < 1:
		return fmt.Errorf("--bones %d: want at least 1", *bones)
	case *threshold < 0 || math.IsNaN(*threshold):
		return fmt.Errorf("--threshold %v: want a positive distance in steps", *threshold)
	case *inFPS < 0 || *inFPS > 1000 || math.IsNaN(*inFPS):
		return fmt.Errorf("--fps %v: want a rate up to 1000", *inFPS)
	}
	run, err := shards.run(files)
	if err != nil {
		return err
	}
	line := newProgress()
	defer line.Done()
	var prep synthPrepared
	have, err := run.ReadPrepared(&prep)
	if err != nil {
		return err
	}
	opts := synth.Options{Components: *components}
	var model *synth.Model
	if have {
		model, opts.Figures = prep.model(), &prep.Figures
	} else if model, err = prepareSynth(&prep, in, *refPath, *bones, *inFPS, line); err != nil {
		return err
	}
	start := time.Now()
	line.Report("synth: transitions")
	a, err := synth.Analyze(context.Background(), model, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	if run.Prepare {
		prep.Figures = synth.InputFigures{Accel99: a.Accel99, EdgeMax: a.EdgeMax}
		return run.WritePrepared(prep)
	}
	graphs, err := tsynth.Graphs(a, *threshold)
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	fps := prep.FPS
	frames := int(math.Round(*seconds * fps))
	if frames < 2 {
		return fmt.Errorf("--seconds %v at %v fps is fewer than 2 frames", *seconds, fps)
	}
	analysisSeconds := prep.SSDRSeconds + time.Since(start).Seconds()

	var units []synthUnit
	var synthesisSeconds float64
	if files != nil {
		for _, f := range files {
			var p synthPayload
			if err := f.Decode(&p); err != nil {
				return err
			}
			if len(p.Units) != f.Units[1]-f.Units[0] {
				return fmt.Errorf("%s: %d clips, want %d", f.Path, len(p.Units), f.Units[1]-f.Units[0])
			}
			units = append(units, p.Units...)
			synthesisSeconds += p.SynthesisSeconds
		}
		if len(units) != *count {
			return fmt.Errorf("the shards hold %d clips, their arguments ask for %d", len(units), *count)
		}
	} else {
		s, err := a.NewSynthesizer(graphs, synth.Request{Frames: frames, Blend: blend, Targets: targets, Obstacles: obstacles})
		if err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		lo, hi := run.Range(*count)
		start := time.Now()
		if units, err = synthClips(s, a, *seed, lo, hi, prep.Rest, fps, *outDir, *morph, line); err != nil {
			return fmt.Errorf("%s: %w", in, err)
		}
		synthesisSeconds = time.Since(start).Seconds()
		if run.Sharded() {
			return run.Write(*count, synthPayload{Units: units, SynthesisSeconds: synthesisSeconds})
		}
	}

	r := synthResult{
		Vertices: len(model.Rest), InFrames: model.NumFrames(), FPS: fps, Bones: *bones, Blend: blend.String(),
		Parts: len(a.Parts), CutNodes: a.CutNodes, Threshold: graphs[0].Threshold,
		SSDRSeconds: prep.SSDRSeconds, AnalysisSeconds: analysisSeconds, SynthesisSeconds: synthesisSeconds,
		Clips: make([]synthClip, len(units)),
	}
	if r.CutNodes == nil {
		r.CutNodes = []int{}
	}
	r.GraphFigures = tsynth.Figures(graphs)
	var sum float64
	var n, over int
	for i, u := range units {
		r.Clips[i] = u.Clip
		for _, x := range u.SpliceAccel {
			sum += x
			n++
			if x > 1.5 {
				over++
			}
		}
		r.MaxEdgeRatio = max(r.MaxEdgeRatio, u.Clip.EdgeRatio)
	}
	if n > 0 {
		r.MeanSpliceAccRatio, r.SplicesOver15 = sum/float64(n), float64(over)/float64(n)
	}
	r.Distinct = distinctClips(units)
	r.PairwiseClips = min(len(units), pairwiseClips)
	first := make([]*synth.Clip, r.PairwiseClips)
	for i := range first {
		if first[i], err = unflattenBones(units[i], a); err != nil {
			return err
		}
	}
	line.Report("synth: distances between the first %d clips", len(first))
	r.MeanPairwiseRMS = synth.MeanDistance(first)
	line.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%d clips of %d frames from %d input frames (%d bones, %d parts): %d candidate transitions within %.3g steps (median %.2f), graph of %d nodes, largest strongly connected component %d (%d frames)\n",
		len(units), frames, r.InFrames, r.Bones, r.Parts, r.Candidates, r.Threshold, r.MedianDistance, r.Nodes, r.SCCNodes, r.SCCFrames)
	fmt.Fprintf(stdout, "splice acceleration: mean %.3f of the input's 99th percentile, %.1f%% above 1.5; edges change at most %.3f times the input's most; %d distinct\n",
		r.MeanSpliceAccRatio, 100*r.SplicesOver15, r.MaxEdgeRatio, r.Distinct)
	fmt.Fprintf(stdout, "analysis %.2f s (SSDR %.2f s), synthesis %.2f s\n", r.AnalysisSeconds, r.SSDRSeconds, r.SynthesisSeconds)
	return nil
}

// prepareSynth loads the animation in and its rest pose (ref, or IN's
// reference.obj beside its frames folder, else the first frame), takes
// its frame rate (fps, or the file's when 0), infers its SSDR rig of bones
// bones into p and returns its model, input frames included.
func prepareSynth(p *synthPrepared, in, ref string, bones int, fps float64, line *progress) (*synth.Model, error) {
	mesh, clip, err := assets.LoadAnimation(in)
	if err != nil {
		return nil, err
	}
	if ref == "" {
		if cand := filepath.Join(filepath.Dir(filepath.Clean(in)), "reference.obj"); fileExists(cand) {
			ref = cand
		}
	}
	rest := mesh.Clone()
	rest.Positions = clip.Frames[0]
	if ref != "" {
		r, err := assets.LoadOBJ(ref)
		if err != nil {
			return nil, err
		}
		if r.NumVertices() != mesh.NumVertices() {
			return nil, fmt.Errorf("%s: %d vertices, the animation %s has %d", ref, r.NumVertices(), in, mesh.NumVertices())
		}
		rest = r
	}
	p.FPS = clip.FPS
	if fps > 0 {
		p.FPS = fps
	}
	if !(p.FPS > 0) {
		p.FPS = assets.DefaultFPS
	}
	start := time.Now()
	model, err := tsynth.Infer(context.Background(), rest, clip, bones, func(it int, rmse float64) {
		line.Report("synth: rig iteration %d, RMSE %.4g", it, rmse)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in, err)
	}
	p.SSDRSeconds = time.Since(start).Seconds()
	p.Rest, p.Weights, p.Bones = rest, model.Weights, model.Bones
	return model, nil
}

// synthClips synthesises clips lo to hi−1 (clip k has seed seed + k),
// measures each, writes each to dir/clip-SEED.glb when dir is set, and
// returns their results. Each clip is synthesised, measured, written and
// dropped on one core before the next, so that memory holds a clip per
// core (and the bones of the first pairwiseClips), whatever the count.
func synthClips(s *synth.Synthesizer, a *synth.Analysis, seed uint64, lo, hi int, rest *assets.Mesh, fps float64, dir string, morph bool, line *progress) ([]synthUnit, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	units := make([]synthUnit, hi-lo)
	errs := make([]error, hi-lo)
	var done atomic.Int64
	parallel.For(hi-lo, func(i int) {
		c, err := s.Clip(context.Background(), seed+uint64(lo+i))
		if err != nil {
			errs[i] = err
			return
		}
		q := a.Quality(c, s.Window())
		u := synthUnit{SpliceAccel: q.SpliceAccel, Walks: make([][]int, len(c.Walks))}
		u.Clip = synthClip{Seed: c.Seed, Frames: len(c.Bones), MaxSpliceAccRatio: q.MaxAccel, EdgeRatio: q.EdgeRatio,
			MeanStrain: q.MeanStrain, SpliceFrames: make([][]int, len(c.Walks)), SpliceAccel: q.SpliceAccel}
		for k, w := range c.Walks {
			u.Clip.Splices += len(w.Splices)
			u.Clip.SpliceFrames[k] = w.Splices
			u.Walks[k] = w.Source
		}
		if lo+i < pairwiseClips {
			u.Bones = flattenBones(c.Bones)
		}
		if dir != "" {
			name := fmt.Sprintf("clip-%d", c.Seed)
			path := filepath.Join(dir, name+".glb")
			if errs[i] = tsynth.Save(path, c, name, fps, rest, morph); errs[i] != nil {
				return
			}
			u.Clip.File = path
		}
		units[i] = u
		line.Report("synth: %d of %d clips", done.Add(1), hi-lo)
	})
	return units, errors.Join(errs...)
}

// flattenBones lists bones frame by frame, bone by bone, 12 floats each
// (R's 9 in mgl64's column-major order, then T's 3): one []float64, which
// gob writes and reads far faster than as structs.
func flattenBones(bones [][]synth.Affine) []float64 {
	var out []float64
	for _, f := range bones {
		for _, b := range f {
			out = append(out, b.R[:]...)
			out = append(out, b.T[:]...)
		}
	}
	return out
}

// unflattenBones is the clip of u, as far as synth.MeanDistance reads one:
// its bones (from flattenBones) over analysis a's model.
func unflattenBones(u synthUnit, a *synth.Analysis) (*synth.Clip, error) {
	nb := a.Model.NumBones()
	if len(u.Bones) != 12*nb*u.Clip.Frames {
		return nil, fmt.Errorf("clip of seed %d: %d bone values, want %d", u.Clip.Seed, len(u.Bones), 12*nb*u.Clip.Frames)
	}
	c := &synth.Clip{Seed: u.Clip.Seed, Bones: make([][]synth.Affine, u.Clip.Frames), Analysis: a}
	x := u.Bones
	for t := range c.Bones {
		c.Bones[t] = make([]synth.Affine, nb)
		for b := range nb {
			copy(c.Bones[t][b].R[:], x[:9])
			copy(c.Bones[t][b].T[:], x[9:12])
			x = x[12:]
		}
	}
	return c, nil
}

// distinctClips counts the clips whose walks differ from every other
// clip's.
func distinctClips(units []synthUnit) int {
	seen := map[string]int{}
	for _, u := range units {
		var b strings.Builder
		for _, w := range u.Walks {
			for _, x := range w {
				b.WriteString(strconv.Itoa(x))
				b.WriteByte(',')
			}
			b.WriteByte('|')
		}
		seen[b.String()]++
	}
	n := 0
	for _, k := range seen {
		if k == 1 {
			n++
		}
	}
	return n
}

func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && !st.IsDir()
}
