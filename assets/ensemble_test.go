package assets

import (
	"strings"
	"testing"

	"gallop/internal/shareddata"
)

func TestReadEnsembleGroups(t *testing.T) {
	in := "name,first_vertex,vertex_count,parent\nrope,1,262,\nflag_01,263,63,rope\n"
	gs, err := ReadEnsembleGroups(strings.NewReader(in), "groups.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []EnsembleGroup{{Name: "rope", First: 0, Count: 262, Line: 2}, {Name: "flag_01", First: 262, Count: 63, Parent: "rope", Line: 3}}
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
	if len(as) != 1 || as[0] != (EnsembleAttachment{Group: "flag_01", Vertex: 262, ParentVertex: 4, Line: 2}) {
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
