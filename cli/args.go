package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// parse parses args with fs, taking flags before, between or after the
// positional arguments, as git and Blender do: an argument that starts
// with - is a flag (one dash or two), with its value after = in the same
// argument or, for a flag that is not boolean, in the next argument; --
// ends the flags; every other argument is positional, in order. An
// unknown flag is an error naming it as typed (exit status 2), where Go's
// flag package would stop at the first positional argument and take the
// flags after it for file names.
func parse(fs *flag.FlagSet, args []string) error {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		typed, _, hasValue := strings.Cut(a, "=")
		name := strings.TrimLeft(typed, "-")
		flags = append(flags, a)
		if name == "h" || name == "help" {
			continue // fs.Parse prints the usage
		}
		f := fs.Lookup(name)
		if f == nil {
			fmt.Fprintf(fs.Output(), "gallop %s: unknown flag %s (gallop %s --help lists its flags)\n", fs.Name(), typed, fs.Name())
			return errUsage
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return fs.Parse(append(append(flags, "--"), pos...))
}

// parseInput parses args with parse and returns the one positional
// argument, the command's input; with none or several it prints the usage
// and returns errUsage.
func parseInput(fs *flag.FlagSet, args []string) (string, error) {
	if err := parse(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "" {
		fs.Usage()
		return "", errUsage
	}
	return fs.Arg(0), nil
}

// progress is the line a long headless run keeps rewriting on stderr
// (what it does, how far it has come) when stderr is a terminal, at most
// ten times a second; when stderr is not a terminal (a pipe, a log file,
// a test) it writes nothing.
type progress struct {
	w     io.Writer // nil: not a terminal
	last  time.Time
	shown bool
}

// newProgress returns the progress line of this process's stderr.
func newProgress() *progress {
	if st, err := os.Stderr.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return &progress{w: os.Stderr}
	}
	return &progress{}
}

// Report shows the line, unless one was shown less than 0.1 s ago.
func (p *progress) Report(format string, args ...any) {
	if p.w == nil || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	fmt.Fprintf(p.w, "\r%s\x1b[K", fmt.Sprintf(format, args...))
}

// Done clears the line, so that what the command prints next starts on
// a clean line.
func (p *progress) Done() {
	if p.w != nil && p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.shown = false
	}
}

// usageOf is the Usage of the flag set fs whose command's usage is text:
// text, then the flags with their defaults.
func usageOf(fs *flag.FlagSet, text string) func() {
	return func() {
		fmt.Fprintln(fs.Output(), text)
		fs.PrintDefaults()
	}
}
