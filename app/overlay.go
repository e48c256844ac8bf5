package app

import (
	"gallop/assets"
	"gallop/viewport"
)

// overlayKind selects a per-vertex scalar drawn as a heat map (View menu).
type overlayKind int

const (
	overlayNone overlayKind = iota
	// overlayDisplacement is |p_i(frame) - p_i(rest)|: how far each vertex
	// is from its rest position.
	overlayDisplacement
	// overlaySpeed is |p_i(frame) - p_i(frame-1)| · fps, in model units per
	// second (0 at the first frame).
	overlaySpeed
)

var overlayNames = []string{"None", "Displacement from rest", "Speed"}

// overlayTitles are the colour bar's titles, with the units: positions
// are in the file's model units, whatever those are (metres in glTF).
var overlayTitles = []string{"", "displacement from rest (model units)", "speed (model units per second)"}

// heatMap is one frame's overlay, ready to draw.
type heatMap struct {
	title  string
	lo, hi float64
	colors [][3]float32
}

// heatCache keeps the overlay of the frame shown, and the value range over
// the whole clip so the colours mean the same on every frame.
type heatCache struct {
	obj    *assets.Object
	kind   overlayKind
	frame  int
	lo, hi float64
	cur    *heatMap
}

// overlayValues computes the scalar of kind at frame f of o into dst.
func overlayValues(dst []float64, o *assets.Object, kind overlayKind, f int) []float64 {
	p := o.PositionsAt(f)
	dst = append(dst[:0], make([]float64, len(p))...)
	switch kind {
	case overlayDisplacement:
		rest := o.Mesh.Positions
		for i := range p {
			dst[i] = p[i].Sub(rest[i]).Len()
		}
	case overlaySpeed:
		if f > 0 && o.Clip != nil {
			prev := o.PositionsAt(f - 1)
			fps := o.FPS()
			for i := range p {
				dst[i] = p[i].Sub(prev[i]).Len() * fps
			}
		}
	}
	return dst
}

// heatMap returns the active overlay of o at the current frame, or nil.
func (a *App) heatMap(o *assets.Object) *heatMap {
	if a.overlay == overlayNone {
		return nil
	}
	c := &a.heat
	if c.obj != o || c.kind != a.overlay {
		*c = heatCache{obj: o, kind: a.overlay, frame: -1}
		var vals []float64
		for f := 0; f < o.NumFrames(); f++ {
			vals = overlayValues(vals, o, a.overlay, f)
			lo, hi := viewport.Normalize(vals)
			if f == 0 {
				c.lo, c.hi = lo, hi
			} else {
				c.lo, c.hi = min(c.lo, lo), max(c.hi, hi)
			}
		}
	}
	f := max(0, min(a.doc.Frame, o.NumFrames()-1))
	if c.frame != f || c.cur == nil {
		vals := overlayValues(nil, o, a.overlay, f)
		cols := make([][3]float32, len(vals))
		span := c.hi - c.lo
		for i, v := range vals {
			t := 0.0
			if span > 0 {
				t = (v - c.lo) / span
			}
			cols[i] = viewport.Turbo.At(t)
		}
		c.cur = &heatMap{title: overlayTitles[a.overlay], lo: c.lo, hi: c.hi, colors: cols}
		c.frame = f
	}
	return c.cur
}
