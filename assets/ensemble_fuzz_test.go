package assets

import (
	"bytes"
	"errors"
	"testing"

	"gallop/internal/fuzzbound"
)

// FuzzReadEnsembleGroups checks that ReadEnsembleGroups never panics, that
// its errors are *ParseErrors naming the file and a line, that the groups
// it accepts keep its rules, and that it allocates in proportion to its
// input.
func FuzzReadEnsembleGroups(f *testing.F) {
	for _, seed := range []string{
		"name,first_vertex,vertex_count,parent\nrope,1,40,\nflag1,41,100,rope\n",
		"name,first_vertex,vertex_count,parent\nx,9223372036854775800,100,\n",
		"name,first_vertex,vertex_count,parent\na,1,1,a\n",
		"name,first_vertex,vertex_count,parent\na,1,1,\na,2,1,\n",
		"name,first_vertex,vertex_count\n",
		"",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var groups []EnsembleGroupRow
		var err error
		fuzzbound.Check(t, len(data), 64, func() { groups, err = ReadEnsembleGroups(bytes.NewReader(data), "groups.csv") })
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "groups.csv" || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError naming groups.csv and a line", err)
			}
			return
		}
		names := map[string]bool{}
		for _, g := range groups {
			if g.Name == "" || g.First < 0 || g.Count < 1 || names[g.Name] {
				t.Fatalf("accepted %+v", g)
			}
			names[g.Name] = true
		}
		for _, g := range groups {
			if g.Parent != "" && (g.Parent == g.Name || !names[g.Parent]) {
				t.Fatalf("accepted parent %q of %q", g.Parent, g.Name)
			}
		}
	})
}

// FuzzReadEnsembleAttachments checks that ReadEnsembleAttachments never
// panics, names the file and line of an error, gives 0-based vertices and
// allocates in proportion to its input.
func FuzzReadEnsembleAttachments(f *testing.F) {
	for _, seed := range []string{
		"group,vertex,parent_vertex\nflag1,41,3\nflag1,42,4\n",
		"group,vertex,parent_vertex\nflag1,0,3\n",
		"group,vertex,parent_vertex\nflag1,99999999999999999999,3\n",
		"group,vertex\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var rows []EnsembleAttachmentRow
		var err error
		fuzzbound.Check(t, len(data), 64, func() { rows, err = ReadEnsembleAttachments(bytes.NewReader(data), "attachments.csv") })
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "attachments.csv" || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError naming attachments.csv and a line", err)
			}
			return
		}
		for _, a := range rows {
			if a.Vertex < 0 || a.ParentVertex < 0 {
				t.Fatalf("accepted %+v", a)
			}
		}
	})
}
