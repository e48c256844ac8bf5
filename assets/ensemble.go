package assets

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// EnsembleGroupRow is one row of an ensemble's groups file (groups.csv): a
// mesh group of First … First+Count−1 (0-based vertex indices; the file
// holds 1-based OBJ indices) whose parent is the group named Parent, or a
// root when Parent is empty. Line is the row's line in the file, for
// messages.
type EnsembleGroupRow struct {
	Name         string
	First, Count int
	Parent       string
	Line         int
}

// EnsembleAttachmentRow is one row of an ensemble's attachments file
// (attachments.csv): vertex Vertex of group Group is sewn to vertex
// ParentVertex of that group's parent (0-based vertex indices of the whole
// ensemble; the file holds 1-based OBJ indices). Line is the row's line.
type EnsembleAttachmentRow struct {
	Group                string
	Vertex, ParentVertex int
	Line                 int
}

// The header rows the two files must start with.
var (
	ensembleGroupsHeader      = []string{"name", "first_vertex", "vertex_count", "parent"}
	ensembleAttachmentsHeader = []string{"group", "vertex", "parent_vertex"}
)

// LoadEnsembleGroups reads the groups file at path; see ReadEnsembleGroups.
func LoadEnsembleGroups(path string) ([]EnsembleGroupRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadEnsembleGroups(f, path)
}

// ReadEnsembleGroups reads a groups file named name: a header row
// name,first_vertex,vertex_count,parent, then one row per group in the
// order of the mesh's files. It checks each row on its own and the names
// against each other: a name is given once, a vertex index is a whole
// number from 1 and a count from 1, and a parent names a group of the
// file (not itself). Overlapping ranges and cycles are for the model to
// find (gallop/solver/ensemble's Dataset.Validate names their groups).
// Errors are *ParseError values naming the line.
func ReadEnsembleGroups(r io.Reader, name string) ([]EnsembleGroupRow, error) {
	var groups []EnsembleGroupRow
	err := readCSV(r, name, ensembleGroupsHeader, func(line int, row []string) error {
		g := EnsembleGroupRow{Name: row[0], Parent: row[3], Line: line}
		if g.Name == "" {
			return errors.New("empty group name")
		}
		var err error
		if g.First, err = positiveInt(row[1], "first_vertex"); err != nil {
			return err
		}
		g.First--
		if g.Count, err = positiveInt(row[2], "vertex_count"); err != nil {
			return err
		}
		groups = append(groups, g)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(groups) == 0 {
		return nil, &ParseError{File: name, Line: 1, Msg: "no groups"}
	}
	line := map[string]int{}
	for _, g := range groups {
		if l, ok := line[g.Name]; ok {
			return nil, &ParseError{File: name, Line: g.Line, Msg: fmt.Sprintf("group %q is already named on line %d", g.Name, l)}
		}
		line[g.Name] = g.Line
	}
	for _, g := range groups {
		if g.Parent == "" {
			continue
		}
		if g.Parent == g.Name {
			return nil, &ParseError{File: name, Line: g.Line, Msg: fmt.Sprintf("group %q is its own parent", g.Name)}
		}
		if _, ok := line[g.Parent]; !ok {
			return nil, &ParseError{File: name, Line: g.Line, Msg: fmt.Sprintf("group %q names parent %q, which is not a group of the file", g.Name, g.Parent)}
		}
	}
	return groups, nil
}

// LoadEnsembleAttachments reads the attachments file at path; see
// ReadEnsembleAttachments.
func LoadEnsembleAttachments(path string) ([]EnsembleAttachmentRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadEnsembleAttachments(f, path)
}

// ReadEnsembleAttachments reads an attachments file named name: a header
// row group,vertex,parent_vertex, then one row per sewn vertex. Whether
// the group exists and the vertices lie in it and in its parent is for the
// caller, who knows the groups. Errors are *ParseError values naming the
// line.
func ReadEnsembleAttachments(r io.Reader, name string) ([]EnsembleAttachmentRow, error) {
	var out []EnsembleAttachmentRow
	err := readCSV(r, name, ensembleAttachmentsHeader, func(line int, row []string) error {
		a := EnsembleAttachmentRow{Group: row[0], Line: line}
		var err error
		if a.Vertex, err = positiveInt(row[1], "vertex"); err != nil {
			return err
		}
		if a.ParentVertex, err = positiveInt(row[2], "parent_vertex"); err != nil {
			return err
		}
		a.Vertex--
		a.ParentVertex--
		out = append(out, a)
		return nil
	})
	return out, err
}

// readCSV reads a comma-separated file whose first row must be header and
// every other row have as many fields, calling row for each with its line.
// An error from row becomes a *ParseError on that line.
func readCSV(r io.Reader, name string, header []string, row func(line int, fields []string) error) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = len(header)
	cr.TrimLeadingSpace = true
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if first {
				return &ParseError{File: name, Line: 1, Msg: "empty file; want the header " + strings.Join(header, ",")}
			}
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return &ParseError{File: name, Line: max(pe.Line, 1), Msg: pe.Err.Error()}
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0) // after the error: FieldPos panics on a record not read
		if first {
			first = false
			for i, h := range header {
				if strings.TrimSpace(strings.TrimPrefix(rec[i], "\ufeff")) != h {
					return &ParseError{File: name, Line: line, Msg: fmt.Sprintf("header is %q; want %q", strings.Join(rec, ","), strings.Join(header, ","))}
				}
			}
			continue
		}
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if err := row(line, rec); err != nil {
			return &ParseError{File: name, Line: line, Msg: err.Error()}
		}
	}
}

// positiveInt parses a whole number of at least 1 in field what.
func positiveInt(s, what string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %q is not a whole number from 1", what, s)
	}
	return n, nil
}
