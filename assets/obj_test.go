package assets

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"gallop/internal/shareddata"
)

// normalizedMesh returns a copy of m with empty slices made nil, so that
// meshes compare with reflect.DeepEqual whatever their capacity.
func normalizedMesh(m *Mesh) *Mesh {
	c := m.Clone()
	if len(c.Positions) == 0 {
		c.Positions = nil
	}
	if len(c.Triangles) == 0 {
		c.Triangles = nil
	}
	if len(c.UVs) == 0 {
		c.UVs = nil
	}
	if len(c.UVTriangles) == 0 {
		c.UVTriangles = nil
	}
	if len(c.Normals) == 0 {
		c.Normals = nil
	}
	if len(c.NormalTriangles) == 0 {
		c.NormalTriangles = nil
	}
	for i := range c.Groups {
		if len(c.Groups[i].Triangles) == 0 {
			c.Groups[i].Triangles = nil
		}
	}
	return c
}

// checkSameMesh reports, for a test failure, how got differs from want.
func checkSameMesh(t *testing.T, got, want *Mesh) {
	t.Helper()
	g, w := normalizedMesh(got), normalizedMesh(want)
	if reflect.DeepEqual(g, w) {
		return
	}
	t.Errorf("mesh differs\n got: %+v\nwant: %+v", *g, *w)
}

func TestReadOBJ(t *testing.T) {
	tri := []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	square := []Vec3{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}
	tests := []struct {
		name string
		in   string
		want Mesh
	}{
		{
			name: "triangle",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "vertices only",
			in:   "v 1.5 -2e3 .25\n",
			want: Mesh{Positions: []Vec3{{1.5, -2000, 0.25}}},
		},
		{
			name: "w and vertex colours ignored",
			in:   "v 0 0 0 1\nv 1 0 0 0.5 0.5 0.5\nv 0 1 0 1 0 0 1\nf 1 2 3",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "v/vt",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1\nvt 0 1 0\nf 1/3 2/2 3/1\n",
			want: Mesh{
				Positions: tri, Triangles: [][3]int{{0, 1, 2}},
				UVs: []Vec2{{0, 0}, {1, 0}, {0, 1}}, UVTriangles: [][3]int{{2, 1, 0}},
			},
		},
		{
			name: "v//vn",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nvn 0 0 -1\nf 1//2 2//2 3//1\n",
			want: Mesh{
				Positions: tri, Triangles: [][3]int{{0, 1, 2}},
				Normals: []Vec3{{0, 0, 1}, {0, 0, -1}}, NormalTriangles: [][3]int{{1, 1, 0}},
			},
		},
		{
			name: "v/vt/vn quad",
			in: "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n" +
				"vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\n" +
				"f 1/1/1 2/2/1 3/3/1 4/4/1\n",
			want: Mesh{
				Positions: square, Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
				UVs: []Vec2{{0, 0}, {1, 0}, {1, 1}, {0, 1}}, UVTriangles: [][3]int{{0, 1, 2}, {0, 2, 3}},
				Normals: []Vec3{{0, 0, 1}}, NormalTriangles: [][3]int{{0, 0, 0}, {0, 0, 0}},
			},
		},
		{
			name: "negative indices",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 1 1 0\nf -4 -1 -2\n",
			want: Mesh{
				Positions: append(tri[:3:3], Vec3{1, 1, 0}),
				Triangles: [][3]int{{0, 1, 2}, {0, 3, 2}},
			},
		},
		{
			name: "negative indices with uvs",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 1\nf -3/-2 -2/-1 -1/-1\n",
			want: Mesh{
				Positions: tri, Triangles: [][3]int{{0, 1, 2}},
				UVs: []Vec2{{0, 0}, {1, 1}}, UVTriangles: [][3]int{{0, 1, 1}},
			},
		},
		{
			name: "pentagon fan",
			in:   "v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nf 1 2 3 4 5\n",
			want: Mesh{
				Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {2, 1, 0}, {1, 2, 0}, {0, 1, 0}},
				Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {0, 3, 4}},
			},
		},
		{
			name: "faces before vertices",
			in:   "f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "groups",
			in: "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n" +
				"f 1 2 3\n" + // no group
				"o body\nf 1 2 3 4\n" + // body: 1, 2
				"g legs\ng head neck head\nf 1 2 3\n" + // legs stays empty: head 3, neck 3
				"g\nf 1 2 3\n" + // no group: 4
				"g legs\nf 1 2 3\n" + // legs 5
				"o body\nf 1 3 4\n", // body again: 6
			want: Mesh{
				Positions: square,
				Triangles: [][3]int{{0, 1, 2}, {0, 1, 2}, {0, 2, 3}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 2, 3}},
				Groups: []Group{
					{Name: "body", Triangles: []int{1, 2, 6}},
					{Name: "head", Triangles: []int{3}},
					{Name: "neck", Triangles: []int{3}},
					{Name: "legs", Triangles: []int{5}},
				},
			},
		},
		{
			name: "o takes the rest of the line",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\no  my object \t# the horse\nf 1 2 3\no\nf 1 2 3\n",
			want: Mesh{
				Positions: tri, Triangles: [][3]int{{0, 1, 2}, {0, 1, 2}},
				Groups: []Group{{Name: "my object", Triangles: []int{0}}},
			},
		},
		{
			name: "comments blank lines and spacing",
			in:   "# a comment\n\n   \nv 0 0 0 # trailing comment\n\tv\t1 0 0\nv   0  1   0  \n#f 9 9 9\n\nf 1 2 3 #4\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "CRLF",
			in:   "# made on Windows\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\n\r\ng part\r\nf 1 2 3\r\n",
			want: Mesh{
				Positions: tri, Triangles: [][3]int{{0, 1, 2}},
				Groups: []Group{{Name: "part", Triangles: []int{0}}},
			},
		},
		{
			name: "byte order mark",
			in:   "\ufeffv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "no final newline",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "unknown statements skipped",
			in: "mtllib horse.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvp 0.5\nusemtl skin\ns 1\n" +
				"l 1 2\np 3\ncurv 0 1 1 2\nf 1 2 3\ns off\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "texture and normal indices without vt and vn lines ignored",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/2 3/3\nf 1//1 2//2 3//3\nf 1/1/1 2/2/2 3/3/3\nf 1 2 3\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}, {0, 1, 2}, {0, 1, 2}, {0, 1, 2}}},
		},
		{
			name: "unreferenced uvs and normals dropped",
			in:   "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvn 0 0 1\nf 1 2 3\n",
			want: Mesh{Positions: tri, Triangles: [][3]int{{0, 1, 2}}},
		},
		{
			name: "number forms",
			in:   "v -0 +1 1e-3\nv 1E+2 0x1p-2 5e-324\nv 123456789012345678901234567890 -.5 7.\n",
			want: Mesh{Positions: []Vec3{
				{math.Copysign(0, -1), 1, 0.001},
				{100, 0.25, 5e-324},
				{123456789012345678901234567890, -0.5, 7},
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadOBJ(strings.NewReader(tc.in), "dir/test.obj")
			if err != nil {
				t.Fatal(err)
			}
			tc.want.Name = "test"
			checkSameMesh(t, m, &tc.want)
			if err := m.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestReadOBJNegativeZero(t *testing.T) {
	m, err := ReadOBJ(strings.NewReader("v -0 0 0\n"), "z.obj")
	if err != nil {
		t.Fatal(err)
	}
	if !math.Signbit(m.Positions[0][0]) {
		t.Errorf("-0 read as %v", m.Positions[0][0])
	}
}

func TestReadOBJErrors(t *testing.T) {
	const tri = "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
	tests := []struct {
		name string
		in   string
		line int
		msg  string // the whole message after "file:line: ", or a part ending in "..."
	}{
		{"empty file", "", 1, "no vertices"},
		{"only comments", "# nothing\n\n# here\n", 3, "no vertices"},
		{"only faces", "f 1 2 3\n", 1, "face index 1 out of range (0 vertices)"},
		{"faces but no vertices", "vt 0 0\n", 1, "no vertices"},
		{"truncated vertex", "v 0 0 0\nv 1 0", 2, "vertex has 2 numbers, want x y z, optionally followed by w and r g b"},
		{"truncated number", "v 0 0 0\nv 1 0 1e", 2, `vertex: "1e" is not a number`},
		{"truncated face", tri + "f 1 2", 4, "face has 2 corners, want at least 3"},
		{"truncated corner", tri + "vt 0 0\nf 1/1 2/1 3/", 5, `bad face corner "3/"`},
		{"vertex too many numbers", "v 1 2 3 4 5 6 7 8\n", 1, "vertex has 8 numbers..."},
		{"vertex no numbers", "v\n", 1, "vertex has 0 numbers..."},
		{"vertex NaN", "v 1 NaN 3\n", 1, `vertex: coordinate "NaN" is not finite`},
		{"vertex nan", "v nan 1 3\n", 1, `vertex: coordinate "nan" is not finite`},
		{"vertex Inf", "v 1 2 -Inf\n", 1, `vertex: coordinate "-Inf" is not finite`},
		{"vertex overflow", "v 1 2 1e400\n", 1, `vertex: coordinate "1e400" is not finite`},
		{"vertex word", "v 1 two 3\n", 1, `vertex: "two" is not a number`},
		{"vertex comma", "v 1,5 2 3\n", 1, `vertex: "1,5" is not a number`},
		{"vertex bad colour", "v 1 2 3 red 0 0\n", 1, `vertex: "red" is not a number`},
		{"vertex glued comment", "v 1 2 3# c\n", 1, `vertex: "3#" is not a number`},
		{"normal too few", "v 0 0 0\nvn 0 1\n", 2, "normal has 2 numbers, want 3"},
		{"normal too many", "v 0 0 0\nvn 0 1 0 1\n", 2, "normal has 4 numbers, want 3"},
		{"normal inf", "v 0 0 0\nvn 0 inf 0\n", 2, `normal: coordinate "inf" is not finite`},
		{"texture none", "v 0 0 0\nvt\n", 2, "texture coordinate has 0 numbers, want u [v [w]]"},
		{"texture too many", "v 0 0 0\nvt 0 0 0 0\n", 2, "texture coordinate has 4 numbers, want u [v [w]]"},
		{"texture nan", "v 0 0 0\nvt 0 nan\n", 2, `texture coordinate: coordinate "nan" is not finite`},
		{"face no corners", tri + "f\n", 4, "face has 0 corners, want at least 3"},
		{"face index 0", tri + "f 0 1 2\n", 4, "face index 0 is invalid: indices start at 1"},
		{"face index -0", tri + "f -0 1 2\n", 4, "face index -0 is invalid: indices start at 1"},
		{"face out of range", tri + "# c\nf 1 2 9\n", 5, "face index 9 out of range (3 vertices)"},
		{"face out of range counts later vertices", "f 1 2 5\n" + tri + "v 1 1 1\n", 1, "face index 5 out of range (4 vertices)"},
		{"face huge index", tri + "f 1 2 99999999999999999999999999\n", 4, "face index 99999999999999999999999999 out of range (3 vertices)"},
		{"face negative out of range", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\n" + tri, 3, "face index -3 out of range (2 vertices before this line)"},
		{"face huge negative", tri + "f -1 -2 -99999999999999999999999\n", 4, "face index -99999999999999999999999 out of range (3 vertices before this line)"},
		{"face word", tri + "f 1 2 three\n", 4, `bad face corner "three"`},
		{"face float", tri + "f 1 2 3.0\n", 4, `bad face corner "3.0"`},
		{"face sign only", tri + "f 1 2 -\n", 4, `bad face corner "-"`},
		{"face slash first", tri + "f /1 2 3\n", 4, `bad face corner "/1"`},
		{"face double slash end", tri + "f 1// 2// 3//\n", 4, `bad face corner "1//"`},
		{"face four parts", tri + "vt 0 0\nvn 0 0 1\nf 1/1/1/1 2/1/1 3/1/1\n", 6, `bad face corner "1/1/1/1"`},
		{"face mixed forms", tri + "vt 0 0\nf 1/1 2 3/1\n", 5, `face mixes corner forms "1/1" and "2"`},
		{"face mixed normals", tri + "vt 0 0\nvn 0 0 1\nf 1/1/1 2/1 3/1/1\n", 6, `face mixes corner forms "1/1/1" and "2/1"`},
		{"texture index 0", tri + "vt 0 0\nf 1/0 2/1 3/1\n", 5, "face texture coordinate index 0 is invalid: indices start at 1"},
		{"texture out of range", tri + "vt 0 0\nf 1/1 2/2 3/1\n", 5, "face texture coordinate index 2 out of range (1 texture coordinates)"},
		{"texture missing bad", tri + "f 1/1 2/x 3/1\n", 4, `bad face corner "2/x"`},
		{"normal missing bad", tri + "f 1//1 2//1 3//\n", 4, `bad face corner "3//"`},
		{"texture negative", tri + "vt 0 0\nf 1/-2 2/1 3/1\n", 5, "face texture coordinate index -2 out of range (1 texture coordinates before this line)"},
		{"normal out of range", tri + "vn 0 0 1\nf 1//1 2//1 3//2\n", 5, "face normal index 2 out of range (1 normals)"},
		{"faces disagree on uvs", tri + "vt 0 0\nf 1 2 3\nf 1/1 2/1 3/1\n", 6, "face has texture coordinates but the first face, on line 5, has none"},
		{"faces disagree on no uvs", tri + "vt 0 0\nf 1/1 2/1 3/1\n\nf 1 2 3\n", 7, "face has no texture coordinates but the first face, on line 5, has them"},
		{"faces disagree on normals", tri + "vn 0 0 1\nf 1//1 2//1 3//1\nf 1 2 3\n", 6, "face has no normals but the first face, on line 5, has them"},
		{"CRLF line numbers", "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\n\r\nf 1 2 4\r\n", 5, "face index 4 out of range (3 vertices)"},
		{"long token shortened", "v 1 2 " + strings.Repeat("x", 100) + "\n", 1, `vertex: "` + strings.Repeat("x", 40) + `"... is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ReadOBJ(strings.NewReader(tc.in), "dir/bad.obj")
			if err == nil {
				t.Fatalf("no error; mesh %+v", *m)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if pe.File != "dir/bad.obj" || pe.Line != tc.line {
				t.Errorf("error at %s:%d, want dir/bad.obj:%d (%v)", pe.File, pe.Line, tc.line, err)
			}
			prefix := "dir/bad.obj:" + strconv.Itoa(tc.line) + ": "
			if msg, ok := strings.CutSuffix(tc.msg, "..."); ok {
				if !strings.HasPrefix(err.Error(), prefix+msg) {
					t.Errorf("error %q, want it to start with %q", err, prefix+msg)
				}
			} else if err.Error() != prefix+tc.msg {
				t.Errorf("error %q, want %q", err, prefix+tc.msg)
			}
		})
	}
}

// objErrReader fails after giving its data.
type objErrReader struct{ data []byte }

func (r *objErrReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadOBJReadError(t *testing.T) {
	_, err := ReadOBJ(&objErrReader{data: []byte("v 0 0 0\n")}, "hot.obj")
	if err == nil || err.Error() != "hot.obj: disk on fire" {
		t.Errorf("error %v, want hot.obj: disk on fire", err)
	}
}

func TestLoadOBJ(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tri.obj")
	if err := os.WriteFile(path, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := LoadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "tri" || m.NumVertices() != 3 || m.NumTriangles() != 1 {
		t.Errorf("got %q with %d vertices, %d triangles; want tri, 3, 1", m.Name, m.NumVertices(), m.NumTriangles())
	}
	if _, err := LoadOBJ(filepath.Join(dir, "missing.obj")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.obj") {
		t.Errorf("missing file: error %v, want a not-exist error naming the file", err)
	}
	bad := filepath.Join(dir, "bad.obj")
	if err := os.WriteFile(bad, []byte("v 0 0 0\nf 1 1 x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOBJ(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":2: ") {
		t.Errorf("error %v, want it to start with %s:2: ", err, bad)
	}
}

// awkwardFloats are numbers whose text form is easy to get wrong.
var awkwardFloats = []float64{
	0, math.Copysign(0, -1), 1, -1, 0.1, 1.0 / 3, -2.0 / 3, math.Pi, 1e21, 1e-7, 123456789.123456789,
	math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 2.2250738585072014e-308,
	0.022742370500000001, 9007199254740993,
}

func TestWriteOBJRoundTrip(t *testing.T) {
	var pos []Vec3
	for i := range awkwardFloats {
		pos = append(pos, Vec3{awkwardFloats[i%len(awkwardFloats)], awkwardFloats[(i+1)%len(awkwardFloats)], awkwardFloats[(i+2)%len(awkwardFloats)]})
	}
	tris := [][3]int{{0, 1, 2}, {2, 3, 4}, {4, 5, 6}, {6, 7, 8}, {8, 9, 10}, {10, 11, 12}}
	tests := []struct {
		name string
		m    Mesh
	}{
		{"positions only", Mesh{Positions: pos}},
		{"triangles", Mesh{Positions: pos, Triangles: tris}},
		{"uvs", Mesh{
			Positions: pos, Triangles: tris[:2],
			UVs: []Vec2{{0, 0}, {0.1, 1.0 / 3}, {1, 1}}, UVTriangles: [][3]int{{0, 1, 2}, {2, 2, 0}},
		}},
		{"normals", Mesh{
			Positions: pos, Triangles: tris[:2],
			Normals: []Vec3{{0, 0, 1}, {1.0 / 3, 2.0 / 3, 2.0 / 3}}, NormalTriangles: [][3]int{{0, 1, 0}, {1, 1, 1}},
		}},
		{"uvs and normals", Mesh{
			Positions: pos, Triangles: tris[:2],
			UVs: []Vec2{{0, 0}, {1, 1}}, UVTriangles: [][3]int{{0, 1, 1}, {1, 0, 0}},
			Normals: []Vec3{{0, 0, 1}}, NormalTriangles: [][3]int{{0, 0, 0}, {0, 0, 0}},
		}},
		{"groups", Mesh{
			Positions: pos, Triangles: tris,
			Groups: []Group{
				{Name: "body", Triangles: []int{1, 2, 5}},
				{Name: "head", Triangles: []int{2, 3}},
				{Name: "tail", Triangles: []int{4}},
			},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.m.Name = "round"
			var buf bytes.Buffer
			if err := WriteOBJ(&buf, &tc.m, nil); err != nil {
				t.Fatal(err)
			}
			got, err := ReadOBJ(&buf, "round.obj")
			if err != nil {
				t.Fatalf("%v\n%s", err, buf.String())
			}
			checkSameMesh(t, got, &tc.m)
			for i, p := range got.Positions {
				for k := range p {
					if math.Float64bits(p[k]) != math.Float64bits(tc.m.Positions[i][k]) {
						t.Errorf("vertex %d[%d]: got %v, want %v", i, k, p[k], tc.m.Positions[i][k])
					}
				}
			}
		})
	}
}

func TestWriteOBJText(t *testing.T) {
	m := &Mesh{
		Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.5, -1e-9, 3}},
		Triangles: [][3]int{{0, 1, 2}, {0, 2, 3}, {1, 2, 3}, {3, 2, 1}},
		UVs:       []Vec2{{0, 0.5}}, UVTriangles: [][3]int{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}},
		Groups: []Group{
			{Name: "left leg", Triangles: []int{0, 1}},
			{Name: "", Triangles: []int{1, 1}},
			{Name: "#tag", Triangles: []int{3}},
		},
	}
	var buf bytes.Buffer
	if err := WriteOBJ(&buf, m, []Vec3{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}, {1, -2e-9, 6}}); err != nil {
		t.Fatal(err)
	}
	want := `# 4 vertices, 4 triangles
v 0 0 0
v 2 0 0
v 0 2 0
v 1 -2e-09 6
vt 0 0.5
g left_leg
f 1/1 2/1 3/1
g left_leg group1
f 1/1 3/1 4/1
g
f 2/1 3/1 4/1
g _#tag
f 4/1 3/1 2/1
`
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	got, err := ReadOBJ(&buf, "text.obj")
	if err != nil {
		t.Fatal(err)
	}
	wantGroups := []Group{
		{Name: "left_leg", Triangles: []int{0, 1}},
		{Name: "group1", Triangles: []int{1}},
		{Name: "_#tag", Triangles: []int{3}},
	}
	if !reflect.DeepEqual(got.Groups, wantGroups) {
		t.Errorf("groups read back: %+v, want %+v", got.Groups, wantGroups)
	}
}

func TestWriteOBJErrors(t *testing.T) {
	tri := func() *Mesh {
		return &Mesh{Name: "tri", Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}}
	}
	nan := math.NaN()
	tests := []struct {
		name      string
		m         *Mesh
		positions []Vec3
		msg       string
	}{
		{"positions length", tri(), []Vec3{{0, 0, 0}}, "1 positions for 3 vertices"},
		{"non-finite override", tri(), []Vec3{{0, 0, 0}, {1, 0, 0}, {nan, 1, 0}}, "vertex 2: non-finite position"},
		{"invalid mesh", func() *Mesh { m := tri(); m.Triangles[0][2] = 3; return m }(), nil, "triangle 0: vertex index 3 out of range"},
		{"non-finite uv", func() *Mesh {
			m := tri()
			m.UVs, m.UVTriangles = []Vec2{{0, math.Inf(1)}}, [][3]int{{0, 0, 0}}
			return m
		}(), nil, "uv 0: non-finite value"},
		{"non-finite normal", func() *Mesh {
			m := tri()
			m.Normals, m.NormalTriangles = []Vec3{{0, nan, 1}}, [][3]int{{0, 0, 0}}
			return m
		}(), nil, "normal 0: non-finite value"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteOBJ(&buf, tc.m, tc.positions)
			if err == nil || !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), `"tri"`) {
				t.Errorf("error %v, want one naming mesh \"tri\" and containing %q", err, tc.msg)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes despite the error", buf.Len())
			}
		})
	}
}

// objFailWriter fails every write.
type objFailWriter struct{}

func (objFailWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteOBJWriterError(t *testing.T) {
	m := &Mesh{Positions: make([]Vec3, 10000), Triangles: make([][3]int, 10000)}
	if err := WriteOBJ(objFailWriter{}, m, nil); err == nil || err.Error() != "disk full" {
		t.Errorf("error %v, want disk full", err)
	}
}

func TestSaveOBJ(t *testing.T) {
	path := filepath.Join(t.TempDir(), "saved.obj")
	m := &Mesh{Name: "saved", Positions: []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, Triangles: [][3]int{{0, 1, 2}}}
	if err := SaveOBJ(path, m, nil); err != nil {
		t.Fatal(err)
	}
	got, err := LoadOBJ(path)
	if err != nil {
		t.Fatal(err)
	}
	checkSameMesh(t, got, m)
	// A failing save leaves the file as it was.
	bad := m.Clone()
	bad.Triangles[0][0] = 7
	if err := SaveOBJ(path, bad, nil); err == nil {
		t.Fatal("saved an invalid mesh")
	}
	if got, err := LoadOBJ(path); err != nil {
		t.Fatal(err)
	} else {
		checkSameMesh(t, got, m)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("%d files left in the folder, want 1", len(entries))
	}
}

// sharedMeshes are the rest meshes of the shared data with their sizes and
// whether their lines end in CRLF.
var sharedMeshes = []struct {
	path       []string
	nv, nf     int
	crlf       bool
	firstFrame string // a frame file with the same topology, "" if none
}{
	{[]string{"horse-gallop", "reference.obj"}, 8431, 16843, true, "0001.obj"},
	{[]string{"horse-poses", "reference.obj"}, 8431, 16843, true, "1.obj"},
	{[]string{"lion-poses", "reference.obj"}, 5000, 9996, true, "1.obj"},
	{[]string{"cat-poses", "reference.obj"}, 7207, 14410, true, "0001.obj"},
	{[]string{"pcow", "reference.obj"}, 2904, 5804, true, "1.obj"},
	{[]string{"cylinder-rig", "cylinder.obj"}, 420, 800, false, ""},
}

func TestLoadOBJSharedData(t *testing.T) {
	for _, s := range sharedMeshes {
		t.Run(filepath.Join(s.path...), func(t *testing.T) {
			path := shareddata.Path(t, s.path...)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(data, []byte("\r\n")); got != s.crlf {
				t.Errorf("CRLF line endings: %v, want %v", got, s.crlf)
			}
			m, err := LoadOBJ(path)
			if err != nil {
				t.Fatal(err)
			}
			if m.NumVertices() != s.nv || m.NumTriangles() != s.nf {
				t.Errorf("%d vertices, %d triangles; want %d, %d", m.NumVertices(), m.NumTriangles(), s.nv, s.nf)
			}
			if err := m.Validate(); err != nil {
				t.Error(err)
			}
			if len(m.UVs)+len(m.Normals)+len(m.Groups) != 0 {
				t.Errorf("%d UVs, %d normals, %d groups; want none", len(m.UVs), len(m.Normals), len(m.Groups))
			}
			checkExactPositions(t, data, m)
			// The same text with LF endings gives the same mesh.
			lf, err := ReadOBJ(bytes.NewReader(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))), path)
			if err != nil {
				t.Fatal(err)
			}
			checkSameMesh(t, lf, m)
			if s.firstFrame != "" {
				frame, err := LoadOBJ(filepath.Join(filepath.Dir(path), "frames", s.firstFrame))
				if err != nil {
					t.Fatal(err)
				}
				if err := m.SameTopology(frame); err != nil {
					t.Errorf("frame %s: %v", s.firstFrame, err)
				}
			}
		})
	}
}

// checkExactPositions checks the positions of m against a slow, obvious
// reading of the v lines of data with strings.Fields and strconv.
func checkExactPositions(t *testing.T, data []byte, m *Mesh) {
	t.Helper()
	i := 0
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "v" {
			continue
		}
		for k := 0; k < 3; k++ {
			want, err := strconv.ParseFloat(f[k+1], 64)
			if err != nil {
				t.Fatal(err)
			}
			if i >= len(m.Positions) || m.Positions[i][k] != want {
				t.Fatalf("vertex %d[%d]: got %v, want %v from %q", i, k, m.Positions[i], want, line)
			}
		}
		i++
	}
	if i != len(m.Positions) {
		t.Errorf("%d v lines, %d positions", i, len(m.Positions))
	}
}

func BenchmarkLoadOBJ(b *testing.B) {
	path := shareddata.Path(b, "horse-gallop", "reference.obj")
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadOBJ(path); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteOBJ(b *testing.B) {
	m, err := LoadOBJ(shareddata.Path(b, "horse-gallop", "reference.obj"))
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteOBJ(&buf, m, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
