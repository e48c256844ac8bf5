package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/viewport"
)

// File dialog filters.
var (
	filterProject = fileFilter{"Gallop project", []string{"gallop"}}
	filterMesh    = fileFilter{"Meshes (OBJ, glTF)", []string{"obj", "gltf", "glb"}}
	filterGLTF    = fileFilter{"glTF 2.0", []string{"gltf", "glb"}}
	filterAll     = fileFilter{"Gallop project or mesh", []string{"gallop", "obj", "gltf", "glb"}}
)

func (a *App) cmdNew() {
	a.confirmDiscard("starting a new project", func() {
		a.setDocument(NewDocument(), nil)
	})
}

func (a *App) cmdDemo() {
	a.confirmDiscard("opening the demo", a.openDemo)
}

func (a *App) cmdOpen() {
	a.dialogs.load("Open", filterAll, func(path string) { a.openPaths([]string{path}, false) })
}

func (a *App) cmdImportMesh() {
	a.dialogs.load("Import a mesh or animation", filterMesh, func(path string) { a.openPaths([]string{path}, true) })
}

func (a *App) cmdImportSequence() {
	a.dialogs.folder("Import OBJ sequence (folder of frames)", func(path string) { a.openPaths([]string{path}, true) })
}

func (a *App) cmdSave() { a.save(a.doc.Path, nil) }

func (a *App) cmdSaveAs() {
	a.dialogs.save("Save project as", filterProject, a.doc.Path, func(path string) { a.save(path, nil) })
}

func (a *App) cmdQuit() { a.confirmDiscard("quitting", a.quitNow) }

func (a *App) cmdExport(skin bool) {
	o := a.doc.Object()
	if o == nil {
		return
	}
	mode := assets.ExportMorph
	if skin {
		mode = assets.ExportSkin
	}
	a.dialogs.save("Export glTF", filterGLTF, o.Name+".glb", func(path string) { a.exportGLTF(o, path, mode) })
}

// exportGLTF writes o to path (.glb added unless it ends in .glb or
// .gltf) in the given mode on a job, and reports the result.
func (a *App) exportGLTF(o *assets.Object, path string, mode assets.ExportMode) *jobs.Job {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".glb" && ext != ".gltf" {
		path += ".glb"
	}
	obj := *o
	var report assets.ExportReport
	opts := assets.ExportOptions{Mode: mode, Report: &report}
	if obj.Rig != nil {
		opts.Influences = obj.Rig.ExportInfluences()
	}
	return a.jobs.Start("Exporting "+filepath.Base(path), func(ctx context.Context, rep jobs.Reporter) error {
		rep.Report(0, "writing")
		return assets.SaveGLTF(path, &obj, opts)
	}, func(err error) {
		if err != nil {
			a.fail(err)
			return
		}
		if s := report.Summary(); s != "" {
			a.info("Exported %s: %s", path, s)
		} else {
			a.info("Exported %s", path)
		}
		for _, w := range report.Warnings {
			a.info("Warning: %s", w)
		}
	})
}

// openPaths opens files: a project replaces the document; mesh files
// replace it too, or, with into, are added to the scene as one undoable
// step (files dropped on the window).
func (a *App) openPaths(paths []string, into bool) {
	if len(paths) == 0 {
		return
	}
	if len(paths) == 1 && assets.DetectFormat(paths[0]) == assets.FormatProject {
		a.confirmDiscard("opening "+filepath.Base(paths[0]), func() { a.loadProject(paths[0]) })
		return
	}
	load := func() {
		name := filepath.Base(paths[0])
		if len(paths) > 1 {
			name = fmt.Sprintf("%d files", len(paths))
		}
		var objs []*assets.Object
		a.loadJob("Loading "+name, func(ctx context.Context, progress func(done, total int)) (err error) {
			objs, err = assets.Import(ctx, paths, progress)
			return err
		}, func() {
			if into {
				a.history.Do(&addObjectsCmd{doc: a.doc, objs: objs})
				a.frameAll()
			} else {
				title := name
				if len(objs) == 1 {
					title = objs[0].Name
				}
				a.setDocument(&Document{Scene: &assets.Scene{Objects: objs}, Title: title}, nil)
			}
			a.addRecent(paths[0])
			o := objs[0]
			a.info("%s", loadedMessage(o))
		})
	}
	if into {
		load()
	} else {
		a.confirmDiscard("opening "+filepath.Base(paths[0]), load)
	}
}

// loadJob runs a loader as a job whose progress counts frames read; on the
// UI thread, done runs if it succeeded, and an error is reported otherwise.
// While it runs the document is about to be replaced (a.loading).
func (a *App) loadJob(name string, load func(ctx context.Context, progress func(done, total int)) error, done func()) {
	a.loading++
	a.jobs.Start(name, func(ctx context.Context, rep jobs.Reporter) error {
		rep.Report(0, "reading")
		return load(ctx, func(n, total int) {
			rep.Report(float64(n)/float64(total), fmt.Sprintf("%d / %d frames", n, total))
		})
	}, func(err error) {
		a.loading--
		if err != nil {
			a.fail(err)
			return
		}
		done()
	})
}

// loadProject reads a .gallop file in a job and makes it the document.
func (a *App) loadProject(path string) {
	var p *assets.Project
	a.loadJob("Opening "+filepath.Base(path), func(ctx context.Context, progress func(done, total int)) (err error) {
		p, err = assets.LoadProject(ctx, path, progress)
		return err
	}, func() {
		abs, _ := filepath.Abs(path)
		d := &Document{Scene: p.Scene, Active: p.Active, Frame: p.Frame, Selection: p.Selection, Path: abs}
		a.setDocument(d, p)
		d.Frame = max(0, min(d.Frame, d.NumFrames()-1))
		a.addRecent(abs)
		a.info("Opened %s", abs)
	})
}

// settings is the application state a project keeps beside the scene.
type settings struct {
	Camera  json.RawMessage `json:"camera,omitempty"`
	Style   json.RawMessage `json:"style,omitempty"`
	Overlay int             `json:"overlay"`
	Loop    bool            `json:"loop"`
	Tool    string          `json:"tool"`
}

func (a *App) projectSnapshot() (*assets.Project, error) {
	objs := make([]*assets.Object, len(a.doc.Scene.Objects))
	for i, o := range a.doc.Scene.Objects {
		c := *o // shallow: geometry slices are never modified in place
		objs[i] = &c
	}
	p := &assets.Project{
		Scene:     &assets.Scene{Objects: objs},
		Active:    a.doc.Active,
		Frame:     a.doc.Frame,
		Selection: a.doc.Selection,
		Settings:  map[string]json.RawMessage{},
		Tools:     map[string]json.RawMessage{},
	}
	cam, err := json.Marshal(a.documentCamera())
	if err != nil {
		// A camera with NaN or infinite values: save one that frames
		// the scene, so the file reopens with a view, and say so.
		framed := viewport.NewView()
		framed.Width, framed.Height = a.view.Width, a.view.Height
		if lo, hi, ok := a.doc.Bounds(); ok {
			framed.FrameBox(lo, hi)
		}
		if cam, err = json.Marshal(framed.Camera); err != nil {
			return nil, fmt.Errorf("the view: %w", err)
		}
		a.info("The view had non-finite values; the project keeps a view framing the scene instead")
	}
	style, err := json.Marshal(a.view.Style)
	if err != nil {
		return nil, fmt.Errorf("the display settings: %w", err)
	}
	app, err := json.Marshal(settings{Camera: cam, Style: style, Overlay: int(a.overlay), Loop: a.play.loop, Tool: a.tools[a.tool].Name()})
	if err != nil {
		return nil, fmt.Errorf("the application's settings: %w", err)
	}
	p.Settings["app"] = app
	for _, t := range a.tools {
		st, err := t.State()
		if err != nil {
			return nil, fmt.Errorf("the %s tool's state: %w", t.Name(), err)
		}
		if st != nil {
			p.Tools[t.Name()] = st
		}
	}
	return p, nil
}

// restoreSettings applies a loaded project's application and tool state.
// Parts that do not parse are reported and skipped; the scene still opens.
func (a *App) restoreSettings(p *assets.Project) {
	if raw, ok := p.Settings["app"]; ok {
		var s settings
		if err := json.Unmarshal(raw, &s); err != nil {
			a.fail(fmt.Errorf("project settings: %w", err))
		} else {
			if len(s.Camera) > 0 {
				cam := a.view.Camera
				err := json.Unmarshal(s.Camera, &cam)
				if err == nil {
					err = cam.Validate()
				}
				if err != nil {
					a.fail(fmt.Errorf("project camera (reset): %w", err))
				} else {
					a.view.Camera = cam
				}
			}
			if len(s.Style) > 0 {
				if err := json.Unmarshal(s.Style, &a.view.Style); err != nil {
					a.fail(fmt.Errorf("project view style: %w", err))
				}
			}
			if s.Overlay >= 0 && s.Overlay < len(overlayNames) {
				a.overlay = overlayKind(s.Overlay)
			}
			a.play.loop = s.Loop
			for i, t := range a.tools {
				if t.Name() == s.Tool {
					a.tool = i
				}
			}
		}
	}
	for _, t := range a.tools {
		if raw, ok := p.Tools[t.Name()]; ok {
			if err := t.Restore(a, raw); err != nil {
				a.fail(err)
			}
		}
	}
}

// save writes the document as a project at path (asking for a path if it
// has none), in a job; then, if not nil, runs after a successful save
// only. When the project cannot be made (a tool's state does not
// serialise) or written, nothing on disk changes, the document stays
// unsaved and then does not run.
func (a *App) save(path string, then func()) {
	if path == "" {
		path = a.opts.SaveTo
	}
	if path == "" {
		a.dialogs.save("Save project", filterProject, a.doc.Title, func(p string) { a.save(p, then) })
		return
	}
	if !strings.EqualFold(filepath.Ext(path), assets.ProjectExt) {
		path += assets.ProjectExt
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		a.fail(err)
		return
	}
	p, err := a.projectSnapshot()
	if err != nil {
		// Nothing is written: the previous file stays as it was, the
		// document stays unsaved and then (a quit waiting for the save)
		// does not run.
		a.fail(fmt.Errorf("saving %s: %w; nothing was written", abs, err))
		return
	}
	pos, marks := a.history.Position(), a.workMarks()
	a.jobs.Start("Saving "+filepath.Base(abs), func(ctx context.Context, rep jobs.Reporter) error {
		rep.Report(0, "writing")
		return assets.SaveProject(abs, p)
	}, func(err error) {
		if err != nil {
			a.fail(fmt.Errorf("saving %s: %w (the previous file is unchanged)", abs, err))
			return
		}
		a.doc.Path = abs
		a.history.MarkSavedAt(pos)
		a.savedWork(marks)
		a.addRecent(abs)
		if a.win != nil {
			a.win.SetTitle("Gallop - " + filepath.Base(abs))
		}
		a.info("Saved %s", abs)
		if then != nil {
			then()
		}
	})
}

// loadedMessage is what the status bar says of an object just loaded.
func loadedMessage(o *assets.Object) string {
	return fmt.Sprintf("Loaded %s: %s, %s, %s", o.Name, words.Count(o.Mesh.NumVertices(), "vertex", "vertices"),
		words.Count(o.Mesh.NumTriangles(), "triangle", "triangles"), words.Count(o.NumFrames(), "frame", "frames"))
}
