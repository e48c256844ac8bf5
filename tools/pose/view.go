package pose

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/words"
	"gallop/solver/meshik"
	"gallop/tools"
)

// What the panel reads of the model. Every value returned is a copy: the
// panel changes the model only through its methods, each an undoable edit.

// HasObject reports whether there is an object to pose.
func (p *Pose) HasObject() bool { return p.obj != nil }

// Mode returns what the tool does with the examples.
func (p *Pose) Mode() Mode { return p.ed.Mode }

// Space returns the feature space the handles are solved in.
func (p *Pose) Space() meshik.SpaceKind { return p.ed.Space }

// Reference returns the example used as the reference pose, -1 for the
// object's rest pose.
func (p *Pose) Reference() int { return p.ed.Reference }

// ExampleInfo is what the panel shows of an example pose.
type ExampleInfo struct {
	Name string
	// Weight is the example's weight in the pose shown, when HasWeight:
	// the blend of the examples the solved weights stand for (meshik's
	// ExampleWeights), in either space.
	Weight    float64
	HasWeight bool
	// Blend is its weight in the blend mode.
	Blend float64
}

// Examples returns the example poses in order.
func (p *Pose) Examples() []ExampleInfo {
	out := make([]ExampleInfo, len(p.ed.Examples))
	for i, ex := range p.ed.Examples {
		out[i].Name = ex.Name
		if len(p.weights) == len(p.ed.Examples) && p.ed.Mode == IK {
			out[i].Weight, out[i].HasWeight = p.weights[i], true
		}
		if i < len(p.ed.Blend) {
			out[i].Blend = p.ed.Blend[i]
		}
	}
	return out
}

// HandleInfo is what the panel shows of a handle.
type HandleInfo struct {
	Name     string
	Vertices int
	Color    [4]float32
	// Turns: the handle turns with the pose (a handle of one vertex has
	// no orientation to hold).
	Turns bool
}

// Handles returns the handles in order.
func (p *Pose) Handles() []HandleInfo {
	out := make([]HandleInfo, len(p.ed.Handles))
	for i, hd := range p.ed.Handles {
		out[i] = HandleInfo{Name: hd.Name, Vertices: len(hd.Vertices), Color: HandleColors[i%len(HandleColors)], Turns: !hd.Fixed}
	}
	return out
}

// HandleCentre returns handle i's centre as shown now (the mean of its
// vertices' positions).
func (p *Pose) HandleCentre(h tools.Host, i int) mgl64.Vec3 { return p.handleCentre(h, i) }

// SetHandleTurns lets handle i turn with the pose, or holds its
// orientation, as one undoable edit; nothing moves until the next drag.
func (p *Pose) SetHandleTurns(h tools.Host, i int, turns bool) {
	if i < 0 || i >= len(p.ed.Handles) || p.ed.Handles[i].Fixed == !turns {
		return
	}
	ed := p.ed.clone()
	ed.Handles[i].Fixed = !turns
	name := "Hold the orientation of " + ed.Handles[i].Name
	if turns {
		name = "Let " + ed.Handles[i].Name + " turn"
	}
	p.do(h, name, ed, hold)
}

// DriftThreshold is the drift (see Drift) above which the panel says the
// pose shown is not a blend of the examples.
const DriftThreshold = 1e-3

// Drift returns how far a solve with the handles where they are would
// move the pose shown, as the largest vertex displacement over the
// bounding box's diagonal, once the solver has measured it (known). A
// pose the examples can reproduce, or a solve's own result, has a drift
// of 0: making a handle and dragging it then moves the mesh only as the
// drag asks. A drift above DriftThreshold means the first drag pulls the
// whole mesh toward the nearest blend (the lion's standing reference pose
// from its nine other poses): AddShownExample makes the pose shown
// reachable.
func (p *Pose) Drift() (drift float64, known bool) { return p.drift, p.driftKnown }

// ShownIsReference reports whether the pose shown is the reference pose
// (the object's rest pose or the reference example), vertex for vertex.
func (p *Pose) ShownIsReference(h tools.Host) bool {
	return p.obj != nil && slices.Equal(p.shown(h), p.referencePositions())
}

// AddShownExample adds the pose shown as an example pose ("reference
// pose" when it is the reference), so that it is a blend of the examples
// and a solve with the handles where they are keeps it.
func (p *Pose) AddShownExample(h tools.Host) {
	p.Sync(h)
	if p.obj == nil {
		return
	}
	name := "pose shown"
	if p.ShownIsReference(h) {
		name = "reference pose"
	}
	p.addExamples(h, "Add the "+name+" as an example", []example{{Name: name, Positions: p.shown(h)}})
}

// FrozenTriangles returns how many triangles are frozen.
func (p *Pose) FrozenTriangles() int { return len(p.ed.Frozen) }

// KeyFrames returns the frames that hold keys, in order.
func (p *Pose) KeyFrames() []int {
	out := make([]int, len(p.ed.Keys))
	for i, k := range p.ed.Keys {
		out[i] = k.Frame
	}
	return out
}

// RemoveKey removes key i, as one undoable edit.
func (p *Pose) RemoveKey(h tools.Host, i int) {
	if i < 0 || i >= len(p.ed.Keys) {
		return
	}
	ed := p.ed.clone()
	ed.Keys = slices.Delete(ed.Keys, i, i+1)
	p.do(h, "Remove key", ed, hold)
}

// Resolve solves again from a fresh start (the linear space's solution).
func (p *Pose) Resolve(h tools.Host) { p.post(h, restart) }

// Animating reports whether an animation is being solved.
func (p *Pose) Animating() bool { return p.anim != nil }

// ShowingClip reports whether the viewport shows the document's clip
// (the solved animation) rather than the live pose.
func (p *Pose) ShowingClip() bool { return p.showClip }

// SetShowClip chooses between the document's clip and the live pose.
func (p *Pose) SetShowClip(on bool) { p.showClip = on }

// Status is the solver's state for the panel and the GUI tests' trace.
type Status struct {
	// State says what the solver is doing, or what to do next, in words.
	State string
	// Updates counts the iterates received so far; Rate those in the
	// last second.
	Updates uint64
	Rate    int
	// Iteration and Objective are the latest iterate's.
	Iteration int
	Objective float64
	// Preview: the pose shown is a drag's quick preview, solved on the
	// simplified mesh of a large one (meshik.Coarse).
	Preview bool
}

// Status returns the solver's state at time now.
func (p *Pose) Status(now time.Time) Status {
	st := Status{State: "idle", Updates: p.last.count, Rate: p.rate.perSecond(now),
		Iteration: p.last.stats.Iteration, Objective: p.last.stats.Objective}
	preparing := p.session != nil && p.last.version != p.version && len(p.ed.Examples) > 0 && p.compression.Examples != len(p.ed.Examples)
	switch {
	case preparing:
		st.State = "preparing " + words.Count(len(p.ed.Examples), "example", "examples")
	case p.ed.Mode == IK && len(p.ed.Handles) == 0 && p.last.err != nil:
		st.State = "stopped: " + p.last.err.Error()
	case p.ed.Mode == IK && len(p.ed.Handles) == 0:
		st.State = "select vertices and make a handle (Ctrl+H)"
	case p.session == nil:
		st.State = "no solve yet"
	case p.last.err != nil:
		st.State = "stopped: " + p.last.err.Error()
	case p.last.held:
		st.State = "holding the pose shown; drag a handle's ring to pose"
	case p.last.preview:
		st.State = "solving (a quick preview while you drag; full detail when you pause)"
		st.Preview = true
	case p.last.converged:
		st.State = "converged"
	case p.last.count > 0:
		st.State = "solving"
	}
	return st
}

// CompressionView is what the panel shows of how the solve compresses the
// examples and how strongly it holds the pose near them.
type CompressionView struct {
	// Known: the solver has been built for the examples (the rest is
	// zero before).
	Known bool
	meshik.CompressionInfo
	// AutoComponents and AutoPrior: the artist left the choice to Gallop
	// (the edits' Components and Prior are 0); Components and Prior
	// otherwise hold the artist's settings.
	AutoComponents, AutoPrior bool
	SetComponents             int
	SetPrior                  float64
}

// Compression returns how the examples are compressed for the solve.
func (p *Pose) Compression() CompressionView {
	c := CompressionView{CompressionInfo: p.compression, AutoComponents: p.ed.Components == 0, AutoPrior: p.ed.Prior == 0,
		SetComponents: p.ed.Components, SetPrior: p.ed.Prior}
	c.Known = p.compression.Examples == len(p.ed.Examples) && len(p.ed.Examples) > 0
	return c
}

// SetComponents sets how many principal components of the examples the
// solve keeps (0: Gallop chooses, every one above the noise floor), as
// one undoable edit; the solver is rebuilt and the pose shown held.
func (p *Pose) SetComponents(h tools.Host, n int) {
	n = max(n, 0)
	if p.ed.Components == n {
		return
	}
	ed := p.ed.clone()
	ed.Components = n
	name := "Components: automatic"
	if n > 0 {
		name = fmt.Sprintf("Components: %d", n)
	}
	p.do(h, name, ed, hold)
}

// SetPrior sets how strongly the solve pulls the pose toward the
// examples' mean, k of Eq. 5 (0: from the variation the components drop;
// negative: not at all), as one undoable edit; the pose is solved again
// from where it is.
func (p *Pose) SetPrior(h tools.Host, k float64) {
	if p.ed.Prior == k || math.IsNaN(k) || math.IsInf(k, 0) {
		return
	}
	ed := p.ed.clone()
	ed.Prior = k
	name := "Prior: automatic"
	if k != 0 {
		name = fmt.Sprintf("Prior: %.3g", max(k, 0))
	}
	h.Do(&editCmd{p: p, h: h, name: name, before: p.ed, after: ed, shown: p.view(), kind: solve, merge: true})
}

// StayNearer makes the prior ten times stronger than the one in use (at
// least StayNearFloor, at most meshik.MaxStrength) and solves again from the examples' best blend:
// the fix offered when the handles leave the blend undecided or the
// solve ran away.
func (p *Pose) StayNearer(h tools.Host) {
	k := min(max(10*p.compression.Prior, StayNearFloor), meshik.MaxStrength)
	ed := p.ed.clone()
	ed.Prior = k
	p.do(h, fmt.Sprintf("Stay nearer the examples (prior %.3g)", k), ed, restart)
}

// StayNearFloor is the least prior StayNearer sets: strong enough to
// settle weights the handles leave undecided, on examples whose
// components have unit variance (see meshik's pca).
const StayNearFloor = 0.1

// Failure returns the failure of the latest solve, with what to do and
// the fix to offer, or nil.
func (p *Pose) Failure() *Failure {
	var f *Failure
	if p.last.version == p.version && errors.As(p.last.err, &f) {
		return f
	}
	return nil
}

// ApplyFix does what the latest failure's fix offers.
func (p *Pose) ApplyFix(h tools.Host) {
	f := p.Failure()
	if f == nil {
		return
	}
	switch f.Fix {
	case FixResolve:
		p.Resolve(h)
	case FixStayNear:
		p.StayNearer(h)
	case FixCompress:
		p.SetComponents(h, 0)
	}
}
