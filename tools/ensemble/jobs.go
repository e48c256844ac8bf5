package ensemble

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/solver/ensemble"
	"gallop/solver/ensemble/csp"
)

// Progress is what the tool's jobs publish: immutable once published.
type Progress struct {
	Fraction float64 // in [0, 1]
	Text     string
	// Trace is the last COMPUTE-MEMG-TRANSITION call a build finished
	// (nil before the first, and for the other jobs): the paper's Fig. 10.
	Trace *Trace
	// Calls counts the calls finished so far.
	Calls int
	// Levels is a build's progress per level (nil for the other jobs):
	// the tasks leaving each level done so far, within the level and
	// toward the others.
	Levels []LevelProgress
}

// LevelProgress is a build's progress on the tasks leaving one level.
type LevelProgress struct {
	Within, Between int // tasks done: to elsewhere in the level, to other levels
}

// Trace is one COMPUTE-MEMG-TRANSITION call's progress against time (the
// paper's Fig. 10): per event of the solver, the seconds since the call
// began, the current φ and the best feasible φ_min so far (NaN where there
// is none yet), and the bad and contact set sizes |B| and |C|.
type Trace struct {
	Seconds, Phi, PhiMin, Bad, Contacts []float64
	Transition                          bool // the call found a transition
}

// maxTracePoints bounds a Trace; events beyond it are dropped.
const maxTracePoints = 20000

func (tr *Trace) add(e csp.Event) {
	if len(tr.Seconds) >= maxTracePoints {
		return
	}
	nan := func(x float64) float64 {
		if math.IsInf(x, 0) {
			return math.NaN()
		}
		return x
	}
	tr.Seconds = append(tr.Seconds, e.Seconds)
	tr.Phi = append(tr.Phi, nan(e.Phi))
	tr.PhiMin = append(tr.PhiMin, nan(e.PhiMin))
	tr.Bad = append(tr.Bad, float64(e.Bad))
	tr.Contacts = append(tr.Contacts, float64(e.Contacts))
}

// Data is an opened ensemble dataset: its level folders (in order, the
// calmest first), its groups file ("" for the sidecar beside them), and
// what was read.
type Data struct {
	Levels   []string
	Groups   string
	Dataset  *ensemble.Dataset
	Ensemble *assets.Ensemble
	Mesh     *assets.Mesh // the whole ensemble's rest mesh, every group's triangles
}

// Name names the dataset: its folder's name.
func (d *Data) Name() string { return filepath.Base(filepath.Dir(filepath.Clean(d.Levels[0]))) }

// Winds returns the dataset's wind levels (ensemble.Dataset.WindLevels):
// what the wind slider chooses from, by their index from 1.
func (d *Data) Winds() []float64 { return d.Dataset.WindLevels() }

// windClip returns the clip that shows wind level w (an index in Winds)
// best: the first whose every frame is at the level, else the first with
// a frame at it.
func (d *Data) windClip(w int) int {
	winds := d.Winds()
	if w < 0 || w >= len(winds) {
		return 0
	}
	some := -1
	for l, lv := range d.Dataset.Levels {
		all := true
		for f := range lv.Frames {
			at := d.Dataset.WindAt(l, f) == winds[w]
			all = all && at
			if at && some < 0 {
				some = l
			}
		}
		if all {
			return l
		}
	}
	return max(some, 0)
}

// levelObject returns level l as an object (the whole mesh with the
// level's clip), not in the document.
func (d *Data) levelObject(l int) *assets.Object {
	return &assets.Object{Name: fmt.Sprintf("%s %s", d.Name(), filepath.Base(d.Levels[l])), Mesh: d.Mesh, Clip: d.Ensemble.Levels[l]}
}

// Built is a motion graph of an opened dataset: built by the tool (Stats
// holds Table I's figures) or read from a graph file (Path).
type Built struct {
	Data     *Data
	Model    *ensemble.Model
	Graph    *ensemble.Graph
	Settings BuildSettings
	Stats    ensemble.BuildStats
	Path     string // the graph file it was read from or last saved to
	FromFile bool   // read from Path, not built: Stats are zero
	// Latency is the graph's wind-change latency, [from][to] (see
	// ensemble.Graph.Latencies), also for a graph read from a file.
	Latency [][]ensemble.Latency
}

// LevelFolders returns the levels of the dataset that path belongs to: the
// folder path (a level), or the folder holding path (a groups file or a
// frame of a level), is taken as one level, and every folder beside it
// that holds OBJ files as another, sorted by name (wind-1, wind-2, ...:
// the calmest first). A groups file picked is returned as groups (""
// otherwise: the sidecar beside the levels is read).
func LevelFolders(path string) (levels []string, groups string, err error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, "", err
	}
	parent := filepath.Dir(filepath.Clean(path))
	switch {
	case st.IsDir():
	case strings.EqualFold(filepath.Ext(path), ".csv"):
		groups = path
	default:
		parent = filepath.Dir(parent) // a frame: its folder is a level
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, "", err
	}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		files, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		if slices.ContainsFunc(files, func(f os.DirEntry) bool {
			return !f.IsDir() && strings.EqualFold(filepath.Ext(f.Name()), ".obj")
		}) {
			levels = append(levels, dir)
		}
	}
	if len(levels) == 0 {
		return nil, "", fmt.Errorf("%s: no folder of OBJ frames (one per wind level) beside %s", parent, filepath.Base(path))
	}
	return levels, groups, nil
}

// openRun is a job opening a dataset, or a graph file and its dataset.
type openRun struct {
	levels []string // the dataset's, when it opens without a graph
	groups string
	graph  string     // the graph file, which names its dataset; "" to open the dataset only
	file   *GraphFile // or the graph itself, from a project
	task   jobs.Task[Progress]
	data   *Data  // set when it succeeds
	built  *Built // set when it opened a graph
}

func (r *openRun) start(runner *jobs.Runner, done func()) {
	name := "Ensemble: open " + r.graph
	switch {
	case r.file != nil:
		name = "Ensemble: open the project's motion graph"
	case r.graph == "":
		name = "Ensemble: open " + filepath.Dir(filepath.Clean(r.levels[0]))
	}
	r.task.Start(runner, name, r.work, done)
}

func (r *openRun) work(ctx context.Context, rep jobs.Reporter) error {
	publish := func(f float64, text string) {
		r.task.Latest.Publish(&Progress{Fraction: f, Text: text})
		rep.Report(f, text)
	}
	progress := func(done, total int) {
		publish(float64(done)/float64(max(1, total)), fmt.Sprintf("loading frames %d of %d", done, total))
	}
	if r.graph != "" || r.file != nil {
		f, name := r.file, "the project's motion graph"
		if f == nil {
			var err error
			if f, err = LoadGraph(r.graph); err != nil {
				return err
			}
			name = r.graph
		}
		m, g, e, err := f.Open(ctx, progress)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		d := newData(f.Levels, f.Groups, m.Dataset(), e)
		r.data = d
		r.built = &Built{Data: d, Model: m, Graph: g, Settings: f.Build, Path: r.graph, FromFile: true, Latency: g.Latencies(m)}
		publish(1, "opened")
		return nil
	}
	ds, e, err := Load(ctx, r.levels, r.groups, progress)
	if err != nil {
		return err
	}
	r.data = newData(r.levels, r.groups, ds, e)
	publish(1, "opened")
	return nil
}

func newData(levels []string, groups string, ds *ensemble.Dataset, e *assets.Ensemble) *Data {
	return &Data{Levels: slices.Clone(levels), Groups: groups, Dataset: ds, Ensemble: e, Mesh: e.Mesh()}
}

// buildRun is a job fitting the model and building its motion graph.
type buildRun struct {
	data     *Data
	settings Settings
	task     jobs.Task[Progress]
	res      *Built // set when it succeeds
}

func (r *buildRun) start(runner *jobs.Runner, done func()) {
	r.task.Start(runner, "Ensemble: build the motion graph of "+r.data.Name(), r.work, done)
}

// work fits the groups (a tenth of the bar) and builds the graph on both
// cores, publishing the progress after each task and each finished
// COMPUTE-MEMG-TRANSITION call with its trace.
func (r *buildRun) work(ctx context.Context, rep jobs.Reporter) error {
	var (
		last     *Trace
		calls    int
		fraction float64
		text     = "fitting groups"
		levels   = make([]LevelProgress, len(r.data.Levels))
	)
	publish := func() {
		r.task.Latest.Publish(&Progress{Fraction: fraction, Text: text, Trace: last, Calls: calls, Levels: slices.Clone(levels)})
		rep.Report(fraction, text)
	}
	publish()
	const fitShare = 0.1
	m, err := ensemble.NewModel(ctx, r.data.Dataset, ensemble.Options{TauMax: int(r.settings.TauMax)}, func(done, total int) {
		fraction, text = fitShare*float64(done)/float64(max(1, total)), fmt.Sprintf("fitting groups %d of %d", done, total)
		publish()
	})
	if err != nil {
		return err
	}
	bs := r.settings.build()
	// Build serialises the trace and progress calls together, so the
	// state above needs no lock.
	cur := map[int]*Trace{}
	trace := func(worker int, e csp.Event) {
		switch e.Kind {
		case csp.ComputeStart:
			cur[worker] = &Trace{}
		case csp.ComputeEnd:
			if tr := cur[worker]; tr != nil {
				tr.add(e)
				tr.Transition = !math.IsInf(e.PhiMin, 1)
				last, calls = tr, calls+1
				delete(cur, worker)
				publish()
			}
			return
		}
		if tr := cur[worker]; tr != nil {
			tr.add(e)
		}
	}
	g, st, err := ensemble.Build(ctx, m, bs.Options(m.Dataset().FPS), func(t ensemble.Task, done, total int) {
		fraction = fitShare + (1-fitShare)*float64(done)/float64(max(1, total))
		if t.From == t.To {
			levels[t.From].Within++
		} else {
			levels[t.From].Between++
		}
		text = fmt.Sprintf("transitions: task %d of %d (level %d to %d)", done, total, t.From+1, t.To+1)
		publish()
	}, trace)
	if err != nil {
		return err
	}
	fraction, text = 1, "built"
	publish()
	r.res = &Built{Data: r.data, Model: m, Graph: g, Settings: bs, Stats: st, Latency: st.Latency}
	return nil
}
