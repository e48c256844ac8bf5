package ensemble

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/option"
	"gallop/internal/words"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
	"gallop/tools"
	"gallop/tools/farmrun"
)

// Settings are the Ensemble tool's parameters. The zero value is not
// valid: DefaultSettings gives the defaults.
type Settings struct {
	TauMax  int32   `json:"tau_max"` // τ_max, frames
	Samples int32   `json:"samples"` // N_samples: constraint programs per transition
	Eta     float64 `json:"eta"`     // the time-out factor η
	Tries   int32   `json:"tries"`   // leaving frames tried per interval and target level
	// Effort is the search effort: how much more work than its first
	// attempt a task that found nothing may spend searching harder
	// (ensemble.BuildOptions.Effort); counted in work, not seconds, so
	// that the build is the same on a busy machine.
	Effort float64 `json:"effort"`
	// Budget is the build's time cap in seconds (0: none): a task that
	// begins after it does not search harder.
	Budget float64 `json:"budget_seconds"`
	// ChangeWithin is how soon a change of wind completes its blends, in
	// seconds (BuildSettings.ChangeWithin).
	ChangeWithin float64 `json:"change_within_seconds"`
	Seed         int32   `json:"seed"` // the build's and the player's random streams
	Wind         int32   `json:"wind"` // the wind level played, 1-based
	// Record is the most seconds of the played stretch kept for scrubbing
	// and export; older frames are dropped as play goes on.
	Record float64 `json:"record_seconds"`
}

// DefaultSettings returns the command line's defaults: τ_max 30, the
// solver's N_samples and η (of its default search), 4 tries, the default
// search effort, no time cap, wind changes within 4/3 s, seed 1, wind
// level 1, and 60 s kept.
func DefaultSettings() Settings {
	return Settings{TauMax: 30, Samples: csp.DefaultSamples, Eta: csp.DefaultEtaPropagate, Tries: 4, Effort: ensemble.DefaultEffort, Budget: DefaultBudget,
		ChangeWithin: DefaultChangeWithin, Seed: 1, Wind: 1, Record: 60}
}

// Check names the first setting out of range.
func (s Settings) Check() error {
	switch {
	case s.TauMax < 1 || s.TauMax > 120:
		return fmt.Errorf("ensemble: τ_max %d, want 1 to 120 frames", s.TauMax)
	case s.Samples < 1 || s.Samples > 1000:
		return fmt.Errorf("ensemble: %d samples, want 1 to 1000", s.Samples)
	case !(s.Eta > 0) || s.Eta > 1e6:
		return fmt.Errorf("ensemble: η %g, want a positive factor up to 10⁶", s.Eta)
	case s.Tries < 1 || s.Tries > 1000:
		return fmt.Errorf("ensemble: %d tries, want 1 to 1000", s.Tries)
	case !(s.Effort >= 0) || s.Effort > 1000:
		return fmt.Errorf("ensemble: a search effort of %g, want 0 to 1000", s.Effort)
	case !(s.Budget >= 0) || s.Budget > 7*24*3600:
		return fmt.Errorf("ensemble: a budget of %g s, want 0 (none) to a week", s.Budget)
	case !(s.ChangeWithin >= MinChangeWithin) || s.ChangeWithin > MaxChangeWithin:
		return fmt.Errorf("ensemble: wind changes within %g s, want %g to %g s", s.ChangeWithin, MinChangeWithin, MaxChangeWithin)
	case s.Seed < 0:
		return fmt.Errorf("ensemble: seed %d, want 0 or more", s.Seed)
	case s.Wind < 1:
		return fmt.Errorf("ensemble: wind level %d, want 1 or more", s.Wind)
	case !(s.Record >= 1) || s.Record > 3600:
		return fmt.Errorf("ensemble: %g s recorded, want 1 s to an hour", s.Record)
	}
	return nil
}

// build returns the settings of a build.
func (s Settings) build() BuildSettings {
	return BuildSettings{Seed: uint64(s.Seed), Samples: int(s.Samples), Eta: s.Eta, Tries: int(s.Tries), Effort: option.Literal(s.Effort), Budget: s.Budget, ChangeWithin: s.ChangeWithin}
}

// Tool is the Ensemble tool's model. Its zero value is ready to use, with
// DefaultSettings. Every method runs on the UI thread.
//
// The artist opens a dataset (its levels shown in the viewport, each group
// in its colour), builds its motion graph (a job on both cores, with the
// solver's trace and Table I's figures) or opens a saved one, and plays it
// forever in place of the scene, moving the wind; the groups blending are
// highlighted. The played stretch (its last Settings.Record seconds) is
// on the timeline to scrub, exports as the compact glTF and joins the
// document as an object with its clip.
type Tool struct {
	// Settings are the next build's and play's parameters; the panel
	// edits them in place (the wind through SetWind).
	Settings Settings
	// Farm holds the builds on the farm (RunOnFarm) and the next one's
	// settings.
	Farm farmrun.Jobs

	opening *openRun  // the running or last open
	data    *Data     // the opened dataset
	build   *buildRun // the running or last build
	built   *Built    // the graph of data, built or opened
	play    *playback // the stretch being played
	report  string    // the last save's or export's report
	// farmGraph is the graph file of a farm build waiting for the artist
	// (see farmBuilt), "" for none.
	farmGraph string

	compare *compareRun // the running or last comparison
	cmp     *Comparison // the last transition compared
	variant Variant     // the variant Compare shows
	pick    int         // the transition picked for Compare, if picked
	picked  bool
	resume  int // the played stretch's frame when Compare took its place

	// restored are the dataset's folders and the graph file of a restored
	// project, until they open.
	restored *state
	// work counts the graphs the tool has held (built or opened) and
	// saved the count of the last one a saved project keeps: the graph is
	// unsaved work while they differ and no graph file holds it.
	work, saved uint64

	colors shownColors // what ClipColors last returned
}

// playback is a stretch of the player's output, shown as a clip that
// grows as the timeline reaches its end.
type playback struct {
	built  *Built
	player *ensemble.Player
	rec    *Recording
	obj    *assets.Object // the clip shown
	x      []mgl64.Vec3
	start  int // output frames dropped before the clip's first
}

// ahead is how many frames the played clip runs ahead of the timeline:
// wind changes show after at most this many frames.
const ahead = 15

func (t *Tool) defaults() {
	if t.Settings == (Settings{}) {
		t.Settings = DefaultSettings()
	}
}

// Close stops the tool's jobs (the document is being replaced) and the
// following of its farm runs (see farmrun.Jobs.Close).
func (t *Tool) Close() {
	t.Farm.Close()
	t.stopJobs()
	t.farmGraph = ""
}

// stopJobs cancels the open, the build and the comparison.
func (t *Tool) stopJobs() {
	if t.opening != nil {
		t.opening.task.Cancel()
	}
	if t.build != nil {
		t.build.task.Cancel()
	}
	t.StopCompare()
}

// Data returns the opened dataset, or nil.
func (t *Tool) Data() *Data { return t.data }

// Built returns the motion graph of the opened dataset, or nil.
func (t *Tool) Built() *Built { return t.built }

// Report returns the last save's or export's report ("" if none).
func (t *Tool) Report() string { return t.report }

// Open asks for a dataset (its groups file, a level folder's frame, or,
// with folder, a level folder) and opens it; see LevelFolders.
func (t *Tool) Open(h tools.Host, folder bool) {
	done := func(path string) {
		levels, groups, err := LevelFolders(path)
		if err != nil {
			h.Error(fmt.Errorf("ensemble: %w", err))
			return
		}
		t.OpenLevels(h, levels, groups)
	}
	if folder {
		h.OpenFolder("Open a level folder of an ensemble", done)
		return
	}
	h.OpenFile("Open an ensemble (groups.csv or a frame of a level)", []string{"csv", "obj"}, done)
}

// AddClip asks for one more folder of frames of the open ensemble (a
// take whose wind changes, with its wind.csv, or another steady level,
// from any folder) and opens the dataset again with it as a clip of its
// own; the motion graph is built anew.
func (t *Tool) AddClip(h tools.Host) {
	if t.data == nil {
		return
	}
	levels, groups := slices.Clone(t.data.Levels), t.data.Groups
	h.OpenFolder("Add a clip of this ensemble (a folder of frames)", func(path string) {
		for _, l := range levels {
			if filepath.Clean(l) == filepath.Clean(path) {
				h.Error(fmt.Errorf("ensemble: %s is already a clip of the ensemble", path))
				return
			}
		}
		t.OpenLevels(h, append(levels, path), groups)
	})
}

// OpenLevels opens the dataset of the clip folders levels (steady levels
// and takes whose wind changes) and groups ("" for the sidecar beside
// them) as a job.
func (t *Tool) OpenLevels(h tools.Host, levels []string, groups string) {
	t.startOpen(h, &openRun{levels: levels, groups: groups})
}

// OpenGraph asks for a graph file and opens it with its dataset.
func (t *Tool) OpenGraph(h tools.Host) {
	h.OpenFile("Open a motion graph", []string{"json"}, func(path string) { t.OpenGraphFile(h, path) })
}

// OpenGraphFile opens the graph file at path with its dataset, as a job
// that reads the file (its error is reported when the job ends).
func (t *Tool) OpenGraphFile(h tools.Host, path string) {
	t.startOpen(h, &openRun{graph: path})
}

func (t *Tool) startOpen(h tools.Host, r *openRun) {
	t.defaults()
	t.stopJobs()
	t.opening = r
	r.start(h.Jobs(), func() { t.opened(h, r) })
}

// opened runs on the UI thread when r ends.
func (t *Tool) opened(h tools.Host, r *openRun) {
	if r != t.opening {
		return
	}
	if r.task.Err != nil {
		h.Error(fmt.Errorf("ensemble: %w", r.task.Err))
		return
	}
	if r.data == nil {
		h.Info("Ensemble: opening stopped")
		return
	}
	t.endCompare(h)
	t.data, t.built, t.build, t.report = r.data, r.built, nil, ""
	t.work++
	if r.file != nil {
		t.saved = t.work // the project it came from keeps it
	}
	t.endPlay(h)
	t.Settings.Wind = min(t.Settings.Wind, int32(len(r.data.Winds())))
	t.showLevel(h)
	h.Info("Ensemble: %s", t.Summary())
}

// Opening reports whether a dataset or graph is being opened.
func (t *Tool) Opening() bool { return t.opening != nil && t.opening.task.Running() }

// OpenProgress returns the open's progress (nil when none was published).
func (t *Tool) OpenProgress() *Progress {
	if t.opening == nil {
		return nil
	}
	return t.opening.task.Shown()
}

// Summary says what is open: the groups, vertices, levels and frames, and
// the graph's transitions.
func (t *Tool) Summary() string {
	d := t.data
	if d == nil {
		return "no ensemble open"
	}
	frames := 0
	for _, l := range d.Ensemble.Levels {
		frames += len(l.Frames)
	}
	clips := fmt.Sprintf("%d levels", len(d.Levels))
	if w := len(d.Winds()); w != len(d.Levels) {
		clips = fmt.Sprintf("%s at %d wind levels", words.Count(len(d.Levels), "clip", "clips"), w)
	}
	s := fmt.Sprintf("%s: %d groups, %d vertices, %s, %d frames", d.Name(), len(d.Ensemble.Groups), len(d.Ensemble.Rest), clips, frames)
	if b := t.built; b != nil {
		s += fmt.Sprintf("; motion graph of %d transitions", len(b.Graph.Transitions))
		for w, r := range b.Graph.WindReports(b.Model) {
			if !r.Loops {
				s += fmt.Sprintf(", level %d has no loop", w+1)
			}
		}
		if lat := latencySummary(b.Latency); lat != "" {
			s += "; worst wind-change latency " + lat
		}
	}
	return s
}

// latencySummary lists the worst latency of every ordered pair of levels:
// "1→2 1.23 s, 1→3 unreachable, …".
func latencySummary(lat [][]ensemble.Latency) string {
	s := ""
	for from, row := range lat {
		for to, l := range row {
			if from == to {
				continue
			}
			if s != "" {
				s += ", "
			}
			if math.IsInf(l.Worst, 1) {
				s += fmt.Sprintf("%d→%d unreachable", from+1, to+1)
			} else {
				s += fmt.Sprintf("%d→%d %.2f s", from+1, to+1, l.Worst)
			}
		}
	}
	return s
}

// showLevel shows a source clip of the wind level (Data.windClip) in
// place of the scene, playing.
func (t *Tool) showLevel(h tools.Host) {
	if t.data == nil {
		return
	}
	w := int(min(max(t.Settings.Wind, 1), int32(len(t.data.Winds())))) - 1
	if err := h.ShowClip(t.data.levelObject(t.data.windClip(w)), nil, true); err != nil {
		h.Error(err)
	}
}

// Build starts building the motion graph of the opened dataset.
func (t *Tool) Build(h tools.Host) {
	t.defaults()
	switch {
	case t.data == nil:
		h.Error(errors.New("ensemble: open an ensemble first"))
		return
	case t.Building():
		return
	}
	if err := t.Settings.Check(); err != nil {
		h.Error(err)
		return
	}
	r := &buildRun{data: t.data, settings: t.Settings}
	t.build = r
	r.start(h.Jobs(), func() { t.builtDone(h, r) })
}

// builtDone runs on the UI thread when r ends.
func (t *Tool) builtDone(h tools.Host, r *buildRun) {
	if r != t.build {
		return
	}
	if r.task.Err != nil {
		h.Error(fmt.Errorf("ensemble: %w", r.task.Err))
		return
	}
	if r.res == nil || r.data != t.data {
		h.Info("Ensemble: build stopped")
		return
	}
	t.endCompare(h)
	t.endPlay(h)
	t.built, t.report = r.res, ""
	t.work++
	st := r.res.Stats
	h.Info("Ensemble: %d transitions in %.1f s", st.Found, st.Seconds)
}

// UnsavedWork names the graph when neither a graph file nor a saved
// project holds it ("" when one does, or there is none): quitting asks
// first.
func (t *Tool) UnsavedWork() string {
	if t.built == nil || t.built.Path != "" || t.work == t.saved {
		return ""
	}
	return "the Ensemble tool's motion graph of " + t.data.Name()
}

// WorkMark returns a mark of the graph the tool holds now, for SavedWork.
func (t *Tool) WorkMark() uint64 { return t.work }

// SavedWork records that a project holding the tool's state as of mark
// (WorkMark, taken with the project's snapshot) was saved.
func (t *Tool) SavedWork(mark uint64) { t.saved = max(t.saved, mark) }

// Building reports whether the graph is being built.
func (t *Tool) Building() bool { return t.build != nil && t.build.task.Running() }

// StopBuild cancels the build; the previous graph stays.
func (t *Tool) StopBuild() {
	if t.build != nil {
		t.build.task.Cancel()
	}
}

// BuildProgress returns the build's progress and trace (nil before the
// first publication, or without a build).
func (t *Tool) BuildProgress() *Progress {
	if t.build == nil {
		return nil
	}
	return t.build.task.Shown()
}

// Update runs once per UI frame: take the jobs' snapshots, and keep the
// played clip ahead of the timeline.
func (t *Tool) Update(h tools.Host) {
	t.defaults()
	if t.opening != nil {
		t.opening.task.Take()
	}
	if t.build != nil {
		t.build.task.Take()
	}
	if t.compare != nil {
		t.compare.task.Take()
	}
	p := t.play
	if p == nil || h.ShownClip() != p.obj {
		return
	}
	f, _ := h.ShownFrame()
	for len(p.obj.Clip.Frames)-1-f < ahead {
		p.step()
	}
	// Keep the last Record seconds, dropping a tenth of them at a time.
	keep := int(math.Round(t.Settings.Record * p.rec.FPS))
	if n := len(p.obj.Clip.Frames); n > keep+keep/10 {
		drop := min(n-keep, f)
		if drop > 0 {
			p.drop(drop)
			h.SetShownFrame(f - drop)
		}
	}
}

// Play plays the motion graph forever in place of the scene, from the
// wind level's first frame: the clip grows as the timeline plays on.
func (t *Tool) Play(h tools.Host) {
	t.defaults()
	b := t.built
	if b == nil {
		h.Error(errors.New("ensemble: build or open a motion graph first"))
		return
	}
	level := int(min(max(t.Settings.Wind, 1), int32(len(b.Model.WindLevels())))) - 1
	pl, err := ensemble.NewPlayer(b.Model, b.Graph, level, uint64(t.Settings.Seed))
	if err != nil {
		h.Error(fmt.Errorf("ensemble: %w", err))
		return
	}
	fps := b.Model.Dataset().FPS
	p := &playback{built: b, player: pl, rec: &Recording{FPS: fps},
		obj: &assets.Object{Name: b.Data.Name() + " (played)", Mesh: b.Data.Mesh, Clip: &assets.Clip{Name: "played", FPS: fps}}}
	for range ahead + 1 {
		p.step()
	}
	t.play, t.report = p, ""
	if err := h.ShowClip(p.obj, nil, true); err != nil {
		t.play = nil
		h.Error(err)
	}
}

// step plays one frame onto the clip and the recording.
func (p *playback) step() {
	p.x = p.player.Step(p.x)
	p.obj.Clip.Frames = append(p.obj.Clip.Frames, append([]assets.Vec3(nil), p.x...))
	p.rec.Add(p.player, p.built.Model)
}

// drop forgets the first n frames of the clip and the recording.
func (p *playback) drop(n int) {
	r := p.rec
	p.obj.Clip.Frames = append([][]assets.Vec3(nil), p.obj.Clip.Frames[n:]...)
	r.World, r.Coords, r.Sewing = r.World[n:], r.Coords[n:], r.Sewing[n:]
	r.Blend, r.Levels = r.Blend[n:], r.Levels[n:]
	p.start += n
}

// Playing reports whether the played clip is shown.
func (t *Tool) Playing(h tools.Host) bool { return t.play != nil && h.ShownClip() == t.play.obj }

// endPlay ends the played stretch (a new graph or dataset).
func (t *Tool) endPlay(h tools.Host) {
	if t.play != nil && h.ShownClip() == t.play.obj {
		if err := h.ShowClip(nil, nil, false); err != nil {
			h.Error(err)
		}
	}
	t.play = nil
}

// SetWind sets the wind level (1-based): the player heads there; before
// playing, the level's source clip is shown.
func (t *Tool) SetWind(h tools.Host, level int) {
	t.defaults()
	if t.data != nil {
		level = min(level, len(t.data.Winds()))
	}
	t.Settings.Wind = int32(max(level, 1))
	if t.play != nil {
		t.play.player.SetWind(int(t.Settings.Wind) - 1)
	}
	if !t.Playing(h) {
		t.showLevel(h)
	}
}

// PlayState is what the played stretch shows at the timeline's frame.
type PlayState struct {
	Frame, Frames int    // the timeline's frame and the clip's frames
	Output        int    // the output frame shown, counted from the start of play
	Level         int    // the wind level shown, 1-based; 0 while the wind changes (a take's frames between levels)
	Wind          int    // the wind level asked for, 1-based
	Heading       int    // the level the player makes for, 1-based: Wind when a route leads there from where it is, else the nearest it can reach (0: none)
	Blending      []bool // per group: blending at this frame
	Transitions   int    // taken so far
}

// PlayState returns the played stretch's state at the timeline's frame,
// ok false when it is not shown.
func (t *Tool) PlayState(h tools.Host) (PlayState, bool) {
	if !t.Playing(h) {
		return PlayState{}, false
	}
	p := t.play
	f, _ := h.ShownFrame()
	f = max(0, min(f, p.rec.Frames()-1))
	return PlayState{Frame: f, Frames: p.rec.Frames(), Output: p.start + f, Level: p.rec.Levels[f] + 1,
		Wind: p.player.Wind() + 1, Heading: p.player.Heading() + 1, Blending: p.rec.Blend[f], Transitions: p.player.Transitions()}, true
}

// blendColour is the highlight of the groups blending (the paper's yellow
// glow), in a hue no group's colour has (see GroupColour).
var blendColour = [3]float32{1, 0.9, 0.1}

// ClipColors returns the colours of the shown clip (the level's source
// clip or the played stretch): each group in its colour, the groups
// blending at the timeline's frame in yellow; in a comparison, the groups
// of a new interpenetrating pair at that frame in red. Nil when none is
// shown.
//
// The slice is kept while the groups' colours stay the same (a paused
// frame, or frames with the same groups blending), so the viewport sees
// the same colours and does not draw again for them.
func (t *Tool) ClipColors(h tools.Host) [][3]float32 {
	d := t.data
	if d == nil || h.ShownClip() == nil || h.ShownClip().Mesh != d.Mesh {
		return nil
	}
	var red, blend []bool
	if v, ok := t.CompareShown(h); ok {
		f, _ := h.ShownFrame()
		red, blend = t.compareColors(v, f)
	} else if st, ok := t.PlayState(h); ok {
		blend = st.Blending
	}
	groups := make([][3]float32, len(d.Ensemble.Groups))
	for k := range groups {
		switch {
		case k < len(red) && red[k]:
			groups[k] = redColour
		case k < len(blend) && blend[k]:
			groups[k] = blendColour
		default:
			groups[k] = GroupColour(k)
		}
	}
	if t.colors.data == d && slices.Equal(t.colors.groups, groups) {
		return t.colors.vertices
	}
	cols := make([][3]float32, len(d.Ensemble.Rest))
	for k, g := range d.Ensemble.Groups {
		for i := g.First; i < g.First+g.Count; i++ {
			cols[i] = groups[k]
		}
	}
	t.colors = shownColors{data: d, groups: groups, vertices: cols}
	return cols
}

// shownColors are the colours ClipColors last returned: per group, and
// per vertex of data's mesh (never changed once returned).
type shownColors struct {
	data     *Data
	groups   [][3]float32
	vertices [][3]float32
}

// Export asks where to save the recorded stretch and writes it as the
// compact glTF (a node per group, its PCA basis and sewing as morph
// targets). The file holds the frames the timeline shows when the path is
// confirmed: play goes on while the Save dialog is open (an export that
// took the stretch at the click held 1,649 frames where the timeline
// showed 1,946 ten seconds later), and while the file is written.
func (t *Tool) Export(h tools.Host) {
	p := t.play
	if p == nil || p.rec.Frames() == 0 {
		h.Error(errors.New("ensemble: play the motion graph first; the played stretch is what is exported"))
		return
	}
	name := p.built.Data.Name() + " played"
	h.SaveFile("Export the played stretch as glTF", []string{"glb", "gltf"}, strings.ReplaceAll(name, " ", "-")+".glb", func(path string) {
		rec := p.rec.snapshot()
		// A minute takes about 0.3 s to write: a job, not the UI thread.
		var size int64
		h.Jobs().Start("Ensemble: export "+filepath.Base(path), func(context.Context, jobs.Reporter) error {
			a, err := rec.Compact(p.built.Model, p.built.Data.Ensemble, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
			if err == nil {
				err = assets.SaveRigidGLTF(path, a)
			}
			if err == nil {
				var st os.FileInfo
				if st, err = os.Stat(path); err == nil {
					size = st.Size()
				}
			}
			return err
		}, func(err error) {
			if err != nil {
				h.Error(fmt.Errorf("ensemble export: %w", err))
				return
			}
			t.report = fmt.Sprintf("wrote %s (%d frames, %.1f s, %d bytes)", path, rec.Frames(), float64(rec.Frames())/rec.FPS, size)
			h.Info("Ensemble: %s", t.report)
		})
	})
}

// AddToDocument adds the played stretch to the document as a new object,
// one undoable step (tools.Host.AddObject): the whole ensemble's mesh,
// every group, at rest, with a clip of the frames the timeline shows,
// named after the data and the output frames it holds. In the document it
// is saved in the project, exported from File > Export and used by the
// other tools like any object with a clip.
func (t *Tool) AddToDocument(h tools.Host) {
	p := t.play
	if p == nil || len(p.obj.Clip.Frames) == 0 {
		h.Error(errors.New("ensemble: play the motion graph first; the played stretch is what is added"))
		return
	}
	src := p.obj.Clip
	n := len(src.Frames)
	o := &assets.Object{
		Name: fmt.Sprintf("%s played, frames %d-%d", p.built.Data.Name(), p.start+1, p.start+n),
		Mesh: p.built.Data.Mesh.Clone(),
		// A frame's positions never change once played: the clip shares
		// them, not the list, which play grows and drops.
		Clip: &assets.Clip{Name: "played", FPS: src.FPS, Frames: slices.Clone(src.Frames)},
	}
	h.AddObject(o)
	t.report = fmt.Sprintf("added %s (%d frames, %.1f s) to the document", o.Name, n, float64(n)/src.FPS)
	h.Info("Ensemble: %s", t.report)
}

// SaveGraph asks where to save the motion graph and writes its file.
func (t *Tool) SaveGraph(h tools.Host) {
	b := t.built
	if b == nil {
		h.Error(errors.New("ensemble: build a motion graph first"))
		return
	}
	h.SaveFile("Save the motion graph", []string{"json"}, strings.ReplaceAll(b.Data.Name(), " ", "-")+"-graph.json", func(path string) {
		f, err := NewGraphFile(b.Data.Levels, b.Data.Groups, b.Model, b.Settings, b.Graph)
		if err == nil {
			err = SaveGraph(path, f)
		}
		if err != nil {
			h.Error(fmt.Errorf("ensemble: %w", err))
			return
		}
		b.Path = path
		t.report = "wrote " + path
		h.Info("Ensemble: %s", t.report)
	})
}

// state is what the project file keeps of the tool: its settings, the
// dataset's folders and the graph file, or the graph itself (a GraphFile)
// when no file holds it (the data and the graph are read again).
type state struct {
	Settings  Settings        `json:"settings"`
	Levels    []string        `json:"levels,omitempty"`
	Groups    string          `json:"groups,omitempty"`
	Graph     string          `json:"graph,omitempty"`
	GraphData json.RawMessage `json:"graph_data,omitempty"`
}

// State returns the tool's state for the project file.
func (t *Tool) State() (json.RawMessage, error) {
	t.defaults()
	st := state{Settings: t.Settings}
	switch {
	case t.data != nil:
		st.Levels, st.Groups = t.data.Levels, t.data.Groups
		if b := t.built; b != nil && b.Path != "" {
			st.Graph = b.Path
		} else if b != nil {
			f, err := NewGraphFile(t.data.Levels, t.data.Groups, b.Model, b.Settings, b.Graph)
			if err != nil {
				return nil, err
			}
			if st.GraphData, err = json.Marshal(f); err != nil {
				return nil, err
			}
		}
	case t.restored != nil:
		st.Levels, st.Groups, st.Graph, st.GraphData = t.restored.Levels, t.restored.Groups, t.restored.Graph, t.restored.GraphData
	}
	return json.Marshal(st)
}

// Restore sets the tool's state from a project file and opens its dataset
// (with its graph file, or the graph the project holds) as a job.
func (t *Tool) Restore(h tools.Host, raw json.RawMessage) error {
	st := state{Settings: DefaultSettings()}
	if err := json.Unmarshal(raw, &st); err != nil {
		return fmt.Errorf("ensemble tool state: %w", err)
	}
	if err := st.Settings.Check(); err != nil {
		return fmt.Errorf("ensemble tool state: %w", err)
	}
	var file *GraphFile
	if len(st.GraphData) > 0 {
		f, err := parseGraph("the project's ensemble graph", st.GraphData)
		if err != nil {
			return fmt.Errorf("ensemble tool state: %w", err)
		}
		file = f
	}
	t.Settings, t.restored = st.Settings, &st
	switch {
	case file != nil:
		t.startOpen(h, &openRun{file: file})
	case st.Graph != "":
		t.OpenGraphFile(h, st.Graph)
	case len(st.Levels) > 0:
		t.OpenLevels(h, st.Levels, st.Groups)
	}
	return nil
}
