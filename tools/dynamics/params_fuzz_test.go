package dynamics

import (
	"bytes"
	"strings"
	"testing"

	"gallop/internal/fuzzbound"
	"gallop/solver/dynskin"
)

// FuzzReadParams checks that ReadParams never panics, that its errors name
// the file, that what it accepts has every vertex's parameters within their
// bounds and writes back to the same, and that it allocates in proportion
// to its input and the mesh.
func FuzzReadParams(f *testing.F) {
	var good bytes.Buffer
	WriteParams(&good, dynskin.Uniform(3, dynskin.Material{Alpha: 0.2, Beta: 0.5, Gamma: 0.1, Lambda: 0.05, Kappa: 0.3}))
	for _, seed := range []string{
		good.String(),
		paramsHeader + "\n0,1,1,1,0.5,1\n",
		paramsHeader + "\n0,0.1,0.1,0.1,0.1,0.1\n0,0.1,0.1,0.1,0.1,0.1\n",
		paramsHeader + "\n5,0.1,0.1,0.1,0.1,0.1\n",
		paramsHeader + "\n0,nan,0.1,0.1,0.1,0.1\n",
		"vertex,alpha\n",
		"",
	} {
		f.Add([]byte(seed), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, nv uint8) {
		n := int(nv%16) + 1
		var p []dynskin.Material
		var err error
		fuzzbound.Check(t, len(data), 64, func() { p, err = ReadParams(bytes.NewReader(data), "params.csv", n) })
		if err != nil {
			if !strings.HasPrefix(err.Error(), "params.csv") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if len(p) != n {
			t.Fatalf("%d parameters for %d vertices", len(p), n)
		}
		if err := dynskin.CheckParams(p, n); err != nil {
			t.Fatalf("accepted parameters out of bounds: %v", err)
		}
		var back bytes.Buffer
		if err := WriteParams(&back, p); err != nil {
			t.Fatal(err)
		}
		q, err := ReadParams(&back, "back.csv", n)
		if err != nil {
			t.Fatalf("written back: %v", err)
		}
		for i := range p {
			if p[i] != q[i] {
				t.Fatalf("vertex %d: %+v written and read back as %+v", i, p[i], q[i])
			}
		}
	})
}
