package shard

import (
	"slices"
	"strings"
	"testing"
)

// TestRunRounds: the shards of a two-round plan write their rounds'
// files, a second-round shard reads the whole first round, Gather takes
// the units of the last round in order, and the prepared file is read by
// shards only, refused when made for other arguments.
func TestRunRounds(t *testing.T) {
	dir := t.TempDir()
	plan := Plan{Command: "ensemble build", Prepared: true, Rounds: 2}
	args := []string{"a", "b"}
	if plan.Words() != 2 {
		t.Fatalf("%q: %d words", plan.Command, plan.Words())
	}
	if err := (&Run{Plan: plan, Args: args, Dir: dir, Prepare: true}).WritePrepared(payload{Name: "prepared"}); err != nil {
		t.Fatal(err)
	}
	const total = 5
	for round := 1; round <= 2; round++ {
		for k := 1; k <= 2; k++ {
			r := &Run{Plan: plan, Args: args, Dir: dir, Shard: Spec{k, 2}, Round: round}
			var p payload
			if ok, err := r.ReadPrepared(&p); !ok || err != nil || p.Name != "prepared" {
				t.Fatalf("shard %d of round %d: prepared %v, %v, %+v", k, round, ok, err, p)
			}
			if round == 2 {
				if files, err := r.ReadRound(1); err != nil || len(files) != 2 {
					t.Fatalf("round 1 read by round 2: %v", err)
				}
			}
			lo, hi := r.Range(total)
			var vs []float64
			for u := lo; u < hi; u++ {
				vs = append(vs, float64(10*round+u))
			}
			if err := r.Write(total, payload{Values: vs}); err != nil {
				t.Fatal(err)
			}
		}
	}
	last, err := ReadSet([]string{FileName(dir, Spec{1, 2}), FileName(dir, Spec{2, 2})})
	if err != nil {
		t.Fatal(err)
	}
	units, err := Gather(last, "values", func(p *payload) []float64 { return p.Values })
	if err != nil || !slices.Equal(units, []float64{20, 21, 22, 23, 24}) {
		t.Fatalf("Gather = %v, %v", units, err)
	}
	if _, err := Gather(last, "values", func(p *payload) []float64 { return p.Values[1:] }); err == nil || !strings.Contains(err.Error(), "values, want") {
		t.Errorf("a file short of its block: %v", err)
	}
	whole := &Run{Plan: plan, Args: args, Dir: dir}
	if ok, err := whole.ReadPrepared(&payload{}); ok || err != nil {
		t.Errorf("the whole run read the prepared file: %v, %v", ok, err)
	}
	if lo, hi := whole.Range(total); lo != 0 || hi != total {
		t.Errorf("the whole run's range [%d %d)", lo, hi)
	}
	other := &Run{Plan: plan, Args: []string{"c"}, Dir: dir, Merged: last}
	if _, err := other.ReadPrepared(&payload{}); err == nil || !strings.Contains(err.Error(), "prepared for other settings") {
		t.Errorf("a prepared file of other arguments: %v", err)
	}
}
