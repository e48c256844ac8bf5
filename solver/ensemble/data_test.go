package ensemble

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/parallel"
	"gallop/internal/shareddata"
)

// bannerFrames is how many frames of each wind level the tests load: the
// first 90 of 210 (three levels, 270 frames), enough for transitions
// (MinFrames(30, 10) = 82) and quick to load and model. The benchmarks
// load all 210.
const bannerFrames = 90

// readOBJ reads the `o`, `v` and `f` lines of a triangle-only OBJ file:
// positions, and each group's name, first vertex and triangles
// (file-wide, 0-based). Enough for the banner, independent of the assets
// package (which a solver's tests may not import).
func readOBJ(path string) (pos []mgl64.Vec3, names []string, firsts []int, tris [][][3]int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "o":
			names = append(names, fields[1])
			firsts = append(firsts, len(pos))
			tris = append(tris, nil)
		case "v", "f":
			if len(fields) != 4 {
				return nil, nil, nil, nil, fmt.Errorf("%s:%d: want 3 values", path, line)
			}
			var x [3]float64
			for i, s := range fields[1:] {
				s, _, _ = strings.Cut(s, "/")
				if x[i], err = strconv.ParseFloat(s, 64); err != nil {
					return nil, nil, nil, nil, fmt.Errorf("%s:%d: %v", path, line, err)
				}
			}
			if fields[0] == "v" {
				pos = append(pos, x)
			} else if len(tris) > 0 {
				tris[len(tris)-1] = append(tris[len(tris)-1], [3]int{int(x[0]) - 1, int(x[1]) - 1, int(x[2]) - 1})
			}
		}
	}
	return pos, names, firsts, tris, sc.Err()
}

// readCSV returns the rows of a CSV file after its header.
func readCSV(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return rows[1:], nil
}

// loadBanner reads the ensemble-banner data set with the first frames
// frames of each level.
func loadBanner(dir string, frames int) (*Dataset, error) {
	rest, names, firsts, tris, err := readOBJ(filepath.Join(dir, "reference.obj"))
	if err != nil {
		return nil, err
	}
	rows, err := readCSV(filepath.Join(dir, "groups.csv"))
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	d := &Dataset{Rest: rest, FPS: 30}
	for k, r := range rows {
		first, _ := strconv.Atoi(r[1])
		count, _ := strconv.Atoi(r[2])
		if names[k] != r[0] || firsts[k] != first-1 {
			return nil, fmt.Errorf("groups.csv row %d (%s) does not match the OBJ group %s", k, r[0], names[k])
		}
		index[r[0]] = k
		g := Group{Name: r[0], First: first - 1, Count: count, Parent: -1}
		if r[3] != "" {
			g.Parent = index[r[3]]
		}
		for _, t := range tris[k] {
			g.Triangles = append(g.Triangles, [3]int{t[0] - g.First, t[1] - g.First, t[2] - g.First})
		}
		d.Groups = append(d.Groups, g)
	}
	rows, err = readCSV(filepath.Join(dir, "attachments.csv"))
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		k := index[r[0]]
		v, _ := strconv.Atoi(r[1])
		pv, _ := strconv.Atoi(r[2])
		g := &d.Groups[k]
		g.Attach = append(g.Attach, Attachment{Vertex: v - 1 - g.First, ParentVertex: pv - 1 - d.Groups[g.Parent].First})
	}
	for _, level := range []string{"wind-1", "wind-2", "wind-3"} {
		lv := Level{Name: level, Frames: make([][]mgl64.Vec3, frames)}
		errs := make([]error, frames)
		parallel.For(frames, func(f int) {
			lv.Frames[f], _, _, _, errs[f] = readOBJ(filepath.Join(dir, level, fmt.Sprintf("%d.obj", f+1)))
		})
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		d.Levels = append(d.Levels, lv)
	}
	return d, nil
}

var banners sync.Map // frames → *bannerEntry

type bannerEntry struct {
	once  sync.Once
	data  *Dataset
	model *Model
	err   error
}

// banner returns the banner data set (frames frames per level) and its
// model with default options, loaded once per test binary.
func banner(tb testing.TB, frames int) (*Dataset, *Model) {
	tb.Helper()
	dir := shareddata.Path(tb, "ensemble-banner")
	v, _ := banners.LoadOrStore(frames, &bannerEntry{})
	e := v.(*bannerEntry)
	e.once.Do(func() {
		e.data, e.err = loadBanner(dir, frames)
		if e.err == nil {
			e.model, e.err = NewModel(context.Background(), e.data, Options{}, nil)
		}
	})
	if e.err != nil {
		tb.Fatal(e.err)
	}
	return e.data, e.model
}
