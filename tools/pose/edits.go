package pose

import (
	"fmt"
	"path/filepath"
	"slices"

	"gallop/assets"
	"gallop/internal/undo"
	"gallop/internal/words"
	"gallop/solver/meshik"
	"gallop/tools"
)

// clone returns a copy of the edits whose slices can be replaced (not
// modified) without touching the original's.
func (e edits) clone() edits {
	c := e
	c.Examples = slices.Clone(e.Examples)
	c.Handles = slices.Clone(e.Handles)
	c.Frozen = slices.Clone(e.Frozen)
	c.Blend = slices.Clone(e.Blend)
	c.Keys = slices.Clone(e.Keys)
	return c
}

// editCmd is one undoable change of the tool's state: it swaps whole
// edits values, which share their (immutable) position slices. Undo
// brings back the pose that was shown before the edit, held (nothing
// moves until the next drag); redo solves again, or holds that pose for
// an edit that moved nothing.
type editCmd struct {
	p             *Pose
	h             tools.Host
	name          string
	before, after edits
	shown         poseView  // the pose shown before the edit
	kind          solveKind // how the edit is solved
	merge         bool      // consecutive edits of the same name are one step
}

func (c *editCmd) Name() string { return c.name }

func (c *editCmd) Do() {
	c.p.ed = c.after
	if c.kind == hold {
		c.p.show(c.h, c.shown)
		return
	}
	c.p.post(c.h, c.kind)
}

func (c *editCmd) Undo() { c.p.ed = c.before; c.p.show(c.h, c.shown) }

// Merge implements undo.Merger for slider drags.
func (c *editCmd) Merge(next undo.Command) bool {
	n, ok := next.(*editCmd)
	if !ok || !c.merge || !n.merge || n.name != c.name || n.p != c.p {
		return false
	}
	c.after = n.after
	return true
}

// do records the change from the current state to ed as one undo step.
func (p *Pose) do(h tools.Host, name string, ed edits, kind solveKind) {
	h.Do(&editCmd{p: p, h: h, name: name, before: p.ed, after: ed, shown: p.view(), kind: kind})
}

func (p *Pose) SetMode(h tools.Host, m Mode) {
	if p.ed.Mode == m {
		return
	}
	if m == Blend && len(p.ed.Examples) == 0 {
		h.Error(fmt.Errorf("blend mode needs example poses: add some first"))
		return
	}
	ed := p.ed.clone()
	ed.Mode = m
	if len(ed.Blend) != len(ed.Examples) {
		ed.Blend = make([]float64, len(ed.Examples))
		if len(ed.Blend) > 0 {
			ed.Blend[0] = 1
		}
	}
	p.do(h, "Pose mode", ed, hold)
}

func (p *Pose) SetSpace(h tools.Host, k meshik.SpaceKind) {
	if p.ed.Space == k {
		return
	}
	ed := p.ed.clone()
	ed.Space = k
	p.do(h, "Feature space "+k.String(), ed, solve)
}

func (p *Pose) SetReference(h tools.Host, i int) {
	if p.ed.Reference == i {
		return
	}
	ed := p.ed.clone()
	ed.Reference = i
	p.do(h, "Reference pose", ed, solve)
}

func (p *Pose) SetBlend(h tools.Host, i int, v float64) {
	ed := p.ed.clone()
	for len(ed.Blend) < len(ed.Examples) {
		ed.Blend = append(ed.Blend, 0)
	}
	ed.Blend[i] = v
	h.Do(&editCmd{p: p, h: h, name: "Blend weight", before: p.ed, after: ed, shown: p.view(), kind: solve, merge: true})
}

// addExamples appends example poses after checking their vertex count.
func (p *Pose) addExamples(h tools.Host, name string, exs []example) {
	n := p.obj.Mesh.NumVertices()
	for _, ex := range exs {
		if len(ex.Positions) != n {
			h.Error(fmt.Errorf("example %s has %d vertices, the mesh has %d", ex.Name, len(ex.Positions), n))
			return
		}
	}
	ed := p.ed.clone()
	ed.Examples = append(ed.Examples, exs...)
	for range exs {
		ed.Blend = append(ed.Blend, 0)
	}
	p.do(h, name, ed, hold)
}

// AddExampleFiles reads example poses from OBJ files; each must have the
// object's vertices and faces.
func (p *Pose) AddExampleFiles(h tools.Host, paths []string) {
	var exs []example
	for _, path := range paths {
		m, err := assets.LoadOBJ(path)
		if err != nil {
			h.Error(err)
			return
		}
		if err := p.obj.Mesh.SameTopology(m); err != nil {
			h.Error(fmt.Errorf("%s: does not match %s: %w", path, p.obj.Name, err))
			return
		}
		exs = append(exs, example{Name: filepath.Base(path), Positions: m.Positions})
	}
	name := "Add " + words.Count(len(exs), "example", "examples")
	if len(exs) == 1 {
		name = "Add example " + exs[0].Name
	}
	p.addExamples(h, name, exs)
}

// AddExampleFolder adds every OBJ file of a folder, in numeric order.
func (p *Pose) AddExampleFolder(h tools.Host, dir string) {
	files, err := assets.ListOBJSequence(dir)
	if err != nil {
		h.Error(err)
		return
	}
	p.AddExampleFiles(h, files)
}

func (p *Pose) AddFrames(h tools.Host, frames []int) {
	var exs []example
	for _, f := range frames {
		exs = append(exs, example{Name: fmt.Sprintf("%s frame %d", p.obj.Name, f+1), Positions: p.obj.PositionsAt(f)})
	}
	p.addExamples(h, "Add "+words.Count(len(exs), "example", "examples"), exs)
}

// AddDemoExamples adds the straight and bent bar of the paper's Figure 5,
// placed where the demo scene's bar stands.
func (p *Pose) AddDemoExamples(h tools.Host) {
	p.addExamples(h, "Add the demo bar's examples", demoExamples(p.obj.Mesh.Positions))
}

func (p *Pose) RemoveExample(h tools.Host, i int) {
	ed := p.ed.clone()
	ed.Examples = slices.Delete(ed.Examples, i, i+1)
	if i < len(ed.Blend) {
		ed.Blend = slices.Delete(ed.Blend, i, i+1)
	}
	switch {
	case ed.Reference == i:
		ed.Reference = -1
	case ed.Reference > i:
		ed.Reference--
	}
	if len(ed.Examples) == 0 {
		ed.Mode = IK
	}
	p.do(h, "Remove example", ed, hold)
}

func (p *Pose) RenameHandle(h tools.Host, i int, name string) {
	if name == "" || name == p.ed.Handles[i].Name {
		return
	}
	ed := p.ed.clone()
	ed.Handles[i].Name = name
	p.do(h, "Rename handle", ed, hold)
}

func (p *Pose) ResetHandle(h tools.Host, i int) {
	ed := p.ed.clone()
	ed.Handles[i].Offset = assets.Vec3{}
	p.do(h, "Reset handle", ed, solve)
}

func (p *Pose) RemoveHandle(h tools.Host, i int) {
	ed := p.ed.clone()
	ed.Handles = slices.Delete(ed.Handles, i, i+1)
	ed.Keys = nil
	p.do(h, "Remove handle", ed, hold)
}

// FreezeSelection freezes (or unfreezes) the triangles whose three
// vertices are selected.
func (p *Pose) FreezeSelection(h tools.Host, freeze bool) {
	sel := h.Selection()
	in := func(v int) bool { _, ok := slices.BinarySearch(sel, v); return ok }
	set := map[int]bool{}
	for _, j := range p.ed.Frozen {
		set[j] = true
	}
	changed := 0
	for j, t := range p.obj.Mesh.Triangles {
		if in(t[0]) && in(t[1]) && in(t[2]) && set[j] != freeze {
			set[j] = freeze
			changed++
		}
	}
	if changed == 0 {
		h.Error(fmt.Errorf("no triangle has all three vertices selected: select the region first"))
		return
	}
	ed := p.ed.clone()
	ed.Frozen = ed.Frozen[:0:0]
	for j, f := range set {
		if f {
			ed.Frozen = append(ed.Frozen, j)
		}
	}
	slices.Sort(ed.Frozen)
	if len(ed.Frozen) == len(p.obj.Mesh.Triangles) {
		h.Error(fmt.Errorf("every triangle would be frozen: nothing would be left for the examples to explain"))
		return
	}
	name := "Unfreeze"
	if freeze {
		name = "Freeze"
	}
	p.do(h, name+" "+words.Count(changed, "triangle", "triangles"), ed, hold)
}
