package pose

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"gallop/assets"
	"gallop/internal/jobs"
	"gallop/internal/words"
	"gallop/solver/meshik"
	"gallop/tools"
)

// TemporalWeight is p of the paper's Section 5, the weight of ‖w − w₀‖
// between consecutive frames of a solved animation ("We used a value of
// 100 for the factor p in all animations").
const TemporalWeight = 100

// animJob is an animation being solved.
type animJob struct {
	job *jobs.Job
}

// InsertKey records every handle's offset at the current frame.
func (p *Pose) InsertKey(h tools.Host) {
	p.Sync(h)
	if p.obj == nil || len(p.ed.Handles) == 0 {
		h.Error(errors.New("make handles first: a key records their positions"))
		return
	}
	k := key{Frame: h.Frame()}
	for _, hd := range p.ed.Handles {
		k.Offsets = append(k.Offsets, hd.Offset)
	}
	ed := p.ed.clone()
	ed.Keys = slices.DeleteFunc(ed.Keys, func(x key) bool { return x.Frame == k.Frame })
	ed.Keys = append(ed.Keys, k)
	slices.SortFunc(ed.Keys, func(a, b key) int { return a.Frame - b.Frame })
	p.do(h, fmt.Sprintf("Key frame %d", k.Frame+1), ed, hold)
}

// offsetsAt interpolates the keyed handle offsets at frame f with a
// uniform Catmull-Rom spline through the keys (C¹, passing through every
// key), clamped before the first key and after the last.
func offsetsAt(keys []key, f int) []assets.Vec3 {
	if f <= keys[0].Frame {
		return keys[0].Offsets
	}
	last := len(keys) - 1
	if f >= keys[last].Frame {
		return keys[last].Offsets
	}
	i := 0
	for keys[i+1].Frame <= f {
		i++
	}
	u := float64(f-keys[i].Frame) / float64(keys[i+1].Frame-keys[i].Frame)
	k0, k1, k2, k3 := keys[max(i-1, 0)], keys[i], keys[i+1], keys[min(i+2, last)]
	out := make([]assets.Vec3, len(k1.Offsets))
	u2, u3 := u*u, u*u*u
	for h := range out {
		p0, p1, p2, p3 := k0.Offsets[h], k1.Offsets[h], k2.Offsets[h], k3.Offsets[h]
		out[h] = p1.Mul(2).
			Add(p2.Sub(p0).Mul(u)).
			Add(p0.Mul(2).Sub(p1.Mul(5)).Add(p2.Mul(4)).Sub(p3).Mul(u2)).
			Add(p3.Sub(p0).Add(p1.Sub(p2).Mul(3)).Mul(u3)).
			Mul(0.5)
	}
	return out
}

// SolveAnimation solves every frame from the first key to the last as a
// job, with the temporal term, and replaces the object's clip with the
// result.
func (p *Pose) SolveAnimation(h tools.Host) {
	if len(p.ed.Keys) < 2 {
		h.Error(errors.New("insert at least two keys (I) at different frames to solve an animation"))
		return
	}
	if p.anim != nil {
		return
	}
	obj, ed := p.obj, p.ed.clone()
	ref := p.referencePositions()
	var examples [][]assets.Vec3
	for _, ex := range ed.Examples {
		examples = append(examples, ex.Positions)
	}
	space, components, prior := ed.Space, ed.Components, ed.Prior
	start, startWeights, groups := p.shown(h), p.weights, p.groups()
	first, last := ed.Keys[0].Frame, ed.Keys[len(ed.Keys)-1].Frame
	fps := h.FPS()
	maxIter := p.AnimIterations
	var frames [][]assets.Vec3
	var capped []CappedFrame
	run := func(ctx context.Context, rep jobs.Reporter) error {
		s, err := meshik.New(ref, obj.Mesh.Triangles, examples,
			meshik.Options{Space: space, Components: components, Prior: prior, Temporal: TemporalWeight, MaxIterations: maxIter})
		if err != nil {
			return err
		}
		// One handle vertex list for the whole animation; targets per
		// frame. The solve starts from the pose shown, where the frozen
		// region keeps its shape and the turning handles are captured,
		// as in the live session.
		if err := s.SetPositions(start); err != nil {
			return err
		}
		var verts []int
		for _, hd := range ed.Handles {
			verts = append(verts, hd.Vertices...)
		}
		if err := s.SetHandles(verts); err != nil {
			return err
		}
		if err := s.SetFrozen(ed.Frozen); err != nil {
			return err
		}
		setTargets := func(off []assets.Vec3) error {
			var ts []assets.Vec3
			for hi, hd := range ed.Handles {
				for i := range hd.Vertices {
					ts = append(ts, hd.Base[i].Add(off[hi]))
				}
			}
			_, ts = meshik.SortHandles(verts, ts)
			return s.SetTargets(ts)
		}
		var now []assets.Vec3
		for _, hd := range ed.Handles {
			now = append(now, hd.Offset)
		}
		if err := setTargets(now); err != nil {
			return err
		}
		if len(startWeights) == len(examples) {
			if err := s.SetExampleWeights(startWeights); err != nil {
				return err
			}
		}
		s.FitWeights()
		if err := s.SetRotating(groups); err != nil {
			return err
		}
		for f := first; f <= last; f++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := setTargets(offsetsAt(ed.Keys, f)); err != nil {
				return err
			}
			if f == first {
				if err := s.StartFromLinear(); err != nil {
					return err
				}
			}
			if err := s.SetPrevious(s.Weights()); err != nil {
				return err
			}
			var end meshik.Stats
			res, err := s.Solve(func(st meshik.Stats) bool { end = st; return true })
			switch {
			case errors.Is(err, meshik.ErrNotConverged):
				capped = append(capped, CappedFrame{Frame: f, Iterations: res.Iterations, Objective: end.Objective, Gradient: end.Gradient, Step: end.Step})
			case err != nil:
				return fmt.Errorf("frame %d: %w", f+1, explain(err))
			}
			frames = append(frames, s.Positions())
			rep.Report(float64(f-first+1)/float64(last-first+1), fmt.Sprintf("frame %d of %d", f-first+1, last-first+1))
		}
		return nil
	}
	job := &animJob{}
	p.anim, p.capped = job, nil
	job.job = h.Jobs().Start("Solving animation", run, func(err error) {
		if p.anim == job {
			p.anim = nil
		}
		switch {
		case p.obj != obj || h.Object() != obj:
			// The object was replaced or another became active while the
			// frames were solved: they belong to no object the tool edits.
			h.Info("Solved animation discarded: %s is no longer the object being posed", obj.Name)
			return
		case jobs.IsCanceled(err):
			h.Info("Solving the animation was cancelled")
			return
		case err != nil:
			h.Error(err)
			return
		}
		clip := &assets.Clip{Name: obj.Name + " posed", FPS: fps, Frames: frames}
		h.Do(tools.NewReplaceParts("Solve animation", obj, func(p *tools.Parts) { p.Clip = clip }))
		p.showClip, p.capped = true, capped
		if len(capped) > 0 {
			h.Error(cappedError(capped, len(frames)))
			return
		}
		h.Info("Solved %s of animation", words.Count(len(frames), "frame", "frames"))
	})
}

// CappedFrame is a frame of a solved animation whose solve stopped at the
// iteration cap before the convergence tests of Section 4.1 held: its
// pose is the last iterate, off by about what the figures say.
type CappedFrame struct {
	Frame      int     // 0-based
	Iterations int     // the cap
	Objective  float64 // f at the start of the last iteration
	Gradient   float64 // ‖∂f/∂w‖∞ then
	Step       float64 // ‖δ‖∞ of the last step
}

// cappedError says which of n solved frames stopped at the cap and how
// far off they were.
func cappedError(capped []CappedFrame, n int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "solved %s, but %d stopped at the iteration cap and may be off:", words.Count(n, "frame", "frames"), len(capped))
	for i, c := range capped {
		if i == 8 {
			fmt.Fprintf(&b, " and %d more", len(capped)-i)
			break
		}
		fmt.Fprintf(&b, " frame %d (%d iterations, objective %.3g, gradient %.2g, last step %.2g);", c.Frame+1, c.Iterations, c.Objective, c.Gradient, c.Step)
	}
	return errors.New(strings.TrimSuffix(b.String(), ";"))
}

// CappedFrames returns the frames of the last solved animation that
// stopped at the iteration cap (none: every frame converged).
func (p *Pose) CappedFrames() []CappedFrame { return p.capped }
