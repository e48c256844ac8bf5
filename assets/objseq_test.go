package assets

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gallop/internal/shareddata"
)

func TestCompareNatural(t *testing.T) {
	// Each list is in increasing order.
	lists := [][]string{
		{"1.obj", "2.obj", "9.obj", "10.obj", "11.obj", "100.obj"},
		{"0001.obj", "0002.obj", "0010.obj", "0048.obj"},
		{"frame_2.obj", "frame_12.obj", "frame_100.obj"},
		{"a.obj", "b.obj", "ba.obj", "c.obj"},
		{"frame.obj", "frame1.obj", "frame01.obj", "frame2.obj"},
		{"take1_frame10.obj", "take2_frame1.obj", "take2_frame2.obj"},
		{"", "0", "1", "a"},
		{"99999999999999999999999.obj", "100000000000000000000000.obj"},
	}
	for _, l := range lists {
		for i := range l {
			for j := range l {
				want := 0
				if i < j {
					want = -1
				} else if i > j {
					want = 1
				}
				if got := compareNatural(l[i], l[j]); got != want {
					t.Errorf("compareNatural(%q, %q) = %d, want %d", l[i], l[j], got, want)
				}
			}
		}
	}
}

// writeOBJTestFiles creates the named files, with the given content, under
// dir.
func writeOBJTestFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestListOBJSequence(t *testing.T) {
	dir := t.TempDir()
	writeOBJTestFiles(t, dir, map[string]string{
		"plain/10.obj": "", "plain/2.obj": "", "plain/1.obj": "", "plain/notes.txt": "", "plain/sub.obj/1.obj": "",
		"padded/0010.obj": "", "padded/0002.obj": "", "padded/0001.obj": "", "padded/0009.OBJ": "",
		"named/frame_12.obj": "", "named/frame_2.obj": "", "named/frame_1.obj": "",
		"words/walk.obj": "", "words/run.obj": "", "words/idle.obj": "",
		"empty/readme.txt": "",
	})
	join := func(sub string, names ...string) []string {
		var out []string
		for _, n := range names {
			out = append(out, filepath.Join(dir, sub, n))
		}
		return out
	}
	tests := []struct {
		name  string
		paths []string
		want  []string
	}{
		{"plain", []string{filepath.Join(dir, "plain")}, join("plain", "1.obj", "2.obj", "10.obj")},
		{"padded", []string{filepath.Join(dir, "padded")}, join("padded", "0001.obj", "0002.obj", "0009.OBJ", "0010.obj")},
		{"named", []string{filepath.Join(dir, "named")}, join("named", "frame_1.obj", "frame_2.obj", "frame_12.obj")},
		{"words", []string{filepath.Join(dir, "words")}, join("words", "idle.obj", "run.obj", "walk.obj")},
		{"files", join("plain", "10.obj", "notes.txt", "1.obj"), join("plain", "1.obj", "10.obj", "notes.txt")},
		{"folders", []string{filepath.Join(dir, "plain"), filepath.Join(dir, "named")},
			append(join("named", "frame_1.obj", "frame_2.obj", "frame_12.obj"), join("plain", "1.obj", "2.obj", "10.obj")...)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ListOBJSequence(tc.paths...)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %q\nwant %q", got, tc.want)
			}
		})
	}
	for _, paths := range [][]string{{filepath.Join(dir, "empty")}, nil} {
		if got, err := ListOBJSequence(paths...); err == nil {
			t.Errorf("ListOBJSequence(%q) = %q, want an error", paths, got)
		}
	}
	if _, err := ListOBJSequence(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing folder: error %v, want not-exist", err)
	}
}

func TestListOBJSequenceSharedData(t *testing.T) {
	for _, set := range []struct {
		name        string
		n           int
		first, last string
	}{
		{"horse-gallop", 48, "0001.obj", "0048.obj"},
		{"horse-poses", 10, "1.obj", "10.obj"},
		{"pcow", 204, "1.obj", "204.obj"},
	} {
		files, err := ListOBJSequence(shareddata.Path(t, set.name, "frames"))
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != set.n || filepath.Base(files[0]) != set.first || filepath.Base(files[len(files)-1]) != set.last {
			t.Errorf("%s: %d files from %s to %s, want %d from %s to %s", set.name,
				len(files), filepath.Base(files[0]), filepath.Base(files[len(files)-1]), set.n, set.first, set.last)
		}
	}
}

// squareOBJ returns an OBJ text of a unit square (two triangles) moved by dx.
func squareOBJ(dx float64) string {
	return fmt.Sprintf("v %g 0 0\nv %g 0 0\nv %g 1 0\nv %g 1 0\nf 1 2 3\nf 1 3 4\n", dx, dx+1, dx+1, dx)
}

func TestLoadOBJSequence(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "walk")
	files := map[string]string{}
	for i := 1; i <= 12; i++ {
		files[fmt.Sprintf("%d.obj", i)] = squareOBJ(float64(i))
	}
	writeOBJTestFiles(t, dir, files)
	list, err := ListOBJSequence(dir)
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		calls []int
	)
	m, clip, err := LoadOBJSequence(context.Background(), list, func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if total != 12 {
			t.Errorf("progress total %d, want 12", total)
		}
		calls = append(calls, done)
	})
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "walk" || clip.Name != "walk" || clip.FPS != DefaultFPS || clip.NumFrames() != 12 {
		t.Errorf("mesh %q, clip %q at %v fps with %d frames; want walk, walk, %v, 12", m.Name, clip.Name, clip.FPS, clip.NumFrames(), float64(DefaultFPS))
	}
	if want := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}; !slices.Equal(calls, want) {
		t.Errorf("progress calls %v, want %v", calls, want)
	}
	for i, f := range clip.Frames {
		if x := float64(i + 1); f[0] != (Vec3{x, 0, 0}) || f[2] != (Vec3{x + 1, 1, 0}) {
			t.Errorf("frame %d: %v, want the square at x = %v", i, f, x)
		}
	}
	if !reflect.DeepEqual(m.Triangles, [][3]int{{0, 1, 2}, {0, 2, 3}}) || !reflect.DeepEqual(m.Positions, clip.Frames[0]) {
		t.Errorf("mesh %+v, want the first frame", *m)
	}
	if err := (&Object{Mesh: m, Clip: clip}).Validate(); err != nil {
		t.Error(err)
	}
	m.Positions[0][0] = 99
	if clip.Frames[0][0][0] == 99 {
		t.Error("the mesh's positions are shared with the clip's first frame")
	}
	// No progress function.
	if _, clip, err := LoadOBJSequence(context.Background(), list[:1], nil); err != nil || clip.NumFrames() != 1 {
		t.Errorf("one frame without progress: %v, %v", clip, err)
	}
}

func TestLoadOBJSequenceErrors(t *testing.T) {
	dir := t.TempDir()
	good := squareOBJ(0)
	tests := []struct {
		name  string
		frame string // replaces frame 7 of 9
		msg   string // after the frame's path
	}{
		{"fewer vertices", "v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1 2 3\nf 1 3 2\n", ": does not match the first frame %s: 3 vertices, want 4"},
		{"more triangles", good + "f 2 3 4\n", ": does not match the first frame %s: 3 triangles, want 2"},
		{"other faces", strings.Replace(good, "f 1 3 4", "f 1 4 3", 1), ": does not match the first frame %s: triangle 1 is [0 3 2], want [0 2 3]"},
		{"parse error", strings.Replace(good, "v 0 1 0", "v 0 one 0", 1), `:4: vertex: "one" is not a number`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sub := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
			files := map[string]string{}
			for i := 1; i <= 9; i++ {
				files[fmt.Sprintf("%04d.obj", i)] = good
			}
			files["0007.obj"] = tc.frame
			writeOBJTestFiles(t, sub, files)
			list, err := ListOBJSequence(sub)
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = LoadOBJSequence(context.Background(), list, nil)
			want := list[6] + tc.msg
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, list[0])
			}
			if err == nil || err.Error() != want {
				t.Errorf("error %v\nwant %s", err, want)
			}
		})
	}
	t.Run("bad first frame", func(t *testing.T) {
		sub := filepath.Join(dir, "bad-first")
		writeOBJTestFiles(t, sub, map[string]string{"1.obj": "v 0 0\n", "2.obj": good, "3.obj": good})
		list, _ := ListOBJSequence(sub)
		if _, _, err := LoadOBJSequence(context.Background(), list, nil); err == nil || !strings.HasPrefix(err.Error(), list[0]+":1: ") {
			t.Errorf("error %v, want one at %s:1", err, list[0])
		}
	})
	t.Run("missing file", func(t *testing.T) {
		missing := filepath.Join(dir, "gone.obj")
		if _, _, err := LoadOBJSequence(context.Background(), []string{missing}, nil); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("error %v, want not-exist", err)
		}
	})
	t.Run("no files", func(t *testing.T) {
		if _, _, err := LoadOBJSequence(context.Background(), nil, nil); err == nil {
			t.Error("no error for an empty sequence")
		}
	})
}

func TestLoadOBJSequenceCancel(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := 1; i <= 50; i++ {
		files[fmt.Sprintf("%d.obj", i)] = squareOBJ(0)
	}
	writeOBJTestFiles(t, dir, files)
	list, err := ListOBJSequence(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		calls := 0
		_, _, err := LoadOBJSequence(ctx, list, func(int, int) { calls++ })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want %v", err, context.Canceled)
		}
		if calls != 0 {
			t.Errorf("%d progress calls after cancellation", calls)
		}
	})
	t.Run("during", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		last := 0
		_, _, err := LoadOBJSequence(ctx, list, func(done, total int) {
			last = done
			if done == 3 {
				cancel()
			}
		})
		if err != context.Canceled {
			t.Errorf("error %v, want %v", err, context.Canceled)
		}
		// Only a worker waiting to report when the third report cancelled
		// may still report.
		if want := 3 + runtime.GOMAXPROCS(0) - 1; last > want {
			t.Errorf("%d frames reported after cancelling at 3, want at most %d", last, want)
		}
	})
	t.Run("deadline", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		if _, _, err := LoadOBJSequence(ctx, list, nil); err != context.DeadlineExceeded {
			t.Errorf("error %v, want %v", err, context.DeadlineExceeded)
		}
	})
}

func TestLoadOBJSequenceCancelPrompt(t *testing.T) {
	list, err := ListOBJSequence(shareddata.Path(t, "horse-gallop", "frames"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	last := 0
	_, _, err = LoadOBJSequence(ctx, list, func(done, total int) {
		last = done
		if done == 1 {
			cancel()
		}
	})
	if err != context.Canceled {
		t.Fatalf("error %v, want %v", err, context.Canceled)
	}
	// A worker waiting to report a frame when the first report cancelled
	// may still report it; no other frame may finish.
	if workers := runtime.GOMAXPROCS(0); last > workers {
		t.Errorf("%d frames reported after cancelling at the first, want at most %d", last, workers)
	}
}

func TestParseOBJCancel(t *testing.T) {
	// A file long enough for the parser to check ctx part way.
	data := []byte(strings.Repeat("v 1 2 3\n", 1<<15))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := parseOBJ(ctx, data, "long.obj", nil); err != context.Canceled {
		t.Errorf("error %v, want %v", err, context.Canceled)
	}
	if m, err := parseOBJ(context.Background(), data, "long.obj", nil); err != nil || m.NumVertices() != 1<<15 {
		t.Errorf("not cancelled: %v", err)
	}
}

func TestLoadOBJSequenceSharedData(t *testing.T) {
	for _, set := range []struct {
		name   string
		frames int
		nv, nf int
	}{
		{"horse-gallop", 48, 8431, 16843},
		{"horse-poses", 10, 8431, 16843},
		{"lion-poses", 9, 5000, 9996},
		{"cat-poses", 9, 7207, 14410},
		{"pcow", 204, 2904, 5804},
	} {
		t.Run(set.name, func(t *testing.T) {
			list, err := ListOBJSequence(shareddata.Path(t, set.name, "frames"))
			if err != nil {
				t.Fatal(err)
			}
			m, clip, err := LoadOBJSequence(context.Background(), list, nil)
			if err != nil {
				t.Fatal(err)
			}
			if clip.NumFrames() != set.frames || m.NumVertices() != set.nv || m.NumTriangles() != set.nf {
				t.Errorf("%d frames of %d vertices, %d triangles; want %d of %d, %d",
					clip.NumFrames(), m.NumVertices(), m.NumTriangles(), set.frames, set.nv, set.nf)
			}
			if err := (&Object{Mesh: m, Clip: clip}).Validate(); err != nil {
				t.Error(err)
			}
			for _, i := range []int{0, set.frames / 2, set.frames - 1} {
				f, err := LoadOBJ(list[i])
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(f.Positions, clip.Frames[i]) {
					t.Errorf("frame %d differs from %s", i, list[i])
				}
			}
			ref, err := LoadOBJ(shareddata.Path(t, set.name, "reference.obj"))
			if err != nil {
				t.Fatal(err)
			}
			if err := ref.SameTopology(m); err != nil {
				t.Errorf("frames do not match reference.obj: %v", err)
			}
		})
	}
}

func BenchmarkLoadOBJSequence(b *testing.B) {
	list, err := ListOBJSequence(shareddata.Path(b, "horse-gallop", "frames"))
	if err != nil {
		b.Fatal(err)
	}
	var size int64
	for _, f := range list {
		fi, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := LoadOBJSequence(context.Background(), list, nil); err != nil {
			b.Fatal(err)
		}
	}
}
