package ensemble

import (
	"encoding/json"
	"strings"
	"testing"

	"gallop/internal/fuzzbound"
)

// FuzzParseGraph checks that a graph file's reader never panics, names the
// file in its errors, allocates in proportion to the file, and accepts only
// records whose states lie in their levels and whose offsets fit the
// groups.
func FuzzParseGraph(f *testing.F) {
	good := GraphFile{Format: GraphFormat, Version: GraphVersion, Levels: []string{"a", "b"}, Frames: []int{10, 12}, GroupCount: 2,
		Components: [][][2]int{{{0, 9}}, {{0, 11}}}, Cut: []bool{false, false},
		Transitions: []TransitionRecord{{From: [2]int{0, 3}, To: [2]int{1, 5}, Tau: []int{0, 1}, Blend: []int{4, 4}, Phi: 1, Phi0: 2}}}
	data, err := json.Marshal(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(strings.Replace(string(data), `"frames":[10,12]`, `"frames":[10,1000000000000]`, 1)))
	f.Add([]byte(`{"format":"gallop-ensemble-graph","version":1}`))
	f.Add([]byte("{"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g *GraphFile
		var err error
		fuzzbound.Check(t, len(data), 256, func() { g, err = parseGraph("graph-file", data) })
		if err != nil {
			if !strings.Contains(err.Error(), "graph-file") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(g.Frames) != len(g.Levels) || len(g.Levels) == 0 || g.GroupCount < 1 {
			t.Fatalf("accepted %d levels, %d frame counts, %d groups", len(g.Levels), len(g.Frames), g.GroupCount)
		}
		for _, tr := range g.Transitions {
			for _, s := range [][2]int{tr.From, tr.To} {
				if s[0] < 0 || s[0] >= len(g.Levels) || s[1] < 0 || s[1] >= g.Frames[s[0]] {
					t.Fatalf("accepted state %v of %d levels of %v frames", s, len(g.Levels), g.Frames)
				}
			}
			if len(tr.Tau) != g.GroupCount {
				t.Fatalf("accepted %d offsets for %d groups", len(tr.Tau), g.GroupCount)
			}
		}
	})
}
