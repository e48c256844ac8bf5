package dynamics

import (
	"bytes"
	"strings"
	"testing"

	"gallop/solver/dynskin"
)

// TestParamsRoundTrip: a parameters file reads back exactly, and bad
// files are refused naming the line.
func TestParamsRoundTrip(t *testing.T) {
	p := []dynskin.Material{{Alpha: 1}, {Alpha: 0.3, Beta: 1.0 / 3, Gamma: 0.7, Lambda: 0.25, Kappa: 0.125}}
	var b bytes.Buffer
	if err := WriteParams(&b, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadParams(bytes.NewReader(b.Bytes()), "p.csv", 2)
	if err != nil || back[0] != p[0] || back[1] != p[1] {
		t.Fatalf("read back %v, %v; wrote %v", back, err, p)
	}
	for _, c := range []struct{ text, want string }{
		{"vertex,a\n", "p.csv:1: header"},
		{"vertex,alpha,beta,gamma,lambda,kappa\n0,1,0,0,0,0\n", "p.csv: parameters for 1 vertex, the mesh has 2 (vertex 1 is missing)"},
		{"vertex,alpha,beta,gamma,lambda,kappa\n0,1,0,0,0,0\n0,1,0,0,0,0\n", "p.csv:3: vertex 0 given twice"},
		{"vertex,alpha,beta,gamma,lambda,kappa\n5,1,0,0,0,0\n", "p.csv:2: vertex \"5\" is not in [0, 2)"},
		{"vertex,alpha,beta,gamma,lambda,kappa\n0,1,x,0,0,0\n", "p.csv:2: beta \"x\" is not a number"},
		{"vertex,alpha,beta,gamma,lambda,kappa\n1,1,0,0,0,1.5\n", "p.csv:2: vertex 1: kappa = 1.5 is outside [0, 1]"},
	} {
		if _, err := ReadParams(strings.NewReader(c.text), "p.csv", 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.text, err, c.want)
		}
	}
}
