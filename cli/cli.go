// Package cli holds Gallop's headless commands for pipelines and tests
// (gallop info, convert, pose, sample, rig, dynamics, synth, ensemble, merge,
// farm, bench). It does not link the window: the one figure that needs it,
// the viewport benchmark, is measured by running the gallop binary itself
// with --bench-viewport (package app). A command parses its flags, runs
// its tool model's command (the work, and its steps in shards: the
// prepared stage, the shards, the merge) and prints the report. Every
// command has --help, exits with status 0 on success, and on failure
// prints one line to stderr and exits non-zero.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// command is one headless subcommand.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout io.Writer) error
}

func commands() []command {
	return []command{
		{"info", "print what a mesh, sequence, glTF or project file holds", runInfo},
		{"convert", "convert between OBJ, OBJ sequences, glTF and projects", runConvert},
		{"pose", "pose a mesh by Mesh-Based Inverse Kinematics from example poses", runPose},
		{"sample", "sample plausible multi-body animations that meet constraints (MCMC)", runSample},
		{"rig", "infer a skinning rig (bones and weights) from a mesh animation (SSDR)", runRig},
		{"dynamics", "fit or apply secondary motion on skinned animation (dynamic skinning)", runDynamics},
		{"synth", "turn one mesh animation into many different, arbitrarily long ones (One-to-Many)", runSynth},
		{"ensemble", "build and play endless, interpenetration-free animation of mesh ensembles (MEMG)", runEnsemble},
		{"merge", "combine the shard files of a command run with --shard K/N into its result", runMerge},
		{"farm", "run a command's shards as cluster jobs (Slurm) or on this machine, then merge", runFarm},
		{"bench", "measure Gallop's performance figures, as JSON lines", runBench},
	}
}

// errUsage marks errors whose message is usage already printed.
var errUsage = errors.New("usage")

// Handles reports whether arg, the first argument, names a headless
// command or asks for help: then Main runs it; otherwise the arguments are
// the window's (files to open).
func Handles(arg string) bool {
	switch arg {
	case "help", "-h", "-help", "--help":
		return true
	}
	for _, c := range commands() {
		if arg == c.name {
			return true
		}
	}
	return false
}

// Main runs the headless command args[0] with the rest of args (or prints
// help) and returns the exit status.
func Main(args []string) int {
	if len(args) == 0 {
		usage(os.Stderr)
		return 2
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		usage(os.Stdout)
		return 0
	}
	for _, c := range commands() {
		if args[0] != c.name {
			continue
		}
		err := c.run(args[1:], os.Stdout)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		}
		fmt.Fprintf(os.Stderr, "gallop %s: %s\n", c.name, oneLine(err))
		return 1
	}
	fmt.Fprintf(os.Stderr, "gallop: unknown command %q\n", args[0])
	usage(os.Stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `Usage:
  gallop [--save-to PATH] [--size WxH] [--autosave SECONDS] [FILE...]
        open the window on FILE (a .gallop project, an .obj, .gltf or .glb
        file, several .obj frames, or a folder of them), or on the built-in
        demo scene when no file is given; --autosave sets the seconds
        between autosaves of unsaved work (120; 0: never)
  gallop COMMAND [options]   (gallop COMMAND --help for its options)

Commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
