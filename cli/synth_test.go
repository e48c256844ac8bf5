package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"gallop/assets/gltftest"
	tsynth "gallop/tools/synth"
)

// TestSynthPcow runs `gallop synth` on pcow for 6 clips of 4 s with
// files: every clip distinct, of 120 frames, with splices, its skinned
// file valid; the figures in the JSON within the bars.
func TestSynthPcow(t *testing.T) {
	dir := sharedSet(t, "pcow")
	out := t.TempDir()
	var stdout bytes.Buffer
	if err := runSynth([]string{filepath.Join(dir, "frames"), "--count", "6", "--seconds", "4", "--out", out, "--json"}, &stdout); err != nil {
		t.Fatal(err)
	}
	var r tsynth.Report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("%v: %s", err, stdout.Bytes())
	}
	t.Logf("%d candidates, graph %d nodes (%d in the largest component), mean splice ratio %.3f, %.1f%% over 1.5, edge ratio %.3f; analysis %.2f s, synthesis %.3f s",
		r.Candidates, r.Nodes, r.SCCNodes, r.MeanSpliceAccRatio, 100*r.SplicesOver15, r.MaxEdgeRatio, r.AnalysisSeconds, r.SynthesisSeconds)
	if r.Bones != 20 || len(r.Clips) != 6 || r.Distinct != 6 || r.Candidates == 0 || r.SCCNodes == 0 || r.SCCNodes > r.Nodes {
		t.Errorf("figures %+v", r)
	}
	for _, c := range r.Clips {
		if c.Frames != 120 || c.Splices == 0 || c.File == "" {
			t.Errorf("clip %+v", c)
		}
	}
	if r.MaxEdgeRatio > 1.2 || r.SplicesOver15 > 0.05 {
		t.Errorf("quality: edge ratio %.3f, %.1f%% of splices over 1.5", r.MaxEdgeRatio, 100*r.SplicesOver15)
	}
	gltftest.Validate(t, r.Clips[0].File)
}

// TestSynthBadInput (acceptance 7 of issue 12): fewer than 10 frames (the
// nine cat poses), a threshold with no transitions, targets that cannot
// be met: each a clear error.
func TestSynthBadInput(t *testing.T) {
	cat := sharedSet(t, "cat-poses")
	pcow := filepath.Join(sharedSet(t, "pcow"), "frames")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(cat, "frames")}, "fewer than 10 frames"},
		{[]string{pcow, "--threshold", "1e-9"}, "no transition joins frames within 1e-09 steps of each other; the candidates lie"},
		{[]string{pcow, "--target", "10@100", "--target", "10@101"}, "targeted frames cannot be met"},
		{[]string{pcow, "--target", "ten"}, "want INPUT@OUTPUT"},
		{[]string{pcow, "--blend", "cubic"}, "unknown blend"},
	} {
		err := runSynth(append(tc.args, "--count", "1", "--seconds", "5"), &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want an error saying %q", tc.args, err, tc.want)
		} else {
			t.Logf("%v: %v", tc.args[1:], err)
		}
	}
}
