package synth

import (
	"context"
	"errors"
	"fmt"
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
)

// Plan is how `gallop synth` runs in shards: a prepared stage (the input
// loaded, its rig inferred and its figures measured, once), then one round
// of shards, each synthesising its block of the clips.
var Plan = shard.Plan{Command: "synth", Prepared: true, Rounds: 1}

// ClipReport is one clip of `gallop synth --json`: its seed and length,
// its splices (each part's output frames, and the acceleration ratio of
// each, in that order), the largest of them and the edge ratio, and the
// file --out wrote it to.
type ClipReport struct {
	Seed              uint64    `json:"seed"`
	Frames            int       `json:"frames"`
	Splices           int       `json:"splices"`
	MaxSpliceAccRatio float64   `json:"max_splice_acceleration_ratio"`
	EdgeRatio         float64   `json:"edge_ratio"`
	MeanStrain        float64   `json:"mean_strain"` // the splices' mean excess edge strain (synth.Quality)
	SpliceFrames      [][]int   `json:"splice_frames"`
	SpliceAccel       []float64 `json:"splice_acceleration_ratios"`
	File              string    `json:"file,omitempty"`
}

// Report is what `gallop synth --json` prints, of which the tool reads
// back the frame rate and the clips (RunOnFarm).
type Report struct {
	Vertices  int     `json:"vertices"`
	InFrames  int     `json:"input_frames"`
	FPS       float64 `json:"fps"`
	Bones     int     `json:"bones"`
	Blend     string  `json:"blend"`
	Parts     int     `json:"parts"`
	CutNodes  []int   `json:"cut_nodes"`
	Threshold float64 `json:"threshold"` // of the first part, in steps
	GraphFigures

	Clips    []ClipReport `json:"clips"`
	Distinct int          `json:"distinct"` // clips whose walks differ from every other's

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

	// Frames is the length of every clip, for the text report.
	Frames int `json:"-"`
}

// Command is the work of `gallop synth`: one mesh animation turned into
// Count clips by One-to-Many, each measured and written to Out.
type Command struct {
	// In is the animation: a folder of OBJ frames, or a glTF file whose
	// first animated object is used.
	In string
	// Reference is the rest pose, an OBJ file with the animation's
	// vertices; "" for In's reference.obj beside its frames folder, else
	// the first frame.
	Reference string
	// Bones are the SSDR rig's.
	Bones int
	// FPS is In's frame rate, 0 for the file's (assets.DefaultFPS for OBJ
	// frames).
	FPS float64
	// Count clips of Seconds each, clip k of seed Seed + k.
	Count   int
	Seconds float64
	Seed    uint64
	// Threshold is the largest pose distance a transition may join, in
	// steps; 0 for each part's default (Graphs).
	Threshold  float64
	Blend      synth.Blend
	Components bool // split the mesh at a cut node of the bone graph
	Targets    []synth.Target
	Obstacles  []synth.Obstacle
	// Out is the folder of the clips' files, clip-SEED.glb (skinned, or
	// with Morph as morph targets); "" for none.
	Out   string
	Morph bool
	// Status, if not nil, is told how far the work has come, a line of
	// text at a time (printf-style), often and from every core.
	Status func(format string, args ...any)
}

// prepared is the prepared stage of gallop synth, the work every shard
// shares: the input as loaded (the rest mesh, the frame rate) and its SSDR
// rig (the weights and each input frame's bones), which is most of that
// work, and the two figures synth.Analyze measures on the input frames, so
// that the frames themselves (nine tenths of the data) need not be
// stored. Encoded with gob, every float keeps its bit pattern, so the
// synth.Model rebuilt from it is the one Infer returned, and synth.Analyze
// given the figures (Options.Figures) and the motion graphs (a few
// hundredths of a second for pcow, against a second of SSDR) come out the
// same, bit for bit, as in the whole run.
type prepared struct {
	Rest        *assets.Mesh // the rest pose; its Positions and Triangles are the model's
	FPS         float64
	Weights     [][]ssdr.Influence
	Bones       [][]ssdr.Transform
	Figures     synth.InputFigures
	SSDRSeconds float64
}

// model is the synth.Model of p, without its input frames.
func (p *prepared) model() *synth.Model {
	return &synth.Model{Rest: p.Rest.Positions, Triangles: p.Rest.Triangles, Weights: p.Weights, Bones: p.Bones}
}

// unit is one clip's result, the unit of gallop synth's shards: its entry
// of the report (File set with Out, which its shard writes), the
// acceleration ratio of each splice (for the mean and the share above
// 1.5), each part's walk (Source: what tells clips apart for the distinct
// count) and, for the first pairwiseClips clips only, its bones (12 floats
// per bone and frame: R column by column, then T), from which the mean
// pairwise RMS distance is computed as the whole run computes it.
type unit struct {
	Clip        ClipReport
	SpliceAccel []float64
	Walks       [][]int
	Bones       []float64
}

// payload is a shard file's payload: its clips, in order, and the time
// their synthesis took.
type payload struct {
	Units            []unit
	SynthesisSeconds float64
}

// pairwiseClips is how many of the first clips the mean pairwise RMS
// distance compares.
const pairwiseClips = 16

// status reports how far the work has come, if anyone listens.
func (c *Command) status(format string, args ...any) {
	if c.Status != nil {
		c.Status(format, args...)
	}
}

// Run runs the command as run asks and returns its report: the whole run;
// the prepared stage, which writes the rig and the input's figures for the
// shards; a shard, which synthesises its block of the clips (their seeds as
// in the whole run) and writes their results; the merge, which reports
// from the shards' results as the whole run does. The prepared stage and a
// shard return no report.
func (c *Command) Run(run *shard.Run) (*Report, error) {
	var prep prepared
	have, err := run.ReadPrepared(&prep)
	if err != nil {
		return nil, err
	}
	opts := synth.Options{Components: c.Components}
	var model *synth.Model
	if have {
		model, opts.Figures = prep.model(), &prep.Figures
	} else if model, err = c.prepare(&prep); err != nil {
		return nil, err
	}
	start := time.Now()
	c.status("synth: transitions")
	a, err := synth.Analyze(context.Background(), model, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.In, err)
	}
	if run.Prepare {
		prep.Figures = synth.InputFigures{Accel99: a.Accel99, EdgeMax: a.EdgeMax}
		return nil, run.WritePrepared(prep)
	}
	graphs, err := Graphs(a, c.Threshold)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.In, err)
	}
	frames := int(math.Round(c.Seconds * prep.FPS))
	if frames < 2 {
		return nil, fmt.Errorf("--seconds %v at %v fps is fewer than 2 frames", c.Seconds, prep.FPS)
	}
	r := &Report{Vertices: len(model.Rest), InFrames: model.NumFrames(), FPS: prep.FPS, Bones: c.Bones, Blend: c.Blend.String(),
		Parts: len(a.Parts), CutNodes: a.CutNodes, Threshold: graphs[0].Threshold, Frames: frames,
		SSDRSeconds: prep.SSDRSeconds, AnalysisSeconds: prep.SSDRSeconds + time.Since(start).Seconds(), GraphFigures: Figures(graphs)}
	units, err := c.units(run, a, graphs, &prep, r)
	if err != nil || run.Sharded() {
		return nil, err
	}
	return r, c.report(r, a, units)
}

// prepare loads the animation In and its rest pose, takes its frame rate,
// infers its SSDR rig into p and returns its model, input frames
// included.
func (c *Command) prepare(p *prepared) (*synth.Model, error) {
	mesh, clip, err := assets.LoadAnimation(c.In)
	if err != nil {
		return nil, err
	}
	ref := c.Reference
	if ref == "" {
		cand := filepath.Join(filepath.Dir(filepath.Clean(c.In)), "reference.obj")
		if st, err := os.Stat(cand); err == nil && !st.IsDir() {
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
			return nil, fmt.Errorf("%s: %d vertices, the animation %s has %d", ref, r.NumVertices(), c.In, mesh.NumVertices())
		}
		rest = r
	}
	p.FPS = clip.FPS
	if c.FPS > 0 {
		p.FPS = c.FPS
	}
	if !(p.FPS > 0) {
		p.FPS = assets.DefaultFPS
	}
	start := time.Now()
	model, err := Infer(context.Background(), rest, clip, c.Bones, func(it int, rmse float64) {
		c.status("synth: rig iteration %d, RMSE %.4g", it, rmse)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.In, err)
	}
	p.SSDRSeconds = time.Since(start).Seconds()
	p.Rest, p.Weights, p.Bones = rest, model.Weights, model.Bones
	return model, nil
}

// units returns the clips' results, setting r's synthesis time: taken
// from the shard files in a merge; else synthesised (a shard's block,
// written to its file, or every clip).
func (c *Command) units(run *shard.Run, a *synth.Analysis, graphs []*synth.Graph, prep *prepared, r *Report) ([]unit, error) {
	if run.Merged != nil {
		units, err := shard.Gather(run.Merged, "clips", func(p *payload) []unit {
			r.SynthesisSeconds += p.SynthesisSeconds
			return p.Units
		})
		if err == nil && len(units) != c.Count {
			err = fmt.Errorf("the shards hold %d clips, their arguments ask for %d", len(units), c.Count)
		}
		return units, err
	}
	s, err := a.NewSynthesizer(graphs, synth.Request{Frames: r.Frames, Blend: c.Blend, Targets: c.Targets, Obstacles: c.Obstacles})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.In, err)
	}
	lo, hi := run.Range(c.Count)
	start := time.Now()
	units, err := c.clips(s, a, lo, hi, prep.Rest, prep.FPS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.In, err)
	}
	r.SynthesisSeconds = time.Since(start).Seconds()
	if run.Sharded() {
		return nil, run.Write(c.Count, payload{Units: units, SynthesisSeconds: r.SynthesisSeconds})
	}
	return units, nil
}

// clips synthesises clips lo to hi−1 (clip k has seed Seed + k), measures
// each, writes each to Out/clip-SEED.glb when Out is set, and returns
// their results. Each clip is synthesised, measured, written and dropped
// on one core before the next, so that memory holds a clip per core (and
// the bones of the first pairwiseClips), whatever the count.
func (c *Command) clips(s *synth.Synthesizer, a *synth.Analysis, lo, hi int, rest *assets.Mesh, fps float64) ([]unit, error) {
	if c.Out != "" {
		if err := os.MkdirAll(c.Out, 0o755); err != nil {
			return nil, err
		}
	}
	units := make([]unit, hi-lo)
	errs := make([]error, hi-lo)
	var done atomic.Int64
	parallel.For(hi-lo, func(i int) {
		clip, err := s.Clip(context.Background(), c.Seed+uint64(lo+i))
		if err != nil {
			errs[i] = err
			return
		}
		q := a.Quality(clip, s.Window())
		u := unit{SpliceAccel: q.SpliceAccel, Walks: make([][]int, len(clip.Walks))}
		u.Clip = ClipReport{Seed: clip.Seed, Frames: len(clip.Bones), MaxSpliceAccRatio: q.MaxAccel, EdgeRatio: q.EdgeRatio,
			MeanStrain: q.MeanStrain, SpliceFrames: make([][]int, len(clip.Walks)), SpliceAccel: q.SpliceAccel}
		for k, w := range clip.Walks {
			u.Clip.Splices += len(w.Splices)
			u.Clip.SpliceFrames[k] = w.Splices
			u.Walks[k] = w.Source
		}
		if lo+i < pairwiseClips {
			u.Bones = flattenBones(clip.Bones)
		}
		if c.Out != "" {
			name := fmt.Sprintf("clip-%d", clip.Seed)
			path := filepath.Join(c.Out, name+".glb")
			if errs[i] = Save(path, clip, name, fps, rest, c.Morph); errs[i] != nil {
				return
			}
			u.Clip.File = path
		}
		units[i] = u
		c.status("synth: %d of %d clips", done.Add(1), hi-lo)
	})
	return units, errors.Join(errs...)
}

// report fills in r's clips and their figures over all of them.
func (c *Command) report(r *Report, a *synth.Analysis, units []unit) error {
	if r.CutNodes == nil {
		r.CutNodes = []int{}
	}
	r.Clips = make([]ClipReport, len(units))
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
		var err error
		if first[i], err = unflattenBones(units[i], a); err != nil {
			return err
		}
	}
	c.status("synth: distances between the first %d clips", len(first))
	r.MeanPairwiseRMS = synth.MeanDistance(first)
	return nil
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
func unflattenBones(u unit, a *synth.Analysis) (*synth.Clip, error) {
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
func distinctClips(units []unit) int {
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
