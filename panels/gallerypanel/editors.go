package gallerypanel

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
	"github.com/go-gl/mathgl/mgl64"

	"gallop/panels"
	"gallop/solver/plausible"
	"gallop/tools/gallery"
	"gallop/viewport"
)

// editors hold what the scenarios' constraint editors remember between
// frames: a marker being dragged, the paint of a stroke on the spell grid.
type editors struct {
	dragging bool // the 2D ball's or the die's target marker is being dragged
	paint    byte // while the mouse is held on the spell grid: 'x' paints, '.' erases; 0 otherwise
}

// settingsPanel lays out the widgets that edit the scenario's
// constraints; edited is called after every change.
func (e *editors) settingsPanel(s gallery.Settings, edited func()) giu.Widget {
	switch s := s.(type) {
	case *gallery.Ball2DSettings:
		return ball2DPanel(s, edited)
	case *gallery.BowlingSettings:
		return bowlingPanel(s, edited)
	case *gallery.SpellSettings:
		return e.spellPanel(s, edited)
	case *gallery.DiceSettings:
		return dicePanel(s, edited)
	}
	return giu.Labelf("no editor for %T", s)
}

// viewport lets the artist edit the constraints in the viewport, which
// shows the scenario's setup or one of its samples: it draws the
// scenario's markers over it and takes their drags, and reports whether
// it changed anything.
func (e *editors) viewport(s gallery.Settings, v *viewport.View, in *viewport.Input) bool {
	switch s := s.(type) {
	case *gallery.Ball2DSettings:
		return e.ball2DViewport(s, v, in)
	case *gallery.DiceSettings:
		return e.diceViewport(s, v, in)
	}
	return false // bowling and spell are edited in the panel
}

// ball2DPanel edits the 2D ball's target, σ_d and tolerance.
func ball2DPanel(b *gallery.Ball2DSettings, edited func()) giu.Layout {
	target, sigma, tol := float32(b.Target), float32(b.Sigma), float32(b.Tolerance)
	return giu.Layout{
		panels.Text("Target: drag the green marker in the viewport, or"),
		giu.SliderFloat(&target, -6, 6).Label("target x (D)").Size(panels.Room("target x (D)")).Format("%.2f").OnChange(func() { b.Target = float64(target); edited() }),
		giu.InputFloat(&sigma).Label("σ_d (D)").Size(panels.Room("σ_d (D)")).Format("%.3g").OnChange(func() { b.Sigma = float64(sigma); edited() }),
		giu.InputFloat(&tol).Label("tolerance (D)").Size(panels.Room("tolerance (D)")).Format("%.3g").OnChange(func() { b.Tolerance = float64(tol); edited() }),
	}
}

// targetGrab is how near the target marker, in pixels, a press grabs it.
const targetGrab = 12

// ball2DViewport draws the target as a green marker on the table, with a
// bar as wide as the tolerance; dragging it moves the target along x.
func (e *editors) ball2DViewport(b *gallery.Ball2DSettings, v *viewport.View, in *viewport.Input) bool {
	d := plausible.Ball2DDiameter
	at := func(x float64) (imgui.Vec2, bool) {
		sx, sy, ok := v.ToScreen(mgl64.Vec3{x * d, -d / 2, 0})
		return imgui.Vec2{X: float32(in.OriginX + sx), Y: float32(in.OriginY + sy)}, ok
	}
	c, ok := at(b.Target)
	if !ok {
		return false
	}
	lo, _ := at(b.Target - b.Tolerance)
	hi, _ := at(b.Target + b.Tolerance)
	dl := imgui.WindowDrawList()
	green := imgui.ColorU32Vec4(imgui.Vec4{X: 0.3, Y: 0.9, Z: 0.35, W: 1})
	dl.AddLineV(lo, hi, green, 3)
	dl.AddTriangleFilled(imgui.Vec2{X: c.X, Y: c.Y}, imgui.Vec2{X: c.X - 8, Y: c.Y - 14}, imgui.Vec2{X: c.X + 8, Y: c.Y - 14}, green)
	dl.AddTextVec2(imgui.Vec2{X: c.X - 18, Y: c.Y - 32}, green, "target")
	mx, my := float32(in.OriginX+in.X), float32(in.OriginY+in.Y)
	grabbed := math.Hypot(float64(mx-c.X), float64(my-(c.Y-7))) <= targetGrab
	// The cursor's ray meets the plane z = 0 of the ball's flight.
	p, ok := dragMarker(&e.dragging, grabbed, v, in, 2)
	if !ok {
		return false
	}
	if nx := math.Round(p[0]/d*100) / 100; nx != b.Target && !math.IsNaN(nx) && !math.IsInf(nx, 0) {
		b.Target = nx
		return true
	}
	return false
}

// dicePanel edits the die's target, face, σ and tolerance.
func dicePanel(d *gallery.DiceSettings, edited func()) giu.Layout {
	x, z := float32(d.Target[0]), float32(d.Target[1])
	sigma, tol := float32(d.Sigma*100), float32(d.Tolerance*100)
	half := float32(plausible.DiceTableSize / 2)
	faces := giu.Layout{giu.Label("Face up:")}
	var row []giu.Widget
	for f := 1; f <= 6; f++ {
		row = append(row, giu.RadioButton(fmt.Sprint(f), d.Face == f).OnChange(func() { d.Face = f; edited() }))
	}
	return giu.Layout{
		panels.Text("Target: drag the green ring on the table in the viewport, or"),
		giu.SliderFloat(&x, -half, half).Label("target x (m)").Size(panels.Room("target x (m)")).Format("%.3f").OnChange(func() { d.Target[0] = float64(x); edited() }),
		giu.SliderFloat(&z, -half, half).Label("target z (m)").Size(panels.Room("target z (m)")).Format("%.3f").OnChange(func() { d.Target[1] = float64(z); edited() }),
		faces, giu.Row(row...),
		giu.InputFloat(&sigma).Label("σ (cm)").Size(panels.Room("σ (cm)")).Format("%.3g").OnChange(func() { d.Sigma = float64(sigma) / 100; edited() }),
		giu.InputFloat(&tol).Label("tolerance (cm)").Size(panels.Room("tolerance (cm)")).Format("%.3g").OnChange(func() { d.Tolerance = float64(tol) / 100; edited() }),
	}
}

// diceViewport draws a ring on the table at the target; dragging it moves
// the target over the table (the plane y = 0, which the bumps leave
// within millimetres).
func (e *editors) diceViewport(d *gallery.DiceSettings, v *viewport.View, in *viewport.Input) bool {
	at := func(x, z float64) (imgui.Vec2, bool) {
		sx, sy, ok := v.ToScreen(mgl64.Vec3{x, 0, z})
		return imgui.Vec2{X: float32(in.OriginX + sx), Y: float32(in.OriginY + sy)}, ok
	}
	c, ok := at(d.Target[0], d.Target[1])
	if !ok {
		return false
	}
	dl := imgui.WindowDrawList()
	green := imgui.ColorU32Vec4(imgui.Vec4{X: 0.3, Y: 0.9, Z: 0.35, W: 1})
	const segments = 32
	var prev imgui.Vec2
	for k := 0; k <= segments; k++ {
		a := 2 * math.Pi * float64(k) / segments
		p, _ := at(d.Target[0]+d.Tolerance*math.Cos(a), d.Target[1]+d.Tolerance*math.Sin(a))
		if k > 0 {
			dl.AddLineV(prev, p, green, 2)
		}
		prev = p
	}
	dl.AddCircleFilled(c, 4, green)
	dl.AddTextVec2(imgui.Vec2{X: c.X + 8, Y: c.Y - 22}, green, fmt.Sprintf("target, face %d", d.Face))
	mx, my := float32(in.OriginX+in.X), float32(in.OriginY+in.Y)
	grabbed := math.Hypot(float64(mx-c.X), float64(my-c.Y)) <= targetGrab
	// The cursor's ray meets the table's plane y = 0.
	p, ok := dragMarker(&e.dragging, grabbed, v, in, 1)
	if !ok {
		return false
	}
	half := plausible.DiceTableSize/2 - plausible.DiceSide
	x := math.Round(min(max(p[0], -half), half)*1000) / 1000
	z := math.Round(min(max(p[2], -half), half)*1000) / 1000
	if math.IsNaN(x) || math.IsNaN(z) || (x == d.Target[0] && z == d.Target[1]) {
		return false
	}
	d.Target = [2]float64{x, z}
	return true
}

// spellCell is the size of a bin of the spell grid on screen, in pixels.
const spellCell = 13

// spellPanel edits the spell scenario: presets, the grid size, the bins
// painted by clicking and dragging (a drag that starts on an empty bin
// fills, one that starts on a filled bin empties), the number of balls.
func (e *editors) spellPanel(s *gallery.SpellSettings, edited func()) giu.Layout {
	cols, rows, balls := int32(s.Cols), int32(s.Rows), int32(s.Balls)
	return giu.Layout{
		giu.Row(
			giu.Button("HI").OnClick(func() { s.Preset("HI"); edited() }),
			giu.Button("ACM").OnClick(func() { s.Preset("ACM"); edited() }),
			giu.Button("Clear").OnClick(func() { s.Fill = nil; s.Resize(s.Cols, s.Rows); edited() }),
		),
		giu.Row(
			giu.InputInt(&cols).Label("columns").Size(60).OnChange(func() { s.Resize(int(cols), s.Rows); edited() }),
			giu.InputInt(&rows).Label("rows").Size(60).OnChange(func() { s.Resize(s.Cols, int(rows)); edited() }),
		),
		panels.Text("Bins to fill (click or drag to paint):"),
		giu.Custom(func() { e.spellGrid(s, edited) }),
		giu.InputInt(&balls).Label("balls (0: one per bin)").Size(80).OnChange(func() { s.Balls = int(max(balls, 0)); edited() }),
	}
}

// spellGrid draws the bins and paints them under the held mouse.
func (e *editors) spellGrid(s *gallery.SpellSettings, edited func()) {
	s.Resize(s.Cols, s.Rows) // repair a grid loaded from a hand-edited project
	origin := imgui.CursorScreenPos()
	size := imgui.Vec2{X: float32(s.Cols * spellCell), Y: float32(s.Rows * spellCell)}
	imgui.InvisibleButton("spell-bins", size)
	if imgui.IsItemActive() {
		m := imgui.MousePos()
		c, r := int((m.X-origin.X)/spellCell), int((m.Y-origin.Y)/spellCell)
		if c >= 0 && c < s.Cols && r >= 0 && r < s.Rows {
			cur := s.Fill[r][c]
			if e.paint == 0 {
				e.paint = 'x'
				if cur == 'x' {
					e.paint = '.'
				}
			}
			if cur != e.paint {
				b := []byte(s.Fill[r])
				b[c] = e.paint
				s.Fill[r] = string(b)
				edited()
			}
		}
	} else {
		e.paint = 0
	}
	dl := imgui.WindowDrawList()
	full := imgui.ColorU32Vec4(imgui.Vec4{X: 0.25, Y: 0.7, Z: 0.35, W: 1})
	empty := imgui.ColorU32Vec4(imgui.Vec4{X: 0.22, Y: 0.22, Z: 0.25, W: 1})
	edge := imgui.ColorU32Vec4(imgui.Vec4{X: 0.5, Y: 0.45, Z: 0.4, W: 1})
	for r := 0; r < s.Rows; r++ {
		for c := 0; c < s.Cols; c++ {
			lo := imgui.Vec2{X: origin.X + float32(c*spellCell), Y: origin.Y + float32(r*spellCell)}
			hi := imgui.Vec2{X: lo.X + spellCell, Y: lo.Y + spellCell}
			col := empty
			if s.Fill[r][c] == 'x' {
				col = full
			}
			dl.AddRectFilled(lo, hi, col)
			dl.AddRect(lo, hi, edge)
		}
	}
}

// pinCycle is what a click on a pin makes of it: down → stand → don't care
// → not on the deck → down.
var pinCycle = map[byte]byte{'d': 's', 's': '?', '?': '.', '.': 'd'}

// bowlingPanel edits the bowling target: presets, then the pins as seen
// by the bowler (pin 1 nearest), each drawn by its goal; a click cycles
// it.
func bowlingPanel(b *gallery.BowlingSettings, edited func()) giu.Layout {
	var presets []giu.Widget
	for _, name := range gallery.BowlingPresets {
		presets = append(presets, giu.Button(name).OnClick(func() { b.Pins = plausible.BowlingTargets[name]; edited() }))
	}
	return giu.Layout{
		giu.Row(presets[:3]...),
		giu.Row(presets[3:]...),
		panels.Text("Click a pin to cycle: red falls, white stands, grey either, hollow is absent."),
		giu.Custom(func() { bowlingDiagram(b, edited) }),
	}
}

// Pin diagram geometry, in pixels.
const (
	pinSpacing = 30
	pinRadius  = 10
)

// bowlingDiagram draws the pins and cycles the one clicked.
func bowlingDiagram(b *gallery.BowlingSettings, edited func()) {
	if len(b.Pins) != plausible.BowlingPins {
		b.Pins = plausible.BowlingTargets["strike"]
	}
	origin := imgui.CursorScreenPos()
	w, h := float32(4*pinSpacing), float32(3*pinSpacing*0.87+2*pinRadius+4)
	imgui.InvisibleButton("bowling-pins", imgui.Vec2{X: w, Y: h})
	clicked := imgui.IsItemClicked()
	m := imgui.MousePos()
	dl := imgui.WindowDrawList()
	colours := map[byte]uint32{
		'd': imgui.ColorU32Vec4(imgui.Vec4{X: 0.85, Y: 0.25, Z: 0.2, W: 1}),
		's': imgui.ColorU32Vec4(imgui.Vec4{X: 0.95, Y: 0.95, Z: 0.92, W: 1}),
		'?': imgui.ColorU32Vec4(imgui.Vec4{X: 0.45, Y: 0.45, Z: 0.48, W: 1}),
		'.': imgui.ColorU32Vec4(imgui.Vec4{X: 0.6, Y: 0.6, Z: 0.6, W: 1}),
	}
	text := imgui.ColorU32Vec4(imgui.Vec4{X: 0.05, Y: 0.05, Z: 0.05, W: 1})
	for i := range plausible.BowlingPins {
		x, z := plausible.BowlingSpot(i)
		// Lane x to the right, −z (away from the bowler) up the panel.
		c := imgui.Vec2{
			X: origin.X + w/2 + float32(x/plausible.BowlingPinSpacing)*pinSpacing,
			Y: origin.Y + h - pinRadius - 2 + float32(z/plausible.BowlingPinSpacing)*pinSpacing,
		}
		g := b.Pins[i]
		if g == '.' {
			dl.AddCircleV(c, pinRadius, colours[g], 0, 2)
		} else {
			dl.AddCircleFilled(c, pinRadius, colours[g])
			dl.AddTextVec2(imgui.Vec2{X: c.X - 4 - float32(3*(i/9)), Y: c.Y - 7}, text, fmt.Sprint(i+1))
		}
		if clicked && math.Hypot(float64(m.X-c.X), float64(m.Y-c.Y)) <= pinRadius {
			p := []byte(b.Pins)
			p[i] = pinCycle[g]
			b.Pins = string(p)
			edited()
		}
	}
}

// dragMarker runs the drag of a constraint's marker in the viewport: a
// left press where grabbed starts it, releasing the button ends it. While
// it lasts it returns where the cursor's ray meets the plane through the
// origin normal to the given axis (0 x, 1 y, 2 z), if the ray meets it in
// front of the eye.
func dragMarker(dragging *bool, grabbed bool, v *viewport.View, in *viewport.Input, axis int) (mgl64.Vec3, bool) {
	if in.Pressed[viewport.Left] && grabbed {
		*dragging = true
	}
	if !*dragging {
		return mgl64.Vec3{}, false
	}
	if !in.Down[viewport.Left] {
		*dragging = false
		return mgl64.Vec3{}, false
	}
	o, dir := v.Ray(in.X, in.Y)
	if math.Abs(dir[axis]) < 1e-9 {
		return mgl64.Vec3{}, false
	}
	t := -o[axis] / dir[axis]
	if !(t > 0) {
		return mgl64.Vec3{}, false
	}
	return o.Add(dir.Mul(t)), true
}
