package shard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gallop/internal/fuzzbound"
)

// FuzzRead checks that a file's header and payload (parse, Decode) and a
// set of two copies of it (checkSet, as ReadSet checks them) never panic,
// that their errors name the file or the shard, that they do not loop
// over what the header claims (10¹² shards among them) and that they
// allocate in proportion to the file.
func FuzzRead(f *testing.F) {
	dir := f.TempDir()
	good := filepath.Join(dir, "good")
	if err := Write(good, Header{Kind: KindShard, Command: "sample", Args: []string{"--count", "7"}, Shard: 1, Of: 1, Units: [2]int{0, 7}, Total: 7}, payload{Values: []float64{1, 2}, Name: "x"}); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(strings.Replace(string(data), `"of":1`, `"of":1000000000000`, 1)))
	f.Add([]byte(`{"format":"gallop-shard","version":1,"kind":"prepared","command":"synth","args":[],"shard":0,"of":0,"units":[0,0],"total":0}` + "\n"))
	f.Add([]byte("not a shard"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		fuzzbound.Check(t, len(data), 64, func() {
			file, err := parse("shard-file", data)
			if err != nil {
				if !strings.Contains(err.Error(), "shard-file") {
					t.Fatalf("error %q does not name the file", err)
				}
				return
			}
			var p payload
			file.Decode(&p)
			if file.Kind != KindShard {
				return
			}
			other := *file
			other.Path = "other-file"
			if _, err := checkSet([]*File{file, &other}); err != nil && !strings.Contains(err.Error(), "file") && !strings.Contains(err.Error(), "shard") {
				t.Fatalf("checkSet: error %q names neither a file nor a shard", err)
			}
		})
		// A bound that fails only on a real hang (a loop over the
		// header's 10¹² shards), not on a loaded machine.
		if d := time.Since(start); d > time.Minute {
			t.Fatalf("reading took %v", d)
		}
	})
}
