package synth

import (
	"context"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestBlendComparison is the comparison the paper makes (Section 3.3,
// Figure 6), on horse-gallop: splices forced between frames whose bones
// lie at least 40° apart on average, every other pair of frames. The
// default blend (gradient domain, bones projected to rigid motions) must
// bend the mesh less than the per-vertex crossfade (excess edge strain at
// most 0.8 of it) and than the per-coordinate blend of the bones (at most
// 0.7), and jerk no more than the crossfade (mean acceleration ratio at
// most 1.1 of it).
func TestBlendComparison(t *testing.T) {
	a := analysis(t, "horse-gallop", Options{})
	figures := func(req Request) (float64, float64, float64) {
		fs, err := a.Splices(req, 40, math.Inf(1), 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) < 50 {
			t.Fatalf("%d splices of at least 40°", len(fs))
		}
		m := MeanSplice(fs)
		return m.Strain, m.Volume, m.Accel
	}
	gs, gv, ga := figures(Request{})
	cs, cv, ca := figures(Request{Blend: BlendCrossfade, Affine: true})
	ks, kv, ka := figures(Request{Blend: BlendCoordinates})
	t.Logf("strain / volume / acceleration: gradient %.4f / %.4f / %.3f, per-vertex crossfade %.4f / %.4f / %.3f, per-coordinate %.4f / %.4f / %.3f",
		gs, gv, ga, cs, cv, ca, ks, kv, ka)
	if gs > 0.8*cs {
		t.Errorf("the gradient blend's strain is %.2f of the crossfade's, want at most 0.8", gs/cs)
	}
	if gs > 0.7*ks {
		t.Errorf("the gradient blend's strain is %.2f of the per-coordinate blend's, want at most 0.7", gs/ks)
	}
	if ga > 1.1*ca {
		t.Errorf("the gradient blend's acceleration is %.2f of the crossfade's, want at most 1.1", ga/ca)
	}
}

// TestNoReflections (issue 24, acceptance 2): in 100 clips of pcow and of
// horse-gallop, with every blend, every bone at every frame is a proper
// rotation (orthonormal to 10⁻⁹, determinant +1) and a translation: the
// splices' blended bones are projected to rigid motions, and none
// mirrors.
func TestNoReflections(t *testing.T) {
	for _, name := range []string{"pcow", "horse-gallop"} {
		a := analysis(t, name, Options{})
		for b := range Blends {
			s, err := a.NewSynthesizer(graphs(t, a), Request{Frames: 300, Blend: Blend(b)})
			if err != nil {
				t.Fatal(err)
			}
			seeds := make([]uint64, 100)
			for k := range seeds {
				seeds[k] = uint64(k + 1)
			}
			clips, err := s.Clips(context.Background(), seeds, nil)
			if err != nil {
				t.Fatal(err)
			}
			worst, minDet := 0.0, math.Inf(1)
			for _, c := range clips {
				for _, f := range c.Bones {
					for _, x := range f {
						d := x.R.Transpose().Mul3(x.R).Sub(mgl64.Ident3())
						for _, e := range d {
							worst = max(worst, math.Abs(e))
						}
						minDet = min(minDet, x.R.Det())
					}
				}
			}
			if worst > 1e-9 || minDet < 1-1e-9 {
				t.Errorf("%s, %s: bones orthonormal to %.3g, least determinant %.6f", name, Blend(b), worst, minDet)
			}
		}
	}
}
