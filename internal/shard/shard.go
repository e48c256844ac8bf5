// Package shard splits a headless command's work into N shards that can run
// anywhere (the tasks of a cluster scheduler's array job, processes on one
// machine) and keeps each shard's result in a self-describing file that a
// merge combines into exactly what the unsharded run gives.
//
// A shard file is one line of JSON, the Header (what command, with which
// arguments, which shard of how many), then the command's payload encoded
// with encoding/gob, which keeps every float64 bit for bit. A prepared file
// (Kind "prepared") has the same shape: the work that every shard would
// otherwise repeat, done once before them.
//
// Some commands shard their work in rounds, each round's shards reading
// every file of the round before (a graph whose second phase depends on
// the whole first): the rounds' files are told apart by Header.Round.
//
// Shard K of N (1 ≤ K ≤ N) owns the contiguous block of units
// [⌊(K−1)·U/N⌋, ⌊K·U/N⌋) of a command's U units (chains, clips, intervals,
// files): every unit belongs to exactly one shard, and the blocks differ in
// size by at most one.
//
// A command's Plan says how it runs in shards (a prepared stage or not,
// its rounds); a Run is one run of it as its shard options ask, through
// which its work reads and writes these files.
package shard

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"errors"
	"fmt"
	"gallop/internal/atomicfile"
	"gallop/internal/gobbytes"
	"gallop/internal/words"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Format is the Header's Format of every file this package writes.
const Format = "gallop-shard"

// Version is the file layout's version; Read refuses others.
const Version = 1

// Kinds of files.
const (
	KindShard    = "shard"
	KindPrepared = "prepared"
)

// Spec names shard K of N.
type Spec struct{ K, N int }

// Parse reads "K/N" with 1 ≤ K ≤ N.
func Parse(s string) (Spec, error) {
	k, n, ok := strings.Cut(s, "/")
	if !ok {
		return Spec{}, fmt.Errorf("shard %q: want K/N, as 2/4", s)
	}
	K, err1 := strconv.Atoi(strings.TrimSpace(k))
	N, err2 := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case err1 != nil || err2 != nil:
		return Spec{}, fmt.Errorf("shard %q: want K/N with whole numbers, as 2/4", s)
	case N < 1 || N > 100_000:
		return Spec{}, fmt.Errorf("shard %q: want 1 to 100000 shards", s)
	case K < 1 || K > N:
		return Spec{}, fmt.Errorf("shard %q: want K from 1 to %d", s, N)
	}
	return Spec{K, N}, nil
}

func (s Spec) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Range is the block [lo, hi) of units this shard owns out of total.
func (s Spec) Range(total int) (lo, hi int) {
	return (s.K - 1) * total / s.N, s.K * total / s.N
}

// FileName is the shard file of s in dir: dir/shard-K-of-N.gsh.
func FileName(dir string, s Spec) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%d-of-%d.gsh", s.K, s.N))
}

// RoundFileName is the shard file of s in an earlier round than a
// command's last (whose files are FileName's): dir/round-R-shard-K-of-N.gsh.
func RoundFileName(dir string, round int, s Spec) string {
	return filepath.Join(dir, fmt.Sprintf("round-%d-shard-%d-of-%d.gsh", round, s.K, s.N))
}

// PreparedName is the prepared file in dir.
func PreparedName(dir string) string { return filepath.Join(dir, "prepared.gsh") }

// Header says what a file holds.
type Header struct {
	Format  string   `json:"format"`
	Version int      `json:"version"`
	Kind    string   `json:"kind"`
	Command string   `json:"command"`         // "sample", "ensemble build", ...
	Args    []string `json:"args"`            // the command's arguments, without the shard options
	Round   int      `json:"round,omitempty"` // for a command whose shards run in rounds, 1, 2, ...
	Shard   int      `json:"shard"`           // K; 0 for a prepared file
	Of      int      `json:"of"`              // N; 0 for a prepared file
	Units   [2]int   `json:"units"`           // the block [lo, hi) of units
	Total   int      `json:"total"`           // every unit of the run
}

// Spec is the header's shard.
func (h Header) Spec() Spec { return Spec{h.Shard, h.Of} }

// sameRun reports whether two headers are of one run: command, arguments
// and shard count.
func (h Header) sameRun(o Header) bool {
	return h.Command == o.Command && h.Round == o.Round && h.Of == o.Of && h.Total == o.Total && slices.Equal(h.Args, o.Args)
}

// File is a header with its payload still encoded.
type File struct {
	Header
	Path    string
	payload []byte
}

// Decode decodes the payload into v (a pointer).
func (f *File) Decode(v any) error {
	if err := gobbytes.Decode(f.payload, v); err != nil {
		return fmt.Errorf("%s: payload: %w", f.Path, err)
	}
	return nil
}

// Write writes h and payload to path. It writes a temporary file beside
// path and renames it, so a reader sees the whole file or none, and a
// failed write never destroys an earlier file.
func Write(path string, h Header, payload any) error {
	h.Format, h.Version = Format, Version
	head, err := json.Marshal(h)
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := w.Write(append(head, '\n')); err != nil {
			return err
		}
		return gob.NewEncoder(w).Encode(payload)
	})
}

// maxHeader bounds the header line a reader accepts.
const maxHeader = 1 << 20

// Read reads a file's header and keeps its payload for Decode.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

// parse reads the header of data, the contents of the file at path, and
// keeps its payload.
func parse(path string, data []byte) (*File, error) {
	line, rest, ok := bytes.Cut(data, []byte{'\n'})
	if !ok || len(line) > maxHeader {
		return nil, fmt.Errorf("%s: not a Gallop shard file (no header line)", path)
	}
	f := &File{Path: path, payload: rest}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f.Header); err != nil || f.Format != Format {
		return nil, fmt.Errorf("%s: not a Gallop shard file", path)
	}
	switch {
	case f.Version != Version:
		return nil, fmt.Errorf("%s: shard file version %d, this Gallop reads %d", path, f.Version, Version)
	case f.Kind != KindShard && f.Kind != KindPrepared:
		return nil, fmt.Errorf("%s: unknown kind %q", path, f.Kind)
	case f.Kind == KindShard && (f.Of < 1 || f.Shard < 1 || f.Shard > f.Of):
		return nil, fmt.Errorf("%s: shard %d of %d", path, f.Shard, f.Of)
	case f.Units[0] < 0 || f.Units[0] > f.Units[1] || f.Units[1] > f.Total:
		return nil, fmt.Errorf("%s: units %v of %d", path, f.Units, f.Total)
	}
	return f, nil
}

// ErrIncomplete marks a set of shards with one missing.
var ErrIncomplete = errors.New("incomplete shards")

// ReadSet reads the shard files at paths and checks that they are one
// whole run: one command with the same arguments and shard count, each
// shard exactly once, their unit blocks tiling [0, total). The files come
// back ordered by shard. Errors name the file or the shard at fault.
func ReadSet(paths []string) ([]*File, error) {
	if len(paths) == 0 {
		return nil, errors.New("no shard files")
	}
	files := make([]*File, 0, len(paths))
	for _, p := range paths {
		f, err := Read(p)
		if err != nil {
			return nil, err
		}
		if f.Kind != KindShard {
			return nil, fmt.Errorf("%s: a %s file, not a shard", p, f.Kind)
		}
		files = append(files, f)
	}
	return checkSet(files)
}

// checkSet is ReadSet's check of files, read and of kind shard.
func checkSet(files []*File) ([]*File, error) {
	first := files[0]
	for _, f := range files[1:] {
		if !f.sameRun(first.Header) {
			return nil, fmt.Errorf("%s: shard of another run (%s %s, %d shards) than %s (%s %s, %d shards)",
				f.Path, f.Command, strings.Join(f.Args, " "), f.Of, first.Path, first.Command, strings.Join(first.Args, " "), first.Of)
		}
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].Shard < files[j].Shard })
	var missing []string
	byK := make(map[int]*File, len(files))
	for _, f := range files {
		if g, dup := byK[f.Shard]; dup {
			return nil, fmt.Errorf("shard %d of %d given twice: %s and %s", f.Shard, f.Of, g.Path, f.Path)
		}
		byK[f.Shard] = f
	}
	// Every file's shard lies in 1 … Of (Read checks), so Of − len(files)
	// are missing; at most maxListed of them are named, found in at most
	// len(files) + maxListed steps whatever Of a file claims.
	const maxListed = 10
	if n := first.Of - len(files); n > 0 {
		for k := 1; len(missing) < min(n, maxListed); k++ {
			if byK[k] == nil {
				missing = append(missing, strconv.Itoa(k))
			}
		}
		list := strings.Join(missing, ", ")
		if n > len(missing) {
			list += fmt.Sprintf(" and %d more", n-len(missing))
		}
		return nil, fmt.Errorf("%w: shard %s of %d missing (have %s of %s %s)",
			ErrIncomplete, list, first.Of, words.Count(len(files), "file", "files"), first.Command, strings.Join(first.Args, " "))
	}
	for _, f := range files {
		lo, hi := f.Spec().Range(f.Total)
		if f.Units != [2]int{lo, hi} {
			return nil, fmt.Errorf("%s: shard %s holds units %v, want [%d %d]", f.Path, f.Spec(), f.Units, lo, hi)
		}
	}
	return files, nil
}

// ReadPrepared reads a prepared file and checks it was made for command
// with args.
func ReadPrepared(path, command string, args []string) (*File, error) {
	f, err := Read(path)
	if err != nil {
		return nil, err
	}
	if f.Kind != KindPrepared {
		return nil, fmt.Errorf("%s: a %s file, not a prepared one", path, f.Kind)
	}
	if f.Command != command || !slices.Equal(f.Args, args) {
		return nil, fmt.Errorf("%s: prepared for other settings (%s %s), not %s %s",
			path, f.Command, strings.Join(f.Args, " "), command, strings.Join(args, " "))
	}
	return f, nil
}

// Strip returns args without the shard options --shard K/N, --shard-dir D,
// --shard-round R and --prepare (in their -x, --x, x=v and x v forms), which say where a
// run's work goes, not what it is.
func Strip(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name := strings.TrimLeft(a, "-")
		if name == a {
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(name, "=")
		switch name {
		case "prepare":
		case "shard", "shard-dir", "shard-round":
			if !hasValue {
				i++
			}
		default:
			out = append(out, a)
		}
	}
	return out
}
