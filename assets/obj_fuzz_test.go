package assets

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"testing"
)

// FuzzReadOBJ checks that ReadOBJ never panics, that its errors are
// *ParseErrors naming the file and a line of it, that the meshes it accepts
// are valid, and that writing them and reading them back changes nothing.
func FuzzReadOBJ(f *testing.F) {
	for _, seed := range []string{
		"",
		"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
		"v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nf -3 -2 -1\r\n",
		"v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0 0\nvt 1 1\nvn 0 0 1\nf 1/1/1 2/2/1 3/2/1 4/1/1\n",
		"v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//1 2//1 3//1\n",
		"v 0 0 0 1 0.5 0.5 0.5\nv 1 0 0\nv 0 1 0\no body # c\nf 1 2 3\ng a b\nf 3 2 1\ng\nf 1 3 2\n",
		"# comment\n\nmtllib x.mtl\nusemtl m\ns 1\nv 1e-3 -2E+2 .5\nv 1 2 3\nv 4 5 6\nl 1 2\nf 1 2 3 #x\n",
		"f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\n",
		"v 0 0 0\nv 1 0",
		"v nan 0 0\n",
		"v 1 2 inf\n",
		"v 0 0 0\nf 0 1 1\n",
		"v 0 0 0\nf 1 1 9000\n",
		"v 0 0 0\nf 1 1\n",
		"v 0 0 0\nf 1/ 1 1\n",
		"v 0 0 0\nvt 0 0\nf 1/1 1 1\n",
		"v 0 0 0\nvt 0 0\nf 1 1 1\nf 1/1 1/1 1/1\n",
		"v 0 0 0\nf -2 -1 -1\n",
		"v a b c\n",
		"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1 2/2 3/3\n",
		"\ufeffv 0 0 0\nv 1 0 0\nv 0 1 0\ng a\nf 1 2 3\no a b\nf 1 2 3 1\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ReadOBJ(bytes.NewReader(data), "fuzz.obj")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			lines := bytes.Count(data, []byte("\n"))
			if len(data) > 0 && data[len(data)-1] != '\n' {
				lines++
			}
			if pe.File != "fuzz.obj" || pe.Line < 1 || pe.Line > max(lines, 1) {
				t.Fatalf("error %v at %s:%d; the file has %d lines", err, pe.File, pe.Line, lines)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid mesh: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteOBJ(&buf, m, nil); err != nil {
			t.Fatalf("WriteOBJ: %v", err)
		}
		back, err := ReadOBJ(&buf, "fuzz.obj")
		if err != nil {
			t.Fatalf("reading back: %v\n%s", err, buf.String())
		}
		for i, p := range m.Positions {
			for k := range p {
				if math.Float64bits(p[k]) != math.Float64bits(back.Positions[i][k]) {
					t.Fatalf("vertex %d changed from %v to %v", i, p, back.Positions[i])
				}
			}
		}
		got, want := normalizedMesh(back), normalizedMesh(m)
		cleanNames := true
		for g, grp := range m.Groups {
			cleanNames = cleanNames && objGroupName(grp.Name, g) == grp.Name
		}
		if !cleanNames {
			got.Groups, want.Groups = nil, nil
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip changed the mesh\n got: %+v\nwant: %+v", *got, *want)
		}
	})
}

// FuzzParseFloatField checks the OBJ reader's number parser against
// strconv.ParseFloat.
func FuzzParseFloatField(f *testing.F) {
	for _, seed := range []string{"0", "-0.022739015899999999", "1e23", "5e-324", "1.7976931348623159e308", "0x1p-2", "inf", "1_0", "."} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for i := 0; i < len(s); i++ {
			if isOBJSpace(s[i]) {
				t.Skip("not a field")
			}
		}
		checkParseFloatField(t, s)
	})
}
