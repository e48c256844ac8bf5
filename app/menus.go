package app

import (
	"path/filepath"

	"github.com/AllenDang/giu"

	"gallop/panels"
	"gallop/viewport"
)

// menuBar lays out File, Edit, View and Help. Shortcut labels follow
// Blender's keymap; the keys themselves are handled in shortcuts. Escape
// closes an open menu (Dear ImGui does so only with keyboard navigation,
// which Gallop's shortcuts keep off).
func (a *App) menuBar() giu.Widget {
	return giu.MenuBar().Layout(
		giu.Menu("File").Layout(
			windowMark("menu: File items"),
			escapeCloses(),
			giu.MenuItem("New").Shortcut("Ctrl+N").OnClick(a.cmdNew),
			giu.MenuItem("Open...").Shortcut("Ctrl+O").OnClick(a.cmdOpen),
			giu.Menu("Open Recent").Layout(a.recentItems()...),
			giu.MenuItem("Recover Last Session").Enabled(a.autosave != nil && a.autosave.orphan != "").OnClick(func() {
				a.confirmDiscard("recovering the last session", a.recoverLast)
			}),
			panels.Mark("file: Recover Last Session"),
			giu.Separator(),
			giu.Menu("Import").Layout(
				windowMark("menu: Import items"),
				giu.MenuItem("Mesh or animation (OBJ, glTF 2.0)...").OnClick(a.cmdImportMesh),
				panels.Mark("import: mesh"),
				giu.MenuItem("OBJ sequence (a folder of frames)...").OnClick(a.cmdImportSequence),
				panels.Mark("import: sequence"),
			),
			panels.Mark("file: Import"),
			giu.Separator(),
			giu.MenuItem("Save").Shortcut("Ctrl+S").OnClick(a.cmdSave),
			giu.MenuItem("Save As...").Shortcut("Ctrl+Shift+S").OnClick(a.cmdSaveAs),
			giu.Menu("Export glTF").Layout(
				giu.MenuItem("Morph-target animation (.glb / .gltf)...").Enabled(a.doc.Object() != nil).OnClick(func() { a.cmdExport(false) }),
				panels.Mark("export: morph"),
				giu.MenuItem("Skinned animation (.glb / .gltf)...").Enabled(a.canExportSkin()).OnClick(func() { a.cmdExport(true) }),
				panels.Mark("export: skinned"),
			),
			panels.Mark("file: Export glTF"),
			giu.Separator(),
			giu.MenuItem("Quit").Shortcut("Ctrl+Q").OnClick(a.cmdQuit),
		),
		panels.Mark("menu File"),
		giu.Menu("Edit").Layout(
			windowMark("menu: Edit items"),
			escapeCloses(),
			giu.MenuItem(label("Undo", a.history.UndoName())).Shortcut("Ctrl+Z").Enabled(a.history.CanUndo()).OnClick(a.history.Undo),
			panels.Mark("edit: "+label("Undo", a.history.UndoName())),
			giu.MenuItem(label("Redo", a.history.RedoName())).Shortcut("Ctrl+Shift+Z").Enabled(a.history.CanRedo()).OnClick(a.history.Redo),
			giu.Separator(),
			giu.MenuItem("Select All").Shortcut("A").OnClick(a.cmdSelectAll),
			giu.MenuItem("Select None").Shortcut("Alt+A").OnClick(a.cmdSelectNone),
		),
		panels.Mark("menu Edit"),
		giu.Menu("View").Layout(
			windowMark("menu: View items"),
			escapeCloses(),
			giu.Menu("Shading").Layout(
				giu.MenuItem("Smooth").Selected(a.view.Style.Shading == viewport.Smooth).OnClick(func() { a.view.Style.Shading = viewport.Smooth }),
				giu.MenuItem("Flat").Selected(a.view.Style.Shading == viewport.Flat).OnClick(func() { a.view.Style.Shading = viewport.Flat }),
			),
			giu.MenuItem("Wireframe").Shortcut("Shift+Z").Selected(a.view.Style.Wireframe).OnClick(func() { a.view.Style.Wireframe = !a.view.Style.Wireframe }),
			giu.MenuItem("Grid").Selected(a.view.Style.Grid).OnClick(func() { a.view.Style.Grid = !a.view.Style.Grid }),
			giu.MenuItem("Axes").Selected(a.view.Style.Axes).OnClick(func() { a.view.Style.Axes = !a.view.Style.Axes }),
			giu.Menu("Heat map").Layout(a.overlayItems()...),
			giu.Separator(),
			giu.MenuItem("Frame All").Shortcut("Home").OnClick(a.frameAll),
			giu.MenuItem("Frame Selected").Shortcut("Numpad .").OnClick(a.frameSelected),
			giu.MenuItem("Orthographic").Shortcut("Numpad 5").Selected(a.view.Camera.Ortho).OnClick(func() { a.view.Camera.Ortho = !a.view.Camera.Ortho }),
			giu.MenuItem("Reset Camera").OnClick(a.resetCamera),
		),
		panels.Mark("menu View"),
		giu.Menu("Help").Layout(
			windowMark("menu: Help items"),
			escapeCloses(),
			giu.MenuItem("Getting started").OnClick(func() { a.modal.openStarted = true }),
			panels.Mark("menu: Getting started"),
			giu.MenuItem("Shortcuts").Shortcut("F1").OnClick(func() { a.modal.openShortcuts = true }),
			giu.MenuItem("Open the demo scene").OnClick(a.cmdDemo),
			giu.MenuItem("About Gallop").OnClick(func() { a.modal.openAbout = true }),
		),
		panels.Mark("menu Help"),
	)
}

func label(verb, what string) string {
	if what == "" {
		return verb
	}
	return verb + " " + what
}

func (a *App) recentItems() []giu.Widget {
	if len(a.recent) == 0 {
		return []giu.Widget{giu.MenuItem("(none)").Enabled(false)}
	}
	var items []giu.Widget
	for _, p := range a.recent {
		p := p
		items = append(items, giu.MenuItem(filepath.Base(p)+"##"+p).OnClick(func() { a.openPaths([]string{p}, false) }))
	}
	items = append(items, giu.Separator(), giu.MenuItem("Clear list").OnClick(func() { a.recent = nil; saveConfig("recent.json", a.recent) }))
	return items
}

func (a *App) overlayItems() []giu.Widget {
	var items []giu.Widget
	for k, name := range overlayNames {
		k := overlayKind(k)
		items = append(items, giu.MenuItem(name).Selected(a.overlay == k).OnClick(func() { a.overlay = k }))
	}
	return items
}

func (a *App) resetCamera() {
	a.view.Camera.Reset()
	a.frameAll()
}

func (a *App) cmdSelectAll() {
	if o := a.doc.Object(); o != nil {
		all := make([]int, o.Mesh.NumVertices())
		for i := range all {
			all[i] = i
		}
		a.SetSelection(all)
	}
}

func (a *App) cmdSelectNone() { a.SetSelection(nil) }

func (a *App) canExportSkin() bool {
	o := a.doc.Object()
	return o != nil && o.Rig != nil && o.Skin != nil
}
