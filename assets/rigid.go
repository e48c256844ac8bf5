package assets

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

// RigidQuatTolerance is how far from 1 the length of a RigidBody rotation
// may be: |‖q‖ − 1| ≤ RigidQuatTolerance. Rotations are normalised where
// they are used, so this only catches quaternions that are not rotations
// at all (a zero quaternion, a vector stored in the wrong slot).
const RigidQuatTolerance = 1e-6

// RigidAnimation is an animation of rigid bodies, such as a physics
// simulation sampled at a fixed rate: each body is a mesh in its own frame
// placed in the world by a translation and a rotation per frame, and the
// static parts are meshes given in world coordinates. Frame i is shown at
// time i/FPS. Coordinates are model units; glTF readers take them as metres
// with +Y up.
//
// Invariants (checked by Validate): FPS is positive and finite, there is at
// least one body, every body has the same number of frames (at least one),
// one position and one unit rotation per frame, all finite, and every mesh
// is valid and has triangles.
type RigidAnimation struct {
	Name   string
	FPS    float64
	Bodies []RigidBody
	Static []RigidPart
	// View is the direction from the scene toward where it is best seen
	// from (for previews and thumbnails; need not be unit length); zero:
	// the front (+Z), a little above.
	View Vec3
	// FocusLo and FocusHi bound the part of the scene that shows the
	// outcome, which a thumbnail frames; both zero: the whole animation.
	FocusLo, FocusHi Vec3
}

// RigidBody is one moving body of a RigidAnimation. In frame f a point p of
// Mesh (given in the body's own frame, e.g. centred on its centre of mass)
// is at Rotations[f]·p + Positions[f] in the world.
//
// A body may also deform in its own frame by morph targets: with Targets
// set, vertex v of frame f is at Rotations[f]·(pᵥ + Σₖ Weights[f][k]·Targets[k][v])
// + Positions[f] (glTF's morph targets with animated weights, under the
// node's animated translation and rotation). A mesh ensemble's group
// stored by its PCA basis is such a body: the basis vectors are the
// targets, the reduced coordinates the weights.
type RigidBody struct {
	Name      string
	Mesh      *Mesh        // in the body's own frame; bodies may share a mesh
	Color     [3]float32   // linear RGB in [0, 1] (glTF baseColorFactor); all zero: a default colour by body index
	Positions []Vec3       // #frames translations
	Rotations []mgl64.Quat // #frames unit quaternions
	Targets   [][]Vec3     // morph targets, each one displacement per vertex of Mesh; none: rigid
	Weights   [][]float64  // with Targets: #frames rows of len(Targets) weights
}

// RigidPart is a static part of a RigidAnimation: a lane, a table, a bin.
type RigidPart struct {
	Name  string
	Mesh  *Mesh      // in world coordinates
	Color [3]float32 // linear RGB in [0, 1]; all zero: light grey
}

// rigidBodyColors are the colours given to bodies without one: body i
// gets rigidBodyColors[i % len(rigidBodyColors)].
var rigidBodyColors = [...][3]float32{
	{0.80, 0.10, 0.08}, // red
	{0.10, 0.35, 0.80}, // blue
	{0.90, 0.60, 0.05}, // amber
	{0.10, 0.60, 0.20}, // green
	{0.55, 0.15, 0.70}, // purple
	{0.05, 0.65, 0.70}, // teal
}

// rigidPartColor is the colour of static parts without one.
var rigidPartColor = [3]float32{0.6, 0.6, 0.6}

// NumFrames returns the number of frames: that of the first body, or 0
// when there is none.
func (a *RigidAnimation) NumFrames() int {
	if len(a.Bodies) == 0 {
		return 0
	}
	return len(a.Bodies[0].Positions)
}

// Validate checks the invariants documented on RigidAnimation and names
// the first offending body or part and frame, as in
// `rigid animation "bowl": body 3 ("pin 2"): frame 17: rotation has length 0.5, want 1`.
func (a *RigidAnimation) Validate() error {
	if err := a.validate(); err != nil {
		return fmt.Errorf("rigid animation %q: %w", a.Name, err)
	}
	return nil
}

func (a *RigidAnimation) validate() error {
	if !(a.FPS > 0) || math.IsInf(a.FPS, 0) {
		return fmt.Errorf("frame rate %v is not a positive number", a.FPS)
	}
	if len(a.Bodies) == 0 {
		return errors.New("no bodies")
	}
	nf := a.NumFrames()
	if nf == 0 {
		return fmt.Errorf("body 0 (%q): no frames", a.Bodies[0].Name)
	}
	for i := range a.Bodies {
		if err := a.Bodies[i].validate(nf); err != nil {
			return fmt.Errorf("body %d (%q): %w", i, a.Bodies[i].Name, err)
		}
	}
	for i, p := range a.Static {
		if err := validateRigidMesh(p.Mesh, p.Color); err != nil {
			return fmt.Errorf("static part %d (%q): %w", i, p.Name, err)
		}
	}
	return nil
}

// validate checks a body of nf frames.
func (b *RigidBody) validate(nf int) error {
	if err := validateRigidMesh(b.Mesh, b.Color); err != nil {
		return err
	}
	if len(b.Positions) != nf || len(b.Rotations) != nf {
		return fmt.Errorf("%d positions and %d rotations, want %d (one per frame, as body 0 has)", len(b.Positions), len(b.Rotations), nf)
	}
	for f, p := range b.Positions {
		if !finite.Vec3(p) {
			return fmt.Errorf("frame %d: non-finite position %v", f, p)
		}
	}
	for f, q := range b.Rotations {
		if !finite.Vec3(q.V) || math.IsNaN(q.W) || math.IsInf(q.W, 0) {
			return fmt.Errorf("frame %d: non-finite rotation %v", f, q)
		}
		if l := q.Len(); !(math.Abs(l-1) <= RigidQuatTolerance) {
			return fmt.Errorf("frame %d: rotation %v has length %v, want 1 (±%g)", f, q, l, RigidQuatTolerance)
		}
	}
	return b.validateTargets(nf)
}

// validateTargets checks the body's morph targets and weights for nf
// frames.
func (b *RigidBody) validateTargets(nf int) error {
	if len(b.Targets) == 0 {
		if len(b.Weights) != 0 {
			return errors.New("morph weights without targets")
		}
		return nil
	}
	nv := len(b.Mesh.Positions)
	for k, t := range b.Targets {
		if len(t) != nv {
			return fmt.Errorf("morph target %d has %d displacements, want %d (one per vertex)", k, len(t), nv)
		}
		for v, d := range t {
			if !finite.Vec3(d) {
				return fmt.Errorf("morph target %d: vertex %d: non-finite displacement %v", k, v, d)
			}
		}
	}
	if len(b.Weights) != nf {
		return fmt.Errorf("%d rows of morph weights, want %d (one per frame)", len(b.Weights), nf)
	}
	for f, w := range b.Weights {
		if len(w) != len(b.Targets) {
			return fmt.Errorf("frame %d: %d morph weights, want %d (one per target)", f, len(w), len(b.Targets))
		}
		for k, x := range w {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("frame %d: morph weight %d is %v", f, k, x)
			}
		}
	}
	return nil
}

// validateRigidMesh checks the mesh and colour of a body or part.
func validateRigidMesh(m *Mesh, color [3]float32) error {
	if m == nil {
		return errors.New("no mesh")
	}
	if err := m.Validate(); err != nil {
		return fmt.Errorf("mesh %q: %w", m.Name, err)
	}
	if len(m.Triangles) == 0 {
		return fmt.Errorf("mesh %q: no triangles", m.Name)
	}
	for _, c := range color {
		if !(c >= 0 && c <= 1) {
			return fmt.Errorf("colour %v is outside [0, 1]", color)
		}
	}
	return nil
}

// Objects evaluates the animation into Gallop objects after checking it
// with Validate: per body, in order, an object whose mesh is the body's
// mesh placed as in frame 0 (positions and normals) and whose clip (named
// after the animation, at its frame rate) holds the world positions of its
// vertices in every frame; then per static part an object without a clip
// holding a copy of its mesh. Bodies without a name are called "body N",
// parts without one "part N" (N from 1). Loading a file written by
// SaveRigidGLTF gives the same objects, within float32 precision (with the
// vertices of sharp edges split, as SaveGLTF describes, after the mesh's
// own).
func (a *RigidAnimation) Objects() ([]*Object, error) {
	if err := a.Validate(); err != nil {
		return nil, err
	}
	objs := make([]*Object, 0, len(a.Bodies)+len(a.Static))
	for i := range a.Bodies {
		b := &a.Bodies[i]
		clip := &Clip{Name: a.Name, FPS: a.FPS, Frames: make([][]Vec3, len(b.Positions))}
		for f := range clip.Frames {
			clip.Frames[f] = b.place(nil, f)
		}
		m := b.Mesh.Clone()
		m.Positions = append(m.Positions[:0], clip.Frames[0]...)
		r := b.Rotations[0].Normalize()
		for k, n := range m.Normals {
			m.Normals[k] = r.Rotate(n)
		}
		objs = append(objs, &Object{Name: b.displayName(i), Mesh: m, Clip: clip})
	}
	for i, p := range a.Static {
		objs = append(objs, &Object{Name: p.displayName(i), Mesh: p.Mesh.Clone()})
	}
	return objs, nil
}

// Colors returns the colour of each object Objects returns, in the same
// order: each body's (or its default by index), then each static part's
// (or light grey). These are the colours SaveRigidGLTF writes.
func (a *RigidAnimation) Colors() [][3]float32 {
	cs := make([][3]float32, 0, len(a.Bodies)+len(a.Static))
	for i := range a.Bodies {
		cs = append(cs, a.Bodies[i].color(i))
	}
	for i := range a.Static {
		cs = append(cs, a.Static[i].color())
	}
	return cs
}

// place writes into dst (grown as needed and returned) the world positions
// of the body's vertices in frame f: R_f·(p + Σₖ w_fk·d_k) + t_f with R_f
// the normalised rotation and the sum over the morph targets.
func (b *RigidBody) place(dst []Vec3, f int) []Vec3 {
	m := b.Rotations[f].Normalize().Mat4()
	t := b.Positions[f]
	m[12], m[13], m[14] = t[0], t[1], t[2]
	local := b.Mesh.Positions
	if len(b.Targets) > 0 {
		local = slices.Clone(local)
		for k, d := range b.Targets {
			if w := b.Weights[f][k]; w != 0 {
				for v := range local {
					local[v] = local[v].Add(d[v].Mul(w))
				}
			}
		}
	}
	return transformPoints(dst, m, local)
}

// displayName returns the body's name, or "body i+1".
func (b *RigidBody) displayName(i int) string {
	if b.Name != "" {
		return b.Name
	}
	return fmt.Sprintf("body %d", i+1)
}

// displayName returns the part's name, or "part i+1".
func (p *RigidPart) displayName(i int) string {
	if p.Name != "" {
		return p.Name
	}
	return fmt.Sprintf("part %d", i+1)
}

// color returns the body's colour, or its default.
func (b *RigidBody) color(i int) [3]float32 {
	if b.Color != ([3]float32{}) {
		return b.Color
	}
	return rigidBodyColors[i%len(rigidBodyColors)]
}

// color returns the part's colour, or rigidPartColor.
func (p *RigidPart) color() [3]float32 {
	if p.Color != ([3]float32{}) {
		return p.Color
	}
	return rigidPartColor
}
