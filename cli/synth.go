package cli

import (
	"context"
	"encoding/json"
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
	"gallop/solver/synth"
	tsynth "gallop/tools/synth"
)

// synthClip is one clip of `gallop synth --json`.
type synthClip struct {
	Seed              uint64  `json:"seed"`
	Frames            int     `json:"frames"`
	Splices           int     `json:"splices"`
	MaxSpliceAccRatio float64 `json:"max_splice_acceleration_ratio"`
	EdgeRatio         float64 `json:"edge_ratio"`
	File              string  `json:"file,omitempty"`
}

// synthResult is what `gallop synth --json` prints.
type synthResult struct {
	Vertices   int     `json:"vertices"`
	InFrames   int     `json:"input_frames"`
	FPS        float64 `json:"fps"`
	Bones      int     `json:"bones"`
	Blend      string  `json:"blend"`
	Parts      int     `json:"parts"`
	CutNodes   []int   `json:"cut_nodes"`
	Threshold  float64 `json:"threshold"` // of the first part
	Candidates int     `json:"candidates"`
	GraphNodes int     `json:"graph_nodes"`
	SCCNodes   int     `json:"scc_nodes"`

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

func runSynth(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("synth", flag.ContinueOnError)
	refPath := fs.String("reference", "", "the rest pose, an .obj file with the animation's vertices (default: IN's reference.obj beside its frames folder, else the first frame)")
	bones := fs.Int("bones", tsynth.DefaultBones, "SSDR bones")
	count := fs.Int("count", 12, "clips to synthesise")
	seconds := fs.Float64("seconds", 10, "length of each clip in seconds")
	seed := fs.Uint64("seed", 1, "the first clip's seed; clip k has seed+k")
	threshold := fs.Float64("threshold", 0, "transition cost threshold T_c (default 40 × the largest cost between neighbouring frames, per part)")
	blendName := fs.String("blend", "gradient", "splice blending: gradient, linear or poisson")
	components := fs.Bool("components", false, "split the mesh at a cut node of the bone graph and synthesise the parts independently")
	var targets targetsFlag
	fs.Var(&targets, "target", "INPUT@OUTPUT: show input frame INPUT at output frame OUTPUT (repeatable)")
	outDir := fs.String("out", "", "write each clip to DIR/clip-SEED.glb as a skinned glTF")
	morph := fs.Bool("morph", false, "with --out, write morph targets instead of a skin")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: gallop synth IN [--reference REF.obj] [--bones B] [--count N] [--seconds S]
                   [--seed K] [--threshold T] [--blend gradient|linear|poisson]
                   [--components] [--target F@G ...] [--out DIR [--morph]] [--json]

Turns one mesh animation (IN: a folder of OBJ frames, or a .gltf / .glb file
whose first animated object is used) into N different clips of S seconds by
One-to-Many (Zheng 2013): an SSDR rig, transitions between similar frames,
random walks through their motion graph, splices blended in the gradient
domain. --json prints the figures, per clip its seed, frames, splices and
the largest splice acceleration against the input's 99th percentile.`)
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
		return fmt.Errorf("--threshold %v: want a positive cost", *threshold)
	}
	mesh, clip, err := loadAnimation(in)
	if err != nil {
		return err
	}
	ref := *refPath
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
			return err
		}
		if r.NumVertices() != mesh.NumVertices() {
			return fmt.Errorf("%s: %d vertices, the animation %s has %d", ref, r.NumVertices(), in, mesh.NumVertices())
		}
		rest = r
	}
	fps := clip.FPS
	if !(fps > 0) {
		fps = assets.DefaultFPS
	}
	frames := int(math.Round(*seconds * fps))
	if frames < 2 {
		return fmt.Errorf("--seconds %v at %v fps is fewer than 2 frames", *seconds, fps)
	}

	line := newProgress()
	start := time.Now()
	model, err := tsynth.Infer(context.Background(), rest, clip, *bones, func(it int, rmse float64) {
		line.Report("synth: rig iteration %d, RMSE %.4g", it, rmse)
	})
	if err != nil {
		line.Done()
		return fmt.Errorf("%s: %w", in, err)
	}
	ssdrSeconds := time.Since(start).Seconds()
	line.Report("synth: transitions")
	a, err := synth.Analyze(context.Background(), model, synth.Options{Components: *components})
	if err != nil {
		line.Done()
		return fmt.Errorf("%s: %w", in, err)
	}
	graphs, err := tsynth.Graphs(a, *threshold)
	if err != nil {
		line.Done()
		return fmt.Errorf("%s: %w", in, err)
	}
	analysisSeconds := time.Since(start).Seconds()
	s, err := a.NewSynthesizer(graphs, synth.Request{Frames: frames, Blend: blend, Targets: targets})
	if err != nil {
		line.Done()
		return fmt.Errorf("%s: %w", in, err)
	}
	seeds := make([]uint64, *count)
	for k := range seeds {
		seeds[k] = *seed + uint64(k)
	}
	var done atomic.Int64
	start = time.Now()
	clips, err := s.Clips(context.Background(), seeds, func() {
		line.Report("synth: %d of %d clips", done.Add(1), len(seeds))
	})
	synthesisSeconds := time.Since(start).Seconds()
	if err != nil {
		line.Done()
		return fmt.Errorf("%s: %w", in, err)
	}

	r := synthResult{
		Vertices: len(model.Rest), InFrames: len(model.Input), FPS: fps, Bones: *bones, Blend: blend.String(),
		Parts: len(a.Parts), CutNodes: a.CutNodes, Threshold: graphs[0].Threshold,
		SSDRSeconds: ssdrSeconds, AnalysisSeconds: analysisSeconds, SynthesisSeconds: synthesisSeconds,
		Clips: make([]synthClip, len(clips)),
	}
	if r.CutNodes == nil {
		r.CutNodes = []int{}
	}
	for _, g := range graphs {
		r.Candidates += len(g.Transitions)
		r.GraphNodes += len(g.Segments)
		r.SCCNodes += len(g.Largest)
	}
	qs := make([]synth.Quality, len(clips))
	done.Store(0)
	parallel.For(len(clips), func(i int) {
		qs[i] = a.Quality(clips[i], s.Window())
		line.Report("synth: quality of %d of %d clips", done.Add(1), len(clips))
	})
	var sum float64
	var n, over int
	for i, c := range clips {
		splices := 0
		for _, w := range c.Walks {
			splices += len(w.Splices)
		}
		r.Clips[i] = synthClip{Seed: c.Seed, Frames: len(c.Bones), Splices: splices, MaxSpliceAccRatio: qs[i].MaxAccel, EdgeRatio: qs[i].EdgeRatio}
		for _, x := range qs[i].SpliceAccel {
			sum += x
			n++
			if x > 1.5 {
				over++
			}
		}
		r.MaxEdgeRatio = max(r.MaxEdgeRatio, qs[i].EdgeRatio)
	}
	if n > 0 {
		r.MeanSpliceAccRatio, r.SplicesOver15 = sum/float64(n), float64(over)/float64(n)
	}
	r.Distinct = distinctClips(clips)
	r.PairwiseClips = min(len(clips), 16)
	pairs := 0
	for i := range r.PairwiseClips {
		for j := range i {
			r.MeanPairwiseRMS += synth.Distance(clips[i], clips[j])
			pairs++
		}
	}
	if pairs > 0 {
		r.MeanPairwiseRMS /= float64(pairs)
	}
	if *outDir != "" {
		if err := os.MkdirAll(*outDir, 0o755); err != nil {
			line.Done()
			return err
		}
		for i, c := range clips {
			line.Report("synth: writing %d of %d clips", i+1, len(clips))
			name := fmt.Sprintf("clip-%d", c.Seed)
			path := filepath.Join(*outDir, name+".glb")
			if err := tsynth.Save(path, c, name, fps, rest, *morph); err != nil {
				line.Done()
				return err
			}
			r.Clips[i].File = path
		}
	}
	line.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%d clips of %d frames from %d input frames (%d bones, %d parts): %d candidate transitions, graph of %d nodes, largest strongly connected component %d\n",
		len(clips), frames, r.InFrames, r.Bones, r.Parts, r.Candidates, r.GraphNodes, r.SCCNodes)
	fmt.Fprintf(stdout, "splice acceleration: mean %.3f of the input's 99th percentile, %.1f%% above 1.5; edges change at most %.3f times the input's most; %d distinct\n",
		r.MeanSpliceAccRatio, 100*r.SplicesOver15, r.MaxEdgeRatio, r.Distinct)
	fmt.Fprintf(stdout, "analysis %.2f s (SSDR %.2f s), synthesis %.2f s\n", r.AnalysisSeconds, r.SSDRSeconds, r.SynthesisSeconds)
	return nil
}

// distinctClips counts the clips whose walks differ from every other
// clip's.
func distinctClips(clips []*synth.Clip) int {
	seen := map[string]int{}
	for _, c := range clips {
		var b strings.Builder
		for _, w := range c.Walks {
			for _, x := range w.Source {
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
