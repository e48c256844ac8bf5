package collide

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/shareddata"
)

// objGroup is one `o` group of an OBJ file: its name, its first vertex
// (0-based, in the whole file) and its triangles in file-wide indices.
type objGroup struct {
	name      string
	first     int
	triangles [][3]int
}

// loadOBJ reads the `o`, `v` and `f` lines of a triangle-only OBJ file:
// just enough for these tests, independent of the assets package's reader.
// Faces before any `o` line form a group named "".
func loadOBJ(tb testing.TB, path string) ([]mgl64.Vec3, []objGroup) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var pos []mgl64.Vec3
	groups := []objGroup{{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && fields[0] == "o" {
			if g := &groups[len(groups)-1]; len(g.triangles) == 0 && g.name == "" {
				*g = objGroup{name: fields[1], first: len(pos)}
			} else {
				groups = append(groups, objGroup{name: fields[1], first: len(pos)})
			}
			continue
		}
		if len(fields) != 4 || (fields[0] != "v" && fields[0] != "f") {
			continue
		}
		var x [3]float64
		for i, s := range fields[1:] {
			s, _, _ = strings.Cut(s, "/")
			x[i], err = strconv.ParseFloat(s, 64)
			if err != nil {
				tb.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		if fields[0] == "v" {
			pos = append(pos, x)
		} else {
			g := &groups[len(groups)-1]
			g.triangles = append(g.triangles, [3]int{int(x[0]) - 1, int(x[1]) - 1, int(x[2]) - 1})
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return pos, groups
}

// loadHorse returns a frame of the horse gallop (8,431 vertices, 16,843
// triangles): name is "0001" ... "0048".
func loadHorse(tb testing.TB, name string) ([]mgl64.Vec3, [][3]int) {
	tb.Helper()
	pos, groups := loadOBJ(tb, shareddata.Path(tb, "horse-gallop", "frames", name+".obj"))
	return pos, groups[0].triangles
}

// translate returns pos moved by d.
func translate(pos []mgl64.Vec3, d mgl64.Vec3) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, len(pos))
	for i, p := range pos {
		out[i] = p.Add(d)
	}
	return out
}
