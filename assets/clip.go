package assets

import (
	"fmt"
	"math"

	"gallop/internal/finite"
)

// DefaultFPS is the frame rate given to clips whose source names none
// (OBJ sequences).
const DefaultFPS = 30

// Clip is an animation of a mesh: one full set of vertex positions per frame,
// over the fixed topology of the mesh it belongs to, played at FPS frames per
// second. Frame i is shown at time i/FPS.
type Clip struct {
	Name   string
	FPS    float64
	Frames [][]Vec3 // #frames, each #V positions in the mesh's vertex order
}

// NumFrames returns the number of frames.
func (c *Clip) NumFrames() int { return len(c.Frames) }

// Duration returns the time in seconds from the first frame to the last.
func (c *Clip) Duration() float64 {
	if len(c.Frames) < 2 || c.FPS <= 0 {
		return 0
	}
	return float64(len(c.Frames)-1) / c.FPS
}

// Validate checks that the clip has a positive frame rate, at least one
// frame, and nv finite positions in every frame.
func (c *Clip) Validate(nv int) error {
	if !(c.FPS > 0) || math.IsInf(c.FPS, 0) {
		return fmt.Errorf("clip %q: frame rate %v is not a positive number", c.Name, c.FPS)
	}
	if len(c.Frames) == 0 {
		return fmt.Errorf("clip %q: no frames", c.Name)
	}
	for i, f := range c.Frames {
		if len(f) != nv {
			return fmt.Errorf("clip %q: frame %d has %d vertices, want %d", c.Name, i, len(f), nv)
		}
		for v, p := range f {
			if !finite.Vec3(p) {
				return fmt.Errorf("clip %q: frame %d, vertex %d: non-finite position %v", c.Name, i, v, p)
			}
		}
	}
	return nil
}

// Bounds returns the bounding box of every frame of the clip.
func (c *Clip) Bounds() (lo, hi Vec3) {
	for i, f := range c.Frames {
		l, h := Bounds(f)
		if i == 0 {
			lo, hi = l, h
			continue
		}
		for k := 0; k < 3; k++ {
			lo[k] = min(lo[k], l[k])
			hi[k] = max(hi[k], h[k])
		}
	}
	return
}
