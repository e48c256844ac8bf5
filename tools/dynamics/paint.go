package dynamics

import (
	"fmt"
	"math"
	"slices"

	"gallop/assets"
	"gallop/solver/dynskin"
	"gallop/solver/meshgraph"
	"gallop/tools"
	"gallop/viewport"
)

// Channel is what the brush paints: one parameter (in dynskin's order α,
// β, γ, λ, κ), or a whole material, the chosen preset.
type Channel int

const (
	ChannelAlpha Channel = iota
	ChannelBeta
	ChannelGamma
	ChannelLambda
	ChannelKappa
	// ChannelMaterial paints all five parameters towards the brush's
	// preset (Subtract towards Stiff); its heat map shows α.
	ChannelMaterial
)

// param returns the parameter the channel paints and shows (α for a
// material).
func (c Channel) param() int {
	if c == ChannelMaterial {
		return 0
	}
	return int(c)
}

// ParamLabels name the parameters in the panel and on the colour bar.
var ParamLabels = [5]string{"alpha (goal)", "beta (surface)", "gamma (spokes)", "lambda (damping)", "kappa (goal damping)"}

// Op is what a dab of the brush does.
type Op int

const (
	// OpSet moves each value towards the brush's (Blender's Mix).
	OpSet Op = iota
	// OpAdd adds the brush's value.
	OpAdd
	// OpSubtract subtracts it.
	OpSubtract
	// OpSmooth moves each value towards the mean of its 1-ring's.
	OpSmooth
)

// Falloff is how a dab's strength fades from its centre to its radius.
type Falloff int

const (
	// FalloffSmooth is (1 − r²)², Blender's Smooth.
	FalloffSmooth Falloff = iota
	// FalloffLinear is 1 − r.
	FalloffLinear
	// FalloffConstant is 1 inside the radius.
	FalloffConstant
)

// at returns the falloff at r, the distance over the radius (0 beyond 1).
func (f Falloff) at(r float64) float64 {
	if r >= 1 {
		return 0
	}
	switch f {
	case FalloffLinear:
		return 1 - r
	case FalloffConstant:
		return 1
	}
	return (1 - r*r) * (1 - r*r)
}

// Preset is a named material.
type Preset struct {
	Name     string
	Material dynskin.Material
}

// Presets are the materials the brush and the fills offer. Stiff, α = κ =
// 1 and the rest 0, reproduces the skinning exactly (the goal and its
// velocity are reached every step); it is what an unpainted vertex has.
// Soft tissue and Jelly lag and wobble more and more; both satisfy the
// stability bound (α + 2β + γ + 4λ + 2κ is 2.5 and 1.0).
var Presets = []Preset{
	{"Stiff", dynskin.Material{Alpha: 1, Kappa: 1}},
	{"Soft tissue", dynskin.Material{Alpha: 0.3, Beta: 0.5, Gamma: 0.3, Lambda: 0.15, Kappa: 0.15}},
	{"Jelly", dynskin.Material{Alpha: 0.05, Beta: 0.3, Gamma: 0.1, Lambda: 0.05, Kappa: 0.02}},
}

// Brush is the paint brush's settings.
type Brush struct {
	Channel  Channel `json:"channel"`
	Op       Op      `json:"op"`
	Falloff  Falloff `json:"falloff"`
	Radius   float64 `json:"radius_px"` // on screen, in pixels
	Strength float64 `json:"strength"`  // 0 to 1
	Value    float64 `json:"value"`     // what Set moves towards and Add adds (one parameter)
	Preset   int     `json:"preset"`    // the material ChannelMaterial paints
}

// DefaultBrush paints the Soft tissue material with a smooth 40-pixel
// brush at half strength.
func DefaultBrush() Brush {
	return Brush{Channel: ChannelMaterial, Radius: 40, Strength: 0.5, Value: 0.5, Preset: 1}
}

// Check names the first setting out of range.
func (b Brush) Check() error {
	switch {
	case b.Channel < ChannelAlpha || b.Channel > ChannelMaterial:
		return fmt.Errorf("brush: unknown channel %d", b.Channel)
	case b.Op < OpSet || b.Op > OpSmooth:
		return fmt.Errorf("brush: unknown operation %d", b.Op)
	case b.Falloff < FalloffSmooth || b.Falloff > FalloffConstant:
		return fmt.Errorf("brush: unknown falloff %d", b.Falloff)
	case !(b.Radius >= 1 && b.Radius <= 1000):
		return fmt.Errorf("brush: radius %v pixels, want 1 to 1000", b.Radius)
	case !(b.Strength >= 0 && b.Strength <= 1):
		return fmt.Errorf("brush: strength %v, want 0 to 1", b.Strength)
	case !(b.Value >= 0 && b.Value <= 1):
		return fmt.Errorf("brush: value %v, want 0 to 1", b.Value)
	case b.Preset < 0 || b.Preset >= len(Presets):
		return fmt.Errorf("brush: unknown preset %d", b.Preset)
	}
	return nil
}

// layer is one object's materials. params is immutable: every change
// replaces it (the simulation's requests and the undo steps keep the
// slices they were given).
type layer struct {
	params []dynskin.Material
	ring   *meshgraph.Adjacency // 1-rings, for smoothing (made on first use)

	paintedOf []dynskin.Material // the params painted was counted for
	painted   int

	colorsOf []dynskin.Material // the params colors was made for
	colorsK  int
	colors   [][3]float32
}

// layer returns the active object's materials, made on first use: the
// ones a reopened project saved for an object of its name and size, else
// Stiff everywhere. Nil without an object.
func (t *Dynamics) layer(h tools.Host) *layer {
	t.init()
	o := h.Object()
	if o == nil {
		return nil
	}
	if l := t.layers[o]; l != nil {
		return l
	}
	n := o.Mesh.NumVertices()
	l := &layer{params: dynskin.Uniform(n, Presets[0].Material)}
	if s, ok := t.saved[o.Name]; ok && len(s) == n {
		l.params = s
		delete(t.saved, o.Name)
	}
	t.layers[o] = l
	return l
}

// colours returns the heat map of parameter channel c: each vertex's value
// over its range through viewport.Turbo.
func (l *layer) colours(c Channel) [][3]float32 {
	k := c.param()
	if l.colors != nil && assets.Same(l.colorsOf, l.params) && l.colorsK == k {
		return l.colors
	}
	cols := make([][3]float32, len(l.params))
	for i, m := range l.params {
		cols[i] = viewport.Turbo.At(m.Get(k) / dynskin.Upper(k))
	}
	l.colors, l.colorsOf, l.colorsK = cols, l.params, k
	return cols
}

// rings returns the mesh's 1-rings.
func (l *layer) rings(m *assets.Mesh) (*meshgraph.Adjacency, error) {
	if l.ring == nil {
		r, err := meshgraph.New(m.NumVertices(), m.Triangles)
		if err != nil {
			return nil, err
		}
		l.ring = r
	}
	return l.ring, nil
}

// paramsCmd replaces an object's materials: a stroke, a fill, a fit or an
// import.
type paramsCmd struct {
	l             *layer
	name          string
	before, after []dynskin.Material
}

// Name implements undo.Command.
func (c *paramsCmd) Name() string { return c.name }

// Do implements undo.Command.
func (c *paramsCmd) Do() { c.l.params = c.after }

// Undo implements undo.Command.
func (c *paramsCmd) Undo() { c.l.params = c.before }

// SetParams makes p the active object's materials as one undoable edit
// named name, after checking them.
func (t *Dynamics) SetParams(h tools.Host, p []dynskin.Material, name string) error {
	l := t.layer(h)
	if l == nil {
		return RigError(nil)
	}
	if err := dynskin.CheckParams(p, len(l.params)); err != nil {
		return fmt.Errorf("%s: %w", h.Object().Name, err)
	}
	h.Do(&paramsCmd{l: l, name: name, before: l.params, after: slices.Clone(p)})
	return nil
}

// apply returns material m after a dab of weight w (strength times
// falloff): moved towards the brush's value or preset (Set), by its value
// (Add, Subtract), or towards mean, the 1-ring's mean material (Smooth);
// inverted is Ctrl held. The result is clamped to the parameters' ranges.
func (b *Brush) apply(m dynskin.Material, w float64, mean *dynskin.Material, inverted bool) dynskin.Material {
	op := b.Op
	if inverted {
		switch op {
		case OpAdd:
			op = OpSubtract
		case OpSubtract:
			op = OpAdd
		}
	}
	if b.Channel == ChannelMaterial {
		var to dynskin.Material
		switch {
		case op == OpSmooth:
			to = *mean
		case op == OpSubtract || (op == OpSet && inverted):
			to = Presets[0].Material
		default:
			to = Presets[b.Preset].Material
		}
		for k := range dynskin.ParamNames {
			m.Set(k, m.Get(k)+w*(to.Get(k)-m.Get(k)))
		}
		return m.Clamp()
	}
	k := int(b.Channel)
	up := dynskin.Upper(k)
	v := m.Get(k)
	switch op {
	case OpSet:
		to := b.Value * up
		if inverted {
			to = up - to
		}
		v += w * (to - v)
	case OpAdd:
		v += w * b.Value * up
	case OpSubtract:
		v -= w * b.Value * up
	case OpSmooth:
		v += w * (mean.Get(k) - v)
	}
	m.Set(k, v)
	return m.Clamp()
}

// stroke is a brush stroke in progress: the materials before it, where
// the cursor was last, how far it has gone along its path since the last
// dab, and the vertex that dab was centred on.
type stroke struct {
	l      *layer
	obj    *assets.Object
	before []dynskin.Material
	x, y   float64 // the cursor's last position, viewport pixels
	since  float64 // pixels along the cursor's path since the last dab
	last   int     // the vertex the last dab was centred on
	dabs   int
	buf    []dabbed // a dab's new materials, written once it has read all
}

// dabbed is one vertex's material after a dab.
type dabbed struct {
	i int
	m dynskin.Material
}

// Painting reports whether a stroke is in progress.
func (t *Dynamics) Painting() bool { return t.stroke != nil }

// BeginStroke starts a stroke with a dab at viewport pixel (x, y); it
// does nothing off the mesh. inverted is Ctrl held.
func (t *Dynamics) BeginStroke(h tools.Host, x, y float64, inverted bool) bool {
	l := t.layer(h)
	if l == nil || t.Brush.Check() != nil {
		return false
	}
	if _, ok := h.View().PickVertex(x, y); !ok {
		return false
	}
	t.stroke = &stroke{l: l, obj: h.Object(), before: l.params, x: x, y: y, last: -1}
	p := slices.Clone(l.params)
	if t.dab(h, p, x, y, inverted) {
		l.params = p
	}
	return true
}

// DabSpacing is the distance in pixels, along the cursor's path, between
// a stroke's dabs for a brush of radius r pixels: a quarter of the
// radius (at least a pixel), so that the dabs overlap and the stroke is
// continuous.
func DabSpacing(r float64) float64 { return max(1, r/4) }

// MaxDabs is the most dabs one ContinueStroke lays, a bound on a frame's
// painting work. A frame's path longer than MaxDabs spacings (a brush of
// a few pixels flung back and forth across the viewport during a frame
// that hung) gets its dabs spread evenly over it instead, farther apart
// than DabSpacing; at a quarter of the radius that happens only past 256
// radii of travel, more than the viewport holds for a brush of 8 pixels
// or more.
const MaxDabs = 1024

// DabsAlong returns where a stroke lays its dabs along the cursor's path
// from (x, y), where it was last, through the points of path in order:
// every spacing pixels of the way (the polyline's length, not the
// straight distance), the first one spacing − since along, since being
// how far the cursor had gone since the last dab. rest is how far the
// path goes past the last dab returned (since plus the path's length
// when there is none). More than maxDabs dabs are spread evenly over the
// way instead, maxDabs of them (see MaxDabs).
func DabsAlong(x, y, since float64, path [][2]float64, spacing float64, maxDabs int) (dabs [][2]float64, rest float64) {
	length := 0.0
	px, py := x, y
	for _, p := range path {
		length += math.Hypot(p[0]-px, p[1]-py)
		px, py = p[0], p[1]
	}
	if !(spacing > 0) || maxDabs < 1 || !(length >= 0) || math.IsInf(length, 1) {
		return nil, since
	}
	if total := since + length; total/spacing > float64(maxDabs) {
		spacing = total / float64(maxDabs)
	}
	need := max(0, spacing-since) // the way to the next dab
	px, py = x, y
	for _, p := range path {
		dx, dy := p[0]-px, p[1]-py
		seg := math.Hypot(dx, dy)
		at := 0.0
		for at+need <= seg && len(dabs) < maxDabs {
			at += need
			need = spacing
			f := 0.0 // a repeated point (seg 0) is its own dab's place
			if seg > 0 {
				f = at / seg
			}
			dabs = append(dabs, [2]float64{px + dx*f, py + dy*f})
		}
		need -= seg - at
		px, py = p[0], p[1]
	}
	return dabs, spacing - need
}

// ContinueStroke lays the stroke's dabs along path, the positions (in
// viewport pixels, oldest first) the cursor went through since the last
// call: one every DabSpacing of the way from the last dab (DabsAlong),
// each picked against the mesh like BeginStroke's, so that a cursor
// crossing the mesh between two slow frames leaves no gap. The cost per
// frame is bounded: the materials are copied once per call, not per dab;
// a dab centred on the vertex of the one before adds nothing but
// strength at the same place and is skipped, which keeps a small brush
// on a coarse mesh from stacking dabs on one vertex; at most MaxDabs are
// laid; and a dab reaches only the vertices in its ball
// (viewport.View.VerticesNear), not the whole mesh.
func (t *Dynamics) ContinueStroke(h tools.Host, path [][2]float64, inverted bool) {
	s := t.stroke
	if s == nil || s.obj != h.Object() || len(path) == 0 {
		return
	}
	dabs, rest := DabsAlong(s.x, s.y, s.since, path, DabSpacing(t.Brush.Radius), MaxDabs)
	end := path[len(path)-1]
	s.x, s.y, s.since = end[0], end[1], rest
	if len(dabs) == 0 {
		return
	}
	p := slices.Clone(s.l.params)
	changed := false
	for _, d := range dabs {
		if t.dab(h, p, d[0], d[1], inverted) {
			changed = true
		}
	}
	if changed {
		s.l.params = p
	}
}

// EndStroke ends the stroke: what it changed becomes one undo step.
func (t *Dynamics) EndStroke(h tools.Host) {
	s := t.stroke
	t.stroke = nil
	if s == nil || s.dabs == 0 || assets.Same(s.before, s.l.params) {
		return
	}
	name := "Paint " + ParamLabels[t.Brush.Channel.param()]
	if t.Brush.Channel == ChannelMaterial {
		name = "Paint " + Presets[t.Brush.Preset].Name
	}
	h.Do(&paramsCmd{l: s.l, name: name, before: s.before, after: s.l.params})
}

// dab applies the brush, in p (the stroke's copy of the materials),
// around the vertex under (x, y): to every vertex within the brush's
// radius, measured in model units at the depth of that vertex (the
// radius in pixels over the pixels per unit there), with the falloff of
// its distance. Distances are measured on the mesh picking sees (the one
// on screen), among the corners of its triangles (a vertex of no
// triangle is not on the surface the brush touches). Every vertex reads
// p as it was before the dab (Smooth's means among them), then all are
// written. It reports whether it painted: not off the mesh, nor on the
// vertex of the dab before.
func (t *Dynamics) dab(h tools.Host, p []dynskin.Material, x, y float64, inverted bool) bool {
	s := t.stroke
	view := h.View()
	v, ok := view.PickVertex(x, y)
	if !ok || v == s.last {
		return false
	}
	pos := view.PickPositions()
	if v >= len(pos) || len(pos) != len(p) {
		return false
	}
	c := pos[v]
	r := t.worldRadius(h, c)
	if !(r > 0) {
		return false
	}
	b := &t.Brush
	var ring *meshgraph.Adjacency
	if b.Op == OpSmooth {
		var err error
		if ring, err = s.l.rings(h.Object().Mesh); err != nil {
			h.Error(fmt.Errorf("%s: %w", h.Object().Name, err))
			return false
		}
	}
	s.buf = s.buf[:0]
	view.VerticesNear(c, r, func(i int, d float64) {
		w := b.Strength * b.Falloff.at(d/r)
		if w <= 0 {
			return
		}
		var mean dynskin.Material
		var nbr []int32
		if ring != nil {
			nbr = ring.Neighbours(i)
		}
		if len(nbr) > 0 {
			for _, j := range nbr {
				for k := range dynskin.ParamNames {
					mean.Set(k, mean.Get(k)+p[j].Get(k)/float64(len(nbr)))
				}
			}
		} else {
			mean = p[i]
		}
		s.buf = append(s.buf, dabbed{i, b.apply(p[i], w, &mean, inverted)})
	})
	for _, e := range s.buf {
		p[e.i] = e.m
	}
	s.last = v
	s.dabs++
	return true
}

// worldRadius returns the brush's radius in model units at point c: its
// radius in pixels over the pixels a unit along the screen's horizontal
// spans there.
func (t *Dynamics) worldRadius(h tools.Host, c assets.Vec3) float64 {
	v := h.View()
	cam := &v.Camera
	right := cam.Right()
	unit := 0.01 * max(1e-9, cam.Distance)
	x0, y0, ok0 := v.ToScreen(c)
	x1, y1, ok1 := v.ToScreen(c.Add(right.Mul(unit)))
	px := math.Hypot(x1-x0, y1-y0)
	if !ok0 || !ok1 || !(px > 0) {
		return 0
	}
	return t.Brush.Radius * unit / px
}

// OverMesh reports whether viewport pixel (x, y) is over the active
// object's surface (where the brush would paint).
func (t *Dynamics) OverMesh(h tools.Host, x, y float64) bool {
	_, ok := h.View().PickVertex(x, y)
	return ok
}

// Fill sets the selected vertices (all of them with all true) to the
// brush's value, or its preset for a material, as one undo step.
func (t *Dynamics) Fill(h tools.Host, all bool) {
	l := t.layer(h)
	if l == nil {
		return
	}
	sel := h.Selection()
	if all {
		sel = nil
		for i := range l.params {
			sel = append(sel, i)
		}
	}
	if len(sel) == 0 {
		h.Error(fmt.Errorf("dynamics: nothing selected to fill; select vertices with the Select tool, or fill all"))
		return
	}
	b := t.Brush
	b.Op = OpSet
	p := slices.Clone(l.params)
	for _, i := range sel {
		if i >= 0 && i < len(p) {
			p[i] = b.apply(p[i], 1, nil, false)
		}
	}
	what := ParamLabels[b.Channel.param()]
	if b.Channel == ChannelMaterial {
		what = Presets[b.Preset].Name
	}
	where := fmt.Sprintf("%d selected vertices", len(sel))
	if all {
		where = "all vertices"
	}
	h.Do(&paramsCmd{l: l, name: fmt.Sprintf("Fill %s with %s", where, what), before: l.params, after: p})
}

// StartPoke grabs the vertex under viewport pixel (x, y) for a poke (the
// paper's Figure 6c): while it is held, MovePoke pulls it towards the
// cursor and the mesh responds through its forces. It does nothing off
// the mesh or before the simulation has frames.
func (t *Dynamics) StartPoke(h tools.Host, x, y float64) bool {
	s := t.snapshot(h)
	if s == nil || len(s.frames) == 0 || s.err != nil {
		return false
	}
	v, ok := h.View().PickVertex(x, y)
	if !ok {
		return false
	}
	pos, _ := t.Display(h)
	t.poke = &poke{vertex: v, target: pos[v]}
	t.pokeDepth = pos[v]
	return true
}

// MovePoke moves the poke's target under viewport pixel (x, y), in the
// plane facing the camera through where the vertex was grabbed.
func (t *Dynamics) MovePoke(h tools.Host, x, y float64) {
	if t.poke == nil {
		return
	}
	o, d := h.View().Ray(x, y)
	n := h.View().Camera.Forward()
	den := d.Dot(n)
	if math.Abs(den) < 1e-12 {
		return
	}
	s := t.pokeDepth.Sub(o).Dot(n) / den
	if p := o.Add(d.Mul(s)); p != t.poke.target {
		t.poke = &poke{vertex: t.poke.vertex, target: p}
	}
}

// EndPoke releases the poked vertex: the mesh wobbles back.
func (t *Dynamics) EndPoke() { t.poke = nil }

// Poking reports whether a vertex is held.
func (t *Dynamics) Poking() bool { return t.poke != nil }

// PokeLine returns the held vertex's position and its target, to draw
// the pull; ok false when no vertex is held.
func (t *Dynamics) PokeLine(h tools.Host) (from, to assets.Vec3, ok bool) {
	if t.poke == nil {
		return from, to, false
	}
	pos, _ := t.Display(h)
	if t.poke.vertex >= len(pos) {
		return from, to, false
	}
	return pos[t.poke.vertex], t.poke.target, true
}

// Painted returns how many of the active object's vertices have another
// material than Stiff, the unpainted default.
func (t *Dynamics) Painted(h tools.Host) int {
	l := t.layer(h)
	if l == nil {
		return 0
	}
	if !assets.Same(l.paintedOf, l.params) {
		l.painted = 0
		for _, m := range l.params {
			if m != Presets[0].Material {
				l.painted++
			}
		}
		l.paintedOf = l.params
	}
	return l.painted
}
