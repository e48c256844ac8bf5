package assets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"gallop/internal/finite"
)

// Sidecar file names of an ensemble, looked for beside its level folders.
const (
	EnsembleGroupsFile      = "groups.csv"
	EnsembleAttachmentsFile = "attachments.csv"
	EnsembleReferenceFile   = "reference.obj"
)

// Ensemble is a mesh ensemble (a banner of flags, a field of grass) as
// files give it: G non-overlapping groups of one mesh, a rest shape, and
// one clip per level (wind level), every frame holding every group.
//
// Invariants (LoadEnsemble): the groups' vertex ranges cover every vertex
// once, each triangle lies in one group, every level has Rest's vertex
// count, and a sewn vertex lies in its group and its parent vertex in the
// parent's.
type Ensemble struct {
	Groups []EnsembleGroup
	Rest   []Vec3  // rest shape, #V
	Levels []*Clip // the clips, in the order given
	// Wind is per clip the wind level of each frame: its folder's
	// wind.csv (a take whose wind changes), or one level throughout
	// (see LoadEnsemble).
	Wind [][]float64
}

// Mesh returns the whole ensemble as one mesh: the rest shape and every
// group's triangles with the ensemble's vertex indices, in group order.
func (e *Ensemble) Mesh() *Mesh {
	m := &Mesh{Name: "ensemble", Positions: e.Rest}
	for _, g := range e.Groups {
		for _, t := range g.Triangles {
			m.Triangles = append(m.Triangles, [3]int{g.First + t[0], g.First + t[1], g.First + t[2]})
		}
	}
	return m
}

// EnsembleGroup is one group of an Ensemble: vertices First …
// First+Count−1 of the mesh, its parent group (an index, −1 for a root),
// its triangles with group-local indices (0 … Count−1), and its sewn
// vertices: Attach[i] = {group-local vertex, parent-local vertex}, which
// coincide in every frame of the data.
type EnsembleGroup struct {
	Name         string
	First, Count int
	Parent       int
	Triangles    [][3]int
	Attach       [][2]int
}

// LoadEnsemble reads an ensemble: dirs are the clips' folders (one OBJ
// sequence each, see LoadOBJSequence), every frame the same mesh. A
// folder with a wind.csv is a take whose wind changes (ReadEnsembleWind);
// one without is a clip at one wind level: the number that ends its name
// (wind-3 is at level 3), or its position among dirs (from 1) when the
// name ends in none.
//
// The hierarchy comes from groupsPath (a groups.csv, see
// ReadEnsembleGroups) or, when groupsPath is empty, from groups.csv in
// the folder holding the first level or in the first level itself; with
// none, every OBJ group (o or g) of the first frame is a root group, its
// vertices those of its faces, which must be one run. The sewn vertices
// (attachments.csv, see ReadEnsembleAttachments) and the rest shape
// (reference.obj, the same mesh) are read from beside the groups file when
// there; without a reference the rest shape is the first level's first
// frame.
//
// Every level must have the first level's vertices, triangles and groups;
// errors name the folder or file and what differs. progress, if set, is
// called as frames load with the frames done and the total.
func LoadEnsemble(ctx context.Context, dirs []string, groupsPath string, progress func(done, total int)) (*Ensemble, error) {
	if len(dirs) == 0 {
		return nil, errors.New("ensemble: no level folders")
	}
	lists := make([][]string, len(dirs))
	total := 0
	for l, dir := range dirs {
		files, err := ListOBJSequence(dir)
		if err != nil {
			return nil, fmt.Errorf("level %s: %w", dir, err)
		}
		lists[l] = files
		total += len(files)
	}
	e := &Ensemble{}
	var first *Mesh
	done := 0
	for l, dir := range dirs {
		prog := func(n, _ int) {
			if progress != nil {
				progress(done+n, total)
			}
		}
		mesh, clip, err := LoadOBJSequence(ctx, lists[l], prog)
		if err != nil {
			return nil, fmt.Errorf("level %s: %w", dir, err)
		}
		done += len(lists[l])
		if first == nil {
			first = mesh
		} else if err := sameEnsembleFrame(first, mesh); err != nil {
			return nil, fmt.Errorf("%s differs from level %s: %w", lists[l][0], dirs[0], err)
		}
		clip.Name = filepath.Base(filepath.Clean(dir))
		wind, err := loadEnsembleWind(dir, len(clip.Frames), l+1)
		if err != nil {
			return nil, fmt.Errorf("level %s: %w", dir, err)
		}
		e.Levels = append(e.Levels, clip)
		e.Wind = append(e.Wind, wind)
	}

	if groupsPath == "" {
		groupsPath = ensembleSidecar(dirs[0], EnsembleGroupsFile)
	}
	var err error
	if groupsPath != "" {
		e.Groups, err = ensembleGroupsFromFile(first, groupsPath)
	} else {
		e.Groups, err = ensembleGroupsFromOBJ(first, lists[0][0])
	}
	if err != nil {
		return nil, err
	}
	e.Rest = first.Positions
	if groupsPath == "" {
		return e, nil
	}
	side := filepath.Dir(groupsPath)
	if p := filepath.Join(side, EnsembleAttachmentsFile); fileExists(p) {
		if err := ensembleAttach(e.Groups, p); err != nil {
			return nil, err
		}
	}
	if p := filepath.Join(side, EnsembleReferenceFile); fileExists(p) {
		ref, err := LoadOBJ(p)
		if err != nil {
			return nil, err
		}
		if err := first.SameTopology(ref); err != nil {
			return nil, fmt.Errorf("%s is not the levels' mesh: %w", p, err)
		}
		e.Rest = ref.Positions
	}
	return e, nil
}

// ensembleSidecar returns the path of name in the folder holding level,
// or in level itself, or "" when neither has it.
func ensembleSidecar(level, name string) string {
	for _, dir := range []string{filepath.Dir(filepath.Clean(level)), level} {
		if p := filepath.Join(dir, name); fileExists(p) {
			return p
		}
	}
	return ""
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir()
}

// sameEnsembleFrame reports how o differs from m as a frame of the same
// ensemble: vertices, triangles, and groups by name and size.
func sameEnsembleFrame(m, o *Mesh) error {
	if err := m.SameTopology(o); err != nil {
		return err
	}
	if len(o.Groups) != len(m.Groups) {
		return fmt.Errorf("%d groups, want %d", len(o.Groups), len(m.Groups))
	}
	for g := range m.Groups {
		a, b := m.Groups[g], o.Groups[g]
		if a.Name != b.Name {
			return fmt.Errorf("group %d is %q, want %q", g+1, b.Name, a.Name)
		}
		if len(a.Triangles) != len(b.Triangles) {
			return fmt.Errorf("group %q has %d triangles, want %d", a.Name, len(b.Triangles), len(a.Triangles))
		}
	}
	return nil
}

// ensembleGroupsFromFile makes the groups of the groups file at path: each
// row's vertex range and parent, and the mesh's triangles that lie in the
// range (every triangle must lie in one group).
func ensembleGroupsFromFile(m *Mesh, path string) ([]EnsembleGroup, error) {
	rows, err := LoadEnsembleGroups(path)
	if err != nil {
		return nil, err
	}
	index := map[string]int{}
	for i, r := range rows {
		index[r.Name] = i
	}
	groups := make([]EnsembleGroup, len(rows))
	owner := make([]int, len(m.Positions)) // group index + 1, 0 for none
	for i, r := range rows {
		if r.First > len(m.Positions) || r.Count > len(m.Positions)-r.First { // not r.First+r.Count: it may overflow
			return nil, &ParseError{File: path, Line: r.Line, Msg: fmt.Sprintf("group %q ends at vertex %d; the mesh has %d", r.Name, uint64(r.First)+uint64(r.Count), len(m.Positions))}
		}
		parent := -1
		if r.Parent != "" {
			parent = index[r.Parent]
		}
		groups[i] = EnsembleGroup{Name: r.Name, First: r.First, Count: r.Count, Parent: parent}
		for v := r.First; v < r.First+r.Count; v++ {
			if owner[v] != 0 {
				o := rows[owner[v]-1]
				return nil, &ParseError{File: path, Line: r.Line, Msg: fmt.Sprintf("group %q overlaps group %q (line %d) at vertex %d", r.Name, o.Name, o.Line, v+1)}
			}
			owner[v] = i + 1
		}
	}
	for v, o := range owner {
		if o == 0 {
			return nil, fmt.Errorf("%s: vertex %d lies in no group", path, v+1)
		}
	}
	for f, t := range m.Triangles {
		g := owner[t[0]]
		if owner[t[1]] != g || owner[t[2]] != g {
			return nil, fmt.Errorf("%s: triangle %d (vertices %d %d %d) joins groups %q and %q", path, f+1, t[0]+1, t[1]+1, t[2]+1, rows[g-1].Name, rows[max(owner[t[1]], owner[t[2]])-1].Name)
		}
		first := groups[g-1].First
		groups[g-1].Triangles = append(groups[g-1].Triangles, [3]int{t[0] - first, t[1] - first, t[2] - first})
	}
	return groups, nil
}

// ensembleGroupsFromOBJ makes a flat hierarchy of the mesh's OBJ groups
// (read from file): each group's vertices are those of its faces and must
// be one run of vertices that no other group uses.
func ensembleGroupsFromOBJ(m *Mesh, file string) ([]EnsembleGroup, error) {
	if len(m.Groups) == 0 {
		return nil, fmt.Errorf("%s has no o or g groups, and there is no %s to give them", file, EnsembleGroupsFile)
	}
	owner := make([]int, len(m.Positions))
	groups := make([]EnsembleGroup, len(m.Groups))
	for g, og := range m.Groups {
		lo, hi := len(m.Positions), -1
		for _, f := range og.Triangles {
			for _, v := range m.Triangles[f] {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		for v := lo; v <= hi; v++ {
			if owner[v] != 0 {
				return nil, fmt.Errorf("%s: groups %q and %q share the vertices around vertex %d; give each group's vertex range in a %s", file, m.Groups[owner[v]-1].Name, og.Name, v+1, EnsembleGroupsFile)
			}
			owner[v] = g + 1
		}
		groups[g] = EnsembleGroup{Name: og.Name, First: lo, Count: hi - lo + 1, Parent: -1}
		for _, f := range og.Triangles {
			t := m.Triangles[f]
			groups[g].Triangles = append(groups[g].Triangles, [3]int{t[0] - lo, t[1] - lo, t[2] - lo})
		}
	}
	for v, o := range owner {
		if o == 0 {
			return nil, fmt.Errorf("%s: vertex %d lies in no group (no face of a group uses it)", file, v+1)
		}
	}
	for f, og := range m.Triangles {
		if owner[og[0]] == 0 {
			return nil, fmt.Errorf("%s: triangle %d belongs to no group", file, f+1)
		}
	}
	return groups, nil
}

// ensembleAttach reads the attachments file at path into the groups.
func ensembleAttach(groups []EnsembleGroup, path string) error {
	rows, err := LoadEnsembleAttachments(path)
	if err != nil {
		return err
	}
	index := map[string]int{}
	for i, g := range groups {
		index[g.Name] = i
	}
	for _, r := range rows {
		fail := func(format string, args ...any) error {
			return &ParseError{File: path, Line: r.Line, Msg: fmt.Sprintf(format, args...)}
		}
		gi, ok := index[r.Group]
		if !ok {
			return fail("%q is not a group", r.Group)
		}
		g := &groups[gi]
		if g.Parent < 0 {
			return fail("group %q has no parent to be sewn to", r.Group)
		}
		p := groups[g.Parent]
		if r.Vertex < g.First || r.Vertex >= g.First+g.Count {
			return fail("vertex %d is not in group %q (vertices %d-%d)", r.Vertex+1, g.Name, g.First+1, g.First+g.Count)
		}
		if r.ParentVertex < p.First || r.ParentVertex >= p.First+p.Count {
			return fail("parent vertex %d is not in group %q (vertices %d-%d)", r.ParentVertex+1, p.Name, p.First+1, p.First+p.Count)
		}
		g.Attach = append(g.Attach, [2]int{r.Vertex - g.First, r.ParentVertex - p.First})
	}
	return nil
}

// WriteEnsembleOBJ writes one frame of an ensemble as OBJ: per group, in
// order, an o line with its name, its vertices' v lines (positions, in
// ensemble order) and its triangles' f lines (1-based indices of the
// whole file), as the banner's frames are laid out, so that LoadEnsemble
// reads a folder of such frames back with the same groups.
func WriteEnsembleOBJ(w io.Writer, groups []EnsembleGroup, positions []Vec3) error {
	ow := &objWriter{w: w, buf: make([]byte, 0, 64<<10)}
	for k, g := range groups {
		if g.First < 0 || g.Count < 0 || g.First > len(positions) || g.Count > len(positions)-g.First {
			return fmt.Errorf("writing ensemble OBJ: group %q (vertices %d-%d) outside the %d positions", g.Name, g.First+1, g.First+g.Count, len(positions))
		}
		ow.printf("o %s\n", objGroupName(g.Name, k))
		for _, p := range positions[g.First : g.First+g.Count] {
			if !finite.Vec3(p) {
				return fmt.Errorf("writing ensemble OBJ: group %q has a non-finite position", g.Name)
			}
			ow.floats("v", p[:])
		}
		for _, t := range g.Triangles {
			ow.printf("f %d %d %d\n", g.First+t[0]+1, g.First+t[1]+1, g.First+t[2]+1)
			ow.flushIfFull()
		}
	}
	return ow.flush()
}
