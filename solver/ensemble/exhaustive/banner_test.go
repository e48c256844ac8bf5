package exhaustive

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
)

const bannerDir = "../../../../shared/data/ensemble-banner"

// loadBanner reads the banner's groups, attachments and the given frames
// (level/number), skipping the test when the data are absent.
func loadBanner(tb testing.TB, frames ...string) ([]Group, [][]mgl64.Vec3) {
	tb.Helper()
	rows := readCSV(tb, filepath.Join(bannerDir, "groups.csv"))
	var groups []Group
	index := map[string]int{}
	for _, r := range rows {
		first, _ := strconv.Atoi(r[1])
		count, _ := strconv.Atoi(r[2])
		index[r[0]] = len(groups)
		groups = append(groups, Group{First: first - 1, Count: count, Parent: -1})
		if r[3] != "" {
			groups[len(groups)-1].Parent = index[r[3]]
		}
	}
	for _, r := range readCSV(tb, filepath.Join(bannerDir, "attachments.csv")) {
		g := index[r[0]]
		vtx, _ := strconv.Atoi(r[1])
		pv, _ := strconv.Atoi(r[2])
		p := groups[g].Parent
		groups[g].Attach = append(groups[g].Attach, Attachment{Vertex: vtx - 1 - groups[g].First, ParentVertex: pv - 1 - groups[p].First})
	}
	var pos [][]mgl64.Vec3
	for n, name := range frames {
		vs, faces := readOBJ(tb, filepath.Join(bannerDir, name+".obj"))
		pos = append(pos, vs)
		if n > 0 {
			continue
		}
		for _, f := range faces {
			for g := range groups {
				if gr := &groups[g]; f[0] >= gr.First && f[0] < gr.First+gr.Count {
					gr.Triangles = append(gr.Triangles, [3]int{f[0] - gr.First, f[1] - gr.First, f[2] - gr.First})
				}
			}
		}
	}
	return groups, pos
}

func readCSV(tb testing.TB, path string) [][]string {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		tb.Skipf("no banner data: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	return rows[1:]
}

// readOBJ reads v and f lines (triangles, 1-based global indices).
func readOBJ(tb testing.TB, path string) ([]mgl64.Vec3, [][3]int) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var vs []mgl64.Vec3
	var faces [][3]int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 4 && fs[0] == "v" {
			var p mgl64.Vec3
			for k := range 3 {
				p[k], err = strconv.ParseFloat(fs[k+1], 64)
				if err != nil {
					tb.Fatal(err)
				}
			}
			vs = append(vs, p)
		} else if len(fs) == 4 && fs[0] == "f" {
			var t [3]int
			for k := range 3 {
				i, err := strconv.Atoi(strings.Split(fs[k+1], "/")[0])
				if err != nil {
					tb.Fatal(err)
				}
				t[k] = i - 1
			}
			faces = append(faces, t)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return vs, faces
}

// TestBanner: the source frames have no interpenetration (the data's
// README, checked independently in numpy), and without the sewn-vertex
// rule every flag touches the rope.
func TestBanner(t *testing.T) {
	names := []string{"wind-1/1", "wind-2/105", "wind-3/210", "wind-3/57"}
	groups, frames := loadBanner(t, names...)
	if len(groups) != 31 || len(frames[0]) != 2152 {
		t.Fatalf("%d groups, %d vertices", len(groups), len(frames[0]))
	}
	c, err := New(groups, len(frames[0]))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := c.Frames(frames)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames in %v on both cores", len(frames), time.Since(start))
	for f, pairs := range got {
		if len(pairs) != 0 {
			t.Errorf("%s: %v", names[f], pairs)
		}
	}
	for g := range groups {
		groups[g].Attach = nil
	}
	c, err = New(groups, len(frames[0]))
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := c.Frame(frames[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 30 || fmt.Sprint(pairs[0].K, pairs[29].K, pairs[29].L) != "0 0 30" {
		t.Errorf("unsewn: %v, want rope–flag for each of the 30 flags", pairs)
	}
}

// BenchmarkBannerFrame checks one banner frame (3,140 triangles, 31
// groups) on one core.
func BenchmarkBannerFrame(b *testing.B) {
	groups, frames := loadBanner(b, "wind-3/100")
	c, err := New(groups, len(frames[0]))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.Frame(frames[0]); err != nil {
			b.Fatal(err)
		}
	}
}
