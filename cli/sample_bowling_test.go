package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gallop/tools/gallery"
)

// TestSampleBowlingErrors: bad targets and λ give clear messages.
func TestSampleBowlingErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pins", "spare"}, "target name"},
		{[]string{"--pins", "ddddxddddd"}, "character 5 (pin 5)"},
		{[]string{"--pins", "??????????"}, "no pin is constrained"},
		{[]string{"--lambda", "1"}, "--lambda"},
	} {
		args := append([]string{"--scenario", "bowling", "--iterations", "1", "--chains", "1"}, c.args...)
		err := runSample(args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}

// TestSampleBowling runs a short chain for the 6-7 spare, reads its JSON
// report and checks that the kept samples are written as glTF files.
func TestSampleBowling(t *testing.T) {
	var out bytes.Buffer
	dir := t.TempDir()
	if err := runSample([]string{"--scenario", "bowling", "--pins", "6-7-spare", "--iterations", "10", "--chains", "1", "--json", "--out", dir, "--fps", "30"}, &out); err != nil {
		t.Fatal(err)
	}
	var rep gallery.ChainReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if rep.Iterations != 10 || rep.Seed != 1 {
		t.Errorf("report %+v", rep)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.glb"))
	if len(files) != min(rep.Distinct, 100) && rep.Distinct > 0 {
		t.Errorf("%d files for %d distinct samples", len(files), rep.Distinct)
	}
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
