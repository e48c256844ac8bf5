package assets

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gallop/internal/atomicfile"
	"gallop/internal/finite"
	"gallop/internal/words"
)

// ParseError is an error in the content of a text file: File is the name
// the reader was given (usually a path), Line the 1-based line at fault and
// Msg what is wrong there. Its Error method formats it as "file:line: msg".
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error returns "File:Line: Msg".
func (e *ParseError) Error() string {
	return e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg
}

// LoadOBJ reads the Wavefront OBJ file at path; see ReadOBJ.
func LoadOBJ(path string) (*Mesh, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseOBJ(context.Background(), data, path, nil)
}

// ReadOBJ reads a Wavefront OBJ mesh from r. The name, usually the file's
// path, is used in error messages, and its base name without extension
// becomes the mesh's Name.
//
// Statements read (one per line; a '#' starting a field begins a comment
// running to the end of the line; LF or CRLF line endings; blank lines and
// a leading UTF-8 byte order mark ignored; line continuation with a
// trailing backslash is not supported):
//
//   - v x y z [w] [r g b]: a vertex position. Positions keep the order of
//     the v lines. w and vertex colours must be numbers and are ignored.
//   - vt u [v [w]]: a texture coordinate (v defaults to 0, w is ignored).
//   - vn x y z: a normal.
//   - f c1 c2 c3 ...: a face of three or more corners, each v, v/vt, v//vn
//     or v/vt/vn, with the same form for every corner. Indices are 1-based,
//     or negative to count back from the last element defined before the
//     line (-1 is the latest). Positive indices may refer to elements
//     defined later in the file. A face of n corners becomes the n-2
//     triangles of a fan from its first corner, (c1 c2 c3), (c1 c3 c4), ...
//   - g name1 name2 ...: the following faces belong to each named group
//     (a bare g: to no group).
//   - o name: the following faces belong to the group named by the rest of
//     the line, up to a comment, without surrounding spaces (a bare o: to
//     no group).
//
// Groups become Mesh.Groups in the order their first face appears; a name
// seen again adds to the same group, and faces before the first o or g
// belong to no group. Any other statement (s, usemtl, mtllib, l, p, vp, ...)
// is skipped.
//
// UVs and normals are kept per triangle corner (Mesh.UVTriangles and
// Mesh.NormalTriangles). Every face must use the same corner form: a file
// where some faces have texture coordinates (or normals) and others do not
// is rejected. UVs or normals that no face references are dropped. In a file
// without vt lines the texture indices of faces are ignored (some exporters
// write them anyway), and likewise normal indices without vn lines.
//
// Malformed input yields a *ParseError naming the line: a coordinate that is
// not a number, or is NaN or infinite (vertex colours and vt's w only need to
// be numbers), too few or too many numbers, a face of fewer than three
// corners, a corner that is not one of the four forms or mixes forms, an
// index of 0, an index out of range (counted against the whole file for
// positive indices), faces that disagree on their form, and a file without
// vertices (reported at its last line). Other read errors are returned as
// they are, prefixed with name. ReadOBJ never panics.
func ReadOBJ(r io.Reader, name string) (*Mesh, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return parseOBJ(context.Background(), data, name, nil)
}

// objForm says which optional indices the corners of a face carry.
type objForm uint8

const (
	objHasUV objForm = 1 << iota
	objHasNormal
)

// objCorner is a face corner's 0-based position, UV and normal indices.
type objCorner struct{ v, t, n int }

// objCounts counts the statements of an OBJ file by keyword.
type objCounts struct{ v, vt, vn, f int }

// objParser holds the state of one parse of a whole OBJ file.
type objParser struct {
	name  string
	line  int
	total objCounts // of the whole file, from countOBJ
	pow   *pow10Table
	m     *Mesh

	form     objForm // corner form of every face, fixed by the first one
	formLine int     // line of the first face; 0 before it

	corners []objCorner // scratch: the corners of the current face

	pending     []string // names of the latest o or g statement
	resolved    bool     // whether cur reflects pending
	cur         []int    // indices in m.Groups of the current groups
	groupByName map[string]int
}

// parseOBJ parses a whole OBJ file held in data (see ReadOBJ). It checks ctx
// every few thousand lines and returns ctx.Err() when it is done. When
// reuse is non-nil, the arrays of its triangles, UVs, normals and their
// corner tables are reused for the result's: reuse must not be used after.
func parseOBJ(ctx context.Context, data []byte, name string, reuse *Mesh) (*Mesh, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
	p := &objParser{name: name, total: countOBJ(data), pow: pow10Tab()}
	m := &Mesh{
		Name:      strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)),
		Positions: make([]Vec3, 0, p.total.v),
	}
	if reuse != nil {
		m.Triangles = reuse.Triangles[:0]
		m.UVs, m.UVTriangles = reuse.UVs[:0], reuse.UVTriangles[:0]
		m.Normals, m.NormalTriangles = reuse.Normals[:0], reuse.NormalTriangles[:0]
	}
	m.Triangles = slices.Grow(m.Triangles, p.total.f)
	m.UVs = slices.Grow(m.UVs, p.total.vt)
	m.Normals = slices.Grow(m.Normals, p.total.vn)
	p.m = m
	for len(data) > 0 {
		var line []byte
		line, data = cutOBJLine(data)
		p.line++
		if p.line&(1<<14-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		kw, rest := nextOBJField(line)
		var err error
		switch string(kw) {
		case "v":
			err = p.vertex(rest)
		case "vt":
			err = p.texCoord(rest)
		case "vn":
			err = p.normal(rest)
		case "f":
			err = p.face(rest)
		case "g":
			p.group(rest)
		case "o":
			p.object(rest)
		}
		if err != nil {
			return nil, err
		}
	}
	if len(p.m.Positions) == 0 {
		return nil, &ParseError{File: name, Line: max(p.line, 1), Msg: "no vertices"}
	}
	if p.form&objHasUV == 0 {
		p.m.UVs = nil
	}
	if p.form&objHasNormal == 0 {
		p.m.Normals = nil
	}
	return p.m, nil
}

// countOBJ counts the v, vt, vn and f statements of data, splitting lines
// exactly as parseOBJ does.
func countOBJ(data []byte) objCounts {
	var c objCounts
	for len(data) > 0 {
		var line []byte
		line, data = cutOBJLine(data)
		kw, _ := nextOBJField(line)
		switch string(kw) {
		case "v":
			c.v++
		case "vt":
			c.vt++
		case "vn":
			c.vn++
		case "f":
			c.f++
		}
	}
	return c
}

// cutOBJLine splits data after its first line, dropping the '\n'.
func cutOBJLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

// isOBJSpace reports whether c separates fields. '\r' counts as a space,
// which handles CRLF line endings.
func isOBJSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// nextOBJField returns the first field of s and what follows it, or a nil
// field when s holds only spaces or the next field starts a '#' comment.
func nextOBJField(s []byte) (field, rest []byte) {
	i := 0
	for i < len(s) && isOBJSpace(s[i]) {
		i++
	}
	if i == len(s) || s[i] == '#' {
		return nil, nil
	}
	j := i + 1
	for j < len(s) && !isOBJSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// errorf returns a *ParseError at the current line.
func (p *objParser) errorf(format string, args ...any) error {
	return &ParseError{File: p.name, Line: p.line, Msg: fmt.Sprintf(format, args...)}
}

// quoteOBJField quotes a field for an error message, shortened if long.
func quoteOBJField(b []byte) string {
	const maxLen = 40
	if len(b) > maxLen {
		return strconv.Quote(string(b[:maxLen])) + "..."
	}
	return strconv.Quote(string(b))
}

// numbers parses the numeric fields of a statement into dst (at most
// len(dst); the rest are only checked to be numbers), requiring the first
// nFinite to be finite. It returns how many fields there were.
func (p *objParser) numbers(what string, rest []byte, dst []float64, nFinite int) (int, error) {
	n := 0
	for {
		i := 0
		for i < len(rest) && isOBJSpace(rest[i]) {
			i++
		}
		if i == len(rest) || rest[i] == '#' {
			return n, nil
		}
		rest = rest[i:]
		x, size, err := parseFloatField(rest, p.pow)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return n, p.errorf("%s: %s is not a number", what, quoteOBJField(rest[:size]))
		}
		if n < nFinite && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return n, p.errorf("%s: coordinate %s is not finite", what, quoteOBJField(rest[:size]))
		}
		if n < len(dst) {
			dst[n] = x
		}
		n++
		rest = rest[size:]
	}
}

// vertex parses the fields of a v statement.
func (p *objParser) vertex(rest []byte) error {
	var x [3]float64
	n, err := p.numbers("vertex", rest, x[:], 3)
	if err != nil {
		return err
	}
	if n < 3 || n > 7 {
		return p.errorf("vertex has %d numbers, want x y z, optionally followed by w and r g b", n)
	}
	p.m.Positions = append(p.m.Positions, Vec3{x[0], x[1], x[2]})
	return nil
}

// texCoord parses the fields of a vt statement.
func (p *objParser) texCoord(rest []byte) error {
	var x [2]float64
	n, err := p.numbers("texture coordinate", rest, x[:], 2)
	if err != nil {
		return err
	}
	if n < 1 || n > 3 {
		return p.errorf("texture coordinate has %d numbers, want u [v [w]]", n)
	}
	p.m.UVs = append(p.m.UVs, Vec2{x[0], x[1]})
	return nil
}

// normal parses the fields of a vn statement.
func (p *objParser) normal(rest []byte) error {
	var x [3]float64
	n, err := p.numbers("normal", rest, x[:], 3)
	if err != nil {
		return err
	}
	if n != 3 {
		return p.errorf("normal has %d numbers, want 3", n)
	}
	p.m.Normals = append(p.m.Normals, Vec3{x[0], x[1], x[2]})
	return nil
}

// group handles a g statement: each field names a group.
func (p *objParser) group(rest []byte) {
	p.pending = p.pending[:0]
	for {
		var f []byte
		f, rest = nextOBJField(rest)
		if f == nil {
			break
		}
		p.pending = append(p.pending, string(f))
	}
	p.resolved = false
}

// object handles an o statement: its fields, up to a comment, and the
// spaces between them name one group.
func (p *objParser) object(rest []byte) {
	p.pending = p.pending[:0]
	first, end := -1, 0 // where the name starts and ends in rest
	for r := rest; ; {
		f, after := nextOBJField(r)
		if f == nil {
			break
		}
		if first < 0 {
			first = len(rest) - len(after) - len(f)
		}
		end = len(rest) - len(after)
		r = after
	}
	if first >= 0 {
		p.pending = append(p.pending, string(rest[first:end]))
	}
	p.resolved = false
}

// currentGroups returns the indices in m.Groups of the groups named by the
// latest o or g statement, creating the groups not seen before.
func (p *objParser) currentGroups() []int {
	if p.resolved {
		return p.cur
	}
	p.resolved = true
	p.cur = p.cur[:0]
	for _, name := range p.pending {
		if p.groupByName == nil {
			p.groupByName = make(map[string]int)
		}
		g, ok := p.groupByName[name]
		if !ok {
			g = len(p.m.Groups)
			p.groupByName[name] = g
			p.m.Groups = append(p.m.Groups, Group{Name: name})
		}
		dup := false
		for _, c := range p.cur {
			dup = dup || c == g
		}
		if !dup {
			p.cur = append(p.cur, g)
		}
	}
	return p.cur
}

// face parses the fields of an f statement and appends its fan of
// triangles to the mesh and to the current groups.
func (p *objParser) face(rest []byte) error {
	p.corners = p.corners[:0]
	var form objForm
	var first []byte
	for {
		var f []byte
		f, rest = nextOBJField(rest)
		if f == nil {
			break
		}
		c, cf, err := p.corner(f)
		if err != nil {
			return err
		}
		if first == nil {
			first, form = f, cf
		} else if cf != form {
			return p.errorf("face mixes corner forms %s and %s", quoteOBJField(first), quoteOBJField(f))
		}
		p.corners = append(p.corners, c)
	}
	if len(p.corners) < 3 {
		return p.errorf("face has %s, want at least 3", words.Count(len(p.corners), "corner", "corners"))
	}
	if err := p.checkForm(form); err != nil {
		return err
	}
	m := p.m
	groups := p.currentGroups()
	c := p.corners
	for k := 1; k+1 < len(c); k++ {
		t := len(m.Triangles)
		m.Triangles = append(m.Triangles, [3]int{c[0].v, c[k].v, c[k+1].v})
		if form&objHasUV != 0 {
			m.UVTriangles = append(m.UVTriangles, [3]int{c[0].t, c[k].t, c[k+1].t})
		}
		if form&objHasNormal != 0 {
			m.NormalTriangles = append(m.NormalTriangles, [3]int{c[0].n, c[k].n, c[k+1].n})
		}
		for _, g := range groups {
			m.Groups[g].Triangles = append(m.Groups[g].Triangles, t)
		}
	}
	return nil
}

// checkForm checks that a face's corner form agrees with the first face's.
func (p *objParser) checkForm(form objForm) error {
	if p.formLine == 0 {
		p.form, p.formLine = form, p.line
		return nil
	}
	for _, a := range [...]struct {
		bit  objForm
		what string
	}{{objHasUV, "texture coordinates"}, {objHasNormal, "normals"}} {
		switch {
		case form&a.bit != 0 && p.form&a.bit == 0:
			return p.errorf("face has %s but the first face, on line %d, has none", a.what, p.formLine)
		case form&a.bit == 0 && p.form&a.bit != 0:
			return p.errorf("face has no %s but the first face, on line %d, has them", a.what, p.formLine)
		}
	}
	return nil
}

// corner parses a face corner: v, v/vt, v//vn or v/vt/vn.
func (p *objParser) corner(f []byte) (objCorner, objForm, error) {
	var c objCorner
	var form objForm
	v, t, n, bad := f, []byte(nil), []byte(nil), false
	if i := indexSlash(f); i >= 0 {
		v, t = f[:i], f[i+1:]
		form = objHasUV
		if j := indexSlash(t); j >= 0 {
			t, n = t[:j], t[j+1:]
			form = objHasNormal
			if len(t) > 0 {
				form |= objHasUV
			}
			bad = len(n) == 0 || indexSlash(n) >= 0 // "1//", "1/2/", "1/2/3/4"
		} else {
			bad = len(t) == 0 // "1/"
		}
	}
	if bad || len(v) == 0 {
		return c, 0, p.errorf("bad face corner %s", quoteOBJField(f))
	}
	var err error
	if c.v, err = p.index(f, v, len(p.m.Positions), p.total.v, "", "vertices"); err != nil {
		return c, 0, err
	}
	if form&objHasUV != 0 {
		if p.total.vt == 0 {
			// Some exporters write texture indices without any vt line.
			form &^= objHasUV
			_, _, err = p.indexValue(f, t)
		} else {
			c.t, err = p.index(f, t, len(p.m.UVs), p.total.vt, "texture coordinate ", "texture coordinates")
		}
		if err != nil {
			return c, 0, err
		}
	}
	if form&objHasNormal != 0 {
		if p.total.vn == 0 {
			form &^= objHasNormal
			_, _, err = p.indexValue(f, n)
		} else {
			c.n, err = p.index(f, n, len(p.m.Normals), p.total.vn, "normal ", "normals")
		}
		if err != nil {
			return c, 0, err
		}
	}
	return c, form, nil
}

// indexSlash returns the index of the first '/' in f, or -1. On fields this
// short a loop beats bytes.IndexByte.
func indexSlash(f []byte) int {
	for i, c := range f {
		if c == '/' {
			return i
		}
	}
	return -1
}

// indexValue parses the OBJ index s of a corner field f: an optional sign
// and digits. Values beyond 1<<40 saturate there: no file has that many
// elements.
func (p *objParser) indexValue(f, s []byte) (x int, neg bool, err error) {
	digits := s
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		neg = digits[0] == '-'
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return 0, false, p.errorf("bad face corner %s", quoteOBJField(f))
	}
	const big = 1 << 40
	for _, d := range digits {
		if d < '0' || d > '9' {
			return 0, false, p.errorf("bad face corner %s", quoteOBJField(f))
		}
		if x < big {
			x = x*10 + int(d-'0')
		}
	}
	return x, neg, nil
}

// index resolves the 1-based or negative (relative) OBJ index s of a corner
// field f to a 0-based index, given the number of elements defined before
// the current line and in the whole file.
func (p *objParser) index(f, s []byte, before, total int, what, plural string) (int, error) {
	x, neg, err := p.indexValue(f, s)
	switch {
	case err != nil:
		return 0, err
	case x == 0:
		return 0, p.errorf("face %sindex %s is invalid: indices start at 1", what, s)
	case neg && x > before:
		return 0, p.errorf("face %sindex %s out of range (%d %s before this line)", what, s, before, plural)
	case neg:
		return before - x, nil
	case x > total:
		return 0, p.errorf("face %sindex %s out of range (%d %s)", what, s, total, plural)
	}
	return x - 1, nil
}

// WriteOBJ writes m to w as a Wavefront OBJ file that ReadOBJ reads back
// exactly: v lines for the positions (positions, when non-nil, replaces
// m.Positions and must have the same length), vt and vn lines when m has
// UV or normal corner tables (UVs and normals without them are not
// written, as ReadOBJ would drop them), and one f line per triangle in the
// matching corner form
// (v, v/vt, v//vn or v/vt/vn). Numbers are written in the shortest form that
// parses back to the same float64.
//
// Groups are written as g lines before each run of triangles with the same
// set of groups (a bare g before a run in no group). OBJ group names are
// single fields, so whitespace in a name is written as '_', a leading '#'
// is escaped as "_#", and an empty name becomes "groupN" (N its index in
// m.Groups). Reading the file back gives the same groups when their names
// need none of these changes, are distinct, every group has a triangle, and
// the groups are ordered by their first triangle.
//
// WriteOBJ returns an error, writing nothing, when m with the positions
// written is not valid (Mesh.Validate) or a UV or normal is not finite;
// otherwise the first error from w.
func WriteOBJ(w io.Writer, m *Mesh, positions []Vec3) error {
	if positions == nil {
		positions = m.Positions
	}
	if err := checkOBJWritable(m, positions); err != nil {
		return fmt.Errorf("writing OBJ of mesh %q: %w", m.Name, err)
	}
	ow := &objWriter{w: w, buf: make([]byte, 0, 64<<10)}
	ow.printf("# %d vertices, %d triangles\n", len(positions), len(m.Triangles))
	for _, p := range positions {
		ow.floats("v", p[:])
	}
	var uv, nrm [][3]int
	if len(m.UVTriangles) > 0 {
		uv = m.UVTriangles
		for _, t := range m.UVs {
			ow.floats("vt", t[:])
		}
	}
	if len(m.NormalTriangles) > 0 {
		nrm = m.NormalTriangles
		for _, n := range m.Normals {
			ow.floats("vn", n[:])
		}
	}
	memb, start := objGroupMembership(m)
	names := make([]string, len(m.Groups))
	for g := range m.Groups {
		names[g] = objGroupName(m.Groups[g].Name, g)
	}
	var prev []int
	for f, t := range m.Triangles {
		if start != nil {
			if cur := memb[start[f]:start[f+1]]; !slices.Equal(cur, prev) {
				ow.buf = append(ow.buf, 'g')
				for _, g := range cur {
					ow.buf = append(ow.buf, ' ')
					ow.buf = append(ow.buf, names[g]...)
				}
				ow.buf = append(ow.buf, '\n')
				prev = cur
			}
		}
		ow.buf = append(ow.buf, 'f')
		for c := 0; c < 3; c++ {
			ow.buf = append(ow.buf, ' ')
			ow.buf = strconv.AppendInt(ow.buf, int64(t[c]+1), 10)
			if uv != nil || nrm != nil {
				ow.buf = append(ow.buf, '/')
			}
			if uv != nil {
				ow.buf = strconv.AppendInt(ow.buf, int64(uv[f][c]+1), 10)
			}
			if nrm != nil {
				ow.buf = append(ow.buf, '/')
				ow.buf = strconv.AppendInt(ow.buf, int64(nrm[f][c]+1), 10)
			}
		}
		ow.buf = append(ow.buf, '\n')
		ow.flushIfFull()
	}
	return ow.flush()
}

// SaveOBJ writes m to path with WriteOBJ, through atomicfile.Write: on error
// the previous content of path is untouched.
func SaveOBJ(path string, m *Mesh, positions []Vec3) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		return WriteOBJ(w, m, positions)
	})
}

// checkOBJWritable checks what WriteOBJ needs of m and positions.
func checkOBJWritable(m *Mesh, positions []Vec3) error {
	if len(positions) != len(m.Positions) {
		return fmt.Errorf("%d positions for %d vertices", len(positions), len(m.Positions))
	}
	posed := *m
	posed.Positions = positions
	if err := posed.Validate(); err != nil {
		return err
	}
	for i, t := range m.UVs {
		if !finite.Vec3(Vec3{t[0], t[1]}) {
			return fmt.Errorf("uv %d: non-finite value %v", i, t)
		}
	}
	for i, n := range m.Normals {
		if !finite.Vec3(n) {
			return fmt.Errorf("normal %d: non-finite value %v", i, n)
		}
	}
	return nil
}

// objGroupMembership lists, for each triangle f, the groups it belongs to in
// increasing order, as memb[start[f]:start[f+1]]. start is nil when m has no
// groups.
func objGroupMembership(m *Mesh) (memb, start []int) {
	if len(m.Groups) == 0 {
		return nil, nil
	}
	start = make([]int, len(m.Triangles)+1)
	for _, g := range m.Groups {
		for _, f := range g.Triangles {
			start[f+1]++
		}
	}
	for f := range m.Triangles {
		start[f+1] += start[f]
	}
	fill := append([]int(nil), start[:len(m.Triangles)]...)
	memb = make([]int, start[len(m.Triangles)])
	for g, grp := range m.Groups {
		for _, f := range grp.Triangles {
			if fill[f] > start[f] && memb[fill[f]-1] == g {
				continue // listed twice in the group
			}
			memb[fill[f]] = g
			fill[f]++
		}
	}
	// Compact away the slots left by duplicates.
	n := 0
	for f := range m.Triangles {
		lo, hi := start[f], fill[f]
		start[f] = n
		n += copy(memb[n:], memb[lo:hi])
	}
	start[len(m.Triangles)] = n
	return memb[:n], start
}

// objGroupName turns the name of group g into a single OBJ field.
func objGroupName(name string, g int) string {
	if name == "" {
		return "group" + strconv.Itoa(g)
	}
	b := []byte(name)
	for i, c := range b {
		if isOBJSpace(c) || c == '\n' {
			b[i] = '_'
		}
	}
	if b[0] == '#' {
		return "_" + string(b)
	}
	return string(b)
}

// objWriter buffers OBJ text and keeps the first write error.
type objWriter struct {
	w   io.Writer
	buf []byte
	err error
}

// printf appends formatted text.
func (ow *objWriter) printf(format string, args ...any) {
	ow.buf = fmt.Appendf(ow.buf, format, args...)
}

// floats writes a statement of keyword and numbers.
func (ow *objWriter) floats(keyword string, xs []float64) {
	ow.buf = append(ow.buf, keyword...)
	for _, x := range xs {
		ow.buf = append(ow.buf, ' ')
		ow.buf = strconv.AppendFloat(ow.buf, x, 'g', -1, 64)
	}
	ow.buf = append(ow.buf, '\n')
	ow.flushIfFull()
}

// flushIfFull writes the buffer out when a line might not fit in it.
func (ow *objWriter) flushIfFull() {
	if len(ow.buf) > cap(ow.buf)-256 {
		ow.flush()
	}
}

// flush writes the buffer out, unless an earlier write failed, and returns
// the first write error.
func (ow *objWriter) flush() error {
	if ow.err == nil && len(ow.buf) > 0 {
		_, ow.err = ow.w.Write(ow.buf)
	}
	ow.buf = ow.buf[:0]
	return ow.err
}
