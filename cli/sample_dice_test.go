package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"gallop/tools/gallery"
)

// TestSampleDiceErrors: bad dice options give clear messages.
func TestSampleDiceErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--face", "7"}, "face 7 does not exist"},
		{[]string{"--face", "0"}, "face 0 does not exist"},
		{[]string{"--lambda", "0.5"}, "--lambda"},
		{[]string{"--die-target", "0.5,0"}, "off the table"},
		{[]string{"--die-target", "0.1"}, "--die-target"},
		{[]string{"--die-target", "x,0"}, `"x" is not a number`},
		{[]string{"--die-sigma", "-1"}, "σ"},
		{[]string{"--die-weights", "0,0,0"}, "every proposal weight is 0"},
	} {
		args := append([]string{"--scenario", "dice", "--iterations", "1", "--chains", "1"}, c.args...)
		err := runSample(args, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one mentioning %q", c.args, err, c.want)
		}
	}
}

// TestSampleDice runs a short dice chain and reads its JSON report.
func TestSampleDice(t *testing.T) {
	var out bytes.Buffer
	if err := runSample([]string{"--scenario", "dice", "--face", "3", "--die-target", "0.05,0.02", "--lambda", "20", "--iterations", "20", "--chains", "1", "--json"}, &out); err != nil {
		t.Fatal(err)
	}
	var rep gallery.ChainReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("%q: %v", out.String(), err)
	}
	if rep.Iterations != 20 || rep.Seed != 1 {
		t.Errorf("report %+v", rep)
	}
}
