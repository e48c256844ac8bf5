package assets

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"gallop/internal/parallel"
)

// ListOBJSequence returns the frame files of an OBJ sequence. Each path is a
// folder, from which every file whose name ends in .obj (any case) is taken,
// subfolders excluded, or a file, taken whatever its name. The files are
// sorted by folder and then by name in natural order, where runs of digits
// compare by their value: 1.obj, 2.obj, ..., 10.obj; 0001.obj, 0002.obj;
// frame_2.obj before frame_12.obj. Names without digits sort as strings.
// It returns an error when a path cannot be read or no file is found.
func ListOBJSequence(paths ...string) ([]string, error) {
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".obj") {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no .obj files in %s", strings.Join(paths, ", "))
	}
	slices.SortStableFunc(files, func(a, b string) int {
		if c := strings.Compare(filepath.Dir(a), filepath.Dir(b)); c != 0 {
			return c
		}
		return compareNatural(filepath.Base(a), filepath.Base(b))
	})
	return files, nil
}

// compareNatural compares a and b bytewise, except that runs of ASCII
// digits compare by numeric value (and, for equal values, the shorter run
// first), so that "2" < "10" and "frame_9" < "frame_10".
func compareNatural(a, b string) int {
	for len(a) > 0 && len(b) > 0 {
		if !isDecimalDigit(a[0]) || !isDecimalDigit(b[0]) {
			if a[0] != b[0] {
				return cmp.Compare(a[0], b[0])
			}
			a, b = a[1:], b[1:]
			continue
		}
		na, nb := digitRun(a), digitRun(b)
		va, vb := strings.TrimLeft(a[:na], "0"), strings.TrimLeft(b[:nb], "0")
		if c := cmp.Compare(len(va), len(vb)); c != 0 {
			return c
		}
		if c := strings.Compare(va, vb); c != 0 {
			return c
		}
		if c := cmp.Compare(na, nb); c != 0 {
			return c
		}
		a, b = a[na:], b[nb:]
	}
	return cmp.Compare(len(a), len(b))
}

// isDecimalDigit reports whether c is an ASCII digit.
func isDecimalDigit(c byte) bool { return '0' <= c && c <= '9' }

// digitRun returns the length of the run of digits at the start of s.
func digitRun(s string) int {
	i := 0
	for i < len(s) && isDecimalDigit(s[i]) {
		i++
	}
	return i
}

// LoadOBJSequence reads an animation stored as one OBJ file per frame, in
// the order of files (see ListOBJSequence). The files are parsed in
// parallel, one worker per CPU (package parallel).
//
// It returns the first frame as the mesh and a clip with one frame of
// positions per file, at DefaultFPS. Both are named after the folder
// holding the first file; the clip's first frame is a copy of the mesh's
// positions, not shared with them. Every frame must have the first frame's
// vertex count and triangles (Mesh.SameTopology); UVs, normals and groups
// of the other frames are ignored.
//
// progress, when non-nil, is called once per frame parsed, with the number
// of frames done so far and len(files). The calls come from the worker
// goroutines but are serialized, with done increasing by one each time;
// progress should return quickly, as it holds up the loading.
//
// On a file that cannot be read or parsed, or does not match the first
// frame, LoadOBJSequence stops and returns an error naming the file. When
// ctx is cancelled it stops within a fraction of a file's parse and returns
// ctx.Err().
func LoadOBJSequence(ctx context.Context, files []string, progress func(done, total int)) (*Mesh, *Clip, error) {
	if len(files) == 0 {
		return nil, nil, errors.New("OBJ sequence: no files")
	}
	work, stop := context.WithCancel(ctx)
	defer stop()
	l := &objSequenceLoad{
		ctx:        work,
		stop:       stop,
		files:      files,
		progress:   progress,
		frames:     make([][]Vec3, len(files)),
		firstReady: make(chan struct{}),
	}
	// One loop per worker (not per file), so each keeps its read buffer.
	parallel.For(min(parallel.Workers(), len(files)), func(int) { l.worker() })
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if l.err != nil {
		return nil, nil, l.err
	}
	name := sequenceName(files)
	l.first.Name = name
	l.frames[0] = slices.Clone(l.first.Positions)
	return l.first, &Clip{Name: name, FPS: DefaultFPS, Frames: l.frames}, nil
}

// objSequenceLoad is the state shared by the workers of LoadOBJSequence.
type objSequenceLoad struct {
	ctx      context.Context // cancelled on the first error
	stop     context.CancelFunc
	files    []string
	progress func(done, total int)

	next       atomic.Int64 // index of the next file to take
	frames     [][]Vec3     // frames[i] is written only by the worker parsing file i
	first      *Mesh        // set before firstReady is closed
	firstReady chan struct{}

	mu   sync.Mutex // guards done, err and the calls of progress
	done int
	err  error
}

// worker parses files until there are none left or the load stops. It
// reuses its buffers from file to file: the bytes read, and the triangles
// of the last frame parsed (other than the first, which is kept).
func (l *objSequenceLoad) worker() {
	var buf []byte
	var scratch *Mesh
	for l.ctx.Err() == nil {
		i := int(l.next.Add(1) - 1)
		if i >= len(l.files) {
			return
		}
		var err error
		buf, err = readFileBuffer(l.files[i], buf)
		if err == nil {
			scratch, err = l.parse(i, buf, scratch)
		}
		if err != nil {
			l.mu.Lock()
			if l.err == nil {
				l.err = err
			}
			l.mu.Unlock()
			l.stop()
			return
		}
		l.mu.Lock()
		l.done++
		if l.progress != nil {
			l.progress(l.done, len(l.files))
		}
		l.mu.Unlock()
	}
}

// parse parses file i from data into frames[i], checking it against the
// first frame, and returns the mesh whose buffers may be reused.
func (l *objSequenceLoad) parse(i int, data []byte, scratch *Mesh) (*Mesh, error) {
	m, err := parseOBJ(l.ctx, data, l.files[i], scratch)
	if err != nil {
		return nil, err
	}
	l.frames[i] = m.Positions
	if i == 0 {
		l.first = m
		close(l.firstReady)
		return nil, nil
	}
	select {
	case <-l.firstReady:
	case <-l.ctx.Done():
		return nil, l.ctx.Err()
	}
	if err := l.first.SameTopology(m); err != nil {
		return nil, fmt.Errorf("%s: does not match the first frame %s: %w", l.files[i], l.files[0], err)
	}
	return m, nil
}

// readFileBuffer returns the content of the file at path, read into buf
// when it has room (and otherwise into a larger buffer).
func readFileBuffer(path string, buf []byte) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		buf = slices.Grow(buf[:0], int(fi.Size())+1) // +1 to see EOF without growing
	}
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
