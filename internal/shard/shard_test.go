package shard

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRangeTiles(t *testing.T) {
	for _, total := range []int{0, 1, 7, 8, 40, 1001} {
		for n := 1; n <= 9; n++ {
			next := 0
			for k := 1; k <= n; k++ {
				lo, hi := Spec{k, n}.Range(total)
				if lo != next || hi < lo || hi-lo > total/n+1 {
					t.Fatalf("total %d, shard %d/%d: [%d %d) after %d", total, k, n, lo, hi, next)
				}
				next = hi
			}
			if next != total {
				t.Fatalf("total %d in %d shards ends at %d", total, n, next)
			}
		}
	}
}

func TestParse(t *testing.T) {
	if s, err := Parse("2/4"); err != nil || s != (Spec{2, 4}) {
		t.Fatalf("2/4: %v %v", s, err)
	}
	for _, bad := range []string{"", "2", "0/4", "5/4", "a/4", "1/0", "-1/3"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestStrip(t *testing.T) {
	got := Strip([]string{"--scenario", "spell", "--shard", "2/4", "--shard-dir=/x", "--prepare", "--shard-round", "1", "--json", "-shard=1/2", "--", "--shard"})
	want := []string{"--scenario", "spell", "--json", "--", "--shard"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

type payload struct {
	Values []float64
	Name   string
}

// TestSetRoundTrip writes a run of three shards and reads it back bit for
// bit, then breaks it each way ReadSet must refuse.
func TestSetRoundTrip(t *testing.T) {
	dir := t.TempDir()
	args := []string{"--count", "7"}
	write := func(dir string, k, n int, args []string) string {
		s := Spec{k, n}
		lo, hi := s.Range(7)
		h := Header{Kind: KindShard, Command: "synth", Args: args, Shard: k, Of: n, Units: [2]int{lo, hi}, Total: 7}
		p := FileName(dir, s)
		if err := Write(p, h, payload{Values: []float64{math.Pi, math.Copysign(0, -1), math.Inf(1), float64(k)}, Name: "x"}); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var paths []string
	for k := 3; k >= 1; k-- {
		paths = append(paths, write(dir, k, 3, args))
	}
	files, err := ReadSet(paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range files {
		var p payload
		if err := f.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if f.Shard != i+1 || p.Values[0] != math.Pi || !math.Signbit(p.Values[1]) || !math.IsInf(p.Values[2], 1) || p.Values[3] != float64(i+1) {
			t.Fatalf("shard %d: %+v %+v", i+1, f.Header, p)
		}
	}
	if _, err := ReadSet(paths[:2]); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "shard 1 of 3 missing") {
		t.Errorf("missing shard: %v", err)
	}
	// A file claiming a huge number of shards: a short answer, at once.
	huge := write(t.TempDir(), 2, 1_000_000_000_000, args)
	if _, err := ReadSet([]string{huge}); !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "shard 1, 3, 4, 5, 6, 7, 8, 9, 10, 11 and 999999999989 more of 1000000000000 missing") {
		t.Errorf("a huge shard count: %v", err)
	}
	if _, err := ReadSet(append(paths, paths[0])); err == nil || !strings.Contains(err.Error(), "shard 3 of 3 given twice") {
		t.Errorf("duplicate shard: %v", err)
	}
	other := write(t.TempDir(), 2, 3, []string{"--count", "8"})
	if _, err := ReadSet([]string{paths[0], other, paths[2]}); err == nil || !strings.Contains(err.Error(), other) || !strings.Contains(err.Error(), "another run") {
		t.Errorf("other settings: %v", err)
	}
	bad := filepath.Join(dir, "bad.gsh")
	os.WriteFile(bad, []byte("{\"format\":\"something else\"}\n"), 0o644)
	if _, err := ReadSet([]string{bad}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("not a shard file: %v", err)
	}
}
