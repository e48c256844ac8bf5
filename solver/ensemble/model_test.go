package ensemble

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// groupError returns, per group, the largest over the source frames of
// ‖x_rec − x‖ over the group's 3v_k coordinates, and the largest single
// vertex error over everything.
func groupError(m *Model) (perGroup []float64, vertex float64) {
	d := m.Dataset()
	perGroup = make([]float64, len(d.Groups))
	ps := m.NewPoser()
	var x []mgl64.Vec3
	for l, lv := range d.Levels {
		for f, src := range lv.Frames {
			x = ps.Pose(x, State{l, f})
			for k, g := range d.Groups {
				ss := 0.0
				for v := g.First; v < g.First+g.Count; v++ {
					e := x[v].Sub(src[v]).LenSqr()
					ss += e
					vertex = max(vertex, math.Sqrt(e))
				}
				perGroup[k] = max(perGroup[k], math.Sqrt(ss))
			}
		}
	}
	return perGroup, vertex
}

// dropped returns σ_{r+1}, the largest singular value group k drops (0
// when it keeps them all).
func dropped(m *Model, k int) float64 {
	s := m.SingularValues(k)
	if m.Rank(k) < len(s) {
		return s[m.Rank(k)]
	}
	return 0
}

// TestReproducesSources: every reconstructed source frame is within the
// PCA truncation bound of the data, per group ‖x_rec − x‖ ≤ σ_{r_k+1}
// (the largest dropped singular value: the residual (I − UUᵀ)u of a column
// of A is at most ‖(I − UUᵀ)A‖₂), and with threshold 0 equal to rounding.
func TestReproducesSources(t *testing.T) {
	d := synthetic(2, motion{})
	for _, c := range []struct {
		name      string
		threshold float64
	}{{"default", 0}, {"1e-2", 1e-2}, {"exact", -1}} {
		m := model(t, d, Options{Threshold: c.threshold})
		errs, vertex := groupError(m)
		truncated := false
		for k := range d.Groups {
			bound := dropped(m, k)
			truncated = truncated || bound > 0
			if c.threshold < 0 {
				bound = 1e-13
			}
			if errs[k] > bound*(1+1e-9)+1e-14 {
				t.Errorf("%s: group %q: error %.3g above σ_{r+1} = %.3g (rank %d)", c.name, d.Groups[k].Name, errs[k], bound, m.Rank(k))
			}
			if c.threshold >= 0 {
				// The rank keeps at least the singular values whose
				// dropped ones hold at most Threshold of the energy
				// (more where the steps need them: TestStepsWithinData).
				s, r, thr := m.SingularValues(k), m.Rank(k), m.Options().Threshold
				total, tail := 0.0, 0.0
				for i, x := range s {
					total += x * x
					if i >= r {
						tail += x * x
					}
				}
				if tail > thr*total {
					t.Errorf("%s: group %q keeps %d of %d singular values, dropping %.3g of the energy (threshold %g)", c.name, d.Groups[k].Name, r, len(s), tail/total, thr)
				}
			}
		}
		if c.name == "1e-2" && !truncated {
			t.Errorf("threshold 1e-2 truncated nothing")
		}
		t.Logf("%s: ranks %v, largest vertex error %.3g", c.name, m.Ranks(), vertex)
	}
}

// TestStepsWithinData: the reconstructed source frames of every group step
// no further than the data's own largest step (the ranks are raised above
// the threshold's until they do), and on the synthetic ensemble the
// threshold's ranks alone would not: some group's rank is raised.
func TestStepsWithinData(t *testing.T) {
	d := synthetic(2, motion{})
	for _, th := range []float64{0, 1e-2} {
		m := model(t, d, Options{Threshold: th})
		raised := 0
		for k, limit := range m.StepLimits() {
			if data := m.MaxSteps()[k]; limit > data*(1+1e-9) {
				t.Errorf("threshold %g: group %q steps %.6g in the model, %.6g in the data", th, d.Groups[k].Name, limit, data)
			}
			g := &m.groups[k]
			if m.Rank(k) > truncation(g.Sigma, m.opts.Threshold, g.Rest, m.states()) {
				raised++
			}
		}
		if raised == 0 {
			t.Errorf("threshold %g: no rank raised for the steps", th)
		}
		t.Logf("threshold %g: ranks %v, %d raised", th, m.Ranks(), raised)
	}
}

// TestRigidEnsembleConstantQ: groups that keep one deformed shape while
// the whole ensemble turns and moves rigidly have constant q and q̇ = 0,
// own frames of children fixed relative to their parents, and D_k = 0
// for every group but the root frames that move.
func TestRigidEnsembleConstantQ(t *testing.T) {
	d := rigidSynthetic(2)
	m := model(t, d, Options{})
	for k, g := range d.Groups {
		q0 := m.Q(k, State{0, 0})
		scale := 1.0
		for _, v := range q0 {
			scale = max(scale, math.Abs(v))
		}
		for l, lv := range d.Levels {
			for f := range lv.Frames {
				s := State{l, f}
				for c, v := range m.Q(k, s) {
					if math.Abs(v-q0[c]) > 1e-11*scale {
						t.Fatalf("group %q: q[%d] at %+v is %g, at the first frame %g", g.Name, c, s, v, q0[c])
					}
					if qd := m.QDot(k, s)[c]; math.Abs(qd) > 1e-9*scale {
						t.Fatalf("group %q: q̇[%d] at %+v is %g", g.Name, c, s, qd)
					}
				}
			}
		}
		if m.Rank(k) > 1 {
			t.Errorf("group %q: rank %d for a constant shape", g.Name, m.Rank(k))
		}
		dk := m.D(k, State{0, 5}, State{1, 60})
		if g.Parent >= 0 && math.Abs(dk) > 1e-16*float64(g.Count) {
			t.Errorf("child %q: D = %g", g.Name, dk)
		}
		if g.Parent < 0 && !(dk > 1e-3) {
			t.Errorf("root %q moves rigidly but D = %g", g.Name, dk)
		}
	}
}

// TestDKnownAnswer: a group whose only motion is a uniform scaling about
// its centroid, x = c + (1 + a(t))(p − c), has R = I, u = a(t)(p − c),
// rank 1 and D(i, j) = ‖p − c‖²((a_i − a_j)² + β²(ȧ_i − ȧ_j)²) with the
// backward difference ȧ.
func TestDKnownAnswer(t *testing.T) {
	rest := []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 1}, {1, 1, 1}}
	d := &Dataset{FPS: 30, Rest: rest, Groups: []Group{{Name: "blob", Count: 5, Parent: -1, Triangles: [][3]int{{0, 1, 2}, {0, 1, 3}, {1, 2, 4}}}}}
	var c mgl64.Vec3
	for _, p := range rest {
		c = c.Add(p.Mul(0.2))
	}
	norm2 := 0.0
	for _, p := range rest {
		norm2 += p.Sub(c).LenSqr()
	}
	a := func(f int) float64 { return 0.1 * math.Sin(0.2*float64(f)) }
	lv := Level{Name: "one"}
	for f := range 90 {
		x := make([]mgl64.Vec3, 5)
		for v, p := range rest {
			x[v] = c.Add(p.Sub(c).Mul(1 + a(f)))
		}
		lv.Frames = append(lv.Frames, x)
	}
	d.Levels = []Level{lv}
	m := model(t, d, Options{Beta: 0.25})
	if m.Rank(0) != 1 {
		t.Fatalf("rank %d, want 1", m.Rank(0))
	}
	for _, ij := range [][2]int{{10, 40}, {0, 7}, {33, 33}, {89, 1}} {
		i, j := ij[0], ij[1]
		vel := func(f int) float64 {
			if f == 0 {
				return (a(1) - a(0)) * 30
			}
			return (a(f) - a(f-1)) * 30
		}
		da, dv := a(i)-a(j), vel(i)-vel(j)
		want := norm2 * (da*da + 0.25*0.25*dv*dv)
		got := m.D(0, State{0, i}, State{0, j})
		if math.Abs(got-want) > 1e-12*(1+want) {
			t.Errorf("D(%d, %d) = %.15g, want %.15g", i, j, got, want)
		}
	}
}

// TestNewModelProgressAndCancel: progress counts every group once, and a
// cancelled context stops NewModel with its error.
func TestNewModelProgressAndCancel(t *testing.T) {
	d := synthetic(2, motion{})
	calls, last := 0, 0
	_, err := NewModel(context.Background(), d, Options{Blends: 1}, func(done, total int) {
		calls++
		if total != len(d.Groups) || done != last+1 {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	})
	if err != nil || calls != len(d.Groups) {
		t.Fatalf("%d progress calls, error %v", calls, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewModel(ctx, d, Options{Blends: 1}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}
