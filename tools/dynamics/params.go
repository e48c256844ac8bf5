package dynamics

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gallop/internal/atomicfile"
	"gallop/internal/words"
	"gallop/solver/dynskin"
)

// paramsHeader is the first line of a parameters file.
const paramsHeader = "vertex,alpha,beta,gamma,lambda,kappa"

// WriteParams writes per-vertex parameters as CSV: the header
// "vertex,alpha,beta,gamma,lambda,kappa", then one line per vertex in
// order, 0-based, with the values printed exactly (shortest round-trip
// form).
func WriteParams(w io.Writer, p []dynskin.Material) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, paramsHeader)
	for i, m := range p {
		fmt.Fprintf(bw, "%d", i)
		for k := range dynskin.ParamNames {
			bw.WriteByte(',')
			bw.WriteString(strconv.FormatFloat(m.Get(k), 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// SaveParams writes a parameters file atomically (the previous file stays
// whole until the new one is complete).
func SaveParams(path string, p []dynskin.Material) error {
	return atomicfile.Write(path, func(w io.Writer) error { return WriteParams(w, p) })
}

// ReadParams reads a parameters file written by WriteParams for a mesh of
// n vertices: every vertex exactly once, every value in its range.
// Errors name the file (name) and line.
func ReadParams(r io.Reader, name string, n int) ([]dynskin.Material, error) {
	sc := bufio.NewScanner(r)
	line := 0
	p := make([]dynskin.Material, n)
	seen := make([]bool, n)
	count := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if line == 1 {
			if text != paramsHeader {
				return nil, fmt.Errorf("%s:1: header %q, want %q", name, text, paramsHeader)
			}
			continue
		}
		if text == "" {
			continue
		}
		f := strings.Split(text, ",")
		if len(f) != 1+len(dynskin.ParamNames) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d", name, line, len(f), 1+len(dynskin.ParamNames))
		}
		v, err := strconv.Atoi(f[0])
		if err != nil || v < 0 || v >= n {
			return nil, fmt.Errorf("%s:%d: vertex %q is not in [0, %d)", name, line, f[0], n)
		}
		if seen[v] {
			return nil, fmt.Errorf("%s:%d: vertex %d given twice", name, line, v)
		}
		seen[v] = true
		count++
		for k := range dynskin.ParamNames {
			x, err := strconv.ParseFloat(f[1+k], 64)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s %q is not a number", name, line, dynskin.ParamNames[k], f[1+k])
			}
			p[v].Set(k, x)
		}
		if err := dynskin.CheckParams(p[v:v+1], 1); err != nil {
			return nil, fmt.Errorf("%s:%d: vertex %d: %s", name, line, v, strings.TrimPrefix(err.Error(), "vertex 0: "))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return nil, fmt.Errorf("%s: empty", name)
	}
	if count != n {
		for v, ok := range seen {
			if !ok {
				return nil, fmt.Errorf("%s: parameters for %s, the mesh has %d (vertex %d is missing)", name, words.Count(count, "vertex", "vertices"), n, v)
			}
		}
	}
	return p, nil
}

// LoadParams reads a parameters file (see ReadParams).
func LoadParams(path string, n int) ([]dynskin.Material, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadParams(f, filepath.Base(path), n)
}
