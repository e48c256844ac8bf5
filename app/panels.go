package app

import (
	"fmt"
	"path/filepath"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/panels"
)

// toolsPanel lists the tools that exist; clicking one makes it active.
func (a *App) toolsPanel() giu.Layout {
	l := giu.Layout{windowMark("tools"), giu.Label("Tools"), giu.Separator()}
	for i, t := range a.tools {
		l = append(l, giu.Selectable(t.Name()).Selected(i == a.tool).OnClick(func() { a.setTool(i) }),
			panels.Mark("tool "+t.Name()), giu.Tooltip(t.Help()))
	}
	l = append(l, giu.Separator(), giu.Label("Objects"))
	for i, o := range a.doc.Scene.Objects {
		i := i
		l = append(l, giu.Selectable(fmt.Sprintf("%s##obj%d", o.Name, i)).Selected(i == a.doc.Active).OnClick(func() {
			if i != a.doc.Active {
				a.history.Do(&setActiveCmd{doc: a.doc, before: a.doc.Active, after: i})
			}
		}))
	}
	if len(a.doc.Scene.Objects) == 0 {
		l = append(l, giu.Label("(empty: File > Import,\nor drop files here)"))
	}
	return l
}

// propertiesPanel shows the active object and the active tool.
func (a *App) propertiesPanel() giu.Layout {
	l := giu.Layout{windowMark("properties")}
	if o := a.doc.Object(); o != nil {
		if a.rename.obj != o || !a.rename.editing {
			a.rename.obj, a.rename.text = o, o.Name
		}
		lo, hi := a.doc.ObjectBounds(o)
		kind := "static mesh"
		switch {
		case o.Rig != nil && o.Skin != nil:
			kind = fmt.Sprintf("skinned: %d joints, %d keys", len(o.Rig.Joints), len(o.Skin.Frames))
		case o.Clip != nil:
			kind = fmt.Sprintf("clip %q: %d frames at %g fps", o.Clip.Name, o.Clip.NumFrames(), o.Clip.FPS)
		}
		l = append(l,
			giu.Label("Object"), giu.Separator(),
			giu.InputText(&a.rename.text).Label("Name").Flags(giu.InputTextFlagsEnterReturnsTrue).OnChange(func() {
				if t := a.rename.text; t != "" && t != o.Name {
					a.history.Do(&renameCmd{obj: o, before: o.Name, after: t})
				}
			}),
			giu.Custom(func() { a.rename.editing = imgui.IsItemActive() }),
			giu.Labelf("%d vertices, %d triangles", o.Mesh.NumVertices(), o.Mesh.NumTriangles()),
			giu.Labelf("%d groups", len(o.Mesh.Groups)),
			giu.Label(kind),
			giu.Labelf("min (%.3g, %.3g, %.3g)", lo[0], lo[1], lo[2]),
			giu.Labelf("max (%.3g, %.3g, %.3g)", hi[0], hi[1], hi[2]),
			giu.Label(sourceText(o.Source)),
			giu.Button("Delete object").OnClick(func() {
				a.history.Do(&removeObjectCmd{doc: a.doc, index: a.doc.Active, obj: o})
			}),
			giu.Spacing(),
		)
	}
	t := a.tools[a.tool]
	l = append(l, giu.Label("Tool: "+t.Name()), giu.Separator())
	l = append(l, t.Panel(a)...)
	return l
}

// sourceText says where an object's data lives.
func sourceText(src *assets.Source) string {
	if src == nil {
		return "Stored in the project"
	}
	if len(src.Paths) == 1 {
		return "From " + filepath.Base(src.Paths[0])
	}
	return fmt.Sprintf("From %d files", len(src.Paths))
}

// windowMark records the rectangle of the panel (child window) it is laid
// out in under name, for the GUI tests (panels.RecordRect).
func windowMark(name string) giu.Widget {
	return giu.Custom(func() {
		pos, size := imgui.WindowPos(), imgui.WindowSize()
		panels.RecordRect(name, pos, imgui.Vec2{X: pos.X + size.X, Y: pos.Y + size.Y})
	})
}
