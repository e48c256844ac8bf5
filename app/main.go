package app

import (
	"errors"
	"flag"
	"fmt"
	"gallop/internal/figure"
	"io"
	"math"
	"os"
	"strings"
	"time"
)

// Main opens the window with the command-line arguments (without the
// program name) and returns the exit status: 0 when the window closed
// normally, 2 for bad usage, 1 when it could not open.
func Main(args []string) int {
	err := runWindow(args)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(os.Stderr, "gallop: %s\n", strings.ReplaceAll(err.Error(), "\n", "; "))
	return 1
}

// errUsage marks errors whose message is usage already printed.
var errUsage = errors.New("usage")

func runWindow(args []string) error {
	fs := flag.NewFlagSet("gallop", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, `Usage: gallop [--save-to PATH] [--size WxH] [--autosave SECONDS] [FILE...]
  open the window on FILE (a .gallop project, an .obj, .gltf or .glb file,
  several .obj frames, or a folder of them), or on the built-in demo scene
  when no file is given; gallop help lists the headless commands`)
	}
	saveTo := fs.String("save-to", os.Getenv("GALLOP_SAVE_TO"), "where Save writes a new project without asking (default $GALLOP_SAVE_TO)")
	size := fs.String("size", "1280x800", "window size in pixels")
	autosave := fs.Float64("autosave", DefaultAutosave.Seconds(), "seconds between autosaves of unsaved changes to the recovery file (0: never)")
	benchOut := fs.Bool("bench-viewport", false, "internal (gallop bench): run the viewport benchmark on FILE and print its figures as JSON")
	chain := fs.String("bench-chain", "", "internal (gallop bench --scale): run the chain benchmark on the mesh animation `DIR` and print its figures as JSON")
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
	files := fs.Args()
	if *chain != "" {
		files = append(files, *chain)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			return err
		}
	}
	if *autosave < 0 || math.IsNaN(*autosave) || *autosave > 1e6 {
		return fmt.Errorf("--autosave %g: want seconds between 0 (never) and 1000000", *autosave)
	}
	opts := Options{Files: files, SaveTo: *saveTo, Width: w, Height: h, Autosave: -1}
	// GALLOP_SLOW_FRAME (a duration such as 300ms) makes every UI frame
	// sleep that long, read once here: a test hook that stands in for the
	// slow frames of a big mesh (see Options.SlowFrame).
	if v := os.Getenv("GALLOP_SLOW_FRAME"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 || d > time.Minute {
			return fmt.Errorf("GALLOP_SLOW_FRAME=%q: want a duration from 0 to 1m, such as 300ms", v)
		}
		opts.SlowFrame = d
	}
	if *autosave > 0 {
		opts.Autosave = time.Duration(*autosave * float64(time.Second))
	}
	if *benchOut {
		opts.Bench = &BenchResult{}
	}
	if *chain != "" {
		opts.Chain = os.Stdout
	}
	if err := Run(opts); err != nil {
		return err
	}
	if opts.Bench != nil {
		return printViewportBench(os.Stdout, opts.Bench)
	}
	return nil
}

// printViewportBench prints the window benchmark's figures as gallop
// bench's JSON lines ({"name", "value", "unit"}), which the bench command
// relays.
func printViewportBench(w io.Writer, r *BenchResult) error {
	if r.Err != nil {
		return r.Err
	}
	if r.Frames == 0 {
		return fmt.Errorf("viewport benchmark measured no frames")
	}
	for _, f := range []struct {
		name  string
		value float64
		unit  string
	}{
		{"viewport_fps_idle", r.IdleFPS, "fps"},
		{"viewport_fps_busy", r.BusyFPS, "fps"},
		{"viewport_longest_frame_idle", r.LongestIdleFrame.Seconds() * 1e3, "ms"},
		{"viewport_longest_frame_busy", r.LongestBusyFrame.Seconds() * 1e3, "ms"},
		{"viewport_busy_cpu", r.BusyCPU, "cores"},
		{"viewport_busy_job_loads", r.BusyLoads, "loads/s"},
	} {
		if err := figure.Write(w, f.name, f.value, f.unit); err != nil {
			return err
		}
	}
	return nil
}
