package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"gallop/internal/shard"
	"gallop/solver/synth"
	tsynth "gallop/tools/synth"
)

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
	if a < 1 || b < 1 {
		return fmt.Errorf("%q: frames are counted from 1, as on the timeline", s)
	}
	*t = append(*t, synth.Target{Input: a - 1, Output: b - 1})
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

const synthUsage = `Usage: gallop synth IN [--reference REF.obj] [--bones B] [--count N] [--seconds S]
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
shards and the merge find it.`

func runSynth(args []string, stdout io.Writer) error {
	return synthCommand(args, stdout, nil)
}

// synthCommand runs `gallop synth` with args: the plain run, its prepared
// stage, a shard of it, or (merged not nil) the merge of its shard files.
func synthCommand(args []string, stdout io.Writer, merged []*shard.File) error {
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
	fs.Var(&targets, "target", "INPUT@OUTPUT: show input frame INPUT at output frame OUTPUT, counted from 1 as on the timeline (repeatable)")
	var obstacles obstaclesFlag
	fs.Var(&obstacles, "obstacle", "sphere:X,Y,Z,R, ground:HEIGHT (y up) or mesh:FILE.obj: a scene object the clips keep out of (repeatable)")
	inFPS := fs.Float64("fps", 0, "the frame rate of IN (default: the file's; 30 for OBJ frames)")
	outDir := fs.String("out", "", "write each clip to DIR/clip-SEED.glb as a skinned glTF")
	morph := fs.Bool("morph", false, "with --out, write morph targets instead of a skin")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures")
	shards := addShardOptions(fs, tsynth.Plan, args)
	fs.Usage = usageOf(fs, synthUsage)
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
	run, err := shards.run(merged)
	if err != nil {
		return err
	}
	line := newProgress()
	defer line.Done()
	c := tsynth.Command{In: in, Reference: *refPath, Bones: *bones, FPS: *inFPS, Count: *count, Seconds: *seconds, Seed: *seed,
		Threshold: *threshold, Blend: blend, Components: *components, Targets: targets, Obstacles: obstacles,
		Out: *outDir, Morph: *morph, Status: line.Report}
	r, err := c.Run(run)
	if err != nil || run.Partial() {
		return err
	}
	line.Done()
	if *asJSON {
		return json.NewEncoder(stdout).Encode(r)
	}
	fmt.Fprintf(stdout, "%d clips of %d frames from %d input frames (%d bones, %d parts): %d candidate transitions within %.3g steps (median %.2f), graph of %d nodes, largest strongly connected component %d (%d frames)\n",
		len(r.Clips), r.Frames, r.InFrames, r.Bones, r.Parts, r.Candidates, r.Threshold, r.MedianDistance, r.Nodes, r.SCCNodes, r.SCCFrames)
	fmt.Fprintf(stdout, "splice acceleration: mean %.3f of the input's 99th percentile, %.1f%% above 1.5; edges change at most %.3f times the input's most; %d distinct\n",
		r.MeanSpliceAccRatio, 100*r.SplicesOver15, r.MaxEdgeRatio, r.Distinct)
	fmt.Fprintf(stdout, "analysis %.2f s (SSDR %.2f s), synthesis %.2f s\n", r.AnalysisSeconds, r.SSDRSeconds, r.SynthesisSeconds)
	return nil
}
