package pose

import (
	"slices"

	"gallop/assets"
	"gallop/tools"
)

// DemoHint is what the viewport says on the demo scene until the first
// drag.
const DemoHint = "Drag the green ring at the bar's tip to bend it: the bar bends as its two example poses show. " +
	"Then select vertices and press Ctrl+H for a handle of your own. Help > Getting started tells more."

// SetUpDemo makes the demo bar ready to pose: its straight and bent
// examples (the paper's Figure 5), its base cap a handle that holds its
// orientation, its tip cap a handle that turns with the bend, and a hint
// in the viewport until the first drag. This is where the demo starts,
// not an edit: nothing is added to the undo history. It does nothing on
// another mesh.
func (p *Pose) SetUpDemo(h tools.Host) {
	p.Sync(h)
	if !p.IsDemoBar() {
		return
	}
	rest := h.Positions()
	ed := edits{Reference: -1}
	ed.Examples = demoExamples(p.obj.Mesh.Positions)
	for _, g := range p.obj.Mesh.Groups {
		name, fixed := "", false
		switch g.Name {
		case "cap0":
			name, fixed = "Base", true
		case "cap1":
			name = "Tip"
		default:
			continue
		}
		var vs []int
		for _, j := range g.Triangles {
			vs = append(vs, p.obj.Mesh.Triangles[j][:]...)
		}
		slices.Sort(vs)
		vs = slices.Compact(vs)
		hd := handle{Name: name, Vertices: vs, Fixed: fixed}
		for _, v := range vs {
			hd.Base = append(hd.Base, rest[v])
		}
		ed.Handles = append(ed.Handles, hd)
	}
	ed.Blend = make([]float64, len(ed.Examples))
	p.ed = ed
	p.hint = DemoHint
	p.show(h, poseView{})
}

// demoExamples returns the straight and bent bar of the paper's Figure 5,
// placed where the bar with the given rest positions stands.
func demoExamples(rest []assets.Vec3) []example {
	straight := assets.DemoBarBent(0)
	shift := rest[0].Sub(straight[0])
	place := func(ps []assets.Vec3) []assets.Vec3 {
		for i := range ps {
			ps[i] = ps[i].Add(shift)
		}
		return ps
	}
	return []example{
		{Name: "bar straight", Positions: place(straight)},
		{Name: "bar bent 90°", Positions: place(assets.DemoBarBent(assets.DemoBendAngle))},
	}
}

// Hint returns what the viewport should say (the demo's first steps), or
// "" once the artist has dragged a handle.
func (p *Pose) Hint() string { return p.hint }
