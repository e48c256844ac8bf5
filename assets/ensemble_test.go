package assets

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gallop/internal/atomicfile"
	"gallop/internal/shareddata"
)

func TestReadEnsembleGroups(t *testing.T) {
	in := "name,first_vertex,vertex_count,parent\nrope,1,262,\nflag_01,263,63,rope\n"
	gs, err := ReadEnsembleGroups(strings.NewReader(in), "groups.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []EnsembleGroupRow{{Name: "rope", First: 0, Count: 262, Line: 2}, {Name: "flag_01", First: 262, Count: 63, Parent: "rope", Line: 3}}
	if len(gs) != len(want) {
		t.Fatalf("got %d groups, want %d", len(gs), len(want))
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("group %d: got %+v, want %+v", i, gs[i], want[i])
		}
	}
}

func TestReadEnsembleGroupsBad(t *testing.T) {
	const h = "name,first_vertex,vertex_count,parent\n"
	for _, c := range []struct{ in, want string }{
		{"", "g.csv:1: empty file"},
		{"name,first,count,parent\n", `g.csv:1: header is "name,first,count,parent"`},
		{h, "g.csv:1: no groups"},
		{h + "a,0,3,\n", `g.csv:2: first_vertex "0" is not a whole number from 1`},
		{h + "a,1,x,\n", `g.csv:2: vertex_count "x" is not a whole number from 1`},
		{h + "a,1,3\n", "g.csv:2: wrong number of fields"},
		{h + "a,1,3,\na,4,3,\n", `g.csv:3: group "a" is already named on line 2`},
		{h + "a,1,3,\nb,4,3,c\n", `g.csv:3: group "b" names parent "c", which is not a group of the file`},
		{h + "a,1,3,a\n", `g.csv:2: group "a" is its own parent`},
	} {
		_, err := ReadEnsembleGroups(strings.NewReader(c.in), "g.csv")
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: got error %v, want one starting %q", c.in, err, c.want)
		}
	}
}

func TestReadEnsembleAttachments(t *testing.T) {
	as, err := ReadEnsembleAttachments(strings.NewReader("group,vertex,parent_vertex\nflag_01,263,5\n"), "a.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 1 || as[0] != (EnsembleAttachmentRow{Group: "flag_01", Vertex: 262, ParentVertex: 4, Line: 2}) {
		t.Errorf("got %+v", as)
	}
	if _, err := ReadEnsembleAttachments(strings.NewReader("group,vertex,parent_vertex\nf,-1,5\n"), "a.csv"); err == nil || !strings.Contains(err.Error(), `a.csv:2: vertex "-1"`) {
		t.Errorf("negative vertex: got %v", err)
	}
}

// The banner's sidecar files read as its README describes them: 31 groups,
// the flags children of the rope, 7 sewn vertices a flag.
func TestEnsembleBannerSidecars(t *testing.T) {
	dir := shareddata.Path(t, "ensemble-banner")
	gs, err := LoadEnsembleGroups(dir + "/groups.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(gs) != 31 || gs[0].Name != "rope" || gs[0].Count != 262 || gs[30].Parent != "rope" || gs[30].First != 262+29*63 {
		t.Fatalf("groups: %d, first %+v, last %+v", len(gs), gs[0], gs[len(gs)-1])
	}
	as, err := LoadEnsembleAttachments(dir + "/attachments.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(as) != 30*7 {
		t.Errorf("%d attachments, want 210", len(as))
	}
}

// The banner loads as its README describes it: three levels of 210 frames,
// 31 groups (the flags children of the rope, 7 sewn vertices each), the
// rest shape from reference.obj.
func TestLoadEnsembleBanner(t *testing.T) {
	dir := shareddata.Path(t, "ensemble-banner")
	e, err := LoadEnsemble(context.Background(), []string{dir + "/wind-1", dir + "/wind-2", dir + "/wind-3"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Levels) != 3 || e.Levels[1].Name != "wind-2" || e.Levels[2].NumFrames() != 210 {
		t.Fatalf("levels: %d, %q", len(e.Levels), e.Levels[1].Name)
	}
	if len(e.Groups) != 31 || len(e.Rest) != 2152 {
		t.Fatalf("%d groups, %d vertices", len(e.Groups), len(e.Rest))
	}
	rope, flag := e.Groups[0], e.Groups[7]
	if rope.Parent != -1 || len(rope.Triangles) != 260 || flag.Parent != 0 || len(flag.Triangles) != 96 || len(flag.Attach) != 7 {
		t.Errorf("rope %d triangles, parent %d; flag parent %d, %d triangles, %d sewn", len(rope.Triangles), rope.Parent, flag.Parent, len(flag.Triangles), len(flag.Attach))
	}
	for _, a := range flag.Attach {
		if d := e.Rest[flag.First+a[0]].Sub(e.Rest[rope.First+a[1]]).Len(); d != 0 {
			t.Errorf("sewn vertex %v apart by %g in the rest shape", a, d)
		}
	}
}

// writeEnsemble writes a two-level ensemble of two triangles into a
// temporary folder: groups a (vertices 1-3) and b (4-6), each frame's OBJ
// from objs[level], and the sidecar files given (name → content).
func writeEnsemble(t *testing.T, objs [2]string, sidecars map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	var dirs []string
	for l, obj := range objs {
		d := filepath.Join(dir, fmt.Sprintf("level-%d", l+1))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := 1; f <= 3; f++ {
			if err := os.WriteFile(filepath.Join(d, fmt.Sprintf("%d.obj", f)), []byte(obj), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dirs = append(dirs, d)
	}
	for name, content := range sidecars {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

const twoTriangles = "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no b\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n"

func TestLoadEnsemble(t *testing.T) {
	dirs := writeEnsemble(t, [2]string{twoTriangles, twoTriangles}, nil)
	e, err := LoadEnsemble(context.Background(), dirs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Groups) != 2 || e.Groups[1].First != 3 || e.Groups[1].Count != 3 || e.Groups[1].Parent != -1 || e.Groups[1].Triangles[0] != [3]int{0, 1, 2} {
		t.Errorf("groups from the OBJ: %+v", e.Groups)
	}
	dirs = writeEnsemble(t, [2]string{twoTriangles, twoTriangles}, map[string]string{
		"groups.csv":      "name,first_vertex,vertex_count,parent\na,1,3,\nb,4,3,a\n",
		"attachments.csv": "group,vertex,parent_vertex\nb,4,1\n",
	})
	if e, err = LoadEnsemble(context.Background(), dirs, "", nil); err != nil {
		t.Fatal(err)
	}
	if e.Groups[1].Parent != 0 || len(e.Groups[1].Attach) != 1 || e.Groups[1].Attach[0] != [2]int{0, 0} {
		t.Errorf("groups from groups.csv: %+v", e.Groups)
	}
}

func TestLoadEnsembleBad(t *testing.T) {
	const h = "name,first_vertex,vertex_count,parent\n"
	swapped := "o b\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no a\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n"
	shared := "o a\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\no b\nf 2 4 3\n"
	for _, c := range []struct {
		name     string
		objs     [2]string
		sidecars map[string]string
		want     string
	}{
		{"levels differ", [2]string{twoTriangles, swapped}, nil, `level-2/1.obj differs from level `},
		{"overlap", [2]string{twoTriangles, twoTriangles}, map[string]string{"groups.csv": h + "a,1,4,\nb,4,3,\n"}, `groups.csv:3: group "b" overlaps group "a" (line 2) at vertex 4`},
		{"missing parent", [2]string{twoTriangles, twoTriangles}, map[string]string{"groups.csv": h + "a,1,3,\nb,4,3,rope\n"}, `groups.csv:3: group "b" names parent "rope", which is not a group of the file`},
		{"past the end", [2]string{twoTriangles, twoTriangles}, map[string]string{"groups.csv": h + "a,1,3,\nb,4,4,\n"}, `groups.csv:3: group "b" ends at vertex 7; the mesh has 6`},
		{"shared vertices", [2]string{shared, shared}, nil, `groups "a" and "b" share the vertices around vertex 2`},
		{"sewn outside", [2]string{twoTriangles, twoTriangles}, map[string]string{"groups.csv": h + "a,1,3,\nb,4,3,a\n", "attachments.csv": "group,vertex,parent_vertex\nb,2,1\n"}, `attachments.csv:2: vertex 2 is not in group "b" (vertices 4-6)`},
		{"sewn root", [2]string{twoTriangles, twoTriangles}, map[string]string{"groups.csv": h + "a,1,3,\nb,4,3,\n", "attachments.csv": "group,vertex,parent_vertex\nb,4,1\n"}, `attachments.csv:2: group "b" has no parent to be sewn to`},
	} {
		dirs := writeEnsemble(t, c.objs, c.sidecars)
		_, err := LoadEnsemble(context.Background(), dirs, "", nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// A frame written by WriteEnsembleOBJ loads back with the same groups and
// positions.
func TestWriteEnsembleOBJRoundTrip(t *testing.T) {
	dirs := writeEnsemble(t, [2]string{twoTriangles, twoTriangles}, nil)
	e, err := LoadEnsemble(context.Background(), dirs, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	moved := slices.Clone(e.Rest)
	moved[4] = Vec3{0.25, 0.5, 1.125}
	for f := 1; f <= 2; f++ {
		if err := atomicfile.Write(filepath.Join(out, fmt.Sprintf("%d.obj", f)), func(w io.Writer) error { return WriteEnsembleOBJ(w, e.Groups, moved) }); err != nil {
			t.Fatal(err)
		}
	}
	back, err := LoadEnsemble(context.Background(), []string{out}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Groups) != 2 || back.Groups[1].Name != "b" || back.Groups[1].First != 3 || !slices.Equal(back.Levels[0].Frames[1], moved) {
		t.Errorf("read back %+v, frame %v", back.Groups, back.Levels[0].Frames[1])
	}
}
