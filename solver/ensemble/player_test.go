package ensemble

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/ensemble/csp"
)

// TestPlayerBanner plays a minute of the banner with the wind changed
// every 10 s: every frame finite with the flags sewn to the rope, no group
// stepping further from one frame to the next than the model's source
// frames do (StepLimits; the data's own steps are reported beside), every
// wind level reached; and the same seed plays the same frames.
func TestPlayerBanner(t *testing.T) {
	_, m := banner(t, fullBanner)
	g, _, err := Build(context.Background(), m, BuildOptions{Seed: 3, Tries: 1, CSP: csp.Options{Samples: 2}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Validate(m); err != nil {
		t.Fatal(err)
	}
	steps, raw := m.StepLimits(), m.MaxSteps()
	play := func() ([][]mgl64.Vec3, []int, time.Duration) {
		p, err := NewPlayer(m, g, 0, 7)
		if err != nil {
			t.Fatal(err)
		}
		winds := []int{2, 1, 0, 2, 0, 1}
		var frames [][]mgl64.Vec3
		var levels []int
		var spent time.Duration
		for f := range 1800 {
			if f%300 == 0 {
				p.SetWind(winds[f/300])
			}
			start := time.Now()
			x := p.Step(nil)
			spent += time.Since(start)
			frames = append(frames, x)
			levels = append(levels, p.Level())
		}
		return frames, levels, spent
	}
	frames, levels, spent := play()
	seen := map[int]bool{}
	worst, worstRaw := 0.0, 0.0
	for f, x := range frames {
		seen[levels[f]] = true
		if gap := m.SewnGap(x); !(gap < 1e-12) {
			t.Fatalf("frame %d: sewn vertices %g apart", f, gap)
		}
		if f == 0 {
			continue
		}
		for k := range m.groups {
			d := groupStep(&m.groups[k], frames[f-1], x)
			if math.IsNaN(d) {
				t.Fatalf("frame %d: NaN", f)
			}
			worst, worstRaw = max(worst, d/steps[k]), max(worstRaw, d/raw[k])
		}
	}
	t.Logf("1,800 frames: %.3g ms a frame; largest step %.4g of the sources' per group (%.4g of the data's); levels shown %v", spent.Seconds()*1000/1800, worst, worstRaw, seen)
	if worst > 1+1e-9 {
		t.Errorf("a group stepped %.3g times the data's largest step", worst)
	}
	if len(seen) != 3 {
		t.Errorf("levels shown: %v, want all three", seen)
	}
	again, _, _ := play()
	for f := range frames {
		for v := range frames[f] {
			if frames[f][v] != again[f][v] {
				t.Fatalf("frame %d differs on a second play with the same seed", f)
			}
		}
	}
}
