package synth

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/synth"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// Settings are the Synthesize tool's parameters. The zero value is not
// valid: DefaultSettings gives the defaults.
type Settings struct {
	Bones      int32   `json:"bones"`      // SSDR bones
	Components bool    `json:"components"` // split at a cut node of the bone graph
	Threshold  float64 `json:"threshold"`  // the largest pose distance of a transition, in steps (synth.Transition); 0 for each part's default
	Blend      string  `json:"blend"`      // a synth.Blends name
	Count      int32   `json:"count"`      // N, the variations to generate
	Seconds    float64 `json:"seconds"`    // L, their length
	Seed       int32   `json:"seed"`       // the first variation's seed; variation k has Seed+k
}

// DefaultSettings returns 20 bones, no components, the default threshold,
// gradient-domain blending, and 12 variations of 10 s from seed 1.
func DefaultSettings() Settings {
	return Settings{Bones: DefaultBones, Blend: synth.BlendGradient.String(), Count: 12, Seconds: 10, Seed: 1}
}

// Check names the first setting out of range for a mesh of nv vertices.
func (s Settings) Check(nv int) error {
	_, err := synth.ParseBlend(s.Blend)
	switch {
	case s.Bones < 1 || int(s.Bones) > nv:
		return fmt.Errorf("synthesize: %d bones, want 1 to %d (the vertices)", s.Bones, nv)
	case !(s.Threshold >= 0) || math.IsInf(s.Threshold, 0):
		return fmt.Errorf("synthesize: threshold %g, want a positive distance in steps (0 for the default)", s.Threshold)
	case err != nil:
		return fmt.Errorf("synthesize: %w", err)
	case s.Count < 1 || s.Count > 1000:
		return fmt.Errorf("synthesize: %d variations, want 1 to 1000", s.Count)
	case !(s.Seconds > 0) || s.Seconds > 3600:
		return fmt.Errorf("synthesize: %g s, want a length up to an hour", s.Seconds)
	case s.Seed < 0:
		return fmt.Errorf("synthesize: seed %d, want 0 or more", s.Seed)
	}
	return nil
}

// Synth is the Synthesize tool's model. Its zero value is ready to use,
// with DefaultSettings. Every method runs on the UI thread.
//
// The artist analyses the active object's clip (an SSDR rig, then the
// transition costs and the motion graph: one job), moves the threshold
// (the graph is rebuilt without the rig), adds targets and obstacles, and
// generates variations (a second job) that fill a gallery as they come.
// A variation plays in place of the scene with its splices on the
// timeline; each component's variation can be picked separately; the
// chosen one is exported or added to the document.
type Synth struct {
	// Settings are the next analysis's and generation's parameters; the
	// panel edits them in place (the threshold through SetThreshold).
	Settings Settings
	// Targets are the targeted frames: input frame Input shown at output
	// frame Output (counted from 0). They and Obstacles change through
	// undoable edits (AddTarget, AddSphere, ...).
	Targets []synth.Target
	// Obstacles are the scene objects the variations keep out of.
	Obstacles []Obstacle
	// ShowComponents colours the mesh by component.
	ShowComponents bool
	// Farm holds the runs on the farm (RunOnFarm) and the next one's
	// settings.
	Farm farmrun.Jobs

	obj      *assets.Object // the object the analysis belongs to
	analysis *analysisRun   // the running or last analysis
	res      *Analysed      // the last finished analysis of obj
	graphs   []*synth.Graph // res's graphs at the current threshold
	graphErr error          // why there are none
	gen      *generation    // the running or last generation
	chosen   int            // the variation shown, −1 for none
	report   string         // the last export's or addition's report
	dragFrom *sceneState    // the targets and obstacles as a drag began (BeginSceneDrag)
}

// defaults fills in the settings when none are set yet.
func (t *Synth) defaults() {
	if t.Settings == (Settings{}) {
		t.Settings = DefaultSettings()
		t.chosen = -1
	}
}

// Sync makes the analysis and variations belong to the active object:
// when it changed, the jobs are cancelled and the results dropped.
func (t *Synth) Sync(h tools.Host) {
	t.defaults()
	if t.obj != h.Object() {
		t.stopJobs()
		t.obj, t.analysis, t.res, t.graphs, t.graphErr, t.gen, t.chosen, t.report = h.Object(), nil, nil, nil, nil, nil, -1, ""
	}
}

// Close stops the tool's jobs (the document is being replaced) and the
// following of its farm runs (see farmrun.Jobs.Close).
func (t *Synth) Close() {
	t.Farm.Close()
	t.stopJobs()
}

// stopJobs cancels the analysis and the generation.
func (t *Synth) stopJobs() {
	if t.analysis != nil {
		t.analysis.task.Cancel()
	}
	if t.gen != nil {
		t.gen.task.Cancel()
	}
}

// ClipError says why o cannot be analysed, or nil.
func ClipError(o *assets.Object) error {
	switch {
	case o == nil:
		return errors.New("synthesize: no object; open a mesh animation (an OBJ sequence or a glTF with an animation)")
	case o.Clip == nil:
		return fmt.Errorf("synthesize: %s has no clip; synthesis needs a mesh animation of at least %d frames", o.Name, synth.MinFrames)
	case len(o.Clip.Frames) < synth.MinFrames:
		return fmt.Errorf("synthesize: %s's clip has %d frames; synthesis needs at least %d", o.Name, len(o.Clip.Frames), synth.MinFrames)
	}
	return nil
}

// input returns the object the tool works on when it is a clip the
// settings fit; otherwise it reports what is wrong with h.Error and
// returns nil.
func (t *Synth) input(h tools.Host) *assets.Object {
	o := h.Object()
	if err := ClipError(o); err != nil {
		h.Error(err)
		return nil
	}
	if err := t.Settings.Check(o.Mesh.NumVertices()); err != nil {
		h.Error(err)
		return nil
	}
	return o
}

// Analyse checks the object and settings and starts the analysis; what is
// wrong is reported with h.Error and starts nothing.
func (t *Synth) Analyse(h tools.Host) {
	t.Sync(h)
	if t.Analysing() {
		return
	}
	o := t.input(h)
	if o == nil {
		return
	}
	if t.gen != nil {
		t.gen.task.Cancel()
	}
	r := &analysisRun{obj: o, settings: t.Settings}
	t.analysis = r
	r.start(h.Jobs(), func() { t.analysed(h, r) })
}

// analysed runs on the UI thread when r ends.
func (t *Synth) analysed(h tools.Host, r *analysisRun) {
	if r != t.analysis {
		return
	}
	if r.task.Err != nil {
		h.Error(r.task.Err)
		return
	}
	if r.res == nil {
		h.Info("Synthesize: analysis stopped")
		return
	}
	t.res, t.gen, t.chosen, t.report = r.res, nil, -1, ""
	t.graphs, t.graphErr = r.res.graphs, r.res.graphErr
	if t.graphErr != nil {
		h.Error(fmt.Errorf("synthesize: %w", t.graphErr))
	}
	h.Info("Synthesize: %s", t.GraphSummary())
}

// Analysing reports whether the analysis runs.
func (t *Synth) Analysing() bool { return t.analysis != nil && t.analysis.task.Running() }

// StopAnalysis cancels the analysis; the previous one stays.
func (t *Synth) StopAnalysis() {
	if t.analysis != nil {
		t.analysis.task.Cancel()
	}
}

// AnalysisProgress returns the running analysis's progress (nil when none
// has been published).
func (t *Synth) AnalysisProgress() *Progress {
	if t.analysis == nil {
		return nil
	}
	return t.analysis.task.Shown()
}

// Analysis returns the finished analysis when it belongs to the active
// object, or nil.
func (t *Synth) Analysis(h tools.Host) *Analysed {
	if t.res != nil && t.res.obj == h.Object() {
		return t.res
	}
	return nil
}

// Graphs returns the motion graphs at the current threshold (nil without
// an analysis or when the threshold gives none), and why there are none.
func (t *Synth) Graphs() ([]*synth.Graph, error) { return t.graphs, t.graphErr }

// SetThreshold rebuilds the motion graphs at threshold T (0: each part's
// default) from the analysis, without the rig: a few milliseconds. The
// variations made on the old graphs stay until the next generation.
func (t *Synth) SetThreshold(h tools.Host, threshold float64) {
	t.Settings.Threshold = threshold
	r := t.Analysis(h)
	if r == nil {
		return
	}
	t.graphs, t.graphErr = Graphs(r.Analysis, threshold)
}

// GraphSummary says what the motion graphs are: the candidates, the nodes
// and the largest strongly connected component's, per part when there
// are several, or why there is none.
func (t *Synth) GraphSummary() string {
	if t.graphErr != nil {
		return t.graphErr.Error()
	}
	if len(t.graphs) == 0 {
		return "not analysed"
	}
	f := Figures(t.graphs)
	s := fmt.Sprintf("%d candidate transitions (median %.2f steps); motion graph of %d nodes, largest strongly connected component %d nodes, %d frames",
		f.Candidates, f.MedianDistance, f.Nodes, f.SCCNodes, f.SCCFrames)
	if len(t.graphs) > 1 {
		s += fmt.Sprintf(" (%d components)", len(t.graphs))
	}
	return s
}

// Generate starts generating Settings.Count variations of Settings.Seconds
// on the current graphs, with the targets and obstacles; they fill the
// gallery as they come.
func (t *Synth) Generate(h tools.Host) {
	t.Sync(h)
	r := t.Analysis(h)
	switch {
	case r == nil:
		h.Error(errors.New("synthesize: analyse the clip first"))
		return
	case t.graphErr != nil:
		h.Error(fmt.Errorf("synthesize: %w", t.graphErr))
		return
	case t.Generating():
		return
	}
	if err := t.Settings.Check(len(r.Analysis.Model.Rest)); err != nil {
		h.Error(err)
		return
	}
	req, err := t.request(h, r)
	if err != nil {
		h.Error(err)
		return
	}
	s, err := r.Analysis.NewSynthesizer(t.graphs, req)
	if err != nil {
		h.Error(fmt.Errorf("synthesize: %w", err))
		return
	}
	seeds := make([]uint64, t.Settings.Count)
	for k := range seeds {
		seeds[k] = uint64(t.Settings.Seed) + uint64(k)
	}
	g := &generation{res: r, synth: s, fps: r.fps}
	t.gen, t.chosen, t.report = g, -1, ""
	g.start(h.Jobs(), seeds, func() { t.generated(h, g) })
}

// request returns the synthesis request of the settings, targets and
// obstacles.
func (t *Synth) request(h tools.Host, r *Analysed) (synth.Request, error) {
	blend, err := synth.ParseBlend(t.Settings.Blend)
	if err != nil {
		return synth.Request{}, err
	}
	frames := int(math.Round(t.Settings.Seconds * r.fps))
	if frames < 2 {
		return synth.Request{}, fmt.Errorf("synthesize: %g s at %g fps is fewer than 2 frames", t.Settings.Seconds, r.fps)
	}
	if err := t.checkTargets(h); err != nil {
		return synth.Request{}, err
	}
	req := synth.Request{Frames: frames, Blend: blend, Targets: slices.Clone(t.Targets)}
	for i, o := range t.Obstacles {
		so, err := o.solver(h)
		if err != nil {
			return synth.Request{}, fmt.Errorf("synthesize: obstacle %d: %w", i+1, err)
		}
		req.Obstacles = append(req.Obstacles, so)
	}
	return req, nil
}

// generated runs on the UI thread when g ends.
func (t *Synth) generated(h tools.Host, g *generation) {
	if g != t.gen {
		return
	}
	if g.task.Err != nil {
		h.Error(fmt.Errorf("synthesize: %w", g.task.Err))
	}
	if snap := g.task.Shown(); snap != nil {
		h.Info("Synthesize: %d variations of %d frames", snap.Made(), g.synth.Frames())
	}
}

// Generating reports whether variations are being generated.
func (t *Synth) Generating() bool { return t.gen != nil && t.gen.task.Running() }

// StopGenerating cancels the generation; the variations made stay.
func (t *Synth) StopGenerating() {
	if t.gen != nil {
		t.gen.task.Cancel()
	}
}

// Gallery returns the variations so far (nil before a generation).
func (t *Synth) Gallery() *Gallery {
	if t.gen == nil {
		return nil
	}
	return t.gen.task.Shown()
}

// GalleryAnalysis returns the analysis the gallery's variations were made
// on (the tool's own, or the one a farm run's clips came with), or nil.
func (t *Synth) GalleryAnalysis() *Analysed {
	if t.gen == nil {
		return nil
	}
	return t.gen.res
}

// Chosen returns the variation shown, or nil.
func (t *Synth) Chosen() *Variation {
	g := t.Gallery()
	if g == nil || t.chosen < 0 || t.chosen >= len(g.Variations) {
		return nil
	}
	return g.Variations[t.chosen]
}

// Play shows variation i in place of the scene, playing, with its
// splices on the timeline.
func (t *Synth) Play(h tools.Host, i int) {
	g := t.Gallery()
	if g == nil || i < 0 || i >= len(g.Variations) || g.Variations[i] == nil {
		return
	}
	v := g.Variations[i]
	t.chosen = i
	if err := h.ShowClip(v.Object(t.gen.res), v.SpliceFrames(), true); err != nil {
		h.Error(err)
	}
}

// BackToScene ends the variation's playback.
func (t *Synth) BackToScene(h tools.Host) {
	if err := h.ShowClip(nil, nil, false); err != nil {
		h.Error(err)
	}
}

// Remix replaces the chosen variation's component part with the walk of
// seed: each component's variation picked separately. It runs as a job
// (obstacles may make it search); the gallery shows the result.
func (t *Synth) Remix(h tools.Host, part int, seed uint64) {
	v := t.Chosen()
	if v == nil || t.Generating() || t.gen.synth == nil || part < 0 || part >= len(v.Clip.Seeds) {
		return
	}
	seeds := slices.Clone(v.Clip.Seeds)
	seeds[part] = seed
	g, i := t.gen, t.chosen
	g.remix(h.Jobs(), i, seeds, func(err error) {
		if g != t.gen || jobs.IsCanceled(err) {
			return
		}
		if err != nil {
			h.Error(fmt.Errorf("synthesize: %w", err))
			return
		}
		g.task.Take()
		if t.chosen == i && h.ShownClip() != nil {
			t.Play(h, i)
		}
	})
}

// Update runs once per UI frame: follow the active object and take the
// jobs' latest snapshots.
func (t *Synth) Update(h tools.Host) {
	t.Sync(h)
	if t.analysis != nil {
		t.analysis.task.Take()
	}
	if t.gen != nil {
		t.gen.task.Take()
	}
}

// Report returns the last export's or addition's report ("" if none).
func (t *Synth) Report() string { return t.report }

// Export asks where to save the chosen variation and writes it as a
// skinned glTF, or as morph targets if morph.
func (t *Synth) Export(h tools.Host, morph bool) {
	v := t.Chosen()
	if v == nil {
		h.Error(errors.New("synthesize: click a variation to choose the one to export"))
		return
	}
	res := t.gen.res
	name := v.Name(res)
	h.SaveFile("Export variation as glTF", []string{"glb", "gltf"}, name+".glb", func(path string) {
		if err := Save(path, v.Clip, name, res.fps, res.obj.Mesh, morph); err != nil {
			h.Error(err)
			return
		}
		t.report = "wrote " + path
		h.Info("Synthesize: wrote %s", path)
	})
}

// ExportAll asks for a folder and writes every variation into it, one
// file each named after its seeds.
func (t *Synth) ExportAll(h tools.Host, morph bool) {
	g := t.Gallery()
	if g == nil || g.Made() == 0 {
		h.Error(errors.New("synthesize: generate variations first"))
		return
	}
	res := t.gen.res
	h.OpenFolder("Export all variations into", func(dir string) {
		n := 0
		for _, v := range g.Variations {
			if v == nil {
				continue
			}
			name := v.Name(res)
			if err := Save(filepath.Join(dir, name+".glb"), v.Clip, name, res.fps, res.obj.Mesh, morph); err != nil {
				h.Error(err)
				return
			}
			n++
		}
		t.report = fmt.Sprintf("wrote %d files into %s", n, dir)
		h.Info("Synthesize: %s", t.report)
	})
}

// AddToDocument adds the chosen variation to the document as a new object
// with its clip (one undoable step).
func (t *Synth) AddToDocument(h tools.Host) {
	v := t.Chosen()
	if v == nil {
		h.Error(errors.New("synthesize: click a variation to choose the one to add"))
		return
	}
	o := v.Object(t.gen.res)
	h.AddObject(o)
	t.report = "added " + o.Name + " to the document"
	h.Info("Synthesize: %s", t.report)
}
