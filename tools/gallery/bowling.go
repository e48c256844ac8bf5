package gallery

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/solver/plausible"
	"gallop/viewport"
)

// bowling is the bowling example of Section 5.2: what each pin must do,
// set by clicking the pins of a diagram in the panel, and log λ.
type bowling struct {
	// Pins is the target as plausible.ParseBowlingPins reads it: one
	// character per pin, pin 1 first: 'd' down, 's' stand, '?' don't care,
	// '.' not on the deck.
	Pins   string
	LogLam float64 `json:"LogLambda"` // log λ of the Gibbs term
}

// newBowling returns a strike with the paper's λ = e^2.5.
func newBowling() Settings {
	return &bowling{Pins: plausible.BowlingTargets["strike"], LogLam: math.Log(plausible.BowlingLambda)}
}

// bowlingPresets are the panel's target buttons, in order.
var bowlingPresets = []string{"strike", "6-7", "6-7-spare", "7-10", "7-10-spare"}

// pinCycle is what a click on a pin makes of it: down → stand → don't care
// → not on the deck → down.
var pinCycle = map[byte]byte{'d': 's', 's': '?', '?': '.', '.': 'd'}

// Panel implements Settings: presets, then the pins as seen by the
// bowler (pin 1 nearest), each drawn by its goal; a click cycles it.
func (b *bowling) Panel(edited func()) giu.Layout {
	var presets []giu.Widget
	for _, name := range bowlingPresets {
		presets = append(presets, giu.Button(name).OnClick(func() { b.Pins = plausible.BowlingTargets[name]; edited() }))
	}
	return giu.Layout{
		giu.Row(presets[:3]...),
		giu.Row(presets[3:]...),
		giu.Label("Click a pin to cycle: red falls, white"),
		giu.Label("stands, grey either, hollow is absent"),
		giu.Custom(func() { b.diagram(edited) }),
	}
}

// Pin diagram geometry, in pixels.
const (
	pinSpacing = 30
	pinRadius  = 10
)

// diagram draws the pins and cycles the one clicked.
func (b *bowling) diagram(edited func()) {
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

// Viewport implements Settings: the pins are set in the panel.
func (b *bowling) Viewport(*viewport.View, *viewport.Input) bool { return false }

// LogLambda implements Settings.
func (b *bowling) LogLambda() *float64 { return &b.LogLam }

// Model implements Settings: the setup shown before sampling is a typical
// roll (Bowling.Mode).
func (b *bowling) Model() (*Model, error) {
	if math.IsNaN(b.LogLam) || b.LogLam > 700 {
		return nil, fmt.Errorf("log λ = %v: want a number above 0 (λ > 1)", b.LogLam)
	}
	name := b.Pins
	for n, p := range plausible.BowlingTargets {
		if p == b.Pins {
			name = n
		}
	}
	sc, err := plausible.NewBowling(name, math.Exp(b.LogLam))
	if err != nil {
		return nil, err
	}
	return modelOf(sc, sc.Mode()), nil
}
