// Package cli is Gallop's command line: the window when run with no
// command, and the headless commands for pipelines and tests. Every command
// has --help, exits with status 0 on success, and on failure prints one
// line to stderr and exits non-zero.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"gallop/app"
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
		{"bench", "measure Gallop's performance figures, as JSON lines", runBench},
	}
}

// errUsage marks errors whose message is usage already printed.
var errUsage = errors.New("usage")

// Main runs Gallop with the given arguments (without the program name) and
// returns the exit status.
func Main(args []string) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "-help", "--help":
			usage(os.Stdout)
			return 0
		}
		for _, c := range commands() {
			if args[0] == c.name {
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
		}
	}
	if err := runGUI(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(os.Stderr, "gallop: %s\n", oneLine(err))
		return 1
	}
	return 0
}

func usage(w io.Writer) {
	fmt.Fprintln(w, `Usage:
  gallop [--save-to PATH] [--size WxH] [FILE...]
        open the window on FILE (a .gallop project, an .obj, .gltf or .glb
        file, several .obj frames, or a folder of them), or on the built-in
        demo scene when no file is given
  gallop COMMAND [options]   (gallop COMMAND --help for its options)

Commands:`)
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
}

func runGUI(args []string) error {
	fs := flag.NewFlagSet("gallop", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() { usage(os.Stderr) }
	saveTo := fs.String("save-to", os.Getenv("GALLOP_SAVE_TO"), "where Save writes a new project without asking (default $GALLOP_SAVE_TO)")
	size := fs.String("size", "1280x800", "window size in pixels")
	benchOut := fs.Bool("bench-viewport", false, "internal: run the viewport benchmark on FILE and print its figures as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	var w, h int
	if _, err := fmt.Sscanf(*size, "%dx%d", &w, &h); err != nil || w < 320 || h < 240 {
		return fmt.Errorf("--size %q: want WIDTHxHEIGHT, at least 320x240", *size)
	}
	for _, f := range fs.Args() {
		if _, err := os.Stat(f); err != nil {
			return err
		}
	}
	opts := app.Options{Files: fs.Args(), SaveTo: *saveTo, Width: w, Height: h}
	if *benchOut {
		opts.Bench = &app.BenchResult{}
	}
	if err := app.Run(opts); err != nil {
		return err
	}
	if opts.Bench != nil {
		return printViewportBench(os.Stdout, opts.Bench)
	}
	return nil
}

func oneLine(err error) string {
	return strings.ReplaceAll(err.Error(), "\n", "; ")
}
