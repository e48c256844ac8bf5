package synth

import (
	"context"
	"gallop/solver/synth"
	"math"
	"testing"
)

// TestResolutionIndependence: horse-gallop and the same motion on its mesh
// subdivided twice (sixteen times the triangles) with the same rig carried
// over give the same transitions and, seed for seed, the same walks and
// the same bone curves: synthesis works on bones and key vertices, the
// key vertices' weight gradients are means over a patch of surface of one
// size whatever the resolution, the rigid projection's centroids are area
// weighted and the pose distances are measured on a sample of at most
// 1,024 triangles. The curves are close rather than equal: the subdivided
// mesh has vertices between the plain one's where two bones weigh more
// evenly, so some key vertices of bone pairs move (by up to 0.04 of the
// diagonal) and a few keys are added. Measured: RMS 0.0009 in rotation
// entries and 0.0007 of the diagonal in translations, at most 0.03 and
// 0.012.
func TestResolutionIndependence(t *testing.T) {
	_, pa := analysed(t, "horse-gallop")
	plain := pa.Model
	dense := SubdivideModel(SubdivideModel(plain))
	var clips [2][]*synth.Clip
	var trans [2][]synth.Transition
	for k, m := range []*synth.Model{plain, dense} {
		a, err := synth.Analyze(context.Background(), m, synth.Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, err := Graphs(a, 0)
		if err != nil {
			t.Fatal(err)
		}
		trans[k] = g[0].Transitions
		s, err := a.NewSynthesizer(g, synth.Request{Frames: 300})
		if err != nil {
			t.Fatal(err)
		}
		for seed := range uint64(20) {
			c, err := s.Clip(context.Background(), seed+1)
			if err != nil {
				t.Fatal(err)
			}
			clips[k] = append(clips[k], c)
		}
	}
	t.Logf("%d and %d vertices; %d and %d transitions", len(plain.Rest), len(dense.Rest), len(trans[0]), len(trans[1]))
	if len(trans[0]) != len(trans[1]) {
		t.Fatalf("%d transitions on the plain mesh, %d on the subdivided one", len(trans[0]), len(trans[1]))
	}
	for k := range trans[0] {
		if trans[0][k].From != trans[1][k].From || trans[0][k].To != trans[1][k].To {
			t.Fatalf("transition %d: %d→%d plain, %d→%d subdivided", k, trans[0][k].From, trans[0][k].To, trans[1][k].From, trans[1][k].To)
		}
	}
	diag := clips[0][0].Analysis.Diagonal
	worstR, worstT := 0.0, 0.0
	sumR, sumT, cnt := 0.0, 0.0, 0
	for k, c := range clips[0] {
		d := clips[1][k]
		if !synth.SameWalks(c, d) {
			t.Fatalf("seed %d: the walks differ", c.Seed)
		}
		for f := range c.Bones {
			for b := range c.Bones[f] {
				x, y := c.Bones[f][b], d.Bones[f][b]
				for e := range 9 {
					worstR = max(worstR, math.Abs(x.R[e]-y.R[e]))
					sumR += (x.R[e] - y.R[e]) * (x.R[e] - y.R[e]) / 9
				}
				worstT = max(worstT, x.T.Sub(y.T).Len()/diag)
				sumT += x.T.Sub(y.T).LenSqr() / diag / diag
				cnt++
			}
		}
	}
	t.Logf("20 clips of 300 frames: largest bone matrix entry difference %.3g, translation %.3g of the diagonal (RMS %.3g, %.3g)", worstR, worstT, math.Sqrt(sumR/float64(cnt)), math.Sqrt(sumT/float64(cnt)))
	rmsR, rmsT := math.Sqrt(sumR/float64(cnt)), math.Sqrt(sumT/float64(cnt))
	if rmsR > 0.005 || rmsT > 0.002 || worstR > 0.05 || worstT > 0.02 {
		t.Errorf("bone curves differ by %.3g (RMS %.3g) in rotation entries and %.3g (RMS %.3g) of the diagonal in translations, want at most 0.05 (0.005) and 0.02 (0.002)", worstR, rmsR, worstT, rmsT)
	}
}
