package app

import (
	"fmt"
	"math"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/go-gl/gl/v3.3-core/gl"

	"gallop/assets"
	"gallop/internal/cputime"
	"gallop/internal/words"
	"gallop/panels"
	"gallop/viewport"
	"gallop/viewport/render"
)

// initGL loads OpenGL's functions and builds the renderer, once, from
// inside the UI loop where giu's context is current.
func (a *App) initGL() {
	if err := gl.Init(); err != nil {
		a.glErr = fmt.Errorf("OpenGL: %w", err)
		a.fail(a.glErr)
		return
	}
	r, err := render.New()
	if err != nil {
		a.glErr = err
		a.fail(err)
		return
	}
	a.renderer = r
}

// viewportWidget draws the 3D view into the space left for it and turns
// mouse input over it into navigation and tool actions.
func (a *App) viewportWidget() {
	pos := imgui.CursorScreenPos()
	avail := imgui.ContentRegionAvail()
	w, h := int(avail.X), int(avail.Y)
	if w < 1 || h < 1 {
		return
	}
	if a.renderer == nil && a.glErr == nil {
		a.initGL()
	}
	a.view.Width, a.view.Height = float64(w), float64(h)
	panels.RecordRect("viewport", pos, imgui.Vec2{X: pos.X + avail.X, Y: pos.Y + avail.Y})
	start := cputime.Thread()
	o := a.doc.Object()
	if a.preview != nil || o != nil && o.Hidden {
		a.view.SetMesh(nil, nil) // nothing to pick in a preview, or hidden
	} else if o != nil {
		a.view.SetMesh(a.shownPositions(o), o.Mesh.Triangles)
	} else {
		a.view.SetMesh(nil, nil)
	}
	var items []viewport.Item
	if a.renderer != nil {
		items = a.drawItems()
	}
	a.deformTime = cputime.Thread() - start

	dl := imgui.WindowDrawList()
	if a.renderer != nil {
		if err := a.renderer.Render(w, h, &a.view.Camera, a.view.Style, items, a.gridStep()); err != nil {
			a.glErr = err
			a.fail(err)
		}
		tex := imgui.NewTextureRefTextureID(imgui.TextureID(a.renderer.Texture()))
		dl.AddImageV(*tex, pos, imgui.Vec2{X: pos.X + avail.X, Y: pos.Y + avail.Y},
			imgui.Vec2{X: 0, Y: 1}, imgui.Vec2{X: 1, Y: 0}, 0xffffffff)
	} else {
		dl.AddTextVec2(imgui.Vec2{X: pos.X + 10, Y: pos.Y + 10}, 0xff6060ff, "No OpenGL 3.3 viewport: see the message log.")
	}

	imgui.SetCursorScreenPos(pos)
	imgui.InvisibleButtonV("##viewport", avail, imgui.ButtonFlagsMouseButtonLeft|imgui.ButtonFlagsMouseButtonRight|imgui.ButtonFlagsMouseButtonMiddle)
	in := a.viewportInput(pos, imgui.IsItemHovered())
	if a.chain != nil {
		a.chain.mouse.input(&in)
	}
	if !a.view.Navigate(&in) && (o != nil || a.preview != nil) {
		a.tools[a.tool].Viewport(a, &in)
	}
	if a.bench != nil {
		a.bench.viewport(a)
	}
	if a.chain != nil {
		a.chain.viewport(a)
	}
	a.viewportOverlays(dl, pos, avail)
}

// viewportInput reads Dear ImGui's mouse state relative to the viewport,
// with the cursor's path since the last frame.
func (a *App) viewportInput(pos imgui.Vec2, hovered bool) viewport.Input {
	io := imgui.CurrentIO()
	m := io.MousePos()
	d := io.MouseDelta()
	in := viewport.Input{
		X: float64(m.X - pos.X), Y: float64(m.Y - pos.Y),
		Hovered: hovered,
		Shift:   io.KeyShift(), Ctrl: io.KeyCtrl(), Alt: io.KeyAlt(),
		OriginX: float64(pos.X), OriginY: float64(pos.Y),
	}
	if !math.IsNaN(float64(d.X)) && math.Abs(float64(d.X)) < 1e6 {
		in.DX, in.DY = float64(d.X), float64(d.Y)
	}
	if hovered {
		in.Wheel = float64(io.MouseWheel())
	}
	for b := 0; b < 3; b++ {
		btn := imgui.MouseButton(b)
		in.Pressed[b] = hovered && imgui.IsMouseClickedBool(btn)
		in.Down[b] = imgui.IsMouseDown(btn)
		in.Released[b] = imgui.IsMouseReleased(btn)
	}
	switch {
	case a.pathOK:
		// Every position the frame applied (see mouseTrail), from Dear
		// ImGui's coordinates to the viewport's.
		in.Path = make([]viewport.Motion, len(a.path))
		for i, p := range a.path {
			in.Path[i] = viewport.Motion{X: p.X - float64(pos.X), Y: p.Y - float64(pos.Y), Down: p.Down}
		}
	case in.DX != 0 || in.DY != 0:
		// Without the trail, the one position the frame sees.
		in.Path = []viewport.Motion{{X: in.X, Y: in.Y, Down: in.Down}}
	}
	return in
}

// shownPositions returns the positions the viewport shows for o: the
// active tool's (a live pose) for the active object if it has some, else
// the object's at the current frame.
func (a *App) shownPositions(o *assets.Object) []assets.Vec3 {
	if o == a.doc.Object() {
		if p, _ := a.tools[a.tool].Display(a); len(p) == o.Mesh.NumVertices() {
			return p
		}
	}
	return o.PositionsAt(a.doc.Frame)
}

// drawItems lists what the renderer draws this frame: the preview's
// bodies at its frame, or the document's objects, and the active tool's
// extra items (the Synthesize tool's obstacles) with either.
func (a *App) drawItems() []viewport.Item {
	if p := a.preview; p != nil {
		items := p.items()
		if c, ok := a.tools[a.tool].(panels.ClipColors); ok && p.clip != nil {
			if cols := c.ClipColors(a); len(cols) == p.clip.Mesh.NumVertices() {
				items[0].Colors = cols
			}
		}
		return a.withExtras(items)
	}
	items := make([]viewport.Item, 0, len(a.doc.Scene.Objects))
	for i, o := range a.doc.Scene.Objects {
		if o.Hidden {
			continue
		}
		it := viewport.Item{
			Key:       o,
			Triangles: o.Mesh.Triangles,
			Positions: a.shownPositions(o),
			Active:    i == a.doc.Active,
		}
		if it.Active {
			it.Points = a.tools[a.tool].Markers(a)
			if _, c := a.tools[a.tool].Display(a); len(c) == o.Mesh.NumVertices() {
				it.Colors = c
			} else if hm := a.heatMap(o); hm != nil {
				it.Colors = hm.colors
			}
		}
		items = append(items, it)
	}
	return a.withExtras(items)
}

// withExtras appends the active tool's extra items to items.
func (a *App) withExtras(items []viewport.Item) []viewport.Item {
	if x, ok := a.tools[a.tool].(panels.Extras); ok {
		items = append(items, x.ExtraItems(a)...)
	}
	return items
}

// gridStep picks the ground grid's spacing from the scene's size; a
// rigid-body preview, which has its own ground, gets none (0).
func (a *App) gridStep() float64 {
	if a.preview != nil && a.preview.scene != nil {
		return 0
	}
	lo, hi, ok := a.stage().Bounds()
	if !ok {
		return 1
	}
	return viewport.GridStep(hi.Sub(lo).Len())
}

// viewportOverlays draws the 2D information over the view: what is shown,
// and the colour bar of a heat map.
func (a *App) viewportOverlays(dl *imgui.DrawList, pos, size imgui.Vec2) {
	text := func(x, y float32, col uint32, s string) {
		dl.AddTextVec2(imgui.Vec2{X: pos.X + x + 1, Y: pos.Y + y + 1}, 0xc0000000, s)
		dl.AddTextVec2(imgui.Vec2{X: pos.X + x, Y: pos.Y + y}, col, s)
	}
	proj := "Perspective"
	if a.view.Camera.Ortho {
		proj = "Orthographic"
	}
	text(10, 8, 0xffe0e0e0, proj)
	if p := a.preview; p != nil {
		text(10, 26, 0xffe0e0e0, p.caption())
		return
	}
	if o := a.doc.Object(); o != nil {
		text(10, 26, 0xffe0e0e0, fmt.Sprintf("%s  |  %s  %s  |  frame %d / %d",
			o.Name, words.Count(o.Mesh.NumVertices(), "vertex", "vertices"), words.Count(o.Mesh.NumTriangles(), "triangle", "triangles"), a.doc.Frame+1, a.doc.NumFrames()))
	}
	if o := a.doc.Object(); o != nil {
		hm := a.heatMap(o)
		if l, ok := a.tools[a.tool].(panels.Legend); ok {
			if title, lo, hi, ok := l.Legend(a); ok {
				hm = &heatMap{title: title, lo: lo, hi: hi}
			}
		}
		if hm != nil {
			a.colourBar(dl, imgui.Vec2{X: pos.X + size.X - 70, Y: pos.Y + 44}, 18, size.Y*0.5, hm)
		}
	}
}

// colourBar draws the heat map's scale: the colour map from hi (top) to lo
// (bottom) with the values at both ends and the middle.
func (a *App) colourBar(dl *imgui.DrawList, at imgui.Vec2, w, h float32, hm *heatMap) {
	// Each step is a vertical gradient between its end colours, so the
	// bar shows the map without banding.
	const steps = 32
	col := func(t float64) uint32 {
		c := viewport.Turbo.At(t)
		return imgui.ColorU32Vec4(imgui.Vec4{X: c[0], Y: c[1], Z: c[2], W: 1})
	}
	for i := 0; i < steps; i++ {
		t0, t1 := float64(i)/steps, float64(i+1)/steps
		lo, hi := col(t0), col(t1)
		dl.AddRectFilledMultiColor(imgui.Vec2{X: at.X, Y: at.Y + h*float32(1-t1)}, imgui.Vec2{X: at.X + w, Y: at.Y + h*float32(1-t0)}, hi, hi, lo, lo)
	}
	dl.AddRect(at, imgui.Vec2{X: at.X + w, Y: at.Y + h}, 0xffc0c0c0)
	label := func(y float32, v float64) {
		dl.AddTextVec2(imgui.Vec2{X: at.X + w + 4, Y: y - 7}, 0xffe0e0e0, fmt.Sprintf("%.3g", v))
	}
	label(at.Y, hm.hi)
	label(at.Y+h/2, (hm.lo+hm.hi)/2)
	label(at.Y+h, hm.lo)
	// The title ends at the labels' right edge, inside the viewport.
	tw := imgui.CalcTextSize(hm.title).X
	dl.AddTextVec2(imgui.Vec2{X: at.X + w + 44 - tw, Y: at.Y - 20}, 0xffe0e0e0, hm.title)
}

// frameAll points the camera at the whole scene shown (Home).
func (a *App) frameAll() {
	if lo, hi, ok := a.stage().Bounds(); ok {
		a.view.FrameBox(lo, hi)
	}
}

// frameSelected points the camera at the selected vertices (numpad .), or
// at the whole scene when nothing is selected.
func (a *App) frameSelected() {
	o := a.doc.Object()
	if o == nil || len(a.doc.Selection) == 0 {
		a.frameAll()
		return
	}
	pos := o.PositionsAt(a.doc.Frame)
	pts := make([]assets.Vec3, len(a.doc.Selection))
	for i, v := range a.doc.Selection {
		pts[i] = pos[v]
	}
	a.view.FramePoints(pts)
}
