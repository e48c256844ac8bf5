package ensemble

import (
	"bytes"
	"context"
	"encoding/gob"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/gobbytes"
	"gallop/solver/ensemble"
)

// smallModel is the model of a small ensemble with no files: a strip (a
// root of 2 × 8 vertices) with a flag of 2 × 3 vertices sewn to its edge,
// waving over two levels of 70 frames (τ_max 6).
func smallModel(tb testing.TB) *ensemble.Model {
	tb.Helper()
	m, err := ensemble.NewModel(context.Background(), smallDataset(), ensemble.Options{TauMax: 6}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// smallDataset is smallModel's dataset.
func smallDataset() *ensemble.Dataset {
	d := &ensemble.Dataset{FPS: 30}
	// strip returns the triangles of two rows of cols vertices, numbered
	// row by row.
	strip := func(cols int) (t [][3]int) {
		for c := range cols - 1 {
			t = append(t, [3]int{c, c + 1, c + cols}, [3]int{c + 1, c + cols + 1, c + cols})
		}
		return t
	}
	for r := range 2 {
		for c := range 8 {
			d.Rest = append(d.Rest, mgl64.Vec3{0.1 * float64(c), 1, -0.05 * float64(r)})
		}
	}
	d.Groups = append(d.Groups, ensemble.Group{Name: "strip", First: 0, Count: 16, Parent: -1, Triangles: strip(8)})
	for r := range 2 {
		for c := range 3 {
			d.Rest = append(d.Rest, mgl64.Vec3{0.1 * float64(2+c), 1 - 0.08*float64(r), 0})
		}
	}
	flag := ensemble.Group{Name: "flag", First: 16, Count: 6, Parent: 0, Triangles: strip(3)}
	for c := range 3 {
		flag.Attach = append(flag.Attach, ensemble.Attachment{Vertex: c, ParentVertex: 2 + c})
	}
	d.Groups = append(d.Groups, flag)
	for l := range 2 {
		lv := ensemble.Level{Name: []string{"calm", "strong"}[l]}
		amp := 0.5 + 0.5*float64(l)
		for f := range 70 {
			t := float64(f) / d.FPS
			x := make([]mgl64.Vec3, len(d.Rest))
			wave := func(p mgl64.Vec3) mgl64.Vec3 {
				return p.Add(mgl64.Vec3{0.01 * amp * math.Sin(3*p[0]+4*t), 0.05 * amp * math.Sin(5*p[0]+4*t), 0.02 * amp * math.Cos(2*p[0]+5*t)})
			}
			for v := range 16 {
				x[v] = wave(d.Rest[v])
			}
			for v := range 6 {
				p := d.Rest[16+v]
				depth := 1 - p[1]
				x[16+v] = wave(mgl64.Vec3{p[0], 1, 0}).Add(mgl64.Vec3{0, -depth, 0.3 * depth * amp * math.Sin(4*t+3*p[0])})
			}
			lv.Frames = append(lv.Frames, x)
		}
		d.Levels = append(d.Levels, lv)
	}
	return d
}

// TestModelFileWind: a clip's wind series travels in the model file, and
// a wind level out of range in it is an error.
func TestModelFileWind(t *testing.T) {
	d := smallDataset()
	d.Levels[1].Wind = make([]float64, len(d.Levels[1].Frames))
	for f := range d.Levels[1].Wind {
		d.Levels[1].Wind[f] = min(3, 2+float64(f)/40)
	}
	m, err := ensemble.NewModel(context.Background(), d, ensemble.Options{TauMax: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := EncodeModel(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeModel(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.WindLevels(), []float64{1, 2, 3}) {
		t.Fatalf("wind levels %v", back.WindLevels())
	}
	for l, lv := range d.Levels {
		for f := range lv.Frames {
			s := ensemble.State{Level: l, Frame: f}
			if back.LevelOf(s) != m.LevelOf(s) {
				t.Fatalf("%v: level %d, was %d", s, back.LevelOf(s), m.LevelOf(s))
			}
		}
	}
	if err := decodeAltered(t, enc, func(f *ensemble.ModelParts) { f.Wind[1][3] = 0 }); err == nil || !strings.Contains(err.Error(), "wind level 0") {
		t.Errorf("a wind level of 0: %v", err)
	}
}

// TestModelFile: a model decoded from its model file, also through a
// shard file's payload (modelGob), encodes to the same bytes and poses
// every source frame bit for bit as the original; a truncated or altered
// file is an error, not a panic. (solver/ensemble's TestModelParts checks
// that a model made of the parts the file keeps computes everything the
// same.)
func TestModelFile(t *testing.T) {
	m := smallModel(t)
	enc, err := EncodeModel(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeModel(enc)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&buildPrepared{Model: modelGob{m}}); err != nil {
		t.Fatal(err)
	}
	var prep buildPrepared
	if err := gobbytes.Decode(b.Bytes(), &prep); err != nil {
		t.Fatal(err)
	}
	for _, x := range []*ensemble.Model{back, prep.Model.Model} {
		again, err := EncodeModel(x)
		if err != nil || !bytes.Equal(again, enc) {
			t.Fatalf("the decoded model encodes differently (%v)", err)
		}
		for l, lv := range m.Dataset().Levels {
			for f := range lv.Frames {
				s := ensemble.State{Level: l, Frame: f}
				if !slices.Equal(m.Pose(s), x.Pose(s)) {
					t.Fatalf("state %v poses differently", s)
				}
			}
		}
	}
	for _, n := range []int{0, 10, len(enc) / 2, len(enc) - 1} {
		if _, err := DecodeModel(enc[:n]); err == nil {
			t.Errorf("%d of %d bytes decoded", n, len(enc))
		}
	}
	for _, c := range []struct {
		name  string
		alter func(f *ensemble.ModelParts)
		want  string
	}{
		{"frames", func(f *ensemble.ModelParts) { f.Frames[0] = 1 << 24 }, "level 0 has 16777216 frames"},
		{"rest", func(f *ensemble.ModelParts) { f.Rest = f.Rest[1:] }, "lie outside the ensemble's"},
		{"basis", func(f *ensemble.ModelParts) { f.Models[1].Basis = f.Models[1].Basis[1:] }, "group 1: parts of different sizes"},
	} {
		if err := decodeAltered(t, enc, c.alter); err == nil || !strings.HasPrefix(err.Error(), "ensemble model: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}

// decodeAltered decodes the model file enc with alter applied to its
// fields, returning DecodeModel's error.
func decodeAltered(t *testing.T, enc []byte, alter func(f *ensemble.ModelParts)) error {
	t.Helper()
	var f ensemble.ModelParts
	if err := gobbytes.Decode(enc, &f); err != nil {
		t.Fatal(err)
	}
	alter(&f)
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(&f); err != nil {
		t.Fatal(err)
	}
	_, err := DecodeModel(b.Bytes())
	return err
}

// TestChangeWithin checks the seconds of BuildSettings.ChangeWithin as
// the solver's reach in frames, half of it on either side of a
// transition's centre: the default the solver's own, longer and shorter
// changes a wider and a narrower reach.
func TestChangeWithin(t *testing.T) {
	for _, tc := range []struct {
		within, fps float64
		reach       int
	}{{0, 30, 0}, {DefaultChangeWithin, 30, 20}, {2.7, 30, 41}, {0.5, 30, 8}, {0.1, 24, 1}, {DefaultChangeWithin, 60, 40}} {
		if got := (BuildSettings{ChangeWithin: tc.within}).Options(tc.fps).Reach; got != tc.reach {
			t.Errorf("%g s at %g fps: reach %d frames, want %d", tc.within, tc.fps, got, tc.reach)
		}
	}
	s := DefaultSettings()
	s.ChangeWithin = 0
	if err := s.Check(); err == nil || !strings.Contains(err.Error(), "wind changes within 0 s") {
		t.Errorf("no change within: %v", err)
	}
}

// TestFarmCommandCarriesSettings checks that the farm's command line
// carries every build setting of the panel, the search effort 0 (none)
// and the change of wind's seconds included: a farm build is the
// window's build.
func TestFarmCommandCarriesSettings(t *testing.T) {
	d := &Data{Levels: []string{"/data/reeds/wind-1"}}
	s := DefaultSettings()
	s.Effort, s.Budget, s.ChangeWithin = 0, 30, 2
	cmd, err := buildCommand(d, s.build(), s.TauMax)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Join(cmd, " ")
	for _, want := range []string{"--effort 0 ", "--budget 30 ", "--change-within 2 ", "--tries 4 ", "--tau-max 30 "} {
		if !strings.Contains(line+" ", want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
	s = DefaultSettings()
	cmd, _ = buildCommand(d, s.build(), s.TauMax)
	if line := strings.Join(cmd, " "); !strings.Contains(line, "--effort 4 ") || !strings.Contains(line, "--change-within 1.333") {
		t.Errorf("defaults: %q", line)
	}
}
