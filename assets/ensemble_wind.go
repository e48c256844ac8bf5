package assets

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"gallop/internal/finite"
)

// EnsembleWindFile is the name of a clip's wind series, in its folder of
// frames: the clip's wind changes over time (see ReadEnsembleWind).
const EnsembleWindFile = "wind.csv"

// MaxWindLevel is the highest wind level a clip may give.
const MaxWindLevel = 1000

var ensembleWindHeader = []string{"frame", "level"}

// ReadEnsembleWind reads a wind series named name for a clip of frames
// frames: a header row frame,level, then one row per frame, frames
// numbered from 1 (in any order, each once, every frame of the clip), the
// level a number from 1 to MaxWindLevel, whole where the wind holds at a
// level and fractional while it changes. It returns the level of each
// frame. Errors are *ParseError values naming the line (a missing frame
// names the file's last line).
func ReadEnsembleWind(r io.Reader, name string, frames int) ([]float64, error) {
	wind := make([]float64, frames)
	seen := make([]int, frames) // the line giving each frame, 0 for none
	last := 1
	err := readCSV(r, name, ensembleWindHeader, func(line int, row []string) error {
		last = line
		f, err := positiveInt(row[0], "frame")
		if err != nil {
			return err
		}
		if f > frames {
			return fmt.Errorf("frame %d: the clip has %d frames", f, frames)
		}
		if seen[f-1] != 0 {
			return fmt.Errorf("frame %d is already given on line %d", f, seen[f-1])
		}
		w, err := strconv.ParseFloat(row[1], 64)
		if err != nil || !finite.Float(w) {
			return fmt.Errorf("level %q is not a number", row[1])
		}
		if w < 1 || w > MaxWindLevel {
			return fmt.Errorf("level %v is out of range: levels go from 1 (calm) to %d", w, MaxWindLevel)
		}
		seen[f-1], wind[f-1] = line, w
		return nil
	})
	if err != nil {
		return nil, err
	}
	for f, l := range seen {
		if l == 0 {
			return nil, &ParseError{File: name, Line: last, Msg: fmt.Sprintf("no level for frame %d (the clip has %d frames; give every frame a row)", f+1, frames)}
		}
	}
	return wind, nil
}

// loadEnsembleWind returns the wind level of each of the frames of the
// clip in folder dir, the clip being the position-th (from 1) of an
// ensemble: from dir's wind.csv when there is one, else every frame at
// the number that ends the folder's name (wind-3: 3), or at position when
// the name ends in none.
func loadEnsembleWind(dir string, frames, position int) ([]float64, error) {
	p := filepath.Join(dir, EnsembleWindFile)
	f, err := os.Open(p)
	switch {
	case err == nil:
		defer f.Close()
		return ReadEnsembleWind(f, p, frames)
	case !os.IsNotExist(err):
		return nil, err
	}
	level := position
	if m := trailingNumber.FindStringSubmatch(filepath.Base(filepath.Clean(dir))); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n >= 1 && n <= MaxWindLevel {
			level = n
		}
	}
	wind := make([]float64, frames)
	for i := range wind {
		wind[i] = float64(level)
	}
	return wind, nil
}

var trailingNumber = regexp.MustCompile(`(\d+)$`)
