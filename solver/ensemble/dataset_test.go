package ensemble

import (
	"context"
	"math"
	"strings"
	"testing"
)

// TestValidate breaks a valid synthetic ensemble one way at a time and
// checks that the error names what is wrong and where.
func TestValidate(t *testing.T) {
	if err := synthetic(2, motion{}).Validate(); err != nil {
		t.Fatalf("valid ensemble: %v", err)
	}
	cases := []struct {
		name  string
		spoil func(d *Dataset)
		want  []string
	}{
		{"no groups", func(d *Dataset) { d.Groups = nil }, []string{"no groups"}},
		{"fps", func(d *Dataset) { d.FPS = 0 }, []string{"frame rate"}},
		{"overlap", func(d *Dataset) { d.Groups[2].First -= 2; d.Groups[2].Count += 2 },
			[]string{`groups "flag_a" and "flag_b" overlap at vertex 36`}},
		{"out of range", func(d *Dataset) { d.Groups[4].Count += 3 },
			[]string{`group "post"`, "outside the ensemble"}},
		{"uncovered", func(d *Dataset) { d.Groups[4].Count--; d.Groups[4].Triangles = d.Groups[4].Triangles[:2] },
			[]string{"vertex 63 belongs to no group"}},
		{"duplicate name", func(d *Dataset) { d.Groups[2].Name = "flag_a" }, []string{`groups 1 and 2 are both named "flag_a"`}},
		{"parent", func(d *Dataset) { d.Groups[3].Parent = 9 }, []string{`group "plate" has parent 9`}},
		{"cycle", func(d *Dataset) { d.Groups[0].Parent = 3 },
			[]string{"cycle", `"rope"`, `"plate"`}},
		{"self parent", func(d *Dataset) { d.Groups[4].Parent = 4 }, []string{"cycle", `"post" → parent "post"`}},
		{"triangle", func(d *Dataset) { d.Groups[1].Triangles[5][1] = 12 },
			[]string{`group "flag_a" triangle 5 has vertex 12`}},
		{"attachment vertex", func(d *Dataset) { d.Groups[2].Attach[1].Vertex = 40 },
			[]string{`group "flag_b" attachment 1: vertex 40`}},
		{"attachment parent vertex", func(d *Dataset) { d.Groups[2].Attach[2].ParentVertex = 26 },
			[]string{`group "flag_b" attachment 2: parent vertex 26`, `parent "rope"`}},
		{"attachment without parent", func(d *Dataset) { d.Groups[4].Attach = []Attachment{{0, 0}} },
			[]string{`group "post" has attachments but no parent`}},
		{"sewn twice", func(d *Dataset) { d.Groups[1].Attach[1].Vertex = 0 }, []string{`group "flag_a" vertex 0 is sewn twice`}},
		{"collinear patch", func(d *Dataset) {
			// A rope of one row: the patch is a line.
			for v := range ropeCols {
				d.Rest[ropeCols+v] = d.Rest[v].Add(d.Rest[v].Sub(d.Rest[0]).Mul(0.5))
			}
		}, []string{`group "flag_a"`, "collinear"}},
		{"no levels", func(d *Dataset) { d.Levels = nil }, []string{"no levels"}},
		{"vertex count", func(d *Dataset) { d.Levels[1].Frames[7] = d.Levels[1].Frames[7][:40] },
			[]string{`level 2 (strong) frame 8 has 40 vertices`}},
		{"non-finite", func(d *Dataset) { d.Levels[0].Frames[12][30][1] = math.NaN() },
			[]string{`level 1 (calm) frame 13 vertex 31 (group "flag_a" vertex 5)`, "non-finite"}},
		{"non-finite rest", func(d *Dataset) { d.Rest[3][2] = math.Inf(1) }, []string{"rest shape: vertex 4 (group \"rope\" vertex 4)", "non-finite"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := synthetic(2, motion{})
			c.spoil(d)
			err := d.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if _, err := NewModel(context.Background(), d, Options{}, nil); err == nil {
				t.Error("NewModel accepted it")
			}
		})
	}
}

// TestValidateOptions: the frames a level needs follow τ_max and the
// longest blend (2τ_blend by default), and the blend lengths are 1 or 2.
func TestValidateOptions(t *testing.T) {
	// Levels of 60 frames: a valid dataset, too short for the default
	// τ_max (102 frames), long enough for τ_max 6 (54).
	short := synthetic(2, motion{})
	for l := range short.Levels {
		short.Levels[l].Frames = short.Levels[l].Frames[:60]
	}
	if err := short.Validate(); err != nil {
		t.Errorf("levels of 60 frames: %v", err)
	}
	if _, err := NewModel(context.Background(), short, Options{}, nil); err == nil || !strings.Contains(err.Error(), "has 60 frames") || !strings.Contains(err.Error(), "at least 102") {
		t.Errorf("levels of 60 frames, default τ_max: %v", err)
	}
	if _, err := NewModel(context.Background(), short, Options{TauMax: 6}, nil); err != nil {
		t.Errorf("levels of 60 frames, τ_max 6: %v", err)
	}

	d := synthetic(1, motion{})
	if _, err := NewModel(context.Background(), d, Options{TauMax: 40}, nil); err == nil || !strings.Contains(err.Error(), "at least 122") {
		t.Errorf("τ_max 40 on %d frames: %v", synthLevel, err)
	}
	if _, err := NewModel(context.Background(), d, Options{TauMax: 40, Blends: 1}, nil); err != nil {
		t.Errorf("τ_max 40, one blend length: %v", err)
	}
	if _, err := NewModel(context.Background(), d, Options{TauMax: 20, TauBlend: 4}, nil); err != nil {
		t.Errorf("τ_max 20, τ_blend 4: %v", err)
	}
	for _, n := range []int{3, -1} {
		if _, err := NewModel(context.Background(), d, Options{Blends: n}, nil); err == nil {
			t.Errorf("%d blend lengths accepted", n)
		}
	}
	if _, err := NewModel(context.Background(), d, Options{TauBlend: 64}, nil); err == nil {
		t.Errorf("a longest blend of 128 frames accepted")
	}
}
