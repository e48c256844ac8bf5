package assets

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestReadEnsembleWind(t *testing.T) {
	w, err := ReadEnsembleWind(strings.NewReader("frame,level\n2,1.5\n1,1\n3,2\n"), "wind.csv", 3)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w, []float64{1, 1.5, 2}) {
		t.Fatalf("levels %v", w)
	}
}

func TestReadEnsembleWindBad(t *testing.T) {
	const h = "frame,level\n"
	for _, c := range []struct{ in, want string }{
		{"", "wind.csv:1: empty file; want the header frame,level"},
		{"frame,wind\n1,1\n", `wind.csv:1: header is "frame,wind"; want "frame,level"`},
		{h + "1,1\n2,x\n3,1\n", `wind.csv:3: level "x" is not a number`},
		{h + "1,1\n2,NaN\n3,1\n", `wind.csv:3: level "NaN" is not a number`},
		{h + "1,1\n2,0.5\n3,1\n", "wind.csv:3: level 0.5 is out of range: levels go from 1 (calm) to 1000"},
		{h + "1,1\n2,1\n2,1\n", "wind.csv:4: frame 2 is already given on line 3"},
		{h + "1,1\n2,1\n4,1\n", "wind.csv:4: frame 4: the clip has 3 frames"},
		{h + "1,1\n3,1\n", "wind.csv:3: no level for frame 2 (the clip has 3 frames; give every frame a row)"},
		{h + "0,1\n", `wind.csv:2: frame "0" is not a whole number from 1`},
		{h + "1,1,1\n", "wind.csv:2: wrong number of fields"},
	} {
		_, err := ReadEnsembleWind(strings.NewReader(c.in), "wind.csv", 3)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got error %v, want %q", c.in, err, c.want)
		}
	}
}

// TestLoadEnsembleWind: a folder's wind.csv gives its clip's levels; a
// folder without one is at the number its name ends with; an error in
// wind.csv names the file and line.
func TestLoadEnsembleWind(t *testing.T) {
	dirs := writeEnsemble(t, [2]string{twoTriangles, twoTriangles}, nil)
	ramp := filepath.Join(filepath.Dir(dirs[0]), "ramp")
	if err := os.Rename(dirs[0], ramp); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ramp, EnsembleWindFile), []byte("frame,level\n1,1\n2,2.5\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e, err := LoadEnsemble(context.Background(), []string{dirs[1], ramp}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Wind) != 2 || !slices.Equal(e.Wind[0], []float64{2, 2, 2}) || !slices.Equal(e.Wind[1], []float64{1, 2.5, 4}) {
		t.Fatalf("wind %v: want level-2 at 2 and the ramp's series", e.Wind)
	}
	if err := os.WriteFile(filepath.Join(ramp, EnsembleWindFile), []byte("frame,level\n1,1\n2,two\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadEnsemble(context.Background(), []string{dirs[1], ramp}, "", nil)
	if want := filepath.Join(ramp, EnsembleWindFile) + `:3: level "two" is not a number`; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}
