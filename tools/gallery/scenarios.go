package gallery

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"
	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/solver/plausible"
	"gallop/viewport"
)

// Scenario is one entry of the tool's scenario picker. Adding a scenario
// to the tool is adding an entry to scenarios with a Settings type of its
// own.
type Scenario struct {
	// Name is shown in the picker and keys the scenario's settings in the
	// project file.
	Name string
	// New returns the scenario's settings with the paper's defaults.
	New func() Settings
}

// scenarios are the picker's entries, in order.
var scenarios = []Scenario{
	{Name: "2D ball", New: func() Settings { return &ball2D{Ball2D: *plausible.NewBall2D()} }},
	{Name: "Bowling", New: newBowling},
	{Name: "Spell", New: newSpell},
	{Name: "Dice", New: newDice},
}

// Settings are a scenario's constraints and parameters as the artist
// edits them. They are saved in the project as JSON (encoding/json of the
// value New returns), so their fields must be exported.
type Settings interface {
	// Panel lays out the widgets that edit the constraints; edited is
	// called after every change.
	Panel(edited func()) giu.Layout
	// Viewport lets the artist edit the constraints in the viewport,
	// which shows the scenario's setup (Model.Setup) or one of its
	// samples: it may draw 2D overlays and take mouse drags, and reports
	// whether it changed anything.
	Viewport(v *viewport.View, in *viewport.Input) (edited bool)
	// LogLambda returns the scenario's log λ of the Gibbs term λ^k for the
	// chain settings to edit, or nil when the scenario has none.
	LogLambda() *float64
	// Model checks the settings and returns the scenario they describe.
	Model() (*Model, error)
}

// Model is a scenario without its types: what the tool runs, shows and
// replays.
type Model struct {
	// Kernels names the proposal kernels; Weights are their default
	// weights.
	Kernels []string
	Weights []float64
	// Gallery returns a gallery of the scenario with the given proposal
	// weights (one per kernel).
	Gallery func(weights []float64, seeds []uint64, iterations int) (*plausible.Gallery, error)
	// Setup returns the scene before sampling, for the viewport: the
	// scenario's fixed parts and its bodies as they start.
	Setup func(fps float64) (*assets.RigidAnimation, error)
	// Replay records a state saved by Gallery.State.
	Replay func(state json.RawMessage, fps float64) (*assets.RigidAnimation, error)
}

// modelOf makes the Model of sc; setup is the state Setup records.
func modelOf[S, O any](sc plausible.Scenario[S, O], setup S) *Model {
	m := &Model{
		Gallery: func(weights []float64, seeds []uint64, iterations int) (*plausible.Gallery, error) {
			w, err := plausible.Reweight(sc, weights)
			if err != nil {
				return nil, err
			}
			return plausible.NewGallery(w, seeds, iterations)
		},
		Setup: func(fps float64) (*assets.RigidAnimation, error) { return sc.Record(setup, fps) },
		Replay: func(raw json.RawMessage, fps float64) (*assets.RigidAnimation, error) {
			var s S
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, fmt.Errorf("sample state: %w", err)
			}
			return sc.Record(s, fps)
		},
	}
	for _, k := range sc.Kernels() {
		m.Kernels = append(m.Kernels, k.Name)
		m.Weights = append(m.Weights, k.Weight)
	}
	return m
}

// ball2D is the 2D ball of Section 5.1: the target's x (dragged in the
// viewport), σ_d and the tolerance, in units of the ball's diameter D.
type ball2D struct {
	plausible.Ball2D
	dragging bool // the target marker is being dragged
}

// Panel implements Settings.
func (b *ball2D) Panel(edited func()) giu.Layout {
	target, sigma, tol := float32(b.Target), float32(b.Sigma), float32(b.Tolerance)
	return giu.Layout{
		giu.Label("Target: drag the green marker, or"),
		giu.SliderFloat(&target, -6, 6).Label("target x (D)").Format("%.2f").OnChange(func() { b.Target = float64(target); edited() }),
		giu.InputFloat(&sigma).Label("σ_d (D)").Format("%.3g").OnChange(func() { b.Sigma = float64(sigma); edited() }),
		giu.InputFloat(&tol).Label("tolerance (D)").Format("%.3g").OnChange(func() { b.Tolerance = float64(tol); edited() }),
	}
}

// targetGrab is how near the target marker, in pixels, a press grabs it.
const targetGrab = 12

// Viewport implements Settings: the target is a green marker on the
// table, with a bar as wide as the tolerance; dragging it moves the
// target along x.
func (b *ball2D) Viewport(v *viewport.View, in *viewport.Input) bool {
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
	dl := imgui.ForegroundDrawListViewportPtr()
	green := imgui.ColorU32Vec4(imgui.Vec4{X: 0.3, Y: 0.9, Z: 0.35, W: 1})
	dl.AddLineV(lo, hi, green, 3)
	dl.AddTriangleFilled(imgui.Vec2{X: c.X, Y: c.Y}, imgui.Vec2{X: c.X - 8, Y: c.Y - 14}, imgui.Vec2{X: c.X + 8, Y: c.Y - 14}, green)
	dl.AddTextVec2(imgui.Vec2{X: c.X - 18, Y: c.Y - 32}, green, "target")
	mx, my := float32(in.OriginX+in.X), float32(in.OriginY+in.Y)
	grabbed := math.Hypot(float64(mx-c.X), float64(my-(c.Y-7))) <= targetGrab
	// The cursor's ray meets the plane z = 0 of the ball's flight.
	p, ok := dragMarker(&b.dragging, grabbed, v, in, 2)
	if !ok {
		return false
	}
	if nx := math.Round(p[0]/d*100) / 100; nx != b.Target && !math.IsNaN(nx) && !math.IsInf(nx, 0) {
		b.Target = nx
		return true
	}
	return false
}

// LogLambda implements Settings: the 2D ball's constraint is a Gaussian,
// without λ.
func (b *ball2D) LogLambda() *float64 { return nil }

// Model implements Settings.
func (b *ball2D) Model() (*Model, error) {
	sc := b.Ball2D // the chains get a copy that later edits do not change
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	return modelOf(&sc, plausible.Ball2DState{}), nil
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
