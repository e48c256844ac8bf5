package dynamics

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/dynskin"
	"gallop/solver/ssdr"
	"gallop/tools"
	"gallop/tools/rig"
)

// FitProgress is what a fit publishes after each iteration's simulation;
// immutable once published.
type FitProgress struct {
	Iteration int       // iterations done (0: the starting guess simulated)
	Asked     int       // the iteration cap
	Energy    []float64 // E of each iteration so far
	SkinRMSE  float64   // plain skinning's RMSE against the example
	Elements  int       // frames × vertices, for RMSE = √(E / Elements)
}

// Fraction is how far the fit has come, in [0, 1].
func (p *FitProgress) Fraction() float64 {
	return float64(p.Iteration) / float64(max(1, p.Asked))
}

// RMSE returns the RMSE of iteration k's simulation against the example.
func (p *FitProgress) RMSE(k int) float64 {
	return math.Sqrt(p.Energy[k] / float64(max(1, p.Elements)))
}

// Text says how far the fit has come: "iteration 12 of at most 200, RMSE
// 0.61 of skinning's".
func (p *FitProgress) Text() string {
	s := fmt.Sprintf("iteration %d of at most %d", p.Iteration, p.Asked)
	if len(p.Energy) > 0 && p.SkinRMSE > 0 {
		s += fmt.Sprintf(", RMSE %.3g of skinning's", p.RMSE(len(p.Energy)-1)/p.SkinRMSE)
	}
	return s
}

// fitRun is one fit of an object's materials to an example.
type fitRun struct {
	obj     *assets.Object
	l       *layer
	example string // what the example is, for the artist
	task    jobs.Task[FitProgress]
	res     *dynskin.FitResult
	ratio   float64 // the result's RMSE over skinning's
	stopped bool    // the artist stopped it; res is the best before that
}

// MinFitGain is the least improvement on plain skinning's error a fit must
// make for its materials to replace the object's: a fit whose best
// materials leave more than 1 − MinFitGain of that error has found nothing
// the example adds to skinning, which happens when the example is not an
// animation of this goal (another animation's frames, say); the painted
// materials are then kept and the artist told.
const MinFitGain = 0.03

// exampleOf says where an example comes from: its file's name, or the
// object's own clip.
func exampleOf(path string) string {
	if path == "" {
		return "its own clip"
	}
	return filepath.Base(path)
}

// HasOwnExample reports whether the active object's clip is an example to
// fit to: an animation of as many frames as its joint animation that is
// not the skinning itself (a mesh animation whose rig was inferred from
// it, say). The simulation session finds it once per clip.
func (t *Dynamics) HasOwnExample(h tools.Host) bool {
	s := t.snapshot(h)
	return s != nil && s.ownExample && s.req.clip == h.Object().Clip
}

// rigging returns the simulation session's rigging of the active object
// when it is for the object's parts of now, else nil.
func (t *Dynamics) rigging(h tools.Host) *Rigging {
	o, s := h.Object(), t.snapshot(h)
	if s == nil || s.req.mesh != o.Mesh || s.req.rig != o.Rig || s.req.skin != o.Skin {
		return nil
	}
	return s.rig
}

// Fitting reports whether a fit is running.
func (t *Dynamics) Fitting() bool { return t.fit != nil && t.fit.task.Running() }

// FitProgress returns the running or last fit's latest progress, nil
// before its first iteration.
func (t *Dynamics) FitProgress() *FitProgress {
	if t.fit == nil {
		return nil
	}
	return t.fit.task.Shown()
}

// FitReport says how the last fit ended ("" while it runs or before one).
func (t *Dynamics) FitReport() string {
	f := t.fit
	switch {
	case f == nil || !f.task.Finished:
		return ""
	case f.task.Err != nil:
		return f.task.Err.Error()
	case f.res == nil:
		return "Fit stopped before it improved on plain skinning; the materials are unchanged."
	}
	conv := "reached the iteration cap"
	switch {
	case f.stopped:
		conv = "stopped there (Undo brings the materials before back)"
	case f.res.Converged:
		conv = "converged"
	}
	return fmt.Sprintf("Fitted to %s: RMSE %.4g, %.3f of plain skinning's; best of %s at %d, %s.",
		f.example, f.res.RMSE, f.ratio, words.Count(len(f.res.Energy)-1, "iteration", "iterations"), f.res.Best, conv)
}

// StopFit cancels the fit.
func (t *Dynamics) StopFit() {
	if t.fit != nil {
		t.fit.task.Cancel()
	}
}

// Fit fits the active object's materials to an example animation of its
// mesh as a job (Figure 5 of the paper, dynskin.Fit): the example is the
// glTF file or folder of OBJ frames at path (an OBJ file stands for the
// frames in its folder, as a sequence is picked in a file dialog), or the
// object's own clip for "". The result replaces the materials as one
// undoable edit, also when the artist stops the fit (the best materials so
// far), unless it improves on plain skinning by less than MinFitGain (the
// example does not fit the animation; an error says so).
func (t *Dynamics) Fit(h tools.Host, path string) {
	if strings.EqualFold(filepath.Ext(path), ".obj") {
		path = filepath.Dir(path)
	}
	o := h.Object()
	if err := RigError(o); err != nil {
		h.Error(err)
		return
	}
	if err := t.Settings.Check(); err != nil {
		h.Error(err)
		return
	}
	if t.Fitting() {
		return
	}
	st := t.Settings
	parts := &assets.Object{Name: o.Name, Mesh: o.Mesh, Rig: o.Rig, Skin: o.Skin}
	own := o.Clip
	f := &fitRun{obj: o, l: t.layer(h), example: exampleOf(path)}
	t.fit = f
	rg := t.rigging(h) // immutable: shared with the simulation session
	f.task.Start(h.Jobs(), "Fit materials: "+o.Name, func(ctx context.Context, rep jobs.Reporter) error {
		var err error
		if rg == nil {
			rep.Report(0, "building the goal")
			if rg, err = NewRigging(parts); err != nil {
				return err
			}
		}
		g := rg.Goal
		var example [][]assets.Vec3
		if path == "" {
			if own == nil {
				return fmt.Errorf("%s has no clip to fit to", o.Name)
			}
			if err := CheckExample(parts, parts.Mesh, own, g.NumFrames(), g.FPS); err != nil {
				return fmt.Errorf("%s's clip: %w", o.Name, err)
			}
			example = own.Frames
		} else if example, err = LoadExample(ctx, path, parts, g.NumFrames(), g.FPS); err != nil {
			return err
		}
		skin := dynskin.RMSE(g.Positions, example)
		elements := g.NumFrames() * rg.Model.NumVertices()
		var energy []float64
		opts := dynskin.FitOptions{Sim: dynskin.Options{Substeps: int(st.Substeps)}, Kappa: !st.Paper, Iterations: int(st.Iterations)}
		opts.Progress = func(k int, e float64, _ []dynskin.Material) {
			energy = append(energy, e)
			p := &FitProgress{Iteration: k, Asked: opts.Iterations, Energy: slices.Clone(energy), SkinRMSE: skin, Elements: elements}
			f.task.Latest.Publish(p)
			rep.Report(p.Fraction(), p.Text())
		}
		res, err := dynskin.Fit(ctx, rg.Model, g, example, opts)
		switch {
		case err != nil && ctx.Err() != nil && res != nil && res.Best > 0:
			f.stopped = true // keep the best so far, as the Gallery's Stop does
		case err != nil:
			return err
		}
		f.res, f.ratio = res, res.RMSE/skin
		if f.ratio > 1-MinFitGain {
			f.res = nil
			if f.stopped {
				return ctx.Err() // stopped before it improved on skinning
			}
			return fmt.Errorf("%s does not fit %s's animation: the best materials found leave %.3f of plain skinning's error (RMSE %.4g against %.4g), so the example adds nothing to skinning here; is it an example of another animation? The materials are unchanged", f.example, o.Name, f.ratio, res.RMSE, skin)
		}
		return nil
	}, func() {
		switch {
		case f.task.Err != nil:
			h.Error(f.task.Err)
		case f.res == nil:
			h.Info("Dynamics: fit stopped")
		default:
			name := "Fit materials to " + f.example
			if f.stopped {
				name += fmt.Sprintf(" (stopped at iteration %d)", len(f.res.Energy)-1)
			}
			h.Do(&paramsCmd{l: f.l, name: name, before: f.l.params, after: f.res.Params})
			h.Info("Dynamics: %s", t.FitReport())
		}
	})
}

// InferProgress is what a rig inference publishes after each round.
type InferProgress struct {
	Round, Asked int
	RMSE         float64
}

// inferRun is one rig inference for an object without a rig.
type inferRun struct {
	task jobs.Task[InferProgress]
	res  *ssdr.Result
}

// Inferring reports whether a rig inference is running.
func (t *Dynamics) Inferring() bool { return t.infer != nil && t.infer.task.Running() }

// InferProgress returns the running inference's latest progress, or nil.
func (t *Dynamics) InferProgress() *InferProgress {
	if !t.Inferring() {
		return nil
	}
	return t.infer.task.Shown()
}

// InferRig gives an object without a rig one, inferred from its clip by
// the Rig tool's method (SSDR with Settings.Bones bones), as a job; the
// rig and its joint animation become the object's as one undoable edit,
// and its clip stays, ready to be the example a fit reproduces.
func (t *Dynamics) InferRig(h tools.Host) {
	o := h.Object()
	if !CanInfer(o) || t.Inferring() {
		return
	}
	if err := t.Settings.Check(); err != nil {
		h.Error(err)
		return
	}
	bones := int(t.Settings.Bones)
	if bones > o.Mesh.NumVertices() {
		h.Error(fmt.Errorf("dynamics: %d bones for %d vertices", bones, o.Mesh.NumVertices()))
		return
	}
	mesh, clip := o.Mesh, o.Clip
	r := &inferRun{}
	t.infer = r
	opts := ssdr.Options{Bones: bones}
	r.task.Start(h.Jobs(), "Infer a rig: "+o.Name, func(ctx context.Context, rep jobs.Reporter) error {
		rep.Report(0, "clustering")
		o := opts
		o.Progress = func(it int, rmse float64, _ ssdr.Stage) {
			p := &InferProgress{Round: it, Asked: opts.MaxRounds(len(mesh.Positions)), RMSE: rmse}
			r.task.Latest.Publish(p)
			rep.Report(float64(it)/float64(max(1, p.Asked)), fmt.Sprintf("round %d, RMSE %.4g", it, rmse))
		}
		res, err := ssdr.Decompose(ctx, mesh.Positions, mesh.Triangles, clip.Frames, o)
		if err != nil {
			return fmt.Errorf("inferring a rig for %s: %w", clip.Name, err)
		}
		r.res = res
		return nil
	}, func() {
		switch {
		case r.task.Err != nil:
			h.Error(r.task.Err)
		case r.res != nil:
			rigged := rig.SkinnedObject(r.res, clip.Name, clip.FPS, mesh, mesh.Positions)
			h.Do(tools.NewReplaceParts(fmt.Sprintf("Infer a rig (%d bones)", bones), o, func(p *tools.Parts) {
				p.Rig, p.Skin = rigged.Rig, rigged.Skin
			}))
			h.Info("Dynamics: inferred a rig of %d bones (RMSE %.4g); its clip is the example to fit", bones, r.res.RMSE)
		}
	})
}

// errNotSimulated is the error of a bake or export before the dynamic
// animation is complete.
var errNotSimulated = errors.New("dynamics: the dynamic animation is not simulated yet for these materials; wait for the simulation (or fix its error)")

// clip returns the dynamic animation of the active object when every frame
// of it is simulated for the materials and settings of now.
func (t *Dynamics) clip(h tools.Host) (*snapshot, error) {
	s := t.snapshot(h)
	st := t.Status(h)
	if s == nil || !s.done || s.err != nil || !st.Current || len(s.frames) != s.total {
		return nil, errNotSimulated
	}
	return s, nil
}

// CanBake reports whether Bake and Export have a complete animation.
func (t *Dynamics) CanBake(h tools.Host) bool {
	_, err := t.clip(h)
	return err == nil
}

// Bake makes the dynamic animation the object's clip, as one undoable
// edit: frame for frame what the preview shows; the clip it replaces
// stays the object's first take. Its report gives the jump at the loop's
// seam.
func (t *Dynamics) Bake(h tools.Host) {
	s, err := t.clip(h)
	if err != nil {
		h.Error(err)
		return
	}
	o := h.Object()
	c := &assets.Clip{Name: t.clipName(o), FPS: s.rig.Goal.FPS, Frames: s.frames}
	h.Do(tools.NewReplaceParts("Bake dynamics", o, func(p *tools.Parts) {
		p.KeepTake()
		p.Clip = c
	}))
	t.baked = fmt.Sprintf("Baked %s. %s", words.Count(len(s.frames), "frame", "frames"), t.seamText(s))
	h.Info("Dynamics: %s", t.baked)
}

// seamText reports the jump where the loop closes.
func (t *Dynamics) seamText(s *snapshot) string {
	d := s.rig.Model.Diagonal()
	txt := fmt.Sprintf("Played in a loop, the seam jumps by at most %.3g (%.2g%% of the diagonal)", s.seam, 100*s.seam/d)
	if s.req.settings.Loop {
		return txt + ", after a warm-up loop."
	}
	return txt + "; the loop option runs a warm-up loop first to close it."
}

// clipName names the baked clip after the joint animation.
func (t *Dynamics) clipName(o *assets.Object) string {
	if o.Skin != nil && o.Skin.Name != "" {
		return o.Skin.Name + " dynamic"
	}
	return "dynamic"
}

// Baked returns the last bake's report ("" if none).
func (t *Dynamics) Baked() string { return t.baked }

// Exported returns the last export's report ("" if none).
func (t *Dynamics) Exported() string { return t.exported }

// Export asks where to save the dynamic animation and writes it as glTF
// 2.0 with the frames as morph targets, as a job.
func (t *Dynamics) Export(h tools.Host) {
	s, err := t.clip(h)
	if err != nil {
		h.Error(err)
		return
	}
	o := h.Object()
	obj := &assets.Object{Name: o.Name, Mesh: o.Mesh, Clip: &assets.Clip{Name: t.clipName(o), FPS: s.rig.Goal.FPS, Frames: s.frames}}
	h.SaveFile("Export dynamic glTF", []string{"glb", "gltf"}, o.Name+"-dynamic.glb", func(path string) {
		h.Jobs().Start("Export "+filepath.Base(path), func(context.Context, jobs.Reporter) error {
			return assets.SaveGLTF(path, obj, assets.ExportOptions{Mode: assets.ExportMorph})
		}, func(err error) {
			if err != nil {
				h.Error(err)
				return
			}
			t.exported = fmt.Sprintf("Exported %s (%s as morph targets).", filepath.Base(path), words.Count(len(s.frames), "frame", "frames"))
			h.Info("Dynamics: wrote %s", path)
		})
	})
}

// ImportParams asks for a parameters file (CSV, see WriteParams) and makes
// it the active object's materials, as one undoable edit.
func (t *Dynamics) ImportParams(h tools.Host) {
	o := h.Object()
	if o == nil {
		return
	}
	n := o.Mesh.NumVertices()
	h.OpenFile("Import materials", []string{"csv"}, func(path string) {
		p, err := LoadParams(path, n)
		if err == nil {
			err = t.SetParams(h, p, "Import materials from "+filepath.Base(path))
		}
		if err != nil {
			h.Error(fmt.Errorf("%s: %w", path, err))
		}
	})
}

// ExportParams asks where to save the active object's materials as CSV.
func (t *Dynamics) ExportParams(h tools.Host) {
	o := h.Object()
	p := t.Params(h)
	if p == nil {
		return
	}
	h.SaveFile("Export materials", []string{"csv"}, o.Name+"-materials.csv", func(path string) {
		if err := SaveParams(path, p); err != nil {
			h.Error(err)
			return
		}
		h.Info("Dynamics: wrote %s", path)
	})
}
