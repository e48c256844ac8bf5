package plausible

import (
	"errors"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/internal/finite"
)

// Recording is a sample replayed for the eye: every body's pose at each
// frame, and what the bodies and the fixed parts of the scene look like,
// described as shapes that a layer above the solver turns into meshes
// (package tools/gallery makes an assets.RigidAnimation of it). Positions
// are in metres, y up.
type Recording struct {
	Name string
	FPS  float64
	// View is the direction, from the scene's centre toward the eye, that
	// shows it best (zero: any).
	View mgl64.Vec3
	// FocusLo and FocusHi bound the part of the scene that shows the
	// outcome (a thumbnail frames it: the spelling bins, not the balls'
	// drops from above them); both zero: the whole scene.
	FocusLo, FocusHi mgl64.Vec3
	Bodies           []RecordedBody
	Static           []RecordedPart
}

// RecordedBody is a moving body: its look and its pose at every frame
// (Positions and Rotations of the same length, the recording's frames).
// Bodies that look alike share one *Shape.
type RecordedBody struct {
	Name      string
	Color     [3]float32
	Shape     *Shape
	Positions []mgl64.Vec3
	Rotations []mgl64.Quat
}

// RecordedPart is a fixed part of the scene, its shape in world
// coordinates.
type RecordedPart struct {
	Name  string
	Color [3]float32
	Shape *Shape
}

// Shape is what a body or part looks like, in its own frame: primitive
// pieces, and explicit triangles (a height field's surface, partitions)
// when they are not primitives.
type Shape struct {
	// Name names the mesh made of it ("" for none).
	Name   string
	Pieces []Piece
	// Positions and Triangles (0-based, counter-clockwise seen from
	// outside) are explicit triangles, if any.
	Positions []mgl64.Vec3
	Triangles [][3]int
}

// PieceKind is the kind of primitive a Piece is.
type PieceKind int

const (
	// SpherePiece is a sphere of Radius.
	SpherePiece PieceKind = iota
	// BoxPiece is a box of full extents Size.
	BoxPiece
	// CylinderPiece is a cylinder of Radius and Length along z.
	CylinderPiece
	// CapsulePiece is a cylinder of Radius and Length along z capped by
	// hemispheres.
	CapsulePiece
)

// Piece is one primitive of a Shape, centred at Pos in the shape's frame
// and turned by Rot (the zero quaternion: not turned). Segments is how
// finely its round surfaces are to be drawn (around a circle).
type Piece struct {
	Kind     PieceKind
	Radius   float64
	Length   float64
	Size     mgl64.Vec3
	Pos      mgl64.Vec3
	Rot      mgl64.Quat
	Segments int
}

// Turned reports whether the piece is turned (Rot is not the zero
// quaternion).
func (p Piece) Turned() bool { return p.Rot != (mgl64.Quat{}) }

// Validate checks that the recording can be shown: a positive frame rate,
// at least one body, every body with a shape and the same number of
// finite poses, every part with a shape, explicit triangles that index
// their positions.
func (r *Recording) Validate() error {
	if !(r.FPS > 0) || !finite.Float(r.FPS) {
		return fmt.Errorf("recording %q: frame rate %v, want a positive number", r.Name, r.FPS)
	}
	if len(r.Bodies) == 0 {
		return fmt.Errorf("recording %q: no bodies", r.Name)
	}
	frames := len(r.Bodies[0].Positions)
	if frames == 0 {
		return fmt.Errorf("recording %q: no frames", r.Name)
	}
	for _, b := range r.Bodies {
		if len(b.Positions) != frames || len(b.Rotations) != frames {
			return fmt.Errorf("recording %q: body %q has %d positions and %d rotations, want %d", r.Name, b.Name, len(b.Positions), len(b.Rotations), frames)
		}
		for f := range frames {
			if !finite.Vec3(b.Positions[f]) || !finite.Vec3(b.Rotations[f].V) || !finite.Float(b.Rotations[f].W) {
				return fmt.Errorf("recording %q: body %q, frame %d: non-finite pose", r.Name, b.Name, f)
			}
		}
		if err := b.Shape.validate(); err != nil {
			return fmt.Errorf("recording %q: body %q: %w", r.Name, b.Name, err)
		}
	}
	for _, p := range r.Static {
		if err := p.Shape.validate(); err != nil {
			return fmt.Errorf("recording %q: part %q: %w", r.Name, p.Name, err)
		}
	}
	return nil
}

// NumFrames returns the number of frames.
func (r *Recording) NumFrames() int {
	if len(r.Bodies) == 0 {
		return 0
	}
	return len(r.Bodies[0].Positions)
}

func (s *Shape) validate() error {
	if s == nil || len(s.Pieces) == 0 && len(s.Triangles) == 0 {
		return errors.New("no shape")
	}
	positive := func(x float64) bool { return x > 0 && finite.Float(x) }
	for i, p := range s.Pieces {
		ok := finite.Vec3(p.Pos) && finite.Vec3(p.Rot.V) && finite.Float(p.Rot.W)
		switch p.Kind {
		case SpherePiece:
			ok = ok && positive(p.Radius) && p.Segments >= 3
		case BoxPiece:
			ok = ok && positive(p.Size[0]) && positive(p.Size[1]) && positive(p.Size[2])
		case CylinderPiece:
			ok = ok && positive(p.Radius) && positive(p.Length) && p.Segments >= 3
		case CapsulePiece:
			ok = ok && positive(p.Radius) && p.Length >= 0 && finite.Float(p.Length) && p.Segments >= 3
		default:
			ok = false
		}
		if !ok {
			return fmt.Errorf("piece %d (%+v) is not a drawable primitive", i, p)
		}
	}
	for _, t := range s.Triangles {
		for _, v := range t {
			if v < 0 || v >= len(s.Positions) {
				return fmt.Errorf("triangle %v indexes %d positions", t, len(s.Positions))
			}
		}
	}
	return nil
}

// boxAt is a box piece of full extents size centred at c.
func boxAt(size, c mgl64.Vec3) Piece { return Piece{Kind: BoxPiece, Size: size, Pos: c} }

// sphereShape is a shape of one sphere.
func sphereShape(radius float64, segments int) *Shape {
	return &Shape{Pieces: []Piece{{Kind: SpherePiece, Radius: radius, Segments: segments}}}
}
