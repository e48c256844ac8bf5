package csp

import (
	"context"
	"math"
	"testing"
)

// BenchmarkSatisfy measures the solver's own cost on a banner-sized line
// program (31 groups, τ_max = 30, 71 frames), where a pair test is a few
// floating-point operations: ns/local is the bookkeeping per LOCAL-SEARCH
// plus its cheap tests, tests/op the Program.Work per call.
func BenchmarkSatisfy(b *testing.B) {
	var local, work int64
	for i := 0; b.Loop(); i++ {
		p := banner(uint64(i%4), 31, 30, 71, 1, 0.5, 0.3)
		o, err := Satisfy(context.Background(), p, math.Inf(1), Options{C: 2, Eta: 50}, seeded(uint64(i)), nil)
		if err != nil {
			b.Fatal(err)
		}
		local += int64(o.Local)
		work += o.Work
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(local), "ns/local")
	b.ReportMetric(float64(work)/float64(b.N), "tests/op")
}
