package gallery

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/plausible"
	"gallop/viewport"
)

// dice is the die on a random table of Section 5.4: the target where the
// die should rest (dragged on the table in the viewport), the face that
// should be up, σ, the tolerance and log λ.
type dice struct {
	plausible.Dice
	LogLam float64 `json:"LogLambda"` // log λ of the face term

	dragging bool // the target marker is being dragged
}

// newDice returns the scenario's defaults (plausible.NewDice).
func newDice() Settings {
	d := &dice{Dice: *plausible.NewDice()}
	d.LogLam = math.Log(d.Lambda)
	return d
}

// Panel implements Settings.
func (d *dice) Panel(edited func()) giu.Layout {
	x, z := float32(d.Target[0]), float32(d.Target[1])
	sigma, tol := float32(d.Sigma*100), float32(d.Tolerance*100)
	half := float32(plausible.DiceTableSize / 2)
	faces := giu.Layout{giu.Label("Face up:")}
	var row []giu.Widget
	for f := 1; f <= 6; f++ {
		row = append(row, giu.RadioButton(fmt.Sprint(f), d.Face == f).OnChange(func() { d.Face = f; edited() }))
	}
	return giu.Layout{
		giu.Label("Target: drag the green ring on the table, or"),
		giu.SliderFloat(&x, -half, half).Label("target x (m)").Format("%.3f").OnChange(func() { d.Target[0] = float64(x); edited() }),
		giu.SliderFloat(&z, -half, half).Label("target z (m)").Format("%.3f").OnChange(func() { d.Target[1] = float64(z); edited() }),
		faces, giu.Row(row...),
		giu.InputFloat(&sigma).Label("σ (cm)").Format("%.3g").OnChange(func() { d.Sigma = float64(sigma) / 100; edited() }),
		giu.InputFloat(&tol).Label("tolerance (cm)").Format("%.3g").OnChange(func() { d.Tolerance = float64(tol) / 100; edited() }),
	}
}

// Viewport implements Settings: a ring on the table marks the target;
// dragging it moves the target over the table (the plane y = 0, which the
// bumps leave within millimetres).
func (d *dice) Viewport(v *viewport.View, in *viewport.Input) bool {
	at := func(x, z float64) (imgui.Vec2, bool) {
		sx, sy, ok := v.ToScreen(mgl64.Vec3{x, 0, z})
		return imgui.Vec2{X: float32(in.OriginX + sx), Y: float32(in.OriginY + sy)}, ok
	}
	c, ok := at(d.Target[0], d.Target[1])
	if !ok {
		return false
	}
	dl := imgui.ForegroundDrawListViewportPtr()
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
	p, ok := dragMarker(&d.dragging, grabbed, v, in, 1)
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

// LogLambda implements Settings.
func (d *dice) LogLambda() *float64 { return &d.LogLam }

// Model implements Settings: the setup shown before sampling is the
// prior's mode (Dice.Mode).
func (d *dice) Model() (*Model, error) {
	sc := d.Dice // the chains get a copy that later edits do not change
	sc.Lambda = math.Exp(d.LogLam)
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(&sc, sc.Mode()), nil
}
