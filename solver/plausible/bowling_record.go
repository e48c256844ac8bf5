package plausible

// A roll replayed for the eye (Scenario.Record).

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"

	"gallop/solver/rigidbody"
)

// Record implements Scenario: the simulation of s replayed at fps frames
// per second (a frame at every multiple of 1/fps, from the start to the
// early stop): the ball and the pins on the deck as bodies (the pin a
// merged mesh of its parts in the body frame), the lane, gutters,
// cappings, kickbacks and pit as static parts.
func (b *Bowling) Record(s BowlingState, fps float64) (*Recording, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("bowling: frame rate %v, want a positive number", fps)
	}
	var poses []rigidbody.Pose
	frames := 0
	nextFrame := 0.0
	var pinOffset mgl64.Vec3
	_, err := b.simulate(&s, func(bw *bowlWorld, t float64) {
		for _, p := range bw.pins {
			if p != nil {
				pinOffset = p.ModelOffset()
			}
		}
		for t+1e-9 >= nextFrame {
			poses = bw.w.AppendPoses(poses)
			frames++
			nextFrame = float64(frames) / fps
		}
	})
	if err != nil {
		return nil, err
	}
	// Seen from behind the bowler, above the lane.
	a := &Recording{Name: "bowling " + b.Name, FPS: fps, View: mgl64.Vec3{0, 0.5, 1}}
	nb := len(poses) / frames
	body := func(name string, shape *Shape, color [3]float32, k int) RecordedBody {
		rb := RecordedBody{Name: name, Shape: shape, Color: color,
			Positions: make([]mgl64.Vec3, frames), Rotations: make([]mgl64.Quat, frames)}
		for f := 0; f < frames; f++ {
			p := poses[f*nb+k]
			rb.Positions[f], rb.Rotations[f] = p.Pos, p.Rot
		}
		return rb
	}
	a.Bodies = append(a.Bodies, body("ball", sphereShape(s.Radius, 24), [3]float32{0.12, 0.2, 0.6}, 0))
	pin := bowlPinShape(pinOffset)
	k := 1
	for i, on := range b.Start {
		if on {
			a.Bodies = append(a.Bodies, body(fmt.Sprintf("pin %d", i+1), pin, [3]float32{0.95, 0.94, 0.9}, k))
			k++
		}
	}
	for _, bx := range bowlAlley() {
		box := &Shape{Pieces: []Piece{boxAt(bx.hi.Sub(bx.lo), bx.lo.Add(bx.hi).Mul(0.5))}}
		a.Static = append(a.Static, RecordedPart{Name: bx.name, Shape: box, Color: bx.color})
	}
	return a, a.Validate()
}

// bowlPinShape returns a pin's look in its body frame: its parts turned
// and placed as in bowlPinParts and moved by the compound's model offset
// (the body origin is the centre of mass).
func bowlPinShape(offset mgl64.Vec3) *Shape {
	out := &Shape{Name: "pin"}
	for _, p := range bowlPinParts() {
		pc := Piece{Rot: p.Rot, Pos: p.Pos.Add(offset)}
		switch sh := p.Shape.(type) {
		case rigidbody.Cylinder:
			pc.Kind, pc.Radius, pc.Length, pc.Segments = CylinderPiece, sh.Radius, sh.Length, 20
		case rigidbody.Capsule:
			pc.Kind, pc.Radius, pc.Length, pc.Segments = CapsulePiece, sh.Radius, sh.Length, 20
		case rigidbody.Sphere:
			pc.Kind, pc.Radius, pc.Segments = SpherePiece, sh.Radius, 16
		default:
			panic(fmt.Sprintf("plausible: bowling pin part of shape %T", p.Shape))
		}
		out.Pieces = append(out.Pieces, pc)
	}
	return out
}
