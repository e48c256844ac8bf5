package synth

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/parallel"
	"gallop/solver/synth"
)

// Progress is what the analysis publishes: immutable once published.
type Progress struct {
	Fraction float64 // in [0, 1]
	Text     string
	RMSE     []float64 // the rig's error after each SSDR iteration so far
}

// Analysed is a finished analysis of an object's clip: the rig, the
// transition costs and the graphs at the threshold it was made with.
type Analysed struct {
	obj      *assets.Object
	fps      float64
	Analysis *synth.Analysis
	// Cost is the first part's transition cost D(i, j) (Eq. 5) for
	// display, at most CostSize rows and columns: each cell the least
	// cost of the block of frame pairs it covers, row-major, i down.
	Cost      []float64
	CostSize  int     // rows (= columns) of Cost
	CostFrame float64 // input frames per cell
	CostMax   float64 // the largest finite cost, for the colour scale
	graphs    []*synth.Graph
	graphErr  error
}

// CostSize is the most rows and columns of Analysed.Cost.
const CostSize = 256

// analysisRun is one analysis job of an object's clip.
type analysisRun struct {
	obj      *assets.Object
	settings Settings
	task     jobs.Task[Progress]
	res      *Analysed // set by the job when it succeeds
}

func (r *analysisRun) start(runner *jobs.Runner, done func()) {
	r.task.Start(runner, "Synthesize: analyse "+r.obj.Name, r.work, done)
}

// work is the job: the SSDR rig (most of the time), the transitions and
// graphs, and the cost matrix for display.
func (r *analysisRun) work(ctx context.Context, rep jobs.Reporter) error {
	o := r.obj
	var rmse []float64
	publish := func(f float64, text string) {
		r.task.Latest.Publish(&Progress{Fraction: f, Text: text, RMSE: slices.Clone(rmse)})
		rep.Report(f, text)
	}
	publish(0, "rig: clustering")
	const rigShare = 0.85 // of the progress bar; SSDR takes most of the time
	model, err := Infer(ctx, o.Mesh, o.Clip, int(r.settings.Bones), func(it int, e float64) {
		rmse = append(rmse, e)
		publish(rigShare*min(1, float64(it)/100), fmt.Sprintf("rig: iteration %d, RMSE %.4g", it, e))
	})
	if err != nil {
		return fmt.Errorf("synthesize %s: %w", o.Name, err)
	}
	a, err := synth.Analyze(ctx, model, synth.Options{
		Components: r.settings.Components,
		Progress: func(f float64, what string) {
			publish(rigShare+(1-rigShare)*0.9*f, what)
		},
	})
	if err != nil {
		return fmt.Errorf("synthesize %s: %w", o.Name, err)
	}
	res := &Analysed{obj: o, fps: o.FPS(), Analysis: a}
	res.costMatrix(ctx)
	res.graphs, res.graphErr = Graphs(a, r.settings.Threshold)
	if err := ctx.Err(); err != nil {
		return err
	}
	publish(1, "analysed")
	r.res = res
	return nil
}

// costMatrix fills Cost from the first part's D, block minima, on every
// core.
func (r *Analysed) costMatrix(ctx context.Context) {
	p := r.Analysis.Parts[0]
	n := r.Analysis.Model.NumFrames()
	size := min(n, CostSize)
	r.Cost, r.CostSize, r.CostFrame = make([]float64, size*size), size, float64(n)/float64(size)
	parallel.For(size, func(a int) {
		if ctx.Err() != nil {
			return
		}
		i0, i1 := a*n/size, (a+1)*n/size
		for b := range size {
			j0, j1 := b*n/size, (b+1)*n/size
			least := math.Inf(1)
			for i := i0; i < i1; i++ {
				for j := j0; j < j1; j++ {
					least = min(least, p.Cost(i, j))
				}
			}
			r.Cost[a*size+b] = least
		}
	})
	for _, c := range r.Cost {
		if !math.IsInf(c, 0) && !math.IsNaN(c) {
			r.CostMax = max(r.CostMax, c)
		}
	}
}

// Variation is one generated clip with its quality figures.
type Variation struct {
	Clip    *synth.Clip
	Quality synth.Quality
	Lo, Hi  assets.Vec3 // a box around the posed mesh (every tenth frame and the last), for framing

	once sync.Once
	obj  *assets.Object // the baked object, made when first played
}

// Name names the variation's object and files: the object's name and the
// seed, or each component's seed joined by dashes when they differ.
func (v *Variation) Name(r *Analysed) string {
	seeds := fmt.Sprint(v.Clip.Seed)
	if slices.ContainsFunc(v.Clip.Seeds, func(s uint64) bool { return s != v.Clip.Seed }) {
		parts := make([]string, len(v.Clip.Seeds))
		for k, s := range v.Clip.Seeds {
			parts[k] = fmt.Sprint(s)
		}
		seeds = strings.Join(parts, "-")
	}
	return r.obj.Name + " variation " + seeds
}

// Object returns the variation as an object whose clip is its posed mesh
// at every frame (baked once), with the rig and joint animation that pose
// it so (SkinnedObject), so that the next tool (Dynamics) takes it as it
// is; a clip of affine bones (comparisons only) has no rig.
func (v *Variation) Object(r *Analysed) *assets.Object {
	v.once.Do(func() {
		name := v.Name(r)
		o := BakedObject(v.Clip, name, r.fps, r.obj.Mesh)
		if s, err := SkinnedObject(v.Clip, name, r.fps, r.obj.Mesh); err == nil {
			o.Rig, o.Skin = s.Rig, s.Skin
		}
		v.obj = o
	})
	return v.obj
}

// SpliceFrames returns the output frames at which the variation's parts
// splice, increasing, without repeats.
func (v *Variation) SpliceFrames() []int {
	var out []int
	for _, w := range v.Clip.Walks {
		out = append(out, w.Splices...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Gallery is what a generation publishes: the variations in seed order,
// nil where one is not made yet (or failed). Immutable once published.
type Gallery struct {
	Variations []*Variation
	Errors     []error // per variation, nil where it was made
	Done       int     // variations finished, made or failed
}

// Made counts the variations made.
func (g *Gallery) Made() int {
	n := 0
	for _, v := range g.Variations {
		if v != nil {
			n++
		}
	}
	return n
}

// generation is one job making variations, or the clips of a farm run
// (synth nil: no remix).
type generation struct {
	res   *Analysed
	synth *synth.Synthesizer
	fps   float64
	task  jobs.Task[Gallery]

	mu      sync.Mutex
	cur     Gallery // the gallery being filled, copied on each publication
	version uint64  // of the last copy taken (snapshotLocked)
}

// start makes the variations of seeds on every core, publishing the
// gallery after each.
func (g *generation) start(runner *jobs.Runner, seeds []uint64, done func()) {
	g.cur = Gallery{Variations: make([]*Variation, len(seeds)), Errors: make([]error, len(seeds))}
	g.publish(g.snapshot())
	g.task.Start(runner, fmt.Sprintf("Synthesize: %d variations", len(seeds)), func(ctx context.Context, rep jobs.Reporter) error {
		parallel.For(len(seeds), func(i int) {
			if ctx.Err() != nil {
				return
			}
			v, err := g.make(ctx, []uint64{seeds[i]})
			g.mu.Lock()
			g.cur.Variations[i], g.cur.Errors[i] = v, err
			g.cur.Done++
			snap := g.snapshotLocked()
			g.mu.Unlock()
			g.publish(snap)
			rep.Report(float64(snap.gallery.Done)/float64(len(seeds)), fmt.Sprintf("%d of %d variations", snap.gallery.Done, len(seeds)))
		})
		if err := ctx.Err(); err != nil {
			return err
		}
		g.mu.Lock()
		defer g.mu.Unlock()
		return firstError(g.cur.Errors)
	}, done)
}

// remix replaces variation i by the clip of seeds (one per part), as a
// job of its own that publishes the new gallery to g's task; done gets its
// error on the UI thread.
func (g *generation) remix(runner *jobs.Runner, i int, seeds []uint64, done func(error)) {
	runner.Start("Synthesize: remix", func(ctx context.Context, _ jobs.Reporter) error {
		v, err := g.make(ctx, seeds)
		if err != nil {
			return err
		}
		g.mu.Lock()
		g.cur.Variations[i], g.cur.Errors[i] = v, nil
		snap := g.snapshotLocked()
		g.mu.Unlock()
		g.publish(snap)
		return nil
	}, done)
}

// make synthesises the clip of seeds (one, or one per part) and measures
// it.
func (g *generation) make(ctx context.Context, seeds []uint64) (*Variation, error) {
	if len(seeds) == 1 {
		seeds = slices.Repeat(seeds, len(g.res.Analysis.Parts))
	}
	c, err := g.synth.Mix(ctx, seeds)
	if err != nil {
		return nil, err
	}
	v := &Variation{Clip: c, Quality: g.res.Analysis.Quality(c, g.synth.Window())}
	v.Lo, v.Hi = clipBounds(c)
	return v, nil
}

// clipBounds returns a box around clip c's posed mesh at every tenth
// frame and the last, for framing.
func clipBounds(c *synth.Clip) (lo, hi assets.Vec3) {
	lo = assets.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = lo.Mul(-1)
	var pos []assets.Vec3
	last := len(c.Bones) - 1
	for t := 0; ; t = min(t+10, last) {
		pos = c.Pose(pos, t)
		for _, p := range pos {
			for k := range 3 {
				lo[k], hi[k] = min(lo[k], p[k]), max(hi[k], p[k])
			}
		}
		if t == last {
			return lo, hi
		}
	}
}

// versioned is a copy of the gallery being filled and its version.
type versioned struct {
	gallery *Gallery
	version uint64
}

func (g *generation) snapshot() versioned {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.snapshotLocked()
}

// snapshotLocked copies the gallery being filled, numbering the copies in
// the order they are taken (under g.mu).
func (g *generation) snapshotLocked() versioned {
	g.version++
	return versioned{&Gallery{Variations: slices.Clone(g.cur.Variations), Errors: slices.Clone(g.cur.Errors), Done: g.cur.Done}, g.version}
}

// publish offers a copy to the UI: the variations' workers publish after
// releasing g.mu, so two copies can arrive in either order; the versions
// keep an older copy from replacing a newer one (a finished gallery then
// missed a variation).
func (g *generation) publish(s versioned) {
	g.task.Latest.Offer(s.gallery, s.version)
}

// firstError returns the first non-nil error of errs, or nil.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
