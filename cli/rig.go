package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"gallop/internal/option"
	"gallop/internal/shard"
	"gallop/solver/ssdr"
	"gallop/tools/rig"
)

const rigUsage = `Usage: gallop rig IN [--reference REF.obj] --bones B [--max-influences 4]
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
gallop merge, which prints exactly what the whole run does, times aside.`

func runRig(args []string, stdout io.Writer) error {
	return rigCommand(args, stdout, nil)
}

// rigCommand runs `gallop rig` with args: the plain run, a shard of it,
// or (merged not nil) the merge of its shard files.
func rigCommand(args []string, stdout io.Writer, merged []*shard.File) error {
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
	fs.Usage = usageOf(fs, rigUsage)
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
	run, err := shards.run(merged)
	if err != nil {
		return err
	}
	line := newProgress()
	defer line.Done()
	c := rig.Command{In: in, Reference: *refPath, Out: *out, Status: line.Report,
		Options: ssdr.Options{Bones: *bones, MaxInfluences: *maxInfl, Iterations: *iters,
			Smooth: option.Literal(*smooth), TransAffine: option.Literal(*transAffine), PolishIterations: option.Literal(*polish)}}
	reports, err := c.Run(run)
	if err != nil || run.Partial() {
		return err
	}
	line.Done()
	return printRigReports(stdout, *asJSON, reports)
}

// printRigReports prints the reports, in order, each prefixed with its
// animation's name when they are of a folder of animations.
func printRigReports(w io.Writer, asJSON bool, reports []rig.Report) error {
	for _, r := range reports {
		if asJSON {
			if err := json.NewEncoder(w).Encode(r); err != nil {
				return err
			}
			continue
		}
		prefix := ""
		if r.File != "" {
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
