package app

import (
	"fmt"
	"path/filepath"

	"github.com/AllenDang/cimgui-go/imgui"
	"github.com/AllenDang/giu"

	"gallop/assets"
	"gallop/internal/words"
	"gallop/panels"
	"gallop/tools"
)

// toolsPanel lists the tools that exist; clicking one makes it active.
func (a *App) toolsPanel() giu.Layout {
	l := giu.Layout{windowMark("tools"), giu.Label("Tools"), giu.Separator()}
	for i, t := range a.tools {
		l = append(l, giu.Selectable(t.Name()).Selected(i == a.tool).OnClick(func() { a.setTool(i) }),
			panels.Tipped(panels.Mark("tool "+t.Name()), t.Help()))
	}
	l = append(l, giu.Separator(), giu.Label("Objects"))
	for i, o := range a.doc.Scene.Objects {
		// The eye, then the name, on one line (a giu.Row would leave the
		// line open after its last widget, the invisible mark).
		l = append(l, giu.Custom(func() {
			shown := !o.Hidden
			if imgui.Checkbox(fmt.Sprintf("##shown%d", i), &shown) {
				a.setHidden([]*assets.Object{o}, !shown)
			}
			panels.ShowTip("Shown in the viewport (H hides the active object, Shift+H the others, Alt+H shows all)")
			panels.Mark(map[bool]string{true: "object shown ", false: "object hidden "}[!o.Hidden] + o.Name).Build()
			imgui.SameLine()
			giu.Selectable(fmt.Sprintf("%s##obj%d", o.Name, i)).Selected(i == a.doc.Active).OnClick(func() {
				if i != a.doc.Active {
					a.history.Do(&setActiveCmd{doc: a.doc, before: a.doc.Active, after: i})
				}
			}).Build()
			panels.Mark("object " + o.Name).Build()
		}))
	}
	if len(a.doc.Scene.Objects) == 0 {
		l = append(l, giu.Label("Empty: File > Import, or drop files here.").Wrapped(true))
	}
	return append(l, contentMark("tools"))
}

// propertiesPanel shows the active object, in a block that folds (folded
// by default in the method tools, which need the room), and the active
// tool.
func (a *App) propertiesPanel() giu.Layout {
	l := giu.Layout{windowMark("properties")}
	if o := a.doc.Object(); o != nil {
		l = append(l, giu.Custom(func() {
			if a.objectBlock() {
				a.objectPanel(o).Build()
			}
		}))
	}
	t := a.tools[a.tool]
	l = append(l, giu.Label("Tool: "+t.Name()), giu.Separator())
	l = append(l, t.Panel(a)...)
	return append(l, contentMark("properties"))
}

// objectPanel shows what the active object is and lets the artist rename
// or delete it.
func (a *App) objectPanel(o *assets.Object) giu.Layout {
	if a.rename.obj != o || !a.rename.editing {
		a.rename.obj, a.rename.text = o, o.Name
	}
	lo, hi := a.doc.ObjectBounds(o)
	kind := "static mesh"
	switch {
	case o.Rig != nil && o.Skin != nil:
		kind = fmt.Sprintf("skinned: %s, %s", words.Count(len(o.Rig.Joints), "joint", "joints"), words.Count(len(o.Skin.Frames), "key", "keys"))
	case o.Clip != nil:
		kind = fmt.Sprintf("clip %q: %s at %g fps", o.Clip.Name, words.Count(o.Clip.NumFrames(), "frame", "frames"), o.Clip.FPS)
	}
	return giu.Layout{
		giu.InputText(&a.rename.text).Label("Name").Size(-50).Flags(giu.InputTextFlagsEnterReturnsTrue).OnChange(func() {
			if t := a.rename.text; t != "" && t != o.Name {
				a.history.Do(&renameCmd{obj: o, before: o.Name, after: t})
			}
		}),
		giu.Custom(func() { a.rename.editing = imgui.IsItemActive() }),
		panels.Mark("object: name"),
		giu.Label(words.Count(o.Mesh.NumVertices(), "vertex", "vertices") + ", " + words.Count(o.Mesh.NumTriangles(), "triangle", "triangles")),
		giu.Label(words.Count(len(o.Mesh.Groups), "group", "groups")),
		giu.Label(kind).Wrapped(true),
		a.clipsList(o),
		giu.Labelf("min (%.3g, %.3g, %.3g)", lo[0], lo[1], lo[2]),
		giu.Labelf("max (%.3g, %.3g, %.3g)", hi[0], hi[1], hi[2]),
		giu.Label(sourceText(o.Source)).Wrapped(true),
		giu.Button("Delete object").OnClick(func() {
			a.history.Do(&removeObjectCmd{doc: a.doc, index: a.doc.Active, obj: o})
		}),
		giu.Spacing(),
	}
}

// clipsList lists an object's clip and its takes (see assets.Object) when
// it has takes: clicking a take plays it instead, as one undoable step.
func (a *App) clipsList(o *assets.Object) giu.Widget {
	if len(o.Takes) == 0 {
		return giu.Custom(func() {})
	}
	l := giu.Layout{giu.Label("Clips (click one to play it)")}
	if o.Clip != nil {
		l = append(l, giu.Selectable("  "+o.Clip.Name).Selected(true), panels.Mark("object: clip "+o.Clip.Name))
	}
	for i, tk := range o.Takes {
		l = append(l, giu.Selectable("  "+tk.Clip.Name).OnClick(func() { a.history.Do(tools.PlayTake(o, i)) }), panels.Mark("object: clip "+tk.Clip.Name))
	}
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

// objectBlock lays out the Object block's header, folded or not as the
// artist left it for the active tool (by default unfolded only in the
// Select tool), and reports whether it is unfolded.
func (a *App) objectBlock() bool {
	name := a.tools[a.tool].Name()
	open, ok := a.objectOpen[name]
	if !ok {
		open = a.tool == 0
	}
	imgui.SetNextItemOpenV(open, imgui.CondAlways)
	open = imgui.CollapsingHeaderTreeNodeFlags("Object")
	panels.Mark("properties: Object").Build()
	a.objectOpen[name] = open
	return open
}
