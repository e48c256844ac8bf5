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
                 [--skeleton [--root BONE | --root-vertex V] [--lock B,B...]]
                 [--fit-to SKIN.glb] [--out OUT.glb] [--json]
                 [--shard K/N [--shard-dir D]]

Infers a linear-blend-skinning rig from a mesh animation (IN: a folder of OBJ
frames, or a .gltf / .glb file whose first animated object is used) by Smooth
Skinning Decomposition with Rigid Bones (Le and Deng 2012), as Dem Bones
does: B bones with a rigid transform per frame and at most K weights per
vertex. Without --reference the first frame is the rest pose. Unlike Dem
Bones, it ends with --polish rounds without the translation affinity, which
lower the error (and recover exact skinning) at the cost of bone
translations held less closely to their vertices. With --out it
also reports the file's size and that of the clip's morph-target export.

With --skeleton the bones become a skeleton an animator can pose: one root
bone that moves freely, every other bone turning about a joint it shares
with its parent, so that its length never changes (as Le and Deng 2014
describe): the hierarchy is inferred from how well each two bones keep a
joint together, the joints and the bones' rotations are then fitted with the
weights, and the skinned glTF holds a joint hierarchy whose children only
rotate. The report gives the skeleton's error beside the free bones' it
started from. --root picks the root bone (by default the one whose motion
alone best follows the whole mesh), --root-vertex the bone that moves that
vertex most; --lock keeps the weights of the vertices the listed bones move.
--fit-to fits the skeleton of a glTF skin bound to the same mesh (such as a
file written with --skeleton --out) instead of inferring one: its hierarchy,
rest joints and joint names are kept, its weights start the fit, and its
bind pose is the rest pose (unless --reference is given); --bones is then
its joint count.

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
	skeleton := fs.Bool("skeleton", false, "make the bones a skeleton: one root, the other bones turning about joints, constant lengths")
	root := fs.Int("root", -1, "with --skeleton, the root bone (default: chosen by the fit)")
	rootVertex := fs.Int("root-vertex", -1, "with --skeleton, root the skeleton at the bone that moves this vertex most")
	lock := fs.String("lock", "", "with --skeleton, comma-separated bones whose vertices keep their weights")
	fitTo := fs.String("fit-to", "", "fit the skeleton of this glTF skin (bound to the same mesh) instead of inferring one")
	out := fs.String("out", "", "write the rig and its animation as a skinned glTF (.glb or .gltf); with a folder of animations, a folder for one NAME.glb each")
	asJSON := fs.Bool("json", false, "print one JSON object with the figures (one per line and animation with a folder of animations)")
	shards := addShardOptions(fs, rig.Plan, args)
	fs.Usage = usageOf(fs, rigUsage)
	in, err := parseInput(fs, args)
	if err != nil {
		return err
	}
	if *bones == 0 && *fitTo == "" {
		fs.Usage()
		return errUsage
	}
	var skel *ssdr.SkeletonOptions
	if *skeleton || *fitTo != "" {
		skel = ssdr.DefaultSkeleton()
		skel.Root, skel.RootVertex = *root, *rootVertex
		locked, err := rig.ParseBones(*lock)
		if err != nil {
			return fmt.Errorf("--lock %s: %w", *lock, err)
		}
		skel.Locked = locked
	} else if *root != -1 || *rootVertex != -1 || *lock != "" {
		return errors.New("--root, --root-vertex and --lock shape a skeleton: add --skeleton")
	}
	if *root != -1 && *rootVertex != -1 {
		return errors.New("--root and --root-vertex: give one")
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
	c := rig.Command{In: in, Reference: *refPath, Out: *out, FitTo: *fitTo, Status: line.Report,
		Options: ssdr.Options{Bones: *bones, MaxInfluences: *maxInfl, Iterations: *iters,
			Smooth: option.Literal(*smooth), TransAffine: option.Literal(*transAffine), PolishIterations: option.Literal(*polish),
			Skeleton: skel}}
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
		if k := r.Skeleton; k != nil {
			fmt.Fprintf(w, "%sskeleton rooted at bone %d; bone lengths kept to %.2g and joints to %.2g of the diagonal", prefix, k.Root, k.LengthDrift, k.JointGap)
			if k.FlatRMSE > 0 {
				fmt.Fprintf(w, "; free bones' RMSE %.6g (the skeleton's is %.3g times it)", k.FlatRMSE, k.RMSERatio)
			}
			if k.Given != "" {
				fmt.Fprintf(w, "; fitted to %s", k.Given)
			}
			fmt.Fprintln(w)
		}
		if r.Out != "" {
			fmt.Fprintf(w, "%s: %d bytes; the morph-target export of the clip: %d bytes\n", r.Out, r.GLBBytes, r.MorphGLBBytes)
		}
	}
	return nil
}
